/*
 * recurse.c: a recursive function and a signal handler, for reverse-next /
 * reverse-step over both.  Usage: recurse N (the depth, chosen by the test).
 * g_calls counts the calls of sum_to(); g_handled the SIGUSR1 handler's runs.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int g_calls;
volatile sig_atomic_t g_handled;
long g_total;

long sum_to(int n)
{
    g_calls++; /* LINE:sum_body */
    if (n <= 0)
        return 0;
    return n + sum_to(n - 1);
}

static void on_usr1(int sig)
{
    (void)sig;
    g_handled++; /* LINE:handler */
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 5;
    struct sigaction sa;

    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    g_total = sum_to(n); /* LINE:call_sum */
    raise(SIGUSR1); /* LINE:raise */
    printf("recurse: total=%ld calls=%d handled=%d\n", g_total, g_calls, (int)g_handled); /* LINE:print */
    fflush(stdout);
    return 0;
}
