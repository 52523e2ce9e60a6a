/*
 * protocol/rsp_server.c: the server loop and reporting stops; above the
 * handlers it calls (rsp_handlers.c) and what they share with it, the
 * threads, resuming and the stop reply (rsp_server_state.c).
 *
 * One poll() loop per connection over the socket and, while the target
 * runs, the target's event fd. Bytes from the socket go through the framing
 * decoder; each packet is acked (until no-ack mode), parsed, handled and
 * answered. Resume requests get no reply until the target stops; a 0x03
 * meanwhile interrupts the target. Nothing here exits or prints: failures
 * become E replies, and a broken connection ends rsp_server_serve().
 */
#include "protocol/rsp_server.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_handlers.h"
#include "protocol/rsp_server_state.h"

int rsp_server_init(struct rsp_server *s, struct rsp_target target,
		    const struct rsp_server_options *opt)
{
	int n;

	memset(s, 0, sizeof(*s));
	s->target = target;
	s->opt = *opt;
	rsp_buf_init(&s->reply);
	rsp_buf_init(&s->scratch);
	rsp_buf_init(&s->tdesc);
	rsp_btrace_init(&s->btrace);
	s->g_thread = (struct rsp_ptid){ 0, 0 };
	s->c_thread = (struct rsp_ptid){ 0, 0 };
	n = rsp_server_threads(s);
	if (n < 0)
		return n;
	s->has_process = n > 0;
	s->last_stop.kind = RSP_STOP_SIGNAL;
	s->last_stop.signo = SIGTRAP;
	if (n > 0)
		s->last_stop.thread = s->threads[0].ptid;
	return 0;
}

void rsp_server_release(struct rsp_server *s)
{
	rsp_buf_release(&s->reply);
	rsp_buf_release(&s->scratch);
	rsp_buf_release(&s->tdesc);
	rsp_btrace_release(&s->btrace);
	free(s->threads);
	s->threads = NULL;
}

/* The target stopped: remember it and answer the resume. */
static int report_stop(struct rsp_server *s, const struct rsp_stop *stop)
{
	int err;

	s->running = false;
	s->last_stop = *stop;
	s->last_stop.message = NULL;   /* said once, not again at `?` */
	if (stop->message) {
		rsp_buf_reset(&s->reply);
		err = rsp_reply_console(&s->reply, stop->message);
		if (!err)
			err = rsp_server_send(s, &s->reply);
		if (err)
			return err;
	}
	if (stop->kind == RSP_STOP_EXITED || stop->kind == RSP_STOP_TERMINATED) {
		s->has_process = false;
	} else if (stop->kind == RSP_STOP_SIGNAL) {
		s->g_thread = stop->thread;
		s->c_thread = stop->thread;
	}
	rsp_buf_reset(&s->reply);
	err = rsp_server_stop_reply(s, stop);
	return err ? err : rsp_server_send(s, &s->reply);
}

static int poll_target(struct rsp_server *s, bool block)
{
	struct rsp_stop stop;
	int r;

	memset(&stop, 0, sizeof(stop));
	r = s->target.ops->wait(s->target.ctx, &stop, block);
	if (r < 0) {
		/* The target cannot say how it stopped: report it gone rather
		 * than leave the client waiting forever. */
		stop.kind = RSP_STOP_TERMINATED;
		stop.signo = SIGKILL;
		stop.thread = s->last_stop.thread;
		r = 1;
	}
	if (r == 0 && stop.message) {
		/* Said while it runs (an O packet, as a program's output). */
		rsp_buf_reset(&s->reply);
		r = rsp_reply_console(&s->reply, stop.message);
		return r ? r : rsp_server_send(s, &s->reply);
	}
	return r == 1 ? report_stop(s, &stop) : 0;
}

static int handle_packet(struct rsp_server *s, bool csum_ok)
{
	struct rsp_frame *f = &s->conn.frame;
	struct rsp_request req;
	int err;

	if (!csum_ok && !s->conn.noack)
		return rsp_conn_ack(&s->conn, false);
	err = rsp_conn_ack(&s->conn, true);
	if (err)
		return err;
	if (s->running)
		return 0; /* all-stop: nothing but 0x03 is expected now */
	rsp_request_parse(f->payload.data, f->payload.len, &req);
	rsp_buf_reset(&s->reply);
	err = rsp_handle_request(s, &req);
	if (err)
		return err;
	if (s->running)
		return 0; /* the reply is the stop reply, later */
	err = rsp_server_send(s, &s->reply);
	if (s->noack_after_reply) {
		s->noack_after_reply = false;
		s->conn.noack = true;
	}
	return err;
}

