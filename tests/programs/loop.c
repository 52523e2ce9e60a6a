/*
 * loop.c: spins forever (until killed) in loop_spin(); used for Ctrl-C,
 * kill, attach and "killed from outside" tests.  It prints its pid first
 * and, if given a file name, writes "alive" to it once running.
 */
#include <stdio.h>
#include <unistd.h>

volatile unsigned long g_spins;

void loop_spin(void)
{
    for (;;)
        g_spins++; /* LINE:spin */
}

int main(int argc, char **argv)
{
    printf("loop: pid %d\n", (int)getpid());
    fflush(stdout);
    if (argc > 1) {
        FILE *f = fopen(argv[1], "w");
        if (f) {
            fputs("alive\n", f);
            fclose(f);
        }
    }
    loop_spin();
    return 0;
}
