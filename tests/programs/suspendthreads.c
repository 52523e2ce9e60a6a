/*
 * suspendthreads.c: the main thread waits in sigsuspend while a worker
 * thread computes, so that under Valgrind the worker runs its turns while
 * main is in the call, and a signal ends the wait:
 * 1. SIGUSR1, sent by the worker to main (pthread_kill: tgkill) after a
 *    while of computing;
 * 2. SIGALRM from a timer, while the worker computes (or after it is done:
 *    it ran while main waited, either way);
 * each blocked outside the wait, let in by sigsuspend's mask. The worker
 * blocks both, and does a fixed amount of work (its trace is compared
 * instruction for instruction). It prints how many times each handler ran,
 * each wait's calls, and the worker's sums.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/time.h>

static volatile sig_atomic_t g_usr1, g_alarms;
static atomic_int g_phase;      /* 1: main waits for the timer */
static pthread_t g_main;
volatile long g_sum1, g_sum2;
volatile int g_waits1, g_waits2;

static void on_usr1(int sig)
{
	(void)sig;
	g_usr1++;
}

static void on_alarm(int sig)
{
	(void)sig;
	g_alarms++;
}

static long compute(long n)
{
	long s = 0;

	for (volatile long i = 0; i < n; i++)
		s += i % 7;
	return s;
}

static void *worker(void *arg)
{
	(void)arg;
	g_sum1 = compute(30000);
	pthread_kill(g_main, SIGUSR1);
	while (atomic_load(&g_phase) < 1)
		sched_yield();
	/* Main waits for the timer meanwhile. */
	g_sum2 = compute(30000);
	return NULL;
}

int main(void)
{
	sigset_t both, old, wait_usr1, wait_alarm;
	struct itimerval it = { { 0, 0 }, { 0, 20000 } };
	pthread_t w;

	signal(SIGUSR1, on_usr1);
	signal(SIGALRM, on_alarm);
	sigemptyset(&both);
	sigaddset(&both, SIGUSR1);
	sigaddset(&both, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &both, &old);
	wait_usr1 = old;
	sigaddset(&wait_usr1, SIGALRM);
	wait_alarm = old;
	sigaddset(&wait_alarm, SIGUSR1);
	g_main = pthread_self();
	pthread_create(&w, NULL, worker, NULL);
	while (!g_usr1) {
		g_waits1++;
		sigsuspend(&wait_usr1);
	}
	setitimer(ITIMER_REAL, &it, NULL);
	atomic_store(&g_phase, 1);
	while (!g_alarms) {
		g_waits2++;
		sigsuspend(&wait_alarm);
	}
	pthread_join(w, NULL);
	printf("usr1 %d alarms %d waits %d %d sums %ld %ld\n", (int)g_usr1, (int)g_alarms,
	       g_waits1, g_waits2, g_sum1, g_sum2);
	return 0;
}
