/*
 * ticks.c: calls tick() N times (argv[1], default 60), with some work
 * between the calls; each tick mixes its number into g_sum and keeps it
 * in g_hist. The live recording grows between two breakpoint hits, for
 * t_gdb_reverse_extend (a past extended after every live run).
 */
#include <stdio.h>
#include <stdlib.h>

volatile unsigned long g_sum;
unsigned long g_hist[8];

__attribute__((noinline)) void tick(int i)
{
    unsigned long v = (unsigned long)i * 2654435761u ^ g_sum;

    g_hist[i & 7] = v;
    g_sum += v; /* LINE:tick_add */
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 60;

    for (int i = 0; i < n; i++) {
        tick(i);
        for (volatile int k = 0; k < 300; k++)
            ;
    }
    printf("ticks: %lu\n", g_sum);
    return 0;
}
