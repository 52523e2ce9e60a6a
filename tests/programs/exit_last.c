/*
 * exit_last.c: the process ends by its last thread's exit, not an
 * exit_group: main ends its own thread with the raw exit syscall (as
 * pthread_exit would not: it runs no exit handlers either), and the worker,
 * alone then, does the same with the status given as argv[1] (3 without
 * one).
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static int g_status = 3;
static volatile int g_main_gone;

static void *worker(void *arg)
{
    (void)arg;
    while (!g_main_gone)
        usleep(1000);
    usleep(20000);       /* main's thread is gone by now */
    syscall(SYS_exit, g_status); /* LINE:last_exit */
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th;

    if (argc > 1)
        g_status = atoi(argv[1]);
    pthread_create(&th, NULL, worker, NULL);
    g_main_gone = 1;
    syscall(SYS_exit, 0);
    return 0;
}
