/*
 * protocol/rsp_server_state.h: what the handlers ask of the server
 * (struct rsp_server, protocol/rsp_server.h): its thread list refreshed,
 * "any" / "all" resolved to a thread, a resume started, the stop reply
 * and an extra packet sent before a reply. The server loop
 * (rsp_server.c) and the handlers (rsp_handlers.c, rsp_btrace.c,
 * rsp_query.c, rsp_resume.c) both call down into it; it calls none of
 * them. Internal to protocol/: nothing outside includes it.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_SERVER_STATE_H
#define HINDSIGHT_PROTOCOL_RSP_SERVER_STATE_H

#include <stddef.h>

#include "protocol/target.h"

struct rsp_buf;
struct rsp_server;

/* Refreshes s->threads from the target; returns the count or an error. */
int rsp_server_threads(struct rsp_server *s);
/* Resolves "any" / "all" in @ptid to a real thread (the last stop's). */
struct rsp_ptid rsp_server_resolve(struct rsp_server *s, struct rsp_ptid ptid);
/* Resumes with per-thread @actions; the stop reply comes later. Fills
 * s->reply with an error reply when the target refuses. */
int rsp_server_resume(struct rsp_server *s, const struct rsp_resume *actions, size_t n);
/* Appends the stop reply for @stop to s->reply (reading the registers to
 * expedite). */
int rsp_server_stop_reply(struct rsp_server *s, const struct rsp_stop *stop);
/* Sends one extra packet before the reply (console output). */
int rsp_server_send(struct rsp_server *s, const struct rsp_buf *payload);

#endif
