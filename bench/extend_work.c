/* bench/extend_work.c: work(argv[1]) iterations, mark(), then argv[3]
 * times (default 1) work(argv[2]) more and mark() again:
 * bench/serve_extend.sh stops at the marks under `hindsight serve` and
 * times the reverse after each (the first opens the past, the others
 * extend it by what ran since). */
#include <stdio.h>
#include <stdlib.h>

static unsigned long mix(unsigned long x)
{
	return x * 6364136223846793005UL + 1442695040888963407UL;
}

__attribute__((noinline)) unsigned long work(long n)
{
	unsigned long acc = 0;

	for (long i = 0; i < n; i++) {
		acc = mix(acc ^ (unsigned long)i);
		if (acc & 1)
			acc >>= 1;
		else
			acc += i;
	}
	return acc;
}

__attribute__((noinline)) void mark(void)
{
	__asm__ volatile("");
}

int main(int argc, char **argv)
{
	long before = argc > 1 ? atol(argv[1]) : 1000, since = argc > 2 ? atol(argv[2]) : 1000;
	long times = argc > 3 ? atol(argv[3]) : 1;
	unsigned long acc = work(before);

	mark();
	for (long i = 0; i < times; i++) {
		acc += work(since);
		mark();
	}
	printf("%lu\n", acc);
	return 0;
}
