/*
 * tests/unit/test_stub_rec_plan.c: the software recorder's decisions on
 * constructed stops, without a process: a thread that has no task
 * (adopted or detached), a thread's end, a new clone's first stop, clone /
 * fork / exec events, a syscall's completion (restart, mappings, a signal)
 * and a signal before it, the report after a single step (ran, signal, rep
 * iteration, lost trap, a SIGTRAP sent by kill), the stop at a caught
 * signal's handler, the report after running over an instruction (int3 or
 * DR0), --snapshot's checkpoints and cuts, what a READY thread does next, and a served goal's
 * pauses (signal, end of a step or range step, breakpoint). Each fact the
 * plan asks for is checked to be asked for only when the decision needs it.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>

#include <cmocka.h>

#include "stub/recorders/stub_rec_plan.h"

/* waitpid statuses as the kernel makes them */
static int exited(int code) { return (code & 0xff) << 8; }
static int killed(int sig) { return sig; }
static int stopped(int sig) { return (sig << 8) | 0x7f; }
static int event(int ev) { return ((SIGTRAP | (ev << 8)) << 8) | 0x7f; }

/* The plan for @s, checking that it first asks for exactly @need. */
static enum stub_rec_act decide(struct stub_rec_stop *s, unsigned need, struct stub_rec_plan *p)
{
	unsigned asked = 0;

	while (stub_rec_plan_report(s, p) == STUB_REC_A_NEED) {
		assert_int_equal(asked & p->need, 0);  /* never twice */
		asked |= p->need;
		s->have |= p->need;
	}
	assert_int_equal(asked, need);
	return p->act;
}

static void test_unknown_thread(void **state)
{
	struct stub_rec_stop s = { .status = stopped(SIGSTOP), .who = STUB_REC_WHO_UNKNOWN };
	struct stub_rec_plan p;

	(void)state;
	s.ours = true;
	assert_int_equal(decide(&s, STUB_REC_NEED_OURS, &p), STUB_REC_A_ADOPT);
	s.have = 0;
	s.ours = false;
	assert_int_equal(decide(&s, STUB_REC_NEED_OURS, &p), STUB_REC_A_DETACH);
	/* An unknown thread's end: nothing, and nothing read. */
	s = (struct stub_rec_stop){ .status = exited(0), .who = STUB_REC_WHO_UNKNOWN };
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_NONE);
}

static void test_thread_end(void **state)
{
	static const enum stub_rec_plan_who who[] = {
		STUB_REC_WHO_NEW, STUB_REC_WHO_READY, STUB_REC_WHO_SYSCALL,
		STUB_REC_WHO_STEPPED, STUB_REC_WHO_DELIVERED,
	};
	struct stub_rec_plan p;

	(void)state;
	for (size_t i = 0; i < sizeof(who) / sizeof(who[0]); i++) {
		struct stub_rec_stop s = { .status = exited(3), .who = who[i] };

		assert_int_equal(decide(&s, 0, &p), STUB_REC_A_GONE);
		s = (struct stub_rec_stop){ .status = killed(SIGKILL), .who = who[i] };
		assert_int_equal(decide(&s, 0, &p), STUB_REC_A_GONE);
	}
}

static void test_new_clone_first_stop(void **state)
{
	struct stub_rec_stop s = { .status = stopped(SIGSTOP), .who = STUB_REC_WHO_NEW };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_FIRST);
	assert_int_equal(p.sig, 0);    /* the SIGSTOP swallowed */
}

/* A READY thread's stop (it is not waited for): nothing. */
static void test_ready_stray_stop(void **state)
{
	struct stub_rec_stop s = { .status = stopped(SIGUSR1), .who = STUB_REC_WHO_READY };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_NONE);
}

static struct stub_rec_stop in_syscall(int status)
{
	return (struct stub_rec_stop){ .status = status, .who = STUB_REC_WHO_SYSCALL };
}

