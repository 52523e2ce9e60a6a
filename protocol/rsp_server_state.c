/*
 * protocol/rsp_server_state.c: what the handlers ask of the server (see
 * rsp_server_state.h): its threads, "any" / "all" resolved, resuming and
 * the stop reply, an extra packet. Below the server loop (rsp_server.c)
 * and every handler, which call it; it calls the target, the reply
 * builders and the connection only.
 */
#include "protocol/rsp_server_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_server.h"

int rsp_server_threads(struct rsp_server *s)
{
	for (;;) {
		int n = s->target.ops->threads(s->target.ctx, s->threads, s->threads_cap);
		struct rsp_thread_info *grown;

		if (n < 0)
			return n;
		if ((size_t)n <= s->threads_cap) {
			s->nthreads = (size_t)n;
			return n;
		}
		grown = realloc(s->threads, (size_t)n * 2 * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		s->threads = grown;
		s->threads_cap = (size_t)n * 2;
	}
}

struct rsp_ptid rsp_server_resolve(struct rsp_server *s, struct rsp_ptid ptid)
{
	if (ptid.tid > 0)
		return (struct rsp_ptid){ ptid.pid > 0 ? ptid.pid : s->last_stop.thread.pid, ptid.tid };
	return s->last_stop.thread;
}

int rsp_server_send(struct rsp_server *s, const struct rsp_buf *payload)
{
	return rsp_conn_send(&s->conn, payload->data, payload->len);
}

int rsp_server_resume(struct rsp_server *s, const struct rsp_resume *actions, size_t n)
{
	int err = n ? s->target.ops->resume(s->target.ctx, actions, n) : -ESRCH;

	if (err)
		return rsp_reply_error(&s->reply, &s->client, err, strerror(err < 0 ? -err : err));
	s->running = true;
	return 0;
}

/* LLDB's threads: / thread-pcs: list for the stop reply. */
static int thread_pcs(struct rsp_server *s, uint64_t **pcs)
{
	struct rsp_regs regs;
	int n = rsp_server_threads(s);

	*pcs = NULL;
	if (n <= 0)
		return n;
	*pcs = calloc((size_t)n, sizeof(**pcs));
	if (!*pcs)
		return -ENOMEM;
	for (int i = 0; i < n; i++)
		if (s->target.ops->read_regs(s->target.ctx, s->threads[i].ptid, &regs) == 0)
			(*pcs)[i] = rsp_regs_get(&regs, RSP_REG_RIP);
	return n;
}

int rsp_server_stop_reply(struct rsp_server *s, const struct rsp_stop *stop)
{
	struct rsp_stop_extra extra = { 0 };
	struct rsp_regs regs;
	uint64_t *pcs = NULL;
	int err;

	if (stop->kind == RSP_STOP_SIGNAL) {
		memset(&regs, 0, sizeof(regs));
		if (s->target.ops->read_regs(s->target.ctx, stop->thread, &regs) == 0)
			extra.regs = &regs;
		if (s->client.threads_in_stop && thread_pcs(s, &pcs) > 0) {
			extra.threads = s->threads;
			extra.thread_pcs = pcs;
			extra.nthreads = s->nthreads;
		}
	}
	err = rsp_reply_stop(&s->reply, &s->client, stop, &extra);
	free(pcs);
	return err;
}
