/*
 * timeline.c: three workers take turns by a schedule the test draws at
 * random, for one timeline across threads in the past.
 * Usage: timeline W:V [W:V ...]   (at most 16 turns; turn n is worker W,
 * 0 to 2, storing V). Each worker waits for its turns (a condition
 * variable), calls worker_step(id, n, value), which stores the value in
 * g_vals[id], and hands the turn on; main joins them and prints the turns
 * as "turn N: worker W value V". Lines a test needs are tagged with LINE:
 * markers.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NWORKERS 3
#define MAXTURNS 16

int g_vals[NWORKERS];    /* what each worker stored last */
int g_turns;             /* turns done */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static int who[MAXTURNS], what[MAXTURNS], nturns;

void worker_step(int id, int n, int value)
{
    g_vals[id] = value; /* LINE:store */
    g_turns = n + 1; /* LINE:count */
}

static void *worker(void *arg)
{
    int id = (int)(long)arg;

    pthread_mutex_lock(&lock);
    for (;;) {
        while (g_turns < nturns && who[g_turns] != id)
            pthread_cond_wait(&cond, &lock);
        if (g_turns >= nturns)
            break;
        worker_step(id, g_turns, what[g_turns]);
        pthread_cond_broadcast(&cond);
    }
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[NWORKERS];

    for (int i = 1; i < argc && nturns < MAXTURNS; i++) {
        if (sscanf(argv[i], "%d:%d", &who[nturns], &what[nturns]) != 2 ||
            who[nturns] < 0 || who[nturns] >= NWORKERS)
            return 2;
        nturns++;
    }
    for (long i = 0; i < NWORKERS; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < NWORKERS; i++)
        pthread_join(th[i], NULL);
    for (int n = 0; n < nturns; n++)
        printf("turn %d: worker %d value %d\n", n, who[n], what[n]);
    return 0; /* LINE:end */
}
