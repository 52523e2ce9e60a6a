/*
 * avx.c: puts eight 32-bit integers derived from argv[1] into ymm0 with
 * inline assembly (vmovdqu), then stops at avx_loaded() so a test can read
 * $ymm0 and $xmm0 (the low half).  Built with -mavx.
 */
#include <stdio.h>
#include <stdlib.h>

int g_avx_done;

void avx_loaded(void)
{
    g_avx_done = 1; /* LINE:avx_loaded */
}

int main(int argc, char **argv)
{
    int base = argc > 1 ? atoi(argv[1]) : 10;
    int v[8];
    for (int i = 0; i < 8; i++)
        v[i] = base + i;
    __asm__ volatile("vmovdqu (%0), %%ymm0" : : "r"(v) : "xmm0", "memory");
    avx_loaded();
    printf("avx: base=%d\n", base);
    fflush(stdout);
    return 0;
}
