/* bench/crash.c: bench/work.c's loop, then a write through NULL: what
 * `make bench` gives `hindsight run` (a crash after about 10^9
 * instructions at BENCH_VG_N iterations). */
#include <stdio.h>
#include <stdlib.h>
static unsigned long mix(unsigned long x) { return x * 6364136223846793005UL + 1442695040888963407UL; }
__attribute__((noinline)) unsigned long work(long n) {
	unsigned long acc = 0;
	for (long i = 0; i < n; i++) {
		acc = mix(acc ^ (unsigned long)i);
		if (acc & 1) acc >>= 1; else acc += i;
	}
	return acc;
}
__attribute__((noinline)) static void crash_here(unsigned long *p, unsigned long v) { *p = v; }
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long acc = work(n);

	printf("%lu\n", acc);
	fflush(stdout);
	crash_here((unsigned long *)(acc & 0xff), acc);   /* an address in the first page */
	return 0;
}
