/*
 * stub/recorders/stub_rec_live.c: the software recorder driven by a debugger.
 *
 * The same tasks and steps as the recording loop of stub_rec_loop.c, run in
 * bursts towards a goal (continue, step, range step) and paused where a
 * debugger expects a stop: before an instruction at a breakpoint, after the
 * instruction that changed watched bytes, before a signal is delivered (the
 * debugger decides whether it is), when the step ends, on interrupt, at the
 * exit. Between bursts nothing blocks: a burst returns when no thread can
 * run until a syscall completes, and the caller waits for SIGCHLD.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_priv.h"
#include "stub/recorders/stub_rec_state_ops.h"

/* Reads every watched range; 1 with @out filled if one changed. */
static int live_check_watches(struct stub_rec *r, struct stub_rec_goal *g,
			      struct stub_rec_pause *out)
{
	int hit = 0;

	for (size_t i = 0; i < g->nwatches; i++) {
		struct stub_rec_watch *w = &g->watches[i];
		uint8_t now[STUB_REC_WATCH_MAX];

		if (stub_mem_read(&r->mem, w->addr, now, w->len) != (int)w->len)
			continue;          /* unmapped now: nothing to compare */
		if (w->known && memcmp(now, w->val, w->len) != 0 && !hit) {
			hit = 1;
			out->kind = STUB_REC_PAUSE_WATCH;
			out->tid = r->last_mover ? r->last_mover->th.tid : r->pid;
			out->watch_addr = w->addr;
		}
		memcpy(w->val, now, w->len);
		w->known = true;
	}
	return hit;
}

/* Whether the instruction @t runs next reads (or, for an access
 * watchpoint, reads or writes) watched bytes: 1 with @out filled. A rep
 * string instruction is checked once, over all its iterations. */
static int live_access_check(struct stub_rec *r, const struct stub_rec_goal *g,
			     struct stub_rec_task *t, struct stub_rec_pause *out)
{
	struct stub_rec_span sp[STUB_REC_SPANS];
	struct stub_rec_insn insn;
	int n[2] = { -1, -1 };

	if (!g->naccesses || t->in_rep || t->sig || t->restart ||
	    stub_rec_icache_get(&r->icache, r->mem.fd, t->regs.rip, &insn) < 0)
		return 0;
	for (size_t i = 0; i < g->naccesses; i++) {
		const struct stub_rec_access *a = &g->accesses[i];
		unsigned ro = a->read_only;

		if (n[ro] < 0)
			n[ro] = stub_rec_state_ops(&r->icache.dec, &insn, &t->regs, NULL, 0,
						   &(struct stub_rec_xoff){ 0 }, r->sp.xsave_size,
						   ro ? ZYDIS_OPERAND_ACTION_MASK_READ
						      : ZYDIS_OPERAND_ACTION_MASK_READ |
							ZYDIS_OPERAND_ACTION_MASK_WRITE,
						   sp + (ro ? STUB_REC_SPANS / 2 : 0), STUB_REC_SPANS / 2);
		for (int k = 0; k < n[ro]; k++) {
			const struct stub_rec_span *s = &sp[k + (ro ? STUB_REC_SPANS / 2 : 0)];

			if (s->addr < a->addr + a->len && a->addr < s->addr + s->len) {
				memset(out, 0, sizeof(*out));
				out->kind = ro ? STUB_REC_PAUSE_READ : STUB_REC_PAUSE_ACCESS;
				out->tid = t->th.tid;
				out->watch_addr = a->addr;
				return 1;
			}
		}
	}
	return 0;
}

/* The goal as @t sees it before its next instruction. */
static struct stub_rec_goal_view live_view(const struct stub_rec *r,
					   const struct stub_rec_goal *g,
					   const struct stub_rec_task *t)
{
	struct stub_rec_goal_view v = {
		.kind = g->kind, .goal_thread = t->th.tid == g->tid,
		.moved = t->moves != r->goal_moves, .ready = t->state == STUB_REC_READY,
		.in_rep = t->in_rep, .rip = t->regs.rip, .range_start = g->range_start,
		.range_end = g->range_end, .sig = t->sig, .sig_ok = t->sig_ok,
		.pass = g->pass && t->sig > 0 && t->sig < RSP_NSIG && g->pass[t->sig],
	};

	v.at_break = stub_rec_plan_is_break(g->breaks, g->nbreaks, t->regs.rip);
	return v;
}

