/*
 * stub/live/stub_probe.c: probes of debug registers and single-step traps.
 *
 * Every probe forks a child that asks to be traced, stops itself, then
 * runs code of this file whose addresses the parent knows (the child is a
 * copy of this process) and exits. The parent arms what it tests before
 * letting the child go, and sees a stop where the hardware did its job or
 * the child's exit where it did not.
 */
#include "stub/live/stub_probe.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* CPUID followed by a landing strip of NOPs, and a loop to single-step.
 * Local symbols: only this file refers to them. */
extern const char stub_probe_cpuid_at[], stub_probe_loop_at[];
__asm__(".pushsection .text\n"
	".p2align 4\n"
	"stub_probe_cpuid_at:\n"
	"\tcpuid\n"
	"\tnop\n\tnop\n\tnop\n\tnop\n"
	"\tjmp stub_probe_cpuid_at\n"
	"stub_probe_loop_at:\n"
	"\tnop\n\tnop\n\tnop\n"
	"\tjmp stub_probe_loop_at\n"
	".popsection\n");

static volatile uint64_t stub_probe_var;

__attribute__((noinline, noclone, used)) static void stub_probe_fn(void)
{
	__asm__ volatile("" ::: "memory");
}

static int stub_probe_wait(pid_t pid, int *st)
{
	pid_t r;

	do
		r = waitpid(pid, st, __WALL);
	while (r < 0 && errno == EINTR);
	return r == pid ? 0 : -1;
}

/* A traced child stopped before it runs @body; its pid, or -1. */
static pid_t stub_probe_child(void (*body)(void))
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		raise(SIGSTOP);
		body();
		_exit(0);
	}
	if (stub_probe_wait(pid, &st) < 0 || !WIFSTOPPED(st)) {
		kill(pid, SIGKILL);
		stub_probe_wait(pid, &st);
		return -1;
	}
	ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)(long)PTRACE_O_EXITKILL);
	return pid;
}

static void stub_probe_end(pid_t pid)
{
	int st;

	kill(pid, SIGKILL);
	while (stub_probe_wait(pid, &st) == 0 && !WIFEXITED(st) && !WIFSIGNALED(st))
		;
}

static void stub_probe_dregs_body(void)
{
	stub_probe_fn();
	stub_probe_var = 1;
}

static int stub_probe_poke_dr(pid_t pid, unsigned reg, uint64_t v)
{
	size_t off = offsetof(struct user, u_debugreg) + reg * sizeof(long);

	return ptrace(PTRACE_POKEUSER, pid, (void *)off, (void *)v) < 0 ? -1 : 0;
}

/* Continues @pid: 1 if it stopped with DR6 bit @bit set, 0 if not. */
static int stub_probe_hit(pid_t pid, unsigned bit)
{
	size_t off = offsetof(struct user, u_debugreg) + 6 * sizeof(long);
	int st;
	long dr6;

	if (ptrace(PTRACE_CONT, pid, 0, 0) < 0 || stub_probe_wait(pid, &st) < 0 ||
	    !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return 0;
	errno = 0;
	dr6 = ptrace(PTRACE_PEEKUSER, pid, (void *)off, NULL);
	return !errno && (dr6 >> bit) & 1;
}

static enum stub_probe_answer stub_probe_dregs_run(void)
{
	pid_t pid = stub_probe_child(stub_probe_dregs_body);
	/* DR0: execute, 1 byte (L0). DR1: write, 8 bytes (L1, RW1 = 01,
	 * LEN1 = 10). */
	uint64_t dr7 = 1u | 4u | (1u << 20) | (2u << 22);
	enum stub_probe_answer a = STUB_PROBE_NO;

	if (pid < 0)
		return STUB_PROBE_UNKNOWN;
	if (stub_probe_poke_dr(pid, 0, (uint64_t)(uintptr_t)stub_probe_fn) == 0 &&
	    stub_probe_poke_dr(pid, 1, (uint64_t)(uintptr_t)&stub_probe_var) == 0 &&
	    stub_probe_poke_dr(pid, 7, dr7) == 0 && stub_probe_hit(pid, 0) &&
	    stub_probe_hit(pid, 1))
		a = STUB_PROBE_YES;
	stub_probe_end(pid);
	return a;
}

/* A probe's answer, measured at the first call only. */
struct stub_probe_cache {
	bool done;
	enum stub_probe_answer answer;
};

static enum stub_probe_answer stub_probe_cached(struct stub_probe_cache *c,
						enum stub_probe_answer (*run)(void))
{
	if (!c->done) {
		c->answer = run();
		c->done = true;
	}
	return c->answer;
}

enum stub_probe_answer stub_probe_dregs(void)
{
	static struct stub_probe_cache c;

	return stub_probe_cached(&c, stub_probe_dregs_run);
}

static void stub_probe_idle_body(void)
{
	for (;;)
		pause();
}

/* Sets @pid's rip to @at (rax = rcx = 0); 0 or -1. */
static int stub_probe_goto(pid_t pid, const void *at, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, pid, 0, r) < 0)
		return -1;
	r->rip = (uint64_t)(uintptr_t)at;
	r->rax = r->rcx = 0;
	return ptrace(PTRACE_SETREGS, pid, 0, r) < 0 ? -1 : 0;
}

static int stub_probe_step(pid_t pid, struct user_regs_struct *r)
{
	int st;

	if (ptrace(PTRACE_SINGLESTEP, pid, 0, 0) < 0 || stub_probe_wait(pid, &st) < 0 ||
	    !WIFSTOPPED(st) || WSTOPSIG(st) != SIGTRAP)
		return -1;
	return ptrace(PTRACE_GETREGS, pid, 0, r) < 0 ? -1 : 0;
}

static enum stub_probe_answer stub_probe_cpuid_run(void)
{
	pid_t pid = stub_probe_child(stub_probe_idle_body);
	struct user_regs_struct r;
	enum stub_probe_answer a = STUB_PROBE_YES;

	if (pid < 0)
		return STUB_PROBE_UNKNOWN;
	/* A few times: a trap lost once is lost. */
	for (int i = 0; i < 8 && a == STUB_PROBE_YES; i++) {
		if (stub_probe_goto(pid, stub_probe_cpuid_at, &r) < 0 ||
		    stub_probe_step(pid, &r) < 0)
			a = STUB_PROBE_UNKNOWN;
		else if (r.rip != (uint64_t)(uintptr_t)stub_probe_cpuid_at + 2)
			a = STUB_PROBE_NO;
	}
	stub_probe_end(pid);
	return a;
}

enum stub_probe_answer stub_probe_cpuid_step(void)
{
	static struct stub_probe_cache c;

	return stub_probe_cached(&c, stub_probe_cpuid_run);
}

double stub_probe_step_rate(unsigned n)
{
	cpu_set_t old, one;
	int cpu = sched_getcpu();
	bool pinned = false;
	struct user_regs_struct r;
	struct timespec t0, t1;
	double secs, rate = 0;
	pid_t pid;
	unsigned i;

	/* As the recorder runs: the child on this process's CPU. */
	if (cpu >= 0 && sched_getaffinity(0, sizeof(old), &old) == 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
	}
	pid = stub_probe_child(stub_probe_idle_body);
	if (pid >= 0 && stub_probe_goto(pid, stub_probe_loop_at, &r) == 0) {
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (i = 0; i < n && stub_probe_step(pid, &r) == 0; i++)
			;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
		if (i == n && secs > 0)
			rate = n / secs;
	}
	if (pid >= 0)
		stub_probe_end(pid);
	if (pinned)
		sched_setaffinity(0, sizeof(old), &old);
	return rate;
}
