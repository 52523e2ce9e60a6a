/* tests/programs/forkrep.c: one thread runs rep string instructions
 * (rep stosb of 256 bytes) while the other forks 15 children that run the
 * same instruction; every child must exit normally. Prints how many did. */
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

static char buf[256];
static volatile int done;

static __attribute__((noinline)) void fill(char *p, int v)
{
	size_t n = sizeof(buf);

	__asm__ volatile("rep stosb" : "+D"(p), "+c"(n) : "a"(v) : "memory");
}

static void *filler(void *arg)
{
	(void)arg;
	for (int i = 0; !done; i++)
		fill(buf, i);
	return NULL;
}

int main(void)
{
	int n = 0, ok = 0;
	pthread_t th;

	pthread_create(&th, NULL, filler, NULL);
	while (n < 15) {
		pid_t p = fork();
		int st = 0;

		if (p == 0) {
			static char mine[256];

			fill(mine, 7);
			_exit(mine[100] == 7 ? 0 : 3);
		}
		n++;
		waitpid(p, &st, 0);
		ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	done = 1;
	pthread_join(th, NULL);
	printf("forkrep: %d of %d children exited normally\n", ok, n);
	return ok == n ? 0 : 1;
}