static void test_events(void **state)
{
	struct stub_rec_stop s = { .status = event(PTRACE_EVENT_CLONE),
				   .who = STUB_REC_WHO_SYSCALL, .msg = 101 };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(decide(&s, STUB_REC_NEED_MSG, &p), STUB_REC_A_CLONE_NEW);
	/* The new thread's stop came first: it was adopted. */
	s.have = 0;
	s.msg_known = true;
	assert_int_equal(decide(&s, STUB_REC_NEED_MSG, &p), STUB_REC_A_CLONE_KNOWN);
	s = in_syscall(event(PTRACE_EVENT_FORK));
	assert_int_equal(decide(&s, STUB_REC_NEED_MSG, &p), STUB_REC_A_FORK);
	s = in_syscall(event(PTRACE_EVENT_VFORK));
	assert_int_equal(decide(&s, STUB_REC_NEED_MSG, &p), STUB_REC_A_FORK);
	s = in_syscall(event(PTRACE_EVENT_EXEC));
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_EXEC);
	s = in_syscall(event(PTRACE_EVENT_EXIT));
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_EVENT);
}

static void test_syscall_done(void **state)
{
	struct stub_rec_stop s = { .status = stopped(SIGTRAP), .who = STUB_REC_WHO_SYSCALL,
				   .sc_resume_ip = 0x1002, .sc_nr = SYS_write,
				   .rip = 0x1002, .rax = 5 };
	struct stub_rec_plan p;

	(void)state;
	/* The trap of the step over it, at the ip after the syscall. */
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_SYSCALL_DONE);
	assert_false(p.restart);
	assert_false(p.maps);
	assert_int_equal(p.sig, 0);
	/* mmap: the mappings are read again. */
	s.have = 0;
	s.sc_nr = SYS_mmap;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_SYSCALL_DONE);
	assert_true(p.maps);
	/* -ERESTARTSYS with a signal: restarted unless a handler runs. */
	s.have = 0;
	s.sc_nr = SYS_read;
	s.status = stopped(SIGALRM);
	s.rip = 0x2000;
	s.rax = -512;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_SYSCALL_DONE);
	assert_true(p.restart);
	assert_int_equal(p.sig, SIGALRM);
	for (long ax = -516; ax <= -511; ax++) {
		s.have = 0;
		s.rax = ax;
		decide(&s, STUB_REC_NEED_REGS, &p);
		assert_int_equal(p.restart, ax != -515 && ax != -511);
	}
}

/* A signal stopped the thread before the kernel took the syscall: not
 * logged; whether it restarts is how it was resumed. */
static void test_syscall_signal_before(void **state)
{
	struct stub_rec_stop s = { .status = stopped(SIGINT), .who = STUB_REC_WHO_SYSCALL,
				   .sc_resume_ip = 0x1002, .sc_restart = true, .rip = 0x1002 };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_SIG_BEFORE);
	assert_int_equal(p.sig, SIGINT);
	assert_true(p.restart);
	/* SIGTRAP there is the syscall's own completion. */
	s.have = 0;
	s.status = stopped(SIGTRAP);
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_SYSCALL_DONE);
}

static struct stub_rec_stop stepped(int status, uint64_t rip)
{
	return (struct stub_rec_stop){ .status = status, .who = STUB_REC_WHO_STEPPED,
				       .insn_ip = 0x1000, .known = true, .expect = 0x1003,
				       .rip = rip };
}

static void test_stepped(void **state)
{
	struct stub_rec_stop s = stepped(stopped(SIGTRAP), 0x1003);
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_LOG);
	/* Not predicted (a far transfer): logged where it went. */
	s = stepped(stopped(SIGTRAP), 0x5000);
	s.known = false;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_LOG);
	/* A fault: the instruction did not run; no registers read. */
	s = stepped(stopped(SIGSEGV), 0);
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_SIGNAL);
	assert_int_equal(p.sig, SIGSEGV);
	/* An event stop during a step is not the step's trap either. */
	s = stepped(event(PTRACE_EVENT_EXIT), 0);
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_SIGNAL);
	assert_int_equal(p.sig, SIGTRAP);
}

