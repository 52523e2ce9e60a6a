/*
 * protocol/rsp_client.h: the debugger's end of the remote protocol, for a
 * stub that serves another stub to its own debugger (`serve --record
 * valgrind` talks to Valgrind's gdbserver through vgdb).
 *
 * One request at a time: a request is sent, then its reply read; a resume
 * is sent, and its stop reply read when it comes (rsp_client_poll). Acks
 * are sent and taken as the peer wants them (until QStartNoAckMode); a
 * packet the peer did not take ('-') is sent again. 'O' packets (the
 * peer's console output) that come before a reply are gathered, not taken
 * for it.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_CLIENT_H
#define HINDSIGHT_PROTOCOL_RSP_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_frame.h"

struct rsp_client {
	int rfd, wfd;
	struct rsp_frame frame;
	struct rsp_buf in;         /* bytes read, not fed to frame yet from in_at */
	size_t in_at;
	struct rsp_buf sent;       /* the last packet, framed: sent again on '-' */
	struct rsp_buf reply;      /* the last reply, NUL-terminated */
	struct rsp_buf console;    /* 'O' output since the last request */
	bool noack;
	int timeout_ms;            /* for a request's reply (not a resume's) */
};

/* @rfd and @wfd are the peer's (not owned; nonblocking is fine). */
int rsp_client_init(struct rsp_client *c, int rfd, int wfd, int timeout_ms);
void rsp_client_release(struct rsp_client *c);

/* Sends the packet @payload (NUL-terminated). 0, or a negative errno
 * (-EPIPE: the peer is gone). */
int rsp_client_send(struct rsp_client *c, const char *payload);
/* Sends a bare 0x03 (an interrupt). */
int rsp_client_interrupt(struct rsp_client *c);
/* Reads the peer's next packet other than 'O' (a reply, or a resume's
 * stop reply) into c->reply. @block: waits for it (up to timeout_ms, or
 * for ever when that is negative). 1 with the packet, 0 when none has
 * come yet (!@block), -ETIMEDOUT, -EPIPE (the peer is gone), -EBADMSG. */
int rsp_client_poll(struct rsp_client *c, bool block);
/* Sends @payload and reads its reply: 0 with it in c->reply.data, or a
 * negative errno as above. */
int rsp_client_call(struct rsp_client *c, const char *payload);
/* A reply "Exx" or "E.text": true. */
bool rsp_client_is_error(const struct rsp_client *c);

#endif
