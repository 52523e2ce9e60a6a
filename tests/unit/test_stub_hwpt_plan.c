/*
 * tests/unit/test_stub_hwpt_plan.c: the hardware recorder's decisions on
 * constructed waitpid reports: what each status is, a new thread traced
 * before it runs whichever of its parent's clone event and its own first
 * stop comes first, fork children detached, signals passed on and
 * group-stops not, exec from the leader and from another thread, the end
 * of the process, and the stop of an attached or a spawned recording.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>

#include <cmocka.h>

#include "stub/recorders/stub_hwpt_plan.h"

/* waitpid statuses as the kernel makes them */
static int exited(int code) { return (code & 0xff) << 8; }
static int killed(int sig) { return sig; }
static int stopped(int sig) { return (sig << 8) | 0x7f; }
static int event(int ev) { return ((SIGTRAP | (ev << 8)) << 8) | 0x7f; }

static struct stub_hwpt_plan plan;

static int setup(void **state)
{
	(void)state;
	stub_hwpt_plan_init(&plan, 100, false);
	assert_int_equal(stub_hwpt_plan_add(&plan, 100), 0);
	stub_hwpt_plan_traced(&plan, 100, true);
	return 0;
}

static int setup_attached(void **state)
{
	setup(state);
	plan.attached = true;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	stub_hwpt_plan_release(&plan);
	return 0;
}

/* Decides @status of @tid with facts msg / group_stop / ours. */
static struct stub_hwpt_action decide(pid_t tid, int status, unsigned long msg, bool group,
				      bool ours)
{
	struct stub_hwpt_facts f = { msg, group, ours };
	struct stub_hwpt_action a;

	assert_int_equal(stub_hwpt_plan_decide(&plan, tid, status, &f, &a), 0);
	if (a.trace)
		stub_hwpt_plan_traced(&plan, a.trace, true);
	return a;
}

static void expect(struct stub_hwpt_action a, pid_t trace, pid_t resume, int sig, pid_t detach,
		   pid_t untrace)
{
	assert_int_equal(a.trace, trace);
	assert_int_equal(a.resume, resume);
	assert_int_equal(a.sig, sig);
	assert_int_equal(a.detach, detach);
	assert_int_equal(a.untrace, untrace);
}

