/*
 * protocol/rsp_handlers.h: what each request means.
 *
 * One handler per request type, chosen through a table indexed by
 * enum rsp_req_type. A handler asks the target and appends its reply to
 * s->reply (or starts a resume, whose reply is the later stop reply).
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_HANDLERS_H
#define HINDSIGHT_PROTOCOL_RSP_HANDLERS_H

#include "protocol/rsp_packet.h"

struct rsp_server;

/* Handles @req. Returns 0 (the reply, possibly an error reply, is in
 * s->reply) or a negative errno when the connection itself failed. */
int rsp_handle_request(struct rsp_server *s, struct rsp_request *req);

#endif