static void test_stepped_rep_and_lost(void **state)
{
	struct stub_rec_stop s = stepped(stopped(SIGTRAP), 0x1000);
	struct stub_rec_plan p;

	(void)state;
	s.rep = true;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_REP);
	/* Went on past the predicted ip: lost, without asking who sent it. */
	s = stepped(stopped(SIGTRAP), 0x1007);
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_LOST);
	/* Still at the ip: a SIGTRAP sent by kill is pending, not a step. */
	s = stepped(stopped(SIGTRAP), 0x1000);
	s.sent = true;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS | STUB_REC_NEED_SENT, &p),
			 STUB_REC_A_SENT_TRAP);
	assert_int_equal(p.sig, SIGTRAP);
	s = stepped(stopped(SIGTRAP), 0x1000);
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS | STUB_REC_NEED_SENT, &p),
			 STUB_REC_A_LOST);
}

static struct stub_rec_stop ran_over(int status, uint64_t rip, bool int3)
{
	struct stub_rec_stop s = stepped(status, rip);

	s.who = STUB_REC_WHO_RAN_OVER;
	s.int3 = int3;
	return s;
}

static void test_ran_over(void **state)
{
	struct stub_rec_stop s = ran_over(stopped(SIGTRAP), 0x1004, true);
	struct stub_rec_plan p;

	(void)state;
	/* The int3 at the fall-through: rip one past it, put back. */
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_REWIND);
	/* DR0 stops before the instruction at the fall-through. */
	s = ran_over(stopped(SIGTRAP), 0x1003, false);
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_LOG);
	/* One past it without an int3 is not a breakpoint: a lost trap. */
	s = ran_over(stopped(SIGTRAP), 0x1004, false);
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_LOST);
	/* A signal at the fall-through: ran, the signal pending. */
	s = ran_over(stopped(SIGALRM), 0x1003, true);
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_LOG_PENDING);
	assert_int_equal(p.sig, SIGALRM);
	/* A signal inside it (a fault of a rep string): as a step's signal. */
	s = ran_over(stopped(SIGSEGV), 0x1000, true);
	s.rep = true;
	assert_int_equal(decide(&s, STUB_REC_NEED_REGS, &p), STUB_REC_A_SIGNAL);
	assert_int_equal(p.sig, SIGSEGV);
	/* An event, an end: no registers read. */
	s = ran_over(event(PTRACE_EVENT_EXIT), 0, true);
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_SIGNAL);
	s = ran_over(killed(SIGKILL), 0, true);
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_GONE);
}

static void test_cut(void **state)
{
	struct stub_rec_cut_view v = { .psb = true, .ckpt_written = true };

	(void)state;
	/* Without --snapshot, nothing. */
	assert_int_equal(stub_rec_plan_cut(&v, false), 0);
	assert_int_equal(stub_rec_plan_cut(&v, true), 0);
	v.snapshot = true;
	assert_int_equal(stub_rec_plan_cut(&v, false), STUB_REC_CUT_CKPT);
	assert_int_equal(stub_rec_plan_cut(&v, true), STUB_REC_CUT_HERE);
	/* The checkpoint was not written (an error): no cut. */
	v.ckpt_written = false;
	assert_int_equal(stub_rec_plan_cut(&v, true), 0);
	/* No PSB: no checkpoint asked, no cut. */
	v = (struct stub_rec_cut_view){ .snapshot = true, .ckpt_written = true };
	assert_int_equal(stub_rec_plan_cut(&v, false), 0);
	assert_int_equal(stub_rec_plan_cut(&v, true), 0);
}

