/*
 * watch.c: a global written several times, for watchpoints in the past.
 * Usage: watch A B C   (integers the test picks at random: g becomes A,
 * then B, then C inside a function, then C + 1; other globals on the same
 * page are written between). Lines a test needs are tagged with LINE:
 * markers.
 */
#include <stdio.h>
#include <stdlib.h>

int g_before;            /* written next to g, never watched */
int g;                   /* the watched global */
int g_after;

static void watch_set(int v)
{
    g = v; /* LINE:set */
}

int main(int argc, char **argv)
{
    int a = argc > 1 ? atoi(argv[1]) : 1;
    int b = argc > 2 ? atoi(argv[2]) : 2;
    int c = argc > 3 ? atoi(argv[3]) : 3;

    g_before = a * 3;
    g = a; /* LINE:first */
    g_after = a + b;
    g = b; /* LINE:second */
    g_before = b * 5;
    watch_set(c);
    g_after = c * 7; /* LINE:after_set */
    g = g + 1; /* LINE:fourth */
    printf("%d %d %d\n", g_before, g, g_after);
    return 0; /* LINE:end */
}
