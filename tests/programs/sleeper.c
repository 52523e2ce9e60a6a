/*
 * sleeper.c: does some work, then waits in a syscall for a minute (the
 * recorder is killed meanwhile in tests). Prints "sleeper: ready" first.
 * Usage: sleeper N   (N iterations of the work, in work_before_sleep)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile long g_sum;

__attribute__((noinline)) void work_before_sleep(long n)
{
    for (long i = 0; i < n; i++)
        g_sum += i;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100;

    printf("sleeper: ready\n");
    fflush(stdout);
    work_before_sleep(n);
    sleep(60);
    return 0;
}