static int handle_bad_packet(struct rsp_server *s)
{
	int err = rsp_conn_ack(&s->conn, true);
	const char *why = s->conn.frame.error == -EMSGSIZE ? "packet too long" : "malformed packet";

	if (err || s->running)
		return err;
	rsp_buf_reset(&s->reply);
	err = rsp_reply_error(&s->reply, &s->client, s->conn.frame.error, why);
	return err ? err : rsp_server_send(s, &s->reply);
}

static int feed_byte(struct rsp_server *s, uint8_t byte)
{
	switch (rsp_frame_feed(&s->conn.frame, byte)) {
	case RSP_FRAME_PACKET:
		return handle_packet(s, s->conn.frame.csum_ok);
	case RSP_FRAME_ERROR:
		return handle_bad_packet(s);
	case RSP_FRAME_NACK:
		return rsp_conn_resend(&s->conn);
	case RSP_FRAME_INTERRUPT:
		if (s->running)
			s->target.ops->interrupt(s->target.ctx);
		return 0;
	case RSP_FRAME_ACK:
	case RSP_FRAME_NONE:
		return 0;
	}
	return 0;
}

/* Reads what the client sent; 1 at end of stream. */
static int read_client(struct rsp_server *s)
{
	uint8_t buf[4096];
	ssize_t n = rsp_conn_read(&s->conn, buf, sizeof(buf));

	if (n <= 0)
		return n == 0 ? 1 : (int)n;
	for (ssize_t i = 0; i < n; i++) {
		int err = feed_byte(s, buf[i]);

		/* A target without an event fd finishes its resume at once, so
		 * the bytes after the resume packet are read as packets. */
		if (!err && s->running && s->target.ops->event_fd(s->target.ctx) < 0)
			err = poll_target(s, true);
		if (err)
			return err;
	}
	return 0;
}

/* The client is gone while the target runs: stop it, so the process is
 * in a known state for the next client (or for the kill at exit). */
static void stop_running_target(struct rsp_server *s)
{
	struct rsp_stop stop;

	if (!s->running)
		return;
	s->target.ops->interrupt(s->target.ctx);
	if (s->target.ops->wait(s->target.ctx, &stop, true) == 1) {
		s->last_stop = stop;
		if (stop.kind == RSP_STOP_EXITED || stop.kind == RSP_STOP_TERMINATED)
			s->has_process = false;
	}
	s->running = false;
}

static bool quit_asked(const struct rsp_server *s)
{
	return s->opt.quit && *s->opt.quit;
}

static int serve_loop(struct rsp_server *s)
{
	for (;;) {
		struct pollfd p[2] = { { .fd = s->conn.fd, .events = POLLIN } };
		int efd = s->running ? s->target.ops->event_fd(s->target.ctx) : -1;
		int r;

		if (s->running && efd < 0) {
			r = poll_target(s, true);
			if (r)
				return r;
			continue;
		}
		if (quit_asked(s))
			return RSP_SERVE_QUIT;
		p[1].fd = efd;
		p[1].events = POLLIN;
		/* A signal between the look at quit and poll is seen within a
		 * second; otherwise poll's EINTR brings it at once. */
		if (poll(p, s->running ? 2 : 1, s->opt.quit ? 1000 : -1) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (s->running && (p[1].revents & POLLIN)) {
			r = poll_target(s, false);
			if (r)
				return r;
		}
		if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			r = read_client(s);
			if (r)
				return r;
		}
	}
}

int rsp_server_serve(struct rsp_server *s, int fd)
{
	int r;

	rsp_conn_init(&s->conn, fd, RSP_PACKET_SIZE);
	s->conn.log = s->opt.log;
	s->conn.log_arg = s->opt.log_arg;
	memset(&s->client, 0, sizeof(s->client));
	s->noack_after_reply = false;
	rsp_vfile_init(&s->vfile, &s->target, s->opt.vfile_any);
	r = serve_loop(s);
	stop_running_target(s);
	rsp_vfile_release(&s->vfile);
	rsp_conn_release(&s->conn);
	if (r == RSP_SERVE_QUIT)
		return r;
	if (r < 0 && r != -EPIPE && r != -ECONNRESET)
		return r;
	return s->has_process ? RSP_SERVE_DISCONNECTED : RSP_SERVE_GONE;
}
