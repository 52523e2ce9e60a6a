/* samespin: main and its worker count in the same loop for ever (cnt[0],
 * cnt[1]); main calls hit() at its 2,000,000th round. A step of one
 * thread under Valgrind waits for its turn while the other passes the
 * stepped thread's pc again and again (t_serve_valgrind_steps). */
#include <pthread.h>
#include <stdio.h>

volatile long cnt[2];

__attribute__((noinline)) void hit(void)
{
}

static void work(int k)
{
	for (long i = 0;; i++) {
		cnt[k]++;
		if (k == 0 && i == 2000000)
			hit();
	}
}

static void *worker(void *arg)
{
	work(1);
	return arg;
}

int main(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, worker, NULL))
		return 1;
	printf("samespin: ready\n");
	fflush(stdout);
	work(0);
	return 0;
}
