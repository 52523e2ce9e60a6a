/*
 * spinhit.c: three workers, started together, call tick() over and over until
 * each has called it 50 times; main joins them and prints the total. A
 * breakpoint on tick() is hit by one thread while the others are about to
 * hit it too: their hits are not reported yet when the debugger stops
 * (t_serve_on_request_busy).
 */
#include <pthread.h>
#include <stdio.h>

#define NWORKERS 3
#define TICKS 50

volatile long g_ticks[NWORKERS];
volatile int g_go;

__attribute__((noinline)) void tick(int id)
{
	g_ticks[id]++;
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	while (!g_go)
		;
	while (g_ticks[id] < TICKS)
		tick(id);
	return NULL;
}

int main(void)
{
	pthread_t th[NWORKERS];
	long total = 0;

	for (long i = 0; i < NWORKERS; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	g_go = 1;
	for (int i = 0; i < NWORKERS; i++)
		pthread_join(th[i], NULL);
	for (int i = 0; i < NWORKERS; i++)
		total += g_ticks[i];
	printf("spinhit: %ld\n", total);
	return 0;
}
