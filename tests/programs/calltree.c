/*
 * calltree.c: calls a test can count, for `hindsight timeline`.
 * Usage: calltree DEPTH LOOPS SIGNALS [crash]
 * rec(DEPTH) recurses as Fibonacci does (rec(n) calls rec(n - 1) and
 * rec(n - 2) down to n < 2), counting its calls and the deepest nesting;
 * loop() calls tiny() LOOPS times (and nothing else); SIGUSR1 is raised
 * SIGNALS times
 * (on_usr1 counts them). Prints the counts, then with "crash" writes
 * through NULL in crash_here().
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long rec_calls, tiny_calls;
static int depth, max_depth;
static volatile sig_atomic_t usr1;

__attribute__((noinline)) long rec(int n)
{
    long r;

    rec_calls++;
    if (++depth > max_depth)
        max_depth = depth;
    r = n < 2 ? 1 : rec(n - 1) + rec(n - 2);
    depth--;
    return r;
}

__attribute__((noinline)) void tiny(void)
{
    tiny_calls++;
}

__attribute__((noinline)) void loop(long n)
{
    for (long i = 0; i < n; i++)
        tiny();
}

static void on_usr1(int sig)
{
    (void)sig;
    usr1++;
}

__attribute__((noinline)) void crash_here(int *p)
{
    *p = 1; /* LINE:crash */
}

int main(int argc, char **argv)
{
    int d = argc > 1 ? atoi(argv[1]) : 5;
    long loops = argc > 2 ? atol(argv[2]) : 10;
    int sigs = argc > 3 ? atoi(argv[3]) : 1;
    struct sigaction sa;
    long r;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    r = rec(d);
    loop(loops);
    for (int i = 0; i < sigs; i++)
        raise(SIGUSR1);
    printf("calltree: rec=%ld rec_calls=%ld max_depth=%d tiny_calls=%ld usr1=%d\n", r, rec_calls,
           max_depth, tiny_calls, (int)usr1);
    fflush(stdout);
    if (argc > 4 && !strcmp(argv[4], "crash"))
        crash_here(NULL);
    return 0;
}