static void test_classify(void **state)
{
	static const struct { int status; enum stub_hwpt_report r; } cases[] = {
		{ 0, STUB_HWPT_R_EXITED },
		{ 3 << 8, STUB_HWPT_R_EXITED },
		{ SIGKILL, STUB_HWPT_R_KILLED },
		{ SIGSEGV | 0x80, STUB_HWPT_R_KILLED },          /* core dumped */
		{ 0xffff, STUB_HWPT_R_OTHER },                   /* WIFCONTINUED */
		{ (SIGUSR1 << 8) | 0x7f, STUB_HWPT_R_SIGNAL },
		{ (SIGTRAP << 8) | 0x7f, STUB_HWPT_R_SIGNAL },   /* the program's own int3 */
		{ (SIGSTOP << 8) | 0x7f, STUB_HWPT_R_SIGNAL },
		{ ((SIGTRAP | PTRACE_EVENT_CLONE << 8) << 8) | 0x7f, STUB_HWPT_R_CLONE },
		{ ((SIGTRAP | PTRACE_EVENT_FORK << 8) << 8) | 0x7f, STUB_HWPT_R_FORK },
		{ ((SIGTRAP | PTRACE_EVENT_VFORK << 8) << 8) | 0x7f, STUB_HWPT_R_FORK },
		{ ((SIGTRAP | PTRACE_EVENT_EXEC << 8) << 8) | 0x7f, STUB_HWPT_R_EXEC },
		{ ((SIGTRAP | PTRACE_EVENT_EXIT << 8) << 8) | 0x7f, STUB_HWPT_R_EVENT },
		{ ((SIGTRAP | PTRACE_EVENT_VFORK_DONE << 8) << 8) | 0x7f, STUB_HWPT_R_EVENT },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		if (stub_hwpt_plan_classify(cases[i].status) != cases[i].r)
			fail_msg("status 0x%x: %d, not %d", cases[i].status,
				 stub_hwpt_plan_classify(cases[i].status), cases[i].r);
}

static void test_needs(void **state)
{
	(void)state;
	assert_int_equal(stub_hwpt_plan_needs(&plan, 100, STUB_HWPT_R_EXITED), 0);
	assert_int_equal(stub_hwpt_plan_needs(&plan, 100, STUB_HWPT_R_CLONE), STUB_HWPT_NEED_MSG);
	assert_int_equal(stub_hwpt_plan_needs(&plan, 100, STUB_HWPT_R_EXEC), STUB_HWPT_NEED_MSG);
	assert_int_equal(stub_hwpt_plan_needs(&plan, 100, STUB_HWPT_R_SIGNAL),
			 STUB_HWPT_NEED_SIGINFO);
	assert_int_equal(stub_hwpt_plan_needs(&plan, 100, STUB_HWPT_R_FORK), 0);
	assert_int_equal(stub_hwpt_plan_needs(&plan, 555, STUB_HWPT_R_SIGNAL),
			 STUB_HWPT_NEED_OURS);
	assert_int_equal(stub_hwpt_plan_needs(&plan, 555, STUB_HWPT_R_KILLED), 0);
}

/* The parent's clone event first: traced then, before it runs. */
static void test_clone_event_first(void **state)
{
	(void)state;
	expect(decide(100, event(PTRACE_EVENT_CLONE), 101, false, false), 101, 100, 0, 0, 0);
	assert_int_equal(stub_hwpt_plan_live(&plan), 2);
	/* its first stop: the SIGSTOP every clone starts with, swallowed */
	expect(decide(101, stopped(SIGSTOP), 0, false, false), 0, 101, 0, 0, 0);
	/* a later SIGSTOP is the program's: passed on */
	expect(decide(101, stopped(SIGSTOP), 0, false, false), 0, 101, SIGSTOP, 0, 0);
}

/* The new thread's stop first: traced then; the clone event only resumes. */
static void test_thread_stop_first(void **state)
{
	(void)state;
	expect(decide(102, stopped(SIGSTOP), 0, false, true), 102, 102, 0, 0, 0);
	expect(decide(100, event(PTRACE_EVENT_CLONE), 102, false, false), 0, 100, 0, 0, 0);
	assert_int_equal(stub_hwpt_plan_live(&plan), 2);
	assert_true(stub_hwpt_plan_find(&plan, 102)->traced);
}

/* fork / vfork: the child's stop (either order) detaches it. */
static void test_fork_child_detached(void **state)
{
	(void)state;
	expect(decide(200, stopped(SIGSTOP), 0, false, false), 0, 0, 0, 200, 0);
	expect(decide(100, event(PTRACE_EVENT_FORK), 200, false, false), 0, 100, 0, 0, 0);
	expect(decide(100, event(PTRACE_EVENT_VFORK), 201, false, false), 0, 100, 0, 0, 0);
	expect(decide(201, stopped(SIGSTOP), 0, false, false), 0, 0, 0, 201, 0);
	assert_int_equal(stub_hwpt_plan_live(&plan), 1);
}

static void test_signals_passed_on(void **state)
{
	(void)state;
	expect(decide(100, stopped(SIGUSR1), 0, false, false), 0, 100, SIGUSR1, 0, 0);
	expect(decide(100, stopped(SIGTRAP), 0, false, false), 0, 100, SIGTRAP, 0, 0);
	expect(decide(100, stopped(SIGSEGV), 0, false, false), 0, 100, SIGSEGV, 0, 0);
	/* a group-stop: resumed without a signal */
	expect(decide(100, stopped(SIGTSTP), 0, true, false), 0, 100, 0, 0, 0);
	/* an unknown other event */
	expect(decide(100, event(PTRACE_EVENT_EXIT), 0, false, false), 0, 100, 0, 0, 0);
	/* WIFCONTINUED: nothing */
	expect(decide(100, 0xffff, 0, false, false), 0, 0, 0, 0, 0);
}

static void test_threads_end_then_process(void **state)
{
	struct stub_hwpt_action a;

	(void)state;
	decide(100, event(PTRACE_EVENT_CLONE), 101, false, false);
	decide(101, stopped(SIGSTOP), 0, false, false);
	a = decide(101, exited(0), 0, false, false);
	expect(a, 0, 0, 0, 0, 101);
	assert_false(a.ended);
	/* a report of a thread already gone: nothing */
	expect(decide(101, exited(0), 0, false, false), 0, 0, 0, 0, 0);
	a = decide(100, killed(SIGSEGV), 0, false, false);
	expect(a, 0, 0, 0, 0, 100);
	assert_true(a.ended && plan.ended && plan.killed);
	assert_int_equal(plan.status, SIGSEGV);
	assert_int_equal(stub_hwpt_plan_live(&plan), 0);
}

static void test_exit_code(void **state)
{
	struct stub_hwpt_action a;

	(void)state;
	a = decide(100, exited(7), 0, false, false);
	assert_true(a.ended && !plan.killed);
	assert_int_equal(plan.status, 7);
}

static void test_exec_by_leader(void **state)
{
	struct stub_hwpt_action a;

	(void)state;
	a = decide(100, event(PTRACE_EVENT_EXEC), 100, false, false);
	assert_true(a.exec);
	expect(a, 0, 100, 0, 0, 0);
	assert_int_equal(stub_hwpt_plan_live(&plan), 1);
}

/* Thread 101 execs: it becomes 100; the old leader's event ends, 101's
 * goes on under tid 100. */
static void test_exec_by_other_thread(void **state)
{
	struct stub_hwpt_action a;

	(void)state;
	decide(100, event(PTRACE_EVENT_CLONE), 101, false, false);
	decide(101, stopped(SIGSTOP), 0, false, false);
	a = decide(100, event(PTRACE_EVENT_EXEC), 101, false, false);
	assert_true(a.exec);
	expect(a, 0, 100, 0, 0, 100);
	assert_int_equal(stub_hwpt_plan_live(&plan), 1);
	assert_int_equal(stub_hwpt_plan_find(&plan, 100)->key, 101);
	a = decide(100, exited(0), 0, false, false);
	expect(a, 0, 0, 0, 0, 101);
	assert_true(a.ended);
}

/* Ctrl-C of an attached process: SIGSTOP to each running thread, detached
 * at it; a fresh clone at its own first SIGSTOP; new threads untraced. */
static void test_stop_attached(void **state)
{
	pid_t tids[8];

	(void)state;
	decide(100, event(PTRACE_EVENT_CLONE), 101, false, false);     /* 101 fresh */
	decide(102, stopped(SIGSTOP), 0, false, true);
	assert_int_equal(stub_hwpt_plan_stop(&plan, tids), 2);
	assert_int_equal(tids[0], 100);
	assert_int_equal(tids[1], 102);
	/* a signal on the way is passed on */
	expect(decide(100, stopped(SIGUSR1), 0, false, false), 0, 100, SIGUSR1, 0, 0);
	/* a clone meanwhile: not traced; resumed, its thread detached later */
	expect(decide(100, event(PTRACE_EVENT_CLONE), 103, false, false), 0, 100, 0, 0, 0);
	expect(decide(100, stopped(SIGSTOP), 0, false, false), 0, 0, 0, 100, 100);
	expect(decide(101, stopped(SIGSTOP), 0, false, false), 0, 0, 0, 101, 101);
	expect(decide(103, stopped(SIGSTOP), 0, false, false), 0, 0, 0, 103, 0);
	expect(decide(102, stopped(SIGSTOP), 0, true, false), 0, 0, 0, 102, 102);
	/* an unknown thread of the process now: detached, not traced */
	expect(decide(104, stopped(SIGSTOP), 0, false, true), 0, 0, 0, 104, 0);
	assert_int_equal(stub_hwpt_plan_live(&plan), 0);
	assert_false(plan.ended);
}

/* SIGTERM of a spawned recording: killed, nothing to send, stops resumed. */
static void test_stop_spawned(void **state)
{
	pid_t tids[4];
	struct stub_hwpt_action a;

	(void)state;
	assert_int_equal(stub_hwpt_plan_stop(&plan, tids), 0);
	expect(decide(100, stopped(SIGSTOP), 0, false, false), 0, 100, SIGSTOP, 0, 0);
	a = decide(100, killed(SIGKILL), 0, false, false);
	assert_true(a.ended && plan.killed);
	assert_int_equal(plan.status, SIGKILL);
}

/* A tid reused after its thread ended is a new thread. */
static void test_tid_reused(void **state)
{
	(void)state;
	decide(100, event(PTRACE_EVENT_CLONE), 101, false, false);
	decide(101, stopped(SIGSTOP), 0, false, false);
	decide(101, exited(0), 0, false, false);
	expect(decide(100, event(PTRACE_EVENT_CLONE), 101, false, false), 101, 100, 0, 0, 0);
	assert_int_equal(stub_hwpt_plan_live(&plan), 2);
	expect(decide(101, stopped(SIGSTOP), 0, false, false), 0, 101, 0, 0, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classify),
		cmocka_unit_test_setup_teardown(test_needs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clone_event_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_thread_stop_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_child_detached, setup, teardown),
		cmocka_unit_test_setup_teardown(test_signals_passed_on, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_end_then_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit_code, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_by_leader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_by_other_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_attached, setup_attached, teardown),
		cmocka_unit_test_setup_teardown(test_stop_spawned, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tid_reused, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
