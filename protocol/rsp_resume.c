/*
 * protocol/rsp_resume.c: vCont, c / C / s / S and bs / bc as per-thread
 * resume actions.
 *
 * vCont's rule: for each thread the leftmost action whose thread id matches
 * applies; threads no action matches stay stopped. The legacy packets act on
 * the Hc thread as gdbserver does: `c` resumes every thread (the signal goes
 * to the Hc thread); `s` steps the Hc thread alone when Hc names one, else
 * steps the current thread and continues the others.
 */
#include "protocol/rsp_resume.h"

#include <errno.h>
#include <stdlib.h>

#include "protocol/rsp_server.h"
#include "protocol/rsp_server_state.h"

static bool ptid_matches(struct rsp_ptid want, struct rsp_ptid t)
{
	if (want.pid > 0 && want.pid != t.pid)
		return false;
	return want.tid <= 0 || want.tid == t.tid;
}

static void action_to_resume(const struct rsp_client *client, const struct rsp_vcont_action *act,
			     struct rsp_ptid t, struct rsp_resume *out)
{
	out->thread = t;
	out->signo = rsp_client_host_signal(client, act->gdb_signo);
	out->range_start = act->range_start;
	out->range_end = act->range_end;
	switch (act->action) {
	case 'c': case 'C': out->kind = RSP_RESUME_CONTINUE; break;
	case 's': case 'S': out->kind = RSP_RESUME_STEP; break;
	case 'r': out->kind = RSP_RESUME_RANGE; break;
	default: out->kind = RSP_RESUME_STOP; break;
	}
}

static struct rsp_resume *alloc_actions(struct rsp_server *s, int *n)
{
	*n = rsp_server_threads(s);
	if (*n <= 0)
		return NULL;
	return calloc((size_t)*n, sizeof(struct rsp_resume));
}

int rsp_handle_vcont(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_resume *acts;
	size_t used = 0;
	int n, err;

	acts = alloc_actions(s, &n);
	if (!acts)
		return rsp_reply_error(&s->reply, &s->client, n < 0 ? n : -ESRCH, NULL);
	for (int i = 0; i < n; i++) {
		struct rsp_ptid t = s->threads[i].ptid;

		for (size_t a = 0; a < req->u.vcont.n; a++) {
			const struct rsp_vcont_action *act = &req->u.vcont.actions[a];

			if (act->has_thread && !ptid_matches(act->thread, t))
				continue;
			if (act->action != 't')
				action_to_resume(&s->client, act, t, &acts[used++]);
			break;
		}
	}
	err = rsp_server_resume(s, acts, used);
	free(acts);
	return err;
}

/* Moves the pc of @t to @addr first (`c addr`, `s addr`). */
static int set_pc(struct rsp_server *s, struct rsp_ptid t, uint64_t addr)
{
	struct rsp_regs regs = { 0 };

	rsp_regs_set(&regs, RSP_REG_RIP, addr);
	return s->target.ops->write_regs(s->target.ctx, t, &regs);
}

int rsp_handle_legacy_resume(struct rsp_server *s, struct rsp_request *req)
{
	bool step = req->type == RSP_REQ_STEP;
	bool only_hc = step && s->c_thread.tid > 0;
	struct rsp_ptid hc = rsp_server_resolve(s, s->c_thread);
	struct rsp_resume *acts;
	size_t used = 0;
	int n, err;

	if (req->u.resume.has_addr) {
		err = set_pc(s, hc, req->u.resume.addr);
		if (err)
			return rsp_reply_error(&s->reply, &s->client, err, NULL);
	}
	acts = alloc_actions(s, &n);
	if (!acts)
		return rsp_reply_error(&s->reply, &s->client, n < 0 ? n : -ESRCH, NULL);
	for (int i = 0; i < n; i++) {
		struct rsp_ptid t = s->threads[i].ptid;
		bool is_hc = t.tid == hc.tid;

		if (only_hc && !is_hc)
			continue;
		acts[used].thread = t;
		acts[used].kind = step && is_hc ? RSP_RESUME_STEP : RSP_RESUME_CONTINUE;
		acts[used].signo = is_hc ? rsp_client_host_signal(&s->client,
								    req->u.resume.gdb_signo) : 0;
		used++;
	}
	err = rsp_server_resume(s, acts, used);
	free(acts);
	return err;
}

int rsp_handle_reverse(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_resume act = { 0 };

	if (!(s->target.ops->features(s->target.ctx) & RSP_TARGET_REVERSE))
		return 0; /* empty reply: not supported */
	act.thread = rsp_server_resolve(s, s->c_thread);
	act.kind = req->type == RSP_REQ_REVERSE_STEP ? RSP_RESUME_REVERSE_STEP
						     : RSP_RESUME_REVERSE_CONTINUE;
	return rsp_server_resume(s, &act, 1);
}
