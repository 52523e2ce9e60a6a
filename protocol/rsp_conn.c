/*
 * protocol/rsp_conn.c: sending and receiving on one connection.
 */
#include "protocol/rsp_conn.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

void rsp_conn_init(struct rsp_conn *c, int fd, size_t max_payload)
{
	c->fd = fd;
	c->noack = false;
	rsp_frame_init(&c->frame, max_payload);
	rsp_buf_init(&c->wire);
	c->log = NULL;
	c->log_arg = NULL;
}

void rsp_conn_release(struct rsp_conn *c)
{
	rsp_frame_release(&c->frame);
	rsp_buf_release(&c->wire);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_logged(struct rsp_conn *c, const uint8_t *p, size_t len)
{
	if (c->log)
		c->log(c->log_arg, '>', p, len);
	return write_all(c->fd, p, len);
}

int rsp_conn_send(struct rsp_conn *c, const void *payload, size_t len)
{
	int err;

	rsp_buf_reset(&c->wire);
	err = rsp_frame_encode(&c->wire, payload, len);
	if (err)
		return err;
	return send_logged(c, c->wire.data, c->wire.len);
}

int rsp_conn_ack(struct rsp_conn *c, bool good)
{
	uint8_t ch = good ? '+' : '-';

	return c->noack ? 0 : send_logged(c, &ch, 1);
}

int rsp_conn_resend(struct rsp_conn *c)
{
	if (c->noack || c->wire.len == 0)
		return 0;
	return send_logged(c, c->wire.data, c->wire.len);
}

ssize_t rsp_conn_read(struct rsp_conn *c, uint8_t *buf, size_t cap)
{
	ssize_t n;

	do
		n = read(c->fd, buf, cap);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n > 0 && c->log)
		c->log(c->log_arg, '<', buf, (size_t)n);
	return n;
}
