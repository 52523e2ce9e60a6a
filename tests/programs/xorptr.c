/*
 * xorptr.c: a pointer computed by arithmetic with a memory operand, for
 * tests/e2e/t_run_computed.sh. main stores a key in keys[i] (i from argv),
 * then mangle() xors a pointer with keys[i] straight from memory (`xor
 * MEM,REG`, as optimized code and glibc's pointer mangling do) and
 * writes through the result, which faults: the bad address was computed
 * from the register and the memory together; it was never loaded.
 */
#include <stdint.h>
#include <stdlib.h>

uintptr_t keys[4];
int target;

__attribute__((noinline)) void mangle(uintptr_t p, int i)
{
	__asm__ volatile("xorq %1, %0" : "+r"(p) : "m"(keys[i])); /* LINE:xor */
	*(volatile int *)p = 1;                                    /* LINE:fault */
}

int main(int argc, char **argv)
{
	int i = argc > 1 ? atoi(argv[1]) & 3 : 1;

	keys[i] = (uintptr_t)0x4141000000000000ull;
	mangle((uintptr_t)&target, i);
	return 0;
}