/* The stepped task has moved and, for a range step, left the range. */
static bool live_step_done(const struct stub_rec *r, const struct stub_rec_goal *g,
			   const struct stub_rec_task *t)
{
	struct stub_rec_goal_view v = live_view(r, g, t);

	return stub_rec_plan_step_done(&v);
}

/* Whether a thread other than @t may still run: not gone, nor inside
 * exit (a thread-group leader that called it stays until the last). */
static bool live_others(const struct stub_rec *r, const struct stub_rec_task *t)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		const struct stub_rec_task *o = r->tasks[i];

		if (o != t && o->state != STUB_REC_GONE &&
		    !(o->state == STUB_REC_SYSCALL && o->sc_nr == SYS_exit))
			return true;
	}
	return false;
}

/* Whether READY @t's next instruction ends the process. Only an exit
 * syscall number in rax costs a look at the instruction. */
static bool live_ends(struct stub_rec *r, const struct stub_rec_task *t)
{
	uint32_t nr = (uint32_t)t->regs.rax;
	struct stub_rec_insn insn;

	if (nr != SYS_exit_group && nr != SYS_exit && nr != 252 && nr != 1)
		return false;
	if (t->sig || t->restart || t->in_rep ||
	    stub_rec_icache_get(&r->icache, r->mem.fd, t->regs.rip, &insn) < 0)
		return false;
	return stub_rec_plan_ends(insn.bytes, insn.len, t->regs.rax, live_others(r, t), t->sig,
				  t->restart);
}

/* Why @t should not run its next instruction, if it should not. */
static bool live_check_before(struct stub_rec *r, const struct stub_rec_goal *g,
			      struct stub_rec_task *t, struct stub_rec_pause *out)
{
	struct stub_rec_goal_view v = live_view(r, g, t);
	enum stub_rec_pause_kind kind;

	memset(out, 0, sizeof(*out));
	out->tid = t->th.tid;
	v.exit_ok = g->exit_ok;
	v.ends = !g->exit_ok && live_ends(r, t);
	if (!stub_rec_plan_before(&v, &kind))
		return false;
	out->kind = kind;
	if (kind == STUB_REC_PAUSE_SIGNAL) {
		out->sig = t->sig;
		t->sig_reported = true;
	} else if (kind == STUB_REC_PAUSE_END) {
		out->sig = (int)(uint32_t)t->regs.rax;
	}
	return true;
}

/* Every stopped thread's trace ends where it is. 1. */
static int live_pause(struct stub_rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct stub_rec_task *t = r->tasks[i];

		if (t->state == STUB_REC_READY && !t->in_rep)
			stub_rec_thread_interrupt(&t->th, t->regs.rip);
	}
	r->lcur = NULL;
	r->lprev = NULL;
	return 1;
}

static int live_exited(struct stub_rec *r, struct stub_rec_pause *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = STUB_REC_PAUSE_EXITED;
	out->tid = r->pid;
	if (r->b->exit_kind && strcmp(r->b->exit_kind, "signaled") == 0)
		out->sig = r->b->exit_status;
	else
		out->status = r->b->exit_status;
	return 1;
}

/* The task to run now: the current slice's, else the next in turn. */
static struct stub_rec_task *live_pick(struct stub_rec *r, const struct stub_rec_goal *g)
{
	struct stub_rec_task *t = r->lcur, *only = g->only ? stub_rec_find(r, g->tid) : NULL;

