/*
 * bench/ss_floor.c: the single-step floor, how fast this machine can
 * single-step a program with ptrace at all.
 *
 *   ss_floor PROGRAM [ARG]...
 *
 * Every recorder that stops at each instruction (hindsight's software
 * recorder, GDB's `record full`) pays at least one PTRACE_SINGLESTEP and
 * one waitpid per instruction: two context switches and a trap. This runs
 * PROGRAM twice under PTRACE_TRACEME (its stdout to /dev/null) and steps it
 * from its exec to its exit, counting steps:
 *   bare   PTRACE_SINGLESTEP + waitpid and nothing else;
 *   regs   the same plus PTRACE_GETREGS, the least a recorder reads.
 * One line per pass:
 *
 *   ss-floor bare <steps> steps  <seconds> s  <rate> steps/s  <us> us/step
 *
 * Signals the program gets are passed on. Exit status 0, or 1 if the
 * program could not be run or stepped.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child: traced, stdout to /dev/null, stopped at its exec. */
static pid_t spawn(char **argv)
{
	pid_t pid = fork();
	int null;

	if (pid != 0)
		return pid;
	null = open("/dev/null", O_WRONLY);
	if (null >= 0)
		dup2(null, STDOUT_FILENO);
	ptrace(PTRACE_TRACEME, 0, NULL, NULL);
	execvp(argv[0], argv);
	fprintf(stderr, "ss_floor: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* Steps @argv from exec to exit: the number of steps, or -1. */
static int64_t step_all(char **argv, bool regs, double *secs)
{
	struct user_regs_struct r;
	pid_t pid = spawn(argv);
	int64_t steps = 0;
	int status, sig = 0;
	double t0;

	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	t0 = now();
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(intptr_t)sig) < 0 ||
		    waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status) || WIFSIGNALED(status))
			break;
		steps++;
		sig = WSTOPSIG(status) == SIGTRAP ? 0 : WSTOPSIG(status);
		if (regs && ptrace(PTRACE_GETREGS, pid, NULL, &r) < 0)
			return -1;
	}
	*secs = now() - t0;
	return WIFEXITED(status) && WEXITSTATUS(status) == 127 ? -1 : steps;
}

int main(int argc, char **argv)
{
	static const char *names[] = { "bare", "regs" };

	if (argc < 2) {
		fprintf(stderr, "usage: ss_floor PROGRAM [ARG]...\n");
		return 2;
	}
	for (int pass = 0; pass < 2; pass++) {
		double secs = 0;
		int64_t n = step_all(argv + 1, pass == 1, &secs);

		if (n < 0) {
			fprintf(stderr, "ss_floor: cannot step %s\n", argv[1]);
			return 1;
		}
		printf("ss-floor %s %lld steps  %.3f s  %.0f steps/s  %.1f us/step\n", names[pass],
		       (long long)n, secs, secs > 0 ? (double)n / secs : 0.0,
		       n ? secs * 1e6 / (double)n : 0.0);
		fflush(stdout);
	}
	return 0;
}
