/*
 * stepper.c: an independent single-stepper, the reference the recorder's
 * counts are checked against. Shares no code with hindsight.
 *
 *   stepper OUT PROG [ARG...]
 *   STEPPER_REGS=1 stepper OUT PROG [ARG...]
 *
 * Runs PROG under ptrace on the CPU this process runs on (as the recorder
 * does) and single-steps it from its first instruction after exec to its
 * end. Writes the address of every instruction executed to OUT, one per
 * line in hex, and prints "stepper: N instructions" on stderr; exits with
 * PROG's status (128 + N when signal N killed it).
 *
 * What counts as one instruction, as a CPU retires them: a step that
 * leaves rip where it was is one iteration of a rep string instruction
 * (counted when it ends); a step that delivers a caught signal stops at
 * the handler before running anything (not counted); a step whose process
 * exits ran its exit syscall (counted); a fault that kills ran nothing.
 * CPUID is run here and its results written into the program (some
 * hypervisors lose the trap of a step over CPUID); the same CPU answers
 * as the program's would. Single-threaded programs only: a clone is an
 * error. With STEPPER_REGS=1 each line also has the general registers
 * before the instruction, in hex: rax rbx rcx rdx rsi rdi rbp rsp r8-r15
 * eflags fs_base.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static int caught(pid_t pid, int sig)
{
	char path[64], line[256];
	unsigned long long mask = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "SigCgt:", 7))
			mask = strtoull(line + 7, NULL, 16);
	fclose(f);
	return (mask >> (sig - 1)) & 1;
}

/* Whether the instruction at @ip is CPUID (with any legacy prefixes). */
static int is_cpuid(pid_t pid, uint64_t ip)
{
	unsigned char b[16];
	size_t i = 0;

	for (size_t k = 0; k < sizeof(b); k += sizeof(long)) {
		long w;

		errno = 0;
		w = ptrace(PTRACE_PEEKTEXT, pid, (void *)(ip + k), 0);
		if (errno)
			return 0;
		memcpy(b + k, &w, sizeof(w));
	}
	while (i < 14 && (b[i] == 0x66 || b[i] == 0x67 || b[i] == 0xf2 || b[i] == 0xf3 ||
			  b[i] == 0x2e || b[i] == 0x3e || b[i] == 0x26 || b[i] == 0x36 ||
			  b[i] == 0x64 || b[i] == 0x65 || (b[i] & 0xf0) == 0x40))
		i++;
	return b[i] == 0x0f && b[i + 1] == 0xa2 ? (int)i + 2 : 0;
}

/* One line: the instruction at @ip, and with @regs the registers @r
 * before it. */
static void put(FILE *out, const struct user_regs_struct *r, unsigned long long ip, bool regs)
{
	const unsigned long long v[] = { r->rax, r->rbx, r->rcx, r->rdx, r->rsi, r->rdi,
					 r->rbp, r->rsp, r->r8, r->r9, r->r10, r->r11, r->r12,
					 r->r13, r->r14, r->r15, r->eflags, r->fs_base };

	fprintf(out, "%llx", ip);
	for (size_t i = 0; regs && i < sizeof(v) / sizeof(v[0]); i++)
		fprintf(out, " %llx", v[i]);
	fputc('\n', out);
}

int main(int argc, char **argv)
{
	cpu_set_t one;
	unsigned long long n = 0;
	FILE *out;
	pid_t pid;
	int st, sig = 0;
	bool regs = getenv("STEPPER_REGS") && !strcmp(getenv("STEPPER_REGS"), "1");

	if (argc < 3) {
		fprintf(stderr, "usage: stepper OUT PROG [ARG...]\n");
		return 2;
	}
	out = fopen(argv[1], "w");
	if (!out) {
		perror(argv[1]);
		return 2;
	}
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu(), &one);
	sched_setaffinity(0, sizeof(one), &one);
	pid = fork();
	if (pid == 0) {
		ptrace(PTRACE_TRACEME, 0, 0, 0);
		execv(argv[2], argv + 2);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFSTOPPED(st)) {
		fprintf(stderr, "stepper: %s did not start\n", argv[2]);
		return 2;
	}
	ptrace(PTRACE_SETOPTIONS, pid, 0, (void *)(long)(PTRACE_O_EXITKILL | PTRACE_O_TRACECLONE));
	for (;;) {
		struct user_regs_struct r, a;
		int delivering = sig && caught(pid, sig), len, restart;

		if (ptrace(PTRACE_GETREGS, pid, 0, &r) < 0)
			return 2;
		if (!sig && (len = is_cpuid(pid, r.rip))) {
			unsigned ea, eb, ec, ed;

			put(out, &r, r.rip, regs);
			__cpuid_count((unsigned)r.rax, (unsigned)r.rcx, ea, eb, ec, ed);
			r.rax = ea;
			r.rbx = eb;
			r.rcx = ec;
			r.rdx = ed;
			r.rip += (unsigned)len;
			n++;
			ptrace(PTRACE_SETREGS, pid, 0, &r);
			continue;
		}
		/* A syscall cut short by a signal that runs no handler: the
		 * kernel runs it again (rip back over it) within this step. */
		restart = sig && !delivering && (long)r.orig_rax >= 0 &&
			  ((long)r.rax == -512 || (long)r.rax == -513 || (long)r.rax == -514 ||
			   (long)r.rax == -516);
		ptrace(PTRACE_SINGLESTEP, pid, 0, (void *)(long)sig);
		sig = 0;
		if (waitpid(pid, &st, __WALL) != pid)
			return 2;
		if (WIFEXITED(st)) {
			put(out, &r, r.rip, regs);     /* exit syscall */
			n++;
			break;
		}
		if (WIFSIGNALED(st))
			break;
		if (st >> 16) {
			fprintf(stderr, "stepper: ptrace event %d: single-threaded programs only\n",
				st >> 16);
			kill(pid, SIGKILL);
			return 2;
		}
		if (delivering && WSTOPSIG(st) == SIGTRAP)
			continue;                      /* at the handler's first instruction */
		if (ptrace(PTRACE_GETREGS, pid, 0, &a) < 0)
			return 2;
		if (WSTOPSIG(st) != SIGTRAP)
			sig = WSTOPSIG(st);            /* delivered at the next step */
		if (a.rip == r.rip && !restart)
			continue;                      /* a rep iteration, or nothing ran */
		put(out, &r, restart ? r.rip - 2 : r.rip, regs);
		n++;
	}
	fclose(out);
	fprintf(stderr, "stepper: %llu instructions\n", n);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}
