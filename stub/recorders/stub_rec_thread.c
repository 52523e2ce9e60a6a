/*
 * stub/recorders/stub_rec_thread.c: one instruction's packets, by libipt's class.
 */
#include "stub/recorders/stub_rec_thread.h"

int stub_rec_thread_init(struct stub_rec_thread *t, pid_t tid, FILE *pt_out,
			 uint32_t psb_period, bool retcomp, uint64_t time)
{
	int r;

	t->tid = tid;
	t->ninsn = 0;
	r = stub_swpt_init(&t->pt, pt_out, psb_period, retcomp);
	if (r < 0)
		return r;
	return stub_swpt_begin(&t->pt, time);
}

void stub_rec_thread_release(struct stub_rec_thread *t)
{
	stub_swpt_release(&t->pt);
}

int stub_rec_thread_enter(struct stub_rec_thread *t, uint64_t ip, uint64_t time)
{
	if (t->pt.enabled)
		return 0;
	return stub_swpt_enable(&t->pt, ip, time);
}

int stub_rec_thread_interrupt(struct stub_rec_thread *t, uint64_t ip)
{
	if (!t->pt.enabled)
		return 0;
	return stub_swpt_async_disable(&t->pt, ip);
}

/* The packets of @insn (pt_insn_proceed's cases). */
static int stub_rec_thread_packets(struct stub_swpt *w, const struct stub_rec_insn *insn,
				   uint64_t after)
{
	uint64_t next = insn->ip + insn->len;

	switch (insn->cls) {
	case STUB_REC_COND:
		return stub_swpt_cond(w, after != next);
	case STUB_REC_CALL:
		if (insn->push)
			stub_swpt_call(w, next);
		return 0;
	case STUB_REC_CALL_IND:
		stub_swpt_call(w, next);
		return stub_swpt_indirect(w, after);
	case STUB_REC_JUMP_IND:
	case STUB_REC_FAR:
		return stub_swpt_indirect(w, after);
	case STUB_REC_RET:
		return stub_swpt_ret(w, after);
	case STUB_REC_KERNEL:
		return stub_swpt_disable(w);
	default:
		return 0;
	}
}

int stub_rec_thread_step(struct stub_rec_thread *t, const struct stub_rec_insn *insn,
			 uint64_t after, uint64_t time)
{
	int r = stub_rec_thread_packets(&t->pt, insn, after);

	if (r < 0)
		return r;
	t->ninsn++;
	return stub_swpt_boundary(&t->pt, after, time);
}