static void test_delivered(void **state)
{
	struct stub_rec_stop s = { .status = stopped(SIGTRAP), .who = STUB_REC_WHO_DELIVERED };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_HANDLER);
	assert_int_equal(p.sig, 0);
	/* Another signal at the handler's first instruction: pending. */
	s.status = stopped(SIGUSR2);
	assert_int_equal(decide(&s, 0, &p), STUB_REC_A_HANDLER);
	assert_int_equal(p.sig, SIGUSR2);
}

static void test_ready(void **state)
{
	struct stub_rec_ready f = { 0 };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(stub_rec_plan_ready(&f, &p), STUB_REC_A_INSN);
	assert_false(p.interrupt);
	f.sig = SIGUSR1;
	f.caught = true;
	assert_int_equal(stub_rec_plan_ready(&f, &p), STUB_REC_A_DELIVER);
	/* No handler: the trace ends here, the instruction stepped with it. */
	f.caught = false;
	assert_int_equal(stub_rec_plan_ready(&f, &p), STUB_REC_A_INSN);
	assert_true(p.interrupt);
	f.restart = true;
	assert_int_equal(stub_rec_plan_ready(&f, &p), STUB_REC_A_RESTART);
	assert_true(p.interrupt);
	f.sig = 0;
	assert_int_equal(stub_rec_plan_ready(&f, &p), STUB_REC_A_RESTART);
	assert_false(p.interrupt);
}

static void test_insn(void **state)
{
	struct stub_rec_ready f = { 0 };
	struct stub_rec_plan p;

	(void)state;
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_STEP);
	f.kernel = true;
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_SYSCALL);
	f = (struct stub_rec_ready){ .cpuid = true };
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_CPUID);
	f.sig = SIGUSR1;               /* the program runs it, with the signal */
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_RUN_OVER);
	f.step_cpuid = true;
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_STEP);
	f = (struct stub_rec_ready){ .rep = true, .rcx = STUB_REC_REP_MIN - 1 };
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_STEP);
	f.rcx = STUB_REC_REP_MIN;
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_RUN_OVER);
	f.no_rep_accel = true;
	assert_int_equal(stub_rec_plan_insn(&f, &p), STUB_REC_A_STEP);
}

static struct stub_rec_goal_view view(enum stub_rec_go kind)
{
	return (struct stub_rec_goal_view){ .kind = kind, .goal_thread = true, .moved = true,
					    .ready = true, .rip = 0x1010,
					    .range_start = 0x1000, .range_end = 0x1020 };
}

static void test_goal_step(void **state)
{
	struct stub_rec_goal_view v = view(STUB_REC_GO_STEP);

	(void)state;
	assert_true(stub_rec_plan_step_done(&v));
	v.moved = false;
	assert_false(stub_rec_plan_step_done(&v));
	v = view(STUB_REC_GO_STEP);
	v.in_rep = true;               /* half-way through a rep string */
	assert_false(stub_rec_plan_step_done(&v));
	v = view(STUB_REC_GO_STEP);
	v.goal_thread = false;
	assert_false(stub_rec_plan_step_done(&v));
	v = view(STUB_REC_GO_STEP);
	v.ready = false;               /* inside a syscall */
	assert_false(stub_rec_plan_step_done(&v));
	v = view(STUB_REC_GO_RANGE);
	assert_false(stub_rec_plan_step_done(&v));
	v.rip = 0x1020;
	assert_true(stub_rec_plan_step_done(&v));
	v.rip = 0xfff;
	assert_true(stub_rec_plan_step_done(&v));
	v = view(STUB_REC_GO_CONTINUE);
	assert_false(stub_rec_plan_step_done(&v));
}

static void test_goal_before(void **state)
{
	struct stub_rec_goal_view v = view(STUB_REC_GO_CONTINUE);
	enum stub_rec_pause_kind k;

	(void)state;
	assert_false(stub_rec_plan_before(&v, &k));
	v.at_break = true;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_BREAK);
	/* A pending signal comes first, unless passed or allowed. */
	v.sig = SIGUSR1;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_SIGNAL);
	v.pass = true;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_BREAK);
	v.pass = false;
	v.sig_ok = true;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_BREAK);
	/* The end of a step before a breakpoint at the same place. */
	v = view(STUB_REC_GO_STEP);
	v.at_break = true;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_STEP);
}