	if (g->only && (only || g->kind != STUB_REC_GO_CONTINUE)) {
		/* The one thread allowed to run gets slice after slice: a
		 * used-up slice here would leave nothing to run and nothing to
		 * wait for (a range step that stays in its range past a slice
		 * looped on, deaf to the debugger's interrupt). A continue of
		 * one thread alone whose thread is gone goes on with all. */
		t = only;
		if (!t || t->state != STUB_REC_READY)
			return NULL;
		if (t != r->lcur || r->lused >= r->opt.slice)
			r->lused = 0;
		return t;
	}
	if (t && t->state == STUB_REC_READY && !t->held && r->lused < r->opt.slice)
		return t;
	r->lused = 0;
	return stub_rec_pick(r);
}

int stub_rec_goal_start(struct stub_rec *r, struct stub_rec_goal *g)
{
	struct stub_rec_task *t = g->kind == STUB_REC_GO_CONTINUE ? NULL : stub_rec_find(r, g->tid);
	struct stub_rec_pause ignored;

	if (g->kind != STUB_REC_GO_CONTINUE && !t)
		return -ESRCH;
	r->goal_moves = t ? t->moves : 0;
	r->blocked = false;
	r->no_rep_accel = g->naccesses > 0;
	for (size_t i = 0; i < g->nwatches; i++)
		g->watches[i].known = false;
	live_check_watches(r, g, &ignored);
	for (size_t i = 0; i < r->ntasks; i++)
		r->tasks[i]->sig_reported = false;
	return 0;
}

int stub_rec_set_signal(struct stub_rec *r, pid_t tid, int sig)
{
	struct stub_rec_task *t = stub_rec_find(r, tid);

	if (!t)
		return -ESRCH;
	if (t->sig_reported || sig) {
		t->sig = sig;
		t->sig_ok = sig != 0;
	}
	t->sig_reported = false;
	return 0;
}

int stub_rec_run_until(struct stub_rec *r, struct stub_rec_goal *g, uint32_t budget,
		       struct stub_rec_pause *out)
{
	uint32_t n = 0;
	int e;

	while (n < budget) {
		struct stub_rec_task *t;

		while ((e = stub_rec_collect(r, WNOHANG)) > 0)
			if (live_check_watches(r, g, out))
				return live_pause(r);
		if (e < 0 && e != -ECHILD)
			return e;
		if (r->exited || !stub_rec_live(r) || e == -ECHILD)
			return live_exited(r, out);
		t = live_pick(r, g);
		if (r->interrupt) {
			r->interrupt = 0;
			memset(out, 0, sizeof(*out));
			out->kind = STUB_REC_PAUSE_INTERRUPT;
			out->tid = t ? t->th.tid : (g->kind != STUB_REC_GO_CONTINUE ? g->tid : r->pid);
			return live_pause(r);
		}
		r->blocked = !t;
		if (!t)
			return 0;          /* every thread that may run is in a syscall */
		if (r->lprev && r->lprev != t && r->lprev->state == STUB_REC_READY) {
			e = stub_rec_thread_interrupt(&r->lprev->th, r->lprev->regs.rip);
			if (e < 0)
				return e;
		}
		r->lcur = r->lprev = t;
		while (n < budget && t->state == STUB_REC_READY && r->lused < r->opt.slice &&
		       !r->interrupt) {
			struct stub_rec_pause access;
			uint64_t moves = t->moves;
			int hit;

			if (!t->in_rep && live_check_before(r, g, t, out))
				return live_pause(r);
			hit = live_access_check(r, g, t, &access);
			e = stub_rec_step(r, t);
			if (e < 0)
				return e;
			t->sig_ok = false;     /* a step delivers what was pending */
			n++;
			r->lused++;
			/* Reported once it ran (or began to, for a rep). */
			if (hit && t->state == STUB_REC_READY && (t->moves != moves || t->in_rep)) {
				*out = access;
				return live_pause(r);
			}
			if (t->in_rep)
				continue;
			if (live_check_watches(r, g, out))
				return live_pause(r);
			if (live_step_done(r, g, t)) {
				memset(out, 0, sizeof(*out));
				out->kind = STUB_REC_PAUSE_STEP;
				out->tid = t->th.tid;
				return live_pause(r);
			}
		}
		e = stub_rec_periodic(r);
		if (e < 0)
			return e;
	}
	return 0;
}

