/*
 * protocol/rsp_client.c: the debugger's end of the remote protocol
 * (protocol/rsp_client.h).
 */
#include "protocol/rsp_client.h"

#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "protocol/rsp_hex.h"

#define CLIENT_MAX_PACKET (1u << 20)

int rsp_client_init(struct rsp_client *c, int rfd, int wfd, int timeout_ms)
{
	memset(c, 0, sizeof(*c));
	c->rfd = rfd;
	c->wfd = wfd;
	c->timeout_ms = timeout_ms;
	rsp_frame_init(&c->frame, CLIENT_MAX_PACKET);
	rsp_buf_init(&c->in);
	rsp_buf_init(&c->sent);
	rsp_buf_init(&c->reply);
	rsp_buf_init(&c->console);
	return rsp_buf_reserve(&c->reply, 1);
}

void rsp_client_release(struct rsp_client *c)
{
	rsp_frame_release(&c->frame);
	rsp_buf_release(&c->in);
	rsp_buf_release(&c->sent);
	rsp_buf_release(&c->reply);
	rsp_buf_release(&c->console);
}

static int client_write(struct rsp_client *c, const void *p, size_t n)
{
	const char *b = p;

	while (n > 0) {
		ssize_t w = write(c->wfd, b, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			struct pollfd pfd = { .fd = c->wfd, .events = POLLOUT };

			poll(&pfd, 1, 100);
			continue;
		}
		if (w < 0)
			return errno == EPIPE || errno == ECONNRESET ? -EPIPE : -errno;
		b += w;
		n -= (size_t)w;
	}
	return 0;
}

int rsp_client_send(struct rsp_client *c, const char *payload)
{
	int e;

	rsp_buf_reset(&c->sent);
	rsp_buf_reset(&c->console);
	if ((e = rsp_frame_encode(&c->sent, payload, strlen(payload))) < 0)
		return e;
	return client_write(c, c->sent.data, c->sent.len);
}

int rsp_client_interrupt(struct rsp_client *c)
{
	return client_write(c, "\x03", 1);
}

static long client_ms_since(const struct timespec *t0)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* Feeds the bytes read so far: 1 with a packet (not 'O') in c->reply. */
static int client_feed(struct rsp_client *c)
{
	while (c->in_at < c->in.len) {
		enum rsp_frame_event ev = rsp_frame_feed(&c->frame, c->in.data[c->in_at++]);
		int e;

		if (ev == RSP_FRAME_NACK) {
			if ((e = client_write(c, c->sent.data, c->sent.len)) < 0)
				return e;
			continue;
		}
		if (ev == RSP_FRAME_ERROR)
			return c->frame.error ? c->frame.error : -EBADMSG;
		if (ev != RSP_FRAME_PACKET)
			continue;
		if (!c->frame.csum_ok) {
			if (!c->noack && (e = client_write(c, "-", 1)) < 0)
				return e;
			continue;
		}
		if (!c->noack && (e = client_write(c, "+", 1)) < 0)
			return e;
		const struct rsp_buf *p = &c->frame.payload;

		if (p->len > 1 && p->data[0] == 'O' && (p->len & 1)) {
			/* Console output: hex after the 'O'. */
			size_t n = (p->len - 1) / 2;

			if (rsp_buf_reserve(&c->console, n + 1) == 0 &&
			    rsp_hex_decode((const char *)p->data + 1, n * 2,
					   c->console.data + c->console.len) >= 0) {
				c->console.len += n;
				c->console.data[c->console.len] = 0;
			}
			continue;
		}
		rsp_buf_reset(&c->reply);
		if ((e = rsp_buf_append(&c->reply, p->data, p->len)) < 0 ||
		    (e = rsp_buf_reserve(&c->reply, 1)) < 0)
			return e;
		c->reply.data[c->reply.len] = 0;
		return 1;
	}
	rsp_buf_reset(&c->in);
	c->in_at = 0;
	return 0;
}

int rsp_client_poll(struct rsp_client *c, bool block)
{
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		int r = client_feed(c);
		long left = -1;
		ssize_t n;

		if (r != 0)
			return r;
		if (block && c->timeout_ms >= 0) {
			left = c->timeout_ms - client_ms_since(&t0);
			if (left <= 0)
				return -ETIMEDOUT;
		}
		struct pollfd pfd = { .fd = c->rfd, .events = POLLIN };

		r = poll(&pfd, 1, block ? (int)left : 0);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0) {
			if (!block)
				return 0;
			continue;
		}
		if ((r = rsp_buf_reserve(&c->in, 65536)) < 0)
			return r;
		n = read(c->rfd, c->in.data + c->in.len, 65536);
		if (n == 0 || (n < 0 && errno == ECONNRESET))
			return -EPIPE;
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n < 0)
			return -errno;
		c->in.len += (size_t)n;
	}
}

int rsp_client_call(struct rsp_client *c, const char *payload)
{
	int e = rsp_client_send(c, payload);

	if (e < 0)
		return e;
	e = rsp_client_poll(c, true);
	return e < 0 ? e : 0;
}

bool rsp_client_is_error(const struct rsp_client *c)
{
	const char *r = (const char *)c->reply.data;

	return c->reply.len >= 2 && r[0] == 'E' &&
	       (r[1] == '.' || (c->reply.len == 3 && rsp_hex_digit(r[1]) >= 0 &&
				rsp_hex_digit(r[2]) >= 0));
}
