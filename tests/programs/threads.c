/*
 * threads.c: main starts NTHREADS workers with pthread_create, each runs
 * thread_work(id) which stores id * id + g_base in g_results[id]; main joins
 * them and prints the sum.  g_base comes from argv so values vary per run.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NTHREADS 3

int g_base;
int g_results[NTHREADS];

int thread_work(int id)
{
    int value = id * id + g_base; /* LINE:thread_work */
    g_results[id] = value;
    return value;
}

static void *thread_main(void *arg)
{
    thread_work((int)(long)arg);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];
    g_base = argc > 1 ? atoi(argv[1]) : 100;
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, thread_main, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    int sum = 0;
    for (int i = 0; i < NTHREADS; i++)
        sum += g_results[i];
    printf("threads: sum=%d\n", sum); /* LINE:threads_done */
    fflush(stdout);
    return 0;
}
