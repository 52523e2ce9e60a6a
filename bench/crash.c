/* bench/crash.c: bench/work.c's loop, then a write through a bad pointer:
 * what `make bench` gives `hindsight run` (a crash after about 10^9
 * instructions at BENCH_VG_N iterations). */
#define main work_main
#include "work.c"
#undef main

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
