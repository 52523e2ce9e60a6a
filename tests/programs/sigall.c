/*
 * sigall.c: the pattern of GDB's gdb.reverse/sigall-reverse.exp, small:
 * installs a handler for each of a few signals, raises each in turn with
 * kill() from its own gen_X function, then exits with the status given as
 * argv[1] (0 without one). Each handler counts in g_handled[]; the total is
 * printed at the end.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

volatile sig_atomic_t g_handled[NSIG];

static void handle_HUP(int sig) { g_handled[sig]++; }
static void handle_ABRT(int sig) { g_handled[sig]++; }
static void handle_USR1(int sig) { g_handled[sig]++; }
static void handle_USR2(int sig) { g_handled[sig]++; }
static void handle_ALRM(int sig) { g_handled[sig]++; }
static void handle_TERM(int sig) { g_handled[sig]++; }

static void gen_HUP(void) { kill(getpid(), SIGHUP); }
static void gen_ABRT(void) { kill(getpid(), SIGABRT); }
static void gen_USR1(void) { kill(getpid(), SIGUSR1); }
static void gen_USR2(void) { kill(getpid(), SIGUSR2); }
static void gen_ALRM(void) { kill(getpid(), SIGALRM); }
static void gen_TERM(void) { kill(getpid(), SIGTERM); }

int main(int argc, char **argv)
{
    int n = 0;

    signal(SIGHUP, handle_HUP);
    signal(SIGABRT, handle_ABRT);
    signal(SIGUSR1, handle_USR1);
    signal(SIGUSR2, handle_USR2);
    signal(SIGALRM, handle_ALRM);
    signal(SIGTERM, handle_TERM);
    gen_HUP();
    gen_ABRT();
    gen_USR1();
    gen_USR2();
    gen_ALRM();
    gen_TERM();
    for (int s = 0; s < NSIG; s++)
        n += g_handled[s];
    printf("sigall: handled %d\n", n);
    fflush(stdout);
    return argc > 1 ? atoi(argv[1]) : 0; /* LINE:sigall_return */
}
