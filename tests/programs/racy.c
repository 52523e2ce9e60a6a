/*
 * racy.c: three workers race on g_racy (an unlocked read-modify-write, so
 * updates are lost where Valgrind switches threads in between), take a
 * mutex in turn (contended: futex waits), note who took it in g_order,
 * sleep, and read the time. Main joins them and prints what came out,
 * which differs from run to run: a rebuild must give the recorded run's.
 * argv[1]: the increments per round (default 20000); argv[2] "crash":
 * the second worker, halfway, writes through a pointer made of g_racy
 * while the others run (round after round, until it ends them).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS 3
#define ROUNDS 40

volatile long g_racy;
long g_locked;
unsigned long g_order;              /* a hash of who took the lock when */
long g_nsec[NTHREADS];
static int g_inner = 20000;
static int g_crash;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

/* A call between the read and the write: a switch can fall there. */
__attribute__((noinline)) static long bump(long v)
{
    return v & 1 ? v + 1 : v + 1;
}

static void *worker(void *arg)
{
    long id = (long)arg;

    /* (With "crash", the others go on until it ends the process: they
     * are still running, in the window of its last superblocks.) */
    for (int r = 0; r < ROUNDS || (g_crash && id != 1); r++) {
        for (int i = 0; i < g_inner; i++) {
            long v = g_racy;        /* LINE:racy_read */
            g_racy = bump(v);
        }
        pthread_mutex_lock(&g_lock);
        g_locked++;
        g_order = g_order * 31 + (unsigned long)id + 1;
        pthread_mutex_unlock(&g_lock);
        if (r % 8 == id)
            usleep(100);
        if (g_crash && id == 1 && r == ROUNDS / 2)
            *(volatile long *)(g_racy & 0xff) = 1; /* LINE:racy_crash */
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    g_nsec[id] = ts.tv_nsec;
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NTHREADS];

    if (argc > 1)
        g_inner = atoi(argv[1]);
    g_crash = argc > 2 && argv[2][0] == 'c';

    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(th[i], NULL);
    printf("%ld %ld %lu %ld %ld %ld\n", g_racy, g_locked, g_order, g_nsec[0], g_nsec[1],
           g_nsec[2]);                /* LINE:racy_done */
    return 0;
}
