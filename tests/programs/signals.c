/*
 * signals.c: raises SIGUSR1 once and SIGALRM three times, with handlers
 * that count them; prints the counts at exit.  signals_checkpoint() is a
 * place to stop between the two so a test can inject another SIGUSR1.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

volatile sig_atomic_t g_usr1;
volatile sig_atomic_t g_alrm;

static void on_usr1(int sig)
{
    (void)sig;
    g_usr1++; /* LINE:usr1_handler */
}

static void on_alrm(int sig)
{
    (void)sig;
    g_alrm++;
}

void signals_checkpoint(void)
{
    g_usr1 += 0; /* LINE:checkpoint */
}

int main(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    sa.sa_handler = on_alrm;
    sigaction(SIGALRM, &sa, NULL);

    raise(SIGUSR1); /* LINE:raise_usr1 */
    signals_checkpoint();
    for (int i = 0; i < 3; i++)
        raise(SIGALRM);
    printf("signals: usr1=%d alrm=%d\n", (int)g_usr1, (int)g_alrm);
    fflush(stdout);
    return 0;
}
