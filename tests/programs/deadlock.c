/* deadlock: main and its worker each take one lock and then wait for the
 * other's, so both wait in a futex for ever: a program to interrupt and
 * go back from (t_gdb_reverse_deadlock). Prints "deadlock: ready" once
 * both hold their first lock; g_steps counts what each did before
 * (worker 1, main 10). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock_a = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t lock_b = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t both;
volatile long g_steps;

static void *worker(void *arg)
{
	pthread_mutex_lock(&lock_b);
	g_steps += 1;
	pthread_barrier_wait(&both);
	pthread_mutex_lock(&lock_a); /* LINE:worker_waits */
	pthread_mutex_unlock(&lock_a);
	pthread_mutex_unlock(&lock_b);
	return arg;
}

int main(void)
{
	pthread_t t;

	pthread_barrier_init(&both, NULL, 2);
	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	pthread_mutex_lock(&lock_a);
	g_steps += 10;
	pthread_barrier_wait(&both);
	printf("deadlock: ready\n");
	fflush(stdout);
	pthread_mutex_lock(&lock_b); /* LINE:main_waits */
	pthread_mutex_unlock(&lock_b);
	pthread_mutex_unlock(&lock_a);
	pthread_join(t, NULL);
	return 0;
}
