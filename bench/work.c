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
int main(int argc, char **argv) { long n = argc > 1 ? atol(argv[1]) : 1000; printf("%lu\n", work(n)); return 0; }
