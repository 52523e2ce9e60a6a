/*
 * stub/recorders/stub_rec_plan.c: the software recorder's decisions at each stop,
 * as pure functions of the stop observed (stub/recorders/stub_rec_plan.h has the
 * rules). No system call, no state: the loop gathers the facts asked for
 * and does the action.
 */
#include "stub/recorders/stub_rec_plan.h"

#include <signal.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

static enum stub_rec_act plan_act(struct stub_rec_plan *p, enum stub_rec_act act)
{
	p->act = act;
	return act;
}

/* Asks for @fact unless @s has it: true if it must be gathered first. */
static bool plan_need(const struct stub_rec_stop *s, struct stub_rec_plan *p, unsigned fact)
{
	if (s->have & fact)
		return false;
	p->need = fact;
	p->act = STUB_REC_A_NEED;
	return true;
}

bool stub_rec_plan_is_restart(long ax)
{
	return ax == -512 || ax == -513 || ax == -514 || ax == -516;
}

static bool plan_maps_syscall(long nr)
{
	return nr == SYS_mmap || nr == SYS_munmap || nr == SYS_mprotect ||
	       nr == SYS_mremap || nr == SYS_shmat || nr == SYS_shmdt ||
	       nr == SYS_pkey_mprotect;
}

/* A PTRACE_EVENT stop of a task inside a syscall. */
static enum stub_rec_act plan_event(const struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	int ev = s->status >> 16;

	if (ev == PTRACE_EVENT_CLONE) {
		if (plan_need(s, p, STUB_REC_NEED_MSG))
			return p->act;
		return plan_act(p, s->msg_known ? STUB_REC_A_CLONE_KNOWN : STUB_REC_A_CLONE_NEW);
	}
	if (ev == PTRACE_EVENT_FORK || ev == PTRACE_EVENT_VFORK) {
		if (plan_need(s, p, STUB_REC_NEED_MSG))
			return p->act;
		return plan_act(p, STUB_REC_A_FORK);
	}
	return plan_act(p, ev == PTRACE_EVENT_EXEC ? STUB_REC_A_EXEC : STUB_REC_A_EVENT);
}

/* The stop of a task resumed over a syscall (not an event). */
static enum stub_rec_act plan_syscall(const struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	int sig = WSTOPSIG(s->status);

	if (plan_need(s, p, STUB_REC_NEED_REGS))
		return p->act;
	if (sig != SIGTRAP && s->rip == s->sc_resume_ip) {
		p->sig = sig;
		p->restart = s->sc_restart;
		return plan_act(p, STUB_REC_A_SIG_BEFORE);
	}
	p->restart = stub_rec_plan_is_restart(s->rax);
	p->sig = sig != SIGTRAP ? sig : 0;
	p->maps = plan_maps_syscall(s->sc_nr);
	return plan_act(p, STUB_REC_A_SYSCALL_DONE);
}

/* The report after a single step over the instruction at s->insn_ip. */
static enum stub_rec_act plan_stepped(const struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	if (WSTOPSIG(s->status) != SIGTRAP || (s->status >> 16)) {
		p->sig = WSTOPSIG(s->status);
		return plan_act(p, STUB_REC_A_SIGNAL);
	}
	if (plan_need(s, p, STUB_REC_NEED_REGS))
		return p->act;
	if (s->rep && s->rip == s->insn_ip)
		return plan_act(p, STUB_REC_A_REP);
	if (!s->known || s->rip == s->expect)
		return plan_act(p, STUB_REC_A_LOG);
	if (s->rip != s->insn_ip)
		return plan_act(p, STUB_REC_A_LOST);
	if (plan_need(s, p, STUB_REC_NEED_SENT))
		return p->act;
	if (!s->sent)
		return plan_act(p, STUB_REC_A_LOST);
	p->sig = SIGTRAP;
	return plan_act(p, STUB_REC_A_SENT_TRAP);
}

/* The report after running to the fall-through s->expect. */
static enum stub_rec_act plan_ran_over(const struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	int sig = WSTOPSIG(s->status);

	if (s->status >> 16)
		return plan_stepped(s, p);
	if (plan_need(s, p, STUB_REC_NEED_REGS))
		return p->act;
	if (s->int3 && sig == SIGTRAP && s->rip == s->expect + 1)
		return plan_act(p, STUB_REC_A_REWIND);
	if (sig != SIGTRAP && s->rip == s->expect) {
		p->sig = sig;
		return plan_act(p, STUB_REC_A_LOG_PENDING);
	}
	return plan_stepped(s, p);
}