/* The end: a pause before the syscall that ends the process, unless the
 * goal lets it, after a signal, a step's end and a breakpoint. */
static void test_goal_end(void **state)
{
	struct stub_rec_goal_view v = view(STUB_REC_GO_CONTINUE);
	enum stub_rec_pause_kind k;

	(void)state;
	v.ends = true;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_END);
	v.exit_ok = true;
	assert_false(stub_rec_plan_before(&v, &k));
	v.exit_ok = false;
	v.at_break = true;             /* a breakpoint on the syscall */
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_BREAK);
	v.sig = SIGUSR1;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_SIGNAL);
	/* A stepi onto it ends there first; a stepi from there stops before it. */
	v = view(STUB_REC_GO_STEP);
	v.ends = true;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_STEP);
	v.moved = false;
	assert_true(stub_rec_plan_before(&v, &k));
	assert_int_equal(k, STUB_REC_PAUSE_END);
}

static void test_ends(void **state)
{
	static const uint8_t sc[] = { 0x0f, 0x05 }, i80[] = { 0xcd, 0x80 }, nop[] = { 0x90, 0x90 };

	(void)state;
	assert_true(stub_rec_plan_ends(sc, 2, 231, true, 0, false));        /* exit_group */
	assert_true(stub_rec_plan_ends(sc, 2, 60, false, 0, false));        /* the last exit */
	assert_false(stub_rec_plan_ends(sc, 2, 60, true, 0, false));        /* a thread's exit */
	assert_false(stub_rec_plan_ends(sc, 2, 1, false, 0, false));        /* write */
	assert_false(stub_rec_plan_ends(sc, 2, 231, true, SIGUSR1, false)); /* a signal first */
	assert_false(stub_rec_plan_ends(sc, 2, 231, true, 0, true));        /* a restart */
	assert_true(stub_rec_plan_ends(i80, 2, 252, true, 0, false));       /* i386's */
	assert_true(stub_rec_plan_ends(i80, 2, 1, false, 0, false));
	assert_false(stub_rec_plan_ends(i80, 2, 231, false, 0, false));     /* exit_group is 252 there */
	assert_false(stub_rec_plan_ends(nop, 2, 231, false, 0, false));
	assert_false(stub_rec_plan_ends(sc, 1, 231, false, 0, false));
}

static void test_is_break(void **state)
{
	static const uint64_t b[] = { 0x10, 0x20, 0x30, 0x40 };

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		assert_true(stub_rec_plan_is_break(b, 4, b[i]));
		assert_false(stub_rec_plan_is_break(b, 4, b[i] + 1));
	}
	assert_false(stub_rec_plan_is_break(b, 4, 0));
	assert_false(stub_rec_plan_is_break(NULL, 0, 0x10));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unknown_thread),
		cmocka_unit_test(test_thread_end),
		cmocka_unit_test(test_new_clone_first_stop),
		cmocka_unit_test(test_ready_stray_stop),
		cmocka_unit_test(test_events),
		cmocka_unit_test(test_syscall_done),
		cmocka_unit_test(test_syscall_signal_before),
		cmocka_unit_test(test_stepped),
		cmocka_unit_test(test_stepped_rep_and_lost),
		cmocka_unit_test(test_ran_over),
		cmocka_unit_test(test_cut),
		cmocka_unit_test(test_delivered),
		cmocka_unit_test(test_ready),
		cmocka_unit_test(test_insn),
		cmocka_unit_test(test_goal_end),
		cmocka_unit_test(test_ends),
		cmocka_unit_test(test_goal_step),
		cmocka_unit_test(test_goal_before),
		cmocka_unit_test(test_is_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
