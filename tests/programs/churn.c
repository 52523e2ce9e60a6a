/*
 * tests/programs/churn.c: argv[1] rounds of arithmetic, a call and a store
 * into a small table each; prints a checksum. A long run with registers
 * and memory changing all the time: the recorders' ring (--snapshot).
 */
#include <stdio.h>
#include <stdlib.h>

static unsigned long table[64];

__attribute__((noinline)) static unsigned long step(unsigned long x, long i)
{
	x = x * 6364136223846793005UL + (unsigned long)i;
	table[(x >> 58) & 63] ^= x;
	return x ^ (x >> 17);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long x = 1, sum = 0;

	for (long i = 0; i < n; i++)
		x = step(x, i);
	for (int k = 0; k < 64; k++)
		sum += table[k];
	printf("%lu\n", sum ^ x);
	return 0;
}