/* A report of a thread that has no task. */
static enum stub_rec_act plan_unknown(const struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	if (!WIFSTOPPED(s->status))
		return plan_act(p, STUB_REC_A_NONE);
	if (plan_need(s, p, STUB_REC_NEED_OURS))
		return p->act;
	return plan_act(p, s->ours ? STUB_REC_A_ADOPT : STUB_REC_A_DETACH);
}

enum stub_rec_act stub_rec_plan_report(const struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (s->who == STUB_REC_WHO_UNKNOWN)
		return plan_unknown(s, p);
	if (WIFEXITED(s->status) || WIFSIGNALED(s->status))
		return plan_act(p, STUB_REC_A_GONE);
	if (s->who == STUB_REC_WHO_DELIVERED) {
		p->sig = WSTOPSIG(s->status) != SIGTRAP ? WSTOPSIG(s->status) : 0;
		return plan_act(p, STUB_REC_A_HANDLER);
	}
	if (!WIFSTOPPED(s->status))
		return plan_act(p, STUB_REC_A_NONE);
	switch (s->who) {
	case STUB_REC_WHO_NEW:
		return plan_act(p, STUB_REC_A_FIRST);
	case STUB_REC_WHO_STEPPED:
		return plan_stepped(s, p);
	case STUB_REC_WHO_RAN_OVER:
		return plan_ran_over(s, p);
	case STUB_REC_WHO_SYSCALL:
		return (s->status >> 16) ? plan_event(s, p) : plan_syscall(s, p);
	default:
		return plan_act(p, STUB_REC_A_NONE);
	}
}

enum stub_rec_act stub_rec_plan_ready(const struct stub_rec_ready *f, struct stub_rec_plan *p)
{
	memset(p, 0, sizeof(*p));
	if (f->sig && f->caught)
		return plan_act(p, STUB_REC_A_DELIVER);
	p->interrupt = f->sig != 0;
	return plan_act(p, f->restart ? STUB_REC_A_RESTART : STUB_REC_A_INSN);
}

enum stub_rec_act stub_rec_plan_insn(const struct stub_rec_ready *f, struct stub_rec_plan *p)
{
	bool cpuid = f->cpuid && !f->step_cpuid;

	memset(p, 0, sizeof(*p));
	if (f->kernel)
		return plan_act(p, STUB_REC_A_SYSCALL);
	if (cpuid && !f->sig)
		return plan_act(p, STUB_REC_A_CPUID);
	/* CPUID with a signal to deliver: the program runs it itself. */
	if (cpuid || (f->rep && f->rcx >= STUB_REC_REP_MIN && !f->no_rep_accel))
		return plan_act(p, STUB_REC_A_RUN_OVER);
	return plan_act(p, STUB_REC_A_STEP);
}

unsigned stub_rec_plan_cut(const struct stub_rec_cut_view *v, bool after)
{
	if (!v->snapshot || !v->psb)
		return 0;
	if (!after)
		return STUB_REC_CUT_CKPT;
	return v->ckpt_written ? STUB_REC_CUT_HERE : 0;
}

bool stub_rec_plan_step_done(const struct stub_rec_goal_view *v)
{
	if (v->kind == STUB_REC_GO_CONTINUE || !v->goal_thread || !v->moved || !v->ready ||
	    v->in_rep)
		return false;
	return v->kind == STUB_REC_GO_STEP || v->rip < v->range_start || v->rip >= v->range_end;
}

bool stub_rec_plan_before(const struct stub_rec_goal_view *v, enum stub_rec_pause_kind *kind)
{
	if (v->sig && !v->sig_ok && !v->pass)
		*kind = STUB_REC_PAUSE_SIGNAL;
	else if (stub_rec_plan_step_done(v))
		*kind = STUB_REC_PAUSE_STEP;
	else if (v->at_break)
		*kind = STUB_REC_PAUSE_BREAK;
	else if (v->ends && !v->exit_ok && !v->in_rep)
		*kind = STUB_REC_PAUSE_END;
	else
		return false;
	return true;
}

bool stub_rec_plan_ends(const uint8_t *bytes, size_t len, uint64_t nr, bool others_live,
			int sig, bool restart)
{
	bool syscall = len == 2 && bytes[0] == 0x0f && bytes[1] == 0x05;
	bool int80 = len == 2 && bytes[0] == 0xcd && bytes[1] == 0x80;

	if (sig || restart || (!syscall && !int80))
		return false;
	if (int80)                 /* i386's numbers, in eax */
		nr = (uint32_t)nr == 252 ? SYS_exit_group : (uint32_t)nr == 1 ? SYS_exit : 0;
	return nr == SYS_exit_group || (nr == SYS_exit && !others_live);
}

bool stub_rec_plan_is_break(const uint64_t *breaks, size_t n, uint64_t ip)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (breaks[mid] == ip)
			return true;
		if (breaks[mid] < ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return false;
}
