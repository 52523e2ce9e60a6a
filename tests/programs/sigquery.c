/*
 * sigquery.c: asks how SIGINT is handled (the old action sigaction writes
 * back is what the process inherited: default or ignored), prints it, then
 * writes through a null pointer. A rebuild of its run must give it the
 * answer the recorded run had, whatever its own process ignores.
 */
#include <signal.h>
#include <stdio.h>

int main(void)
{
    struct sigaction old;

    sigaction(SIGINT, NULL, &old);
    printf("SIGINT %s\n", old.sa_handler == SIG_IGN ? "ignored" : "default");
    fflush(stdout);
    *(volatile int *)0 = 1; /* LINE:sigquery_crash */
    return 0;
}
