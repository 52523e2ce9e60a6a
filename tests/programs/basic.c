/*
 * basic.c: a few functions and globals for the end-to-end tests.
 * Usage: basic A B   (A and B are integers chosen by the test at random, so
 * every value the debugger shows depends on the run and a hard-coded answer
 * cannot pass by accident).  Lines a test needs are tagged with LINE: markers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int g_counter;           /* incremented by bump() */
long g_pid;              /* getpid(), set first thing in main */
int g_watched;           /* written by touch_watched(), read by read_watched() */
int g_result;            /* the final result, printed at exit */

int basic_add(int a, int b)
{
    int sum = a + b; /* LINE:add_body */
    return sum;
}

int basic_square(int x)
{
    int sq = x * x; /* LINE:square_body */
    return sq;
}

void basic_bump(void)
{
    g_counter++; /* LINE:bump_body */
}

void touch_watched(int v)
{
    g_watched = v; /* LINE:watch_write */
    g_watched = v + 1; /* LINE:watch_write2 */
}

int read_watched(void)
{
    int copy = g_watched; /* LINE:watch_read */
    return copy;
}

int basic_compute(int a, int b)
{
    int total = basic_add(a, b); /* LINE:compute_call_add */
    total = total + basic_square(b); /* LINE:compute_call_square */
    return total; /* LINE:compute_return */
}

int main(int argc, char **argv)
{
    int a = argc > 1 ? atoi(argv[1]) : 2;
    int b = argc > 2 ? atoi(argv[2]) : 3;
    g_pid = getpid();
    basic_bump();
    touch_watched(a);
    g_result = basic_compute(a, b) + read_watched(); /* LINE:main_compute */
    basic_bump();
    printf("basic: result=%d counter=%d\n", g_result, g_counter); /* LINE:main_print */
    fflush(stdout);
    return 0;
}
