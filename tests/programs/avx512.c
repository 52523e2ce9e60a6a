/*
 * avx512.c: adds a vector of eight doubles to itself with AVX-512 (zmm
 * registers) and prints the last one (16). Valgrind 3.19 does not emulate
 * AVX-512: under it the program dies of SIGILL.
 */
#include <stdio.h>

int main(void)
{
    double a[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };

    __asm__ volatile("vmovupd (%0), %%zmm1\n\t"
                     "vaddpd %%zmm1, %%zmm1, %%zmm1\n\t"
                     "vmovupd %%zmm1, (%0)" : : "r"(a) : "xmm1", "memory");
    printf("%g\n", a[7]);
    return 0;
}
