/* crash.c: writes through a NULL pointer in crash_here(), raising SIGSEGV. */
#include <stdio.h>
#include <stdlib.h>

int crash_here(int *p, int v)
{
    *p = v; /* LINE:crash */
    return v;
}

int main(int argc, char **argv)
{
    int v = argc > 1 ? atoi(argv[1]) : 1;
    int *p = NULL;
    printf("crash: about to crash\n");
    fflush(stdout);
    return crash_here(p, v); /* LINE:call */
}
