/*
 * protocol/rsp_btrace.h: handlers for GDB's branch-trace packets
 * (Qbtrace, Qbtrace-conf, qXfer:btrace:read, qXfer:btrace-conf:read).
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_BTRACE_H
#define HINDSIGHT_PROTOCOL_RSP_BTRACE_H

#include <stdint.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_packet.h"

struct rsp_server;

/* Per server: the buffer sizes GDB asked for, the object being read. */
struct rsp_btrace_state {
	uint64_t size[2];          /* by enum rsp_btrace_format */
	struct rsp_buf object;     /* the btrace / btrace-conf XML being read */
};

void rsp_btrace_init(struct rsp_btrace_state *b);
void rsp_btrace_release(struct rsp_btrace_state *b);

/* Appends the qSupported features for what the target can trace (nothing
 * when it cannot). 0 or -ENOMEM. */
int rsp_btrace_supported(struct rsp_server *s, struct rsp_buf *out);

/* Handlers: 0 (reply in s->reply) or a negative errno of the connection. */
int rsp_handle_btrace(struct rsp_server *s, struct rsp_request *req);
int rsp_handle_btrace_conf(struct rsp_server *s, struct rsp_request *req);
/* qXfer:btrace:read and qXfer:btrace-conf:read. */
int rsp_btrace_xfer(struct rsp_server *s, struct rsp_request *req);

#endif
