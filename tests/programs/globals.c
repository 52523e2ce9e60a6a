/*
 * globals.c: globals of the main program, read while stopped in a shared
 * library of the test's own (globals_lib.c, built with -g into
 * libglobals.so beside the program). Usage: globals N (N chosen by the test
 * at random: g_sum is 1 + ... + N, g_point is {N, -N}).
 */
#include <stdio.h>
#include <stdlib.h>

long g_sum;
struct point {
    int x, y;
} g_point;

int lib_visit(int n);

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3;

    for (int i = 1; i <= n; i++)
        g_sum += i;
    g_point.x = n;
    g_point.y = -n;
    printf("globals: sum=%ld visit=%d\n", g_sum, lib_visit(n)); /* LINE:main_visit */
    fflush(stdout);
    return 0;
}
