/* tests/programs/rec/threads.c: three threads sharing a counter under a
 * mutex, joined by main (futex waits while others run). */
#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long counter;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (int i = 0; i < 500; i++) {
		pthread_mutex_lock(&lock);
		counter += id;
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

int main(void)
{
	pthread_t t[3];

	for (long i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, worker, (void *)(i + 1));
	for (int i = 0; i < 3; i++)
		pthread_join(t[i], NULL);
	printf("threads %ld\n", counter);
	return 0;
}
