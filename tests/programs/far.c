/*
 * far.c: a breakpoint far into a run: work(N) adds 0..N-1 to g (N from
 * argv[1], default 12,500,000: about 10^8 instructions at -O0), then
 * mark(), then prints g. t_serve_valgrind_far.
 */
#include <stdio.h>
#include <stdlib.h>

volatile long g;

__attribute__((noinline)) void work(long n)
{
	for (long i = 0; i < n; i++)
		g += i;
}

__attribute__((noinline)) void mark(void)
{
	g++;
}

int main(int argc, char **argv)
{
	work(argc > 1 ? atol(argv[1]) : 12500000);
	mark();
	printf("%ld\n", g);
	return 0;
}