pid_t stub_rec_pause_all(struct stub_rec *r)
{
	pid_t tid = r->lcur ? r->lcur->th.tid : r->pid;

	live_pause(r);
	return tid;
}

bool stub_rec_waiting(const struct stub_rec *r)
{
	return r->blocked;
}

void stub_rec_interrupt(struct stub_rec *r)
{
	r->interrupt = 1;
}

bool stub_rec_interrupted(const struct stub_rec *r)
{
	return r->interrupt != 0;
}

int stub_rec_sync(struct stub_rec *r)
{
	/* A reader of what is saved now extends it later by what comes
	 * after (replay_index_extend decodes from the last PSB): each
	 * thread's next instruction starts at a PSB, so that costs only what
	 * was recorded since. */
	for (size_t i = 0; i < r->ntasks; i++)
		r->tasks[i]->th.pt.psb_asked = true;
	return stub_rec_save(r);
}

int stub_rec_end(struct stub_rec *r, bool detach)
{
	if (detach && !r->exited)
		stub_rec_detach_all(r);
	else
		r->stop = 1;
	return stub_rec_finish(r, 0);
}

size_t stub_rec_tids(const struct stub_rec *r, pid_t *out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < r->ntasks; i++) {
		const struct stub_rec_task *t = r->tasks[i];

		if (t->state == STUB_REC_GONE || t->state == STUB_REC_NEW)
			continue;
		if (n < max)
			out[n] = t->th.tid;
		n++;
	}
	return n;
}

bool stub_rec_has_thread(const struct stub_rec *r, pid_t tid)
{
	const struct stub_rec_task *t = stub_rec_find(r, tid);

	return t && t->state != STUB_REC_NEW;
}

int stub_rec_task_regs(const struct stub_rec *r, pid_t tid, struct user_regs_struct *out,
		       bool *stopped)
{
	const struct stub_rec_task *t = stub_rec_find(r, tid);

	if (!t || t->state == STUB_REC_NEW)
		return -ESRCH;
	*out = t->regs;
	*stopped = t->state == STUB_REC_READY;
	return 0;
}

int stub_rec_regs_changed(struct stub_rec *r, pid_t tid)
{
	struct stub_rec_task *t = stub_rec_find(r, tid);

	if (!t || t->state != STUB_REC_READY)
		return -ESRCH;
	/* The state log sees the difference at the thread's next step
	 * (stub_rec_state_ready): a change without an instruction. */
	return ptrace(PTRACE_GETREGS, tid, 0, &t->regs) < 0 ? -errno : 0;
}

int stub_rec_write_mem(struct stub_rec *r, pid_t tid, uint64_t addr, const void *buf,
		       size_t len)
{
	struct stub_rec_task *t = stub_rec_find(r, tid);
	int e;

	/* Logged in a stopped thread's log, between two of its instructions;
	 * one half-way through a rep string instruction has its own pending. */
	for (size_t i = 0; (!t || t->state != STUB_REC_READY || t->in_rep) && i < r->ntasks; i++)
		t = r->tasks[i];
	if (!t || t->state != STUB_REC_READY || t->in_rep)
		return stub_mem_write(&r->mem, addr, buf, len);
	e = stub_rec_state_poke_before(&t->st, &r->sp, addr, len);
	if (e >= 0)
		e = stub_mem_write(&r->mem, addr, buf, len);
	if (e >= 0)
		e = stub_rec_state_poke_after(&t->st, &r->sp, t->th.ninsn, r->clock);
	else
		stub_rec_state_drop(&t->st);
	return e;
}

int stub_rec_mem_fd(const struct stub_rec *r)
{
	return r->mem.fd;
}

pid_t stub_rec_pid(const struct stub_rec *r)
{
	return r->pid;
}

bool stub_rec_alive(const struct stub_rec *r)
{
	return !r->exited && stub_rec_live(r);
}
