/*
 * exit_thread.c: a thread other than main ends the process: the worker
 * calls exit() with the status given as argv[1] (3 without one) while main
 * waits in pthread_join.
 */
#include <pthread.h>
#include <stdlib.h>

static int g_status = 3;

static void *worker(void *arg)
{
    (void)arg;
    exit(g_status); /* LINE:worker_exit */
}

int main(int argc, char **argv)
{
    pthread_t th;

    if (argc > 1)
        g_status = atoi(argv[1]);
    pthread_create(&th, NULL, worker, NULL);
    pthread_join(th, NULL);
    return 0;
}
