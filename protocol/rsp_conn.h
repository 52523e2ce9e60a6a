/*
 * protocol/rsp_conn.h: one client connection: bytes in, framed packets out.
 *
 * Owns the framing decoder, the acknowledgement mode and the last packet
 * sent (resent when the client answers `-`). The transport is a file
 * descriptor: a socket in the stub, a socketpair or pipe in tests.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_CONN_H
#define HINDSIGHT_PROTOCOL_RSP_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_frame.h"

/* Called with every framed packet or ack that crosses the connection:
 * @dir is '<' for received, '>' for sent. */
typedef void (*rsp_log_fn)(void *arg, char dir, const uint8_t *data, size_t len);

struct rsp_conn {
	int fd;
	bool noack;             /* after QStartNoAckMode: no + / - at all */
	struct rsp_frame frame;
	struct rsp_buf wire;    /* the last packet sent, framed */
	rsp_log_fn log;
	void *log_arg;
};

void rsp_conn_init(struct rsp_conn *c, int fd, size_t max_payload);
void rsp_conn_release(struct rsp_conn *c);

/* Frames and sends @payload. 0 or a negative errno (-EPIPE: gone). */
int rsp_conn_send(struct rsp_conn *c, const void *payload, size_t len);
/* Sends `+` or `-` unless acks are off. */
int rsp_conn_ack(struct rsp_conn *c, bool good);
/* Sends the last packet again (the client said `-`). */
int rsp_conn_resend(struct rsp_conn *c);
/* Reads what is available: the count, 0 at end of stream, or a negative
 * errno. */
ssize_t rsp_conn_read(struct rsp_conn *c, uint8_t *buf, size_t cap);

#endif
