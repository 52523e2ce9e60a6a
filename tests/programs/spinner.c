/*
 * spinner.c: prints "ready", then computes without a syscall until a
 * signal from outside kills it (a test sends SIGINT, as Ctrl-C would).
 */
#include <stdio.h>

volatile unsigned long g_acc;
volatile int g_stop;                /* never set: the loop's branch is a test */

int main(void)
{
    printf("ready\n");
    fflush(stdout);
    for (unsigned long k = 0; !g_stop; k++)
        g_acc += k * k ^ (g_acc >> 3); /* LINE:spin */
    return 0;
}
