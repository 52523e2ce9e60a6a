/*
 * demo.c: the program examples/demo.sh debugs. It computes the first few
 * Fibonacci numbers with a helper worth breaking on, keeps a running total
 * in a global, and exits with the last number modulo 256 as its status.
 */
#include <stdio.h>

long g_total;   /* sum of every fib() result so far */

long fib(int n)
{
    long a = 0, b = 1;
    for (int i = 0; i < n; i++) {
        long t = a + b;
        a = b;
        b = t;
    }
    return a;
}

static void report(int n, long value)
{
    g_total += value;
    printf("fib(%d) = %ld (total %ld)\n", n, value, g_total);
}

int main(void)
{
    long last = 0;
    for (int n = 5; n <= 9; n++) {
        last = fib(n);
        report(n, last);
    }
    fflush(stdout);
    return (int)(last % 256);
}
