/*
 * window.c: what a rebuild's window (`rebuild --last`, `run` on a crash)
 * must show although it starts late: memory written long before it (a
 * heap table filled at the start from a global taken from the clock,
 * which differs from run to run), then a long loop, then a use of it.
 * argv[1]: the loop's rounds (one superblock each); argv[2] "crash": the
 * use goes through a pointer set wrong at the start; argv[3] "badexec": an
 * exec that fails comes first. Prints the seed; the exit status is the
 * node's value, 7 bits of it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct node {
    long v;
    char name[16];
};

struct node *g_table[32];
long g_seed;                        /* the clock's nanoseconds at the start */
volatile unsigned long g_acc;

__attribute__((noinline)) static long use(struct node *p)
{
    return p->v; /* LINE:use */
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    struct timespec ts;

    if (argc > 3 && !strcmp(argv[3], "badexec"))
        execl("/nonexistent/hindsight-test", "nothing", (char *)0);

    clock_gettime(CLOCK_REALTIME, &ts);
    g_seed = ts.tv_nsec;
    for (int i = 0; i < 32; i++) {
        g_table[i] = malloc(sizeof(struct node));
        g_table[i]->v = g_seed + i;
        snprintf(g_table[i]->name, sizeof(g_table[i]->name), "node%d", i);
    }
    if (argc > 2 && !strcmp(argv[2], "crash"))
        g_table[17] = (struct node *)0x20; /* LINE:wrong */
    printf("%ld\n", g_seed);
    fflush(stdout);
    for (long k = 0; k < n; k++)
        g_acc += (unsigned long)k * k ^ (g_acc >> 3);
    return (int)(use(g_table[17]) & 0x7f); /* LINE:call */
}
