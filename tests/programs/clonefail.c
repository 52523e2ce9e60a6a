/* clonefail: a clone that the kernel refuses (CLONE_THREAD without
 * CLONE_SIGHAND: EINVAL), then some work; prints the result, errno and
 * the work's sum (t_record_clone_fails). */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

static char stack[65536] __attribute__((aligned(16)));
volatile long g_sum;

static int child(void *arg)
{
	(void)arg;
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	int r = clone(child, stack + sizeof(stack), CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_THREAD,
		      NULL);
	int e = errno;

	for (long i = 0; i < n; i++)
		g_sum += i;
	printf("clonefail: r=%d errno=%d sum=%ld\n", r, e, g_sum);
	return 0;
}
