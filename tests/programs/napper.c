/* napper: main sleeps argv[1] seconds while its worker waits in read()
 * for the byte main writes when it wakes; then main joins it and calls
 * after(). Ctrl-C while both wait, several times, then a breakpoint at
 * after() (t_serve_valgrind_waits). g: what the worker read (1), then
 * 100 more in after(). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int fds[2];
volatile long g;

__attribute__((noinline)) void after(void)
{
	g += 100;
}

static void *worker(void *arg)
{
	char c;

	printf("napper: ready\n");
	fflush(stdout);
	g += read(fds[0], &c, 1);
	return arg;
}

int main(int argc, char **argv)
{
	struct timespec ts = { argc > 1 ? atoi(argv[1]) : 5, 0 };
	pthread_t t;

	if (pipe(fds) || pthread_create(&t, NULL, worker, NULL))
		return 1;
	nanosleep(&ts, NULL);
	if (write(fds[1], "x", 1) != 1)
		return 1;
	pthread_join(t, NULL);
	after();
	printf("napper: g=%ld\n", g);
	return 0;
}
