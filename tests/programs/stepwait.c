/* stepwait: main waits in read() for a byte its worker writes once main
 * has let it go (a byte on another pipe) and has counted to argv[1].
 * A debugger stepping main over that read waits while the worker runs
 * (t_gdb_reverse_step_wait). Prints what main read and the worker's sum.
 * With argv[2] "exit", the worker, after half a second, ends the process
 * instead (exit(3)), the read never returning; with "thread", it ends only
 * itself (the exit syscall, in worker_exit), closing the pipe first, so
 * that main reads nothing and goes on. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int go[2], done[2];
static long rounds;
static int ends, alone;

__attribute__((noinline)) void worker_exit(void)
{
	close(done[1]);
	syscall(SYS_exit, 0);
}
static volatile long sum;

static void *worker(void *arg)
{
	char c;

	(void)arg;
	if (read(go[0], &c, 1) != 1)
		return NULL;
	if (ends)
		usleep(500000);
	for (long i = 0; i < rounds; i++)
		sum += i;
	if (ends)
		exit(3);
	if (alone)
		worker_exit();
	c = 'w';
	if (write(done[1], &c, 1) != 1)
		return NULL;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;
	ssize_t n;
	char c = 'g';

	rounds = argc > 1 ? atol(argv[1]) : 100;
	ends = argc > 2 && argv[2][0] == 'e';
	alone = argc > 2 && argv[2][0] == 't';
	if (pipe(go) || pipe(done) || pthread_create(&t, NULL, worker, NULL))
		return 1;
	if (write(go[1], &c, 1) != 1)
		return 1;
	n = read(done[0], &c, 1); /* LINE:main_read */
	if (!alone)
		pthread_join(t, NULL);
	printf("stepwait: read %zd '%c', sum=%ld\n", n, c, sum);
	return 0;
}
