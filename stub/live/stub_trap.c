/*
 * stub/live/stub_trap.c: SIGTRAP classification (int3, debug registers, step).
 *
 * Order: a debug register hit first (DR6 bits 0-3 name the slot, then the
 * client's point), then our int3 (si_code SI_KERNEL and pc - 1 in the
 * breakpoint table), then the end of a step for a stepping thread.
 */
#include "stub/live/stub_trap.h"

#include <signal.h>
#include <sys/ptrace.h>

#include "stub/live/stub_hw.h"
#include "stub/live/stub_proc.h"
#include "stub/live/stub_regs.h"

#define STUB_DR6_HITS 0xfu

/* A debug register hit: 1 and @out's reason set, else 0. */
static int stub_trap_dreg(struct stub_proc *p, pid_t tid, struct rsp_stop *out)
{
	uint64_t dr6;
	int pi;

	if (stub_dreg_empty(&p->dregs) || stub_hw_read_dr6(tid, &dr6) < 0)
		return 0;
	if (!(dr6 & STUB_DR6_HITS))
		return 0;
	stub_hw_clear_dr6(tid);
	pi = stub_dreg_hit(&p->dregs, dr6);
	if (pi < 0)
		return 0;
	out->reason = stub_dreg_reason(p->dregs.point[pi].type);
	if (out->reason != RSP_REASON_HWBREAK)
		out->watch_addr = p->dregs.point[pi].addr;
	return 1;
}

/* One of our int3s: 1 with the pc rewound, else 0. */
static int stub_trap_int3(struct stub_proc *p, pid_t tid, const siginfo_t *si,
			  struct rsp_stop *out)
{
	uint64_t pc;

	if (si->si_code != SI_KERNEL || stub_regs_get_pc(tid, &pc) < 0)
		return 0;
	if (pc == 0 || !stub_break_has(&p->breaks, pc - 1))
		return 0;
	if (stub_regs_set_pc(tid, pc - 1) < 0)
		return 0;
	out->reason = RSP_REASON_SWBREAK;
	return 1;
}

/* The end of a step; 0 if a range step goes on (thread stepped again). */
static int stub_trap_step(struct stub_proc *p, struct stub_thread *t, struct rsp_stop *out)
{
	uint64_t pc;

	if (t->kind == RSP_RESUME_RANGE && stub_regs_get_pc(t->tid, &pc) == 0 &&
	    pc >= t->range_start && pc < t->range_end &&
	    stub_proc_resume_thread(p, t, 0) == 0)
		return 0;
	out->reason = RSP_REASON_STEP;
	return 1;
}

static bool stub_trap_stepping(const struct stub_thread *t)
{
	return t->kind == RSP_RESUME_STEP || t->kind == RSP_RESUME_RANGE;
}

int stub_trap_classify(struct stub_proc *p, struct stub_thread *t, int sig,
		       struct rsp_stop *out)
{
	siginfo_t si;

	*out = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL,
		.thread = { p->pid, t->tid }, .signo = sig };
	if (sig != SIGTRAP)
		return 1;
	if (stub_trap_dreg(p, t->tid, out))
		return 1;
	if (ptrace(PTRACE_GETSIGINFO, t->tid, NULL, &si) < 0)
		return 1;
	if (stub_trap_int3(p, t->tid, &si, out))
		return 1;
	if (si.si_code == SI_KERNEL || si.si_code == SI_USER || si.si_code == SI_TKILL)
		return 1;
	if (stub_trap_stepping(t))
		return stub_trap_step(p, t, out);
	return 1;
}
