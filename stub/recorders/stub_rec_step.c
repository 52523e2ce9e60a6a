/*
 * stub/recorders/stub_rec_step.c: one step of a READY task of the software
 * recorder (stub_rec_step), and what its report means (stub_rec.c's
 * comment says how a step is read).
 *
 * Each step is checked against where its instruction goes: a lost trap is
 * a "state-unknown" gap, never a shifted position. CPUID is run by the
 * recorder; a rep string instruction (or one whose step loses its trap)
 * runs to its fall-through at full speed; a caught signal is delivered
 * and the thread stops at its handler; a syscall instruction is handed to
 * stub_rec_collect.c. What to do is decided by
 * stub/recorders/stub_rec_plan.h; this file does the ptrace. Above
 * stub_rec_collect.c and stub_rec_tasks.c, below the loop.
 */
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>

#include "protocol/rsp_buf.h"
#include "stub/live/stub_mem.h"
#include "stub/live/stub_probe.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_next.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_priv.h"

/* --- small helpers ------------------------------------------------------ */

/* Whether the process has a handler for @sig (SigCgt of its status). */
static bool stub_rec_caught(pid_t pid, int sig)
{
	struct rsp_buf text;
	const char *p;
	uint64_t mask = 0;

	rsp_buf_init(&text);
	if (stub_procfs_read(pid, "status", &text) == 0 &&
	    (p = strstr((const char *)text.data, "SigCgt:")))
		mask = strtoull(p + 7, NULL, 16);
	rsp_buf_release(&text);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

/* --- stepping a READY task ------------------------------------------- */

/* Delivers the caught signal pending on @t: it stops at the handler. */
static int stub_rec_deliver(struct stub_rec *r, struct stub_rec_task *t)
{
	struct stub_rec_plan p;
	int st, e;

	e = stub_rec_thread_interrupt(&t->th, t->regs.rip);
	if (e >= 0)
		e = stub_rec_state_signal_before(&t->st, &r->sp, &t->regs, t->th.ninsn);
	if (e >= 0)
		e = stub_rec_resume(t->th.tid, t->sig);
	if (e < 0)
		return e;
	t->sig = 0;
	t->restart = false;
	t->in_rep = false;             /* the handler's registers are logged */
	t->moves++;
	r->last_mover = t;             /* it wrote the signal frame */
	e = stub_rec_wait(t->th.tid, &st, 0);
	if (e < 0)
		return e;
	if (stub_rec_plan_report(&(struct stub_rec_stop){ .status = st,
			.who = STUB_REC_WHO_DELIVERED }, &p) == STUB_REC_A_GONE) {
		stub_rec_gone(r, t, st);
		return 0;
	}
	if (p.sig)
		t->sig = p.sig;
	e = stub_rec_getregs(t);
	return e < 0 ? e : stub_rec_state_signal_after(&t->st, &r->sp, &t->regs, t->th.ninsn,
						       r->clock);
}

/* @insn executed in @t, which is now at t->regs.rip, not at @expect where
 * @insn goes: the step's trap was lost or late, and the instructions run in
 * between were not seen. @insn is logged as going to @expect, the trace
 * ends there and starts again where the thread is; its memory is unknown
 * from here back to what the log can tell (as after an exec), and a
 * "state-unknown" gap says so. Nothing later is shifted. */
static int stub_rec_lost_trap(struct stub_rec *r, struct stub_rec_task *t,
			      const struct stub_rec_insn *insn, uint64_t expect)
{
	char text[256];
	int e = stub_rec_log(r, t, insn, expect);

	if (e >= 0)
		e = stub_rec_thread_interrupt(&t->th, expect);
	if (e < 0)
		return e;
	snprintf(text, sizeof(text),
		 "single-step trap lost after the instruction at 0x%" PRIx64 ": the thread went on "
		 "at 0x%" PRIx64 ", not 0x%" PRIx64 "; what ran in between is not recorded",
		 insn->ip, (uint64_t)t->regs.rip, expect);
	r->lost_traps++;
	return stub_rec_state_lost(&t->st, &r->sp, t->th.ninsn, r->clock, text);
}

/* The report @s after single-stepping @insn in @t, or running it to its
 * fall-through: what stub_rec_plan decides, done. */
static int stub_rec_reported(struct stub_rec *r, struct stub_rec_task *t,
			     const struct stub_rec_insn *insn, struct stub_rec_stop *s)
{
	struct stub_rec_plan p;
	int e = stub_rec_decide(r, t, t->th.tid, s, &p);

	if (e < 0)
		return e;
	switch (p.act) {
	case STUB_REC_A_GONE:
		stub_rec_gone(r, t, s->status);
		return 0;
	case STUB_REC_A_REWIND:
		t->regs.rip = s->expect;   /* back before the int3 */
		if (ptrace(PTRACE_SETREGS, t->th.tid, 0, &t->regs) < 0)
			return -errno;
		t->in_rep = false;
		return stub_rec_log(r, t, insn, t->regs.rip);
	case STUB_REC_A_LOG_PENDING:
		/* It ran over @insn and a signal stopped it before the
		 * breakpoint: executed, the signal pending. */
		t->in_rep = false;
		t->sig = p.sig;
		return stub_rec_log(r, t, insn, s->expect);
	case STUB_REC_A_SIGNAL:
		/* Signal-delivery-stop: the instruction did not execute. */
		t->sig = p.sig;
		return 0;
	case STUB_REC_A_REP:
		t->in_rep = true;          /* not counted, nor logged: see stub_rec_step */
		return 0;
	case STUB_REC_A_SENT_TRAP:
		t->in_rep = false;
		t->sig = p.sig;
		return 0;
	case STUB_REC_A_LOST:
		t->in_rep = false;
		return stub_rec_lost_trap(r, t, insn, s->expect);
	case STUB_REC_A_LOG:
		t->in_rep = false;
		return stub_rec_log(r, t, insn, t->regs.rip);
	default:
		return 0;
	}
}

/* CPUID, run by the recorder for @t: a single step over it loses its trap
 * on some hypervisors (the step runs the next instruction too). The
 * recorder and the program share one CPU (stub_rec_pin), so the answers
 * are the program's own. */
static int stub_rec_cpuid(struct stub_rec *r, struct stub_rec_task *t,
			  const struct stub_rec_insn *insn)
{
	unsigned a, b, c, d;

	__cpuid_count((unsigned)t->regs.rax, (unsigned)t->regs.rcx, a, b, c, d);
	t->regs.rax = a;
	t->regs.rbx = b;
	t->regs.rcx = c;
	t->regs.rdx = d;
	t->regs.rip = insn->ip + insn->len;
	if (ptrace(PTRACE_SETREGS, t->th.tid, 0, &t->regs) < 0)
		return -errno;
	return stub_rec_log(r, t, insn, t->regs.rip);
}

/* Sets DR7 (and DR0 = @addr when @addr != 0) of @tid: an execution
 * breakpoint at @addr, or none. */
static int stub_rec_dr0(pid_t tid, uint64_t addr)
{
	size_t dr0 = offsetof(struct user, u_debugreg[0]);
	size_t dr7 = offsetof(struct user, u_debugreg[7]);

	if (addr && ptrace(PTRACE_POKEUSER, tid, (void *)dr0, (void *)addr) < 0)
		return -errno;
	if (ptrace(PTRACE_POKEUSER, tid, (void *)dr7, (void *)(addr ? 1ul : 0ul)) < 0)
		return -errno;
	return 0;
}

/* Remembers an int3 about to be written at @addr (its byte read into
 * *@orig) for the children forked meanwhile (stub_rec_detach_child).
 * False if that cannot be remembered: the caller steps instead. */
static bool stub_rec_plant(struct stub_rec *r, uint64_t addr, uint8_t *orig)
{
	size_t i;

	if (stub_mem_read(&r->mem, addr, orig, 1) != 1)
		return false;
	for (i = 0; i < r->nplanted && r->planted[i].addr != addr; i++)
		;
	if (i == STUB_REC_PLANTED)
		return false;
	if (i == r->nplanted)
		r->nplanted++;
	r->planted[i].addr = addr;
	r->planted[i].orig = *orig;
	return true;
}

/* Runs @t to the fall-through of @insn (a rep string instruction, or one
 * whose step loses its trap) at full speed: an execution breakpoint in
 * DR0 where debug registers were seen to fire (stub/live/stub_probe.h), else
 * an int3 written there and taken out again. Only @t runs meanwhile: the
 * other threads are stopped or single-stepping out of a syscall. 1 if
 * neither can be set (the caller steps), else as stub_rec_reported. */
static int stub_rec_run_over(struct stub_rec *r, struct stub_rec_task *t,
			     const struct stub_rec_insn *insn)
{
	uint64_t at = insn->ip + insn->len;
	bool dr = stub_probe_dregs() == STUB_PROBE_YES;
	uint8_t orig, int3 = 0xcc;
	int st, e;

	if (dr && stub_rec_dr0(t->th.tid, at) < 0)
		return 1;
	if (!dr && !stub_rec_plant(r, at, &orig))
		return 1;
	if (!dr && stub_mem_write(&r->mem, at, &int3, 1) < 0)
		return 1;
	e = ptrace(PTRACE_CONT, t->th.tid, 0, (void *)(long)t->sig) < 0 ? -errno : 0;
	if (e >= 0) {
		t->sig = 0;
		e = stub_rec_wait(t->th.tid, &st, 0);
	}
	if (dr && e >= 0 && WIFSTOPPED(st))
		stub_rec_dr0(t->th.tid, 0);
	if (!dr)
		stub_mem_write(&r->mem, at, &orig, 1);
	if (e < 0)
		return e;
	return stub_rec_reported(r, t, insn, &(struct stub_rec_stop){
		.status = st, .who = STUB_REC_WHO_RAN_OVER, .insn_ip = insn->ip,
		.rep = insn->rep, .known = true, .expect = at, .int3 = !dr });
}

static bool stub_rec_file_code(void *maps, uint64_t addr)
{
	return stub_rec_maps_imaged(maps, addr);
}

/* @insn, about to run where no file is mapped (a JIT's code): its bytes
 * kept (stub_rec_code.h), and where they are of a version of their page
 * newer than the time the thread's trace last gave, a PSB with the time
 * first, so that the decoder reads them as they are now. */
static int stub_rec_keep_code(struct stub_rec *r, struct stub_rec_task *t,
			      const struct stub_rec_insn *insn)
{
	int e = r->code ? stub_rec_code_seen(r->code, insn->ip, insn->bytes, insn->len, r->clock,
					     stub_rec_file_code, &r->maps) : STUB_REC_CODE_LOST;

	if (e < 0)
		return e;
	if ((e & STUB_REC_CODE_LOST) && !r->maps.anon_reported) {
		int g = replay_bundle_add_gap(r->b, t->th.tid, r->clock, "image-missing",
					      "code ran in anonymous memory (generated code) "
					      "beyond the recording's room for it (256 MiB)");

		r->maps.anon_reported = true;
		if (g < 0)
			return g;
	}
	/* (A version that ended here, its page kept no more, needs the time
	 * too: else the decoder would read the old bytes.) */
	if (!(e & STUB_REC_CODE_NEW) && (!r->code ||
	    stub_rec_code_since(r->code, insn->ip, insn->len) <= t->th.pt.last_tsc))
		return 0;
	return stub_swpt_psb(&t->th.pt, insn->ip, r->clock);
}

/* One step of READY @t. */
int stub_rec_step(struct stub_rec *r, struct stub_rec_task *t)
{
	struct stub_rec_ready f = { .step_cpuid = r->opt.step_cpuid,
				    .no_rep_accel = r->no_rep_accel };
	struct stub_rec_insn insn;
	struct stub_rec_plan p;
	uint64_t expect = 0;
	bool known, started;
	int st, e;

	/* Between iterations of a rep string instruction the registers are
	 * its own progress: the position before it keeps the registers it
	 * started with, and its record has the ones it ends with. */
	started = t->st.started;
	e = t->in_rep ? 0 : stub_rec_state_ready(&t->st, &r->sp, &t->regs, t->th.ninsn, r->clock);
	if (e >= 0 && !started && t->st.started && t == r->tasks[0])
		e = stub_rec_state_initial_stack(&t->st, &r->sp, t->regs.rsp, t->th.ninsn,
						 r->clock);
	if (e < 0)
		return e;
	f.sig = t->sig;
	f.caught = t->sig && stub_rec_caught(r->pid, t->sig);
	f.restart = t->restart;
	stub_rec_plan_ready(&f, &p);
	if (p.act == STUB_REC_A_DELIVER)
		return stub_rec_deliver(r, t);
	/* A signal with no handler: the instruction at rip did not run, and
	 * may never (a fault that kills). As a CPU would when the kernel takes
	 * over, the trace ends here (FUP + TIP.PGD); a thread that survives is
	 * enabled again at its next step. */
	if (p.interrupt) {
		e = stub_rec_thread_interrupt(&t->th, t->regs.rip);
		if (e < 0)
			return e;
	}
	if (p.act == STUB_REC_A_RESTART)
		return stub_rec_enter_syscall(r, t, t->regs.rip - 2);
	e = stub_rec_icache_get(&r->icache, r->mem.fd, t->regs.rip, &insn);
	if (e >= 0 && (!stub_rec_maps_imaged(&r->maps, insn.ip) ||
		       !stub_rec_maps_imaged(&r->maps, insn.ip + insn.len - 1)))
		e = stub_rec_keep_code(r, t, &insn);
	if (e < 0)
		return e;
	f.kernel = insn.cls == STUB_REC_KERNEL;
	f.cpuid = insn.cpuid;
	f.rep = insn.rep;
	f.rcx = t->regs.rcx;
	if (stub_rec_plan_insn(&f, &p) == STUB_REC_A_SYSCALL)
		return stub_rec_enter_syscall(r, t, t->regs.rip);
	e = stub_rec_state_before(&t->st, &r->sp, &insn, &t->regs, t->th.ninsn + 1);
	if (e < 0)
		return e;
	if (p.act == STUB_REC_A_CPUID)
		return stub_rec_cpuid(r, t, &insn);
	if (p.act == STUB_REC_A_RUN_OVER && (e = stub_rec_run_over(r, t, &insn)) <= 0)
		return e;
	known = stub_rec_next(&r->icache.dec, &insn, &t->regs, r->mem.fd, &expect) == 1;
	e = stub_rec_resume(t->th.tid, t->sig);
	if (e < 0)
		return e;
	t->sig = 0;
	e = stub_rec_wait(t->th.tid, &st, 0);
	if (e < 0)
		return e;
	return stub_rec_reported(r, t, &insn, &(struct stub_rec_stop){
		.status = st, .who = STUB_REC_WHO_STEPPED, .insn_ip = insn.ip, .rep = insn.rep,
		.known = known, .expect = expect });
}
