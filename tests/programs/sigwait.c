/* tests/programs/sigwait.c: a program that waits for signals from outside
 * (the kernel's timer), each way a program can, at points no run repeats:
 * 1. sigsuspend, SIGALRM blocked outside the wait as it should be;
 * 2. pause, and
 * 3. sigsuspend with SIGALRM let in outside too (a timer that repeats, so
 *    that an alarm between the check and the call leaves no wait forever;
 *    each made at least once);
 * 4. ppoll, pselect and epoll_pwait, SIGALRM blocked outside and let in by
 *    each call's mask (pselect's blocks every other signal: the 64th too,
 *    which Valgrind keeps let in);
 * 5. ppoll with SIGALRM let in outside too;
 * 6. ppoll and pselect with a mask that return at once (a zero timeout):
 *    Valgrind's wrappers leave the mask's register pointing at their copy
 *    of it, and the program goes on with that value.
 * Each wait's loop counts the calls a signal ended. */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t g_alarms;
volatile int g_suspends, g_pauses, g_open_suspends, g_polls, g_selects, g_epolls, g_open_polls;
volatile int g_zero;

static void on_alarm(int sig)
{
	(void)sig;
	g_alarms++;
}

/* The timer: once in 2 ms, then every @every us (0: once; -1: stopped). */
static void arm(long every)
{
	struct itimerval it = { { 0, every > 0 ? every : 0 }, { 0, every < 0 ? 0 : 2000 } };

	setitimer(ITIMER_REAL, &it, NULL);
}

int main(void)
{
	sigset_t alarm, old, all_but;
	struct epoll_event ev;
	struct timespec zero = { 0, 0 };
	int ep = epoll_create1(0), n;

	signal(SIGALRM, on_alarm);
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigfillset(&all_but);
	sigdelset(&all_but, SIGALRM);
	sigprocmask(SIG_BLOCK, &alarm, &old);
	arm(0);
	for (n = g_alarms + 1; g_alarms < n; g_suspends++)
		sigsuspend(&old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* (A timer that repeats: an alarm between the check and the call
	 * leaves no wait forever.) */
	arm(2000);
	n = g_alarms + 1;
	do {
		pause();
		g_pauses++;
	} while (g_alarms < n);
	n = g_alarms + 3;
	do {
		sigsuspend(&old);
		g_open_suspends++;
	} while (g_alarms < n);
	arm(-1);
	sigprocmask(SIG_BLOCK, &alarm, NULL);
	arm(0);
	for (n = g_alarms + 1; g_alarms < n; g_polls++)
		ppoll(NULL, 0, NULL, &old);
	arm(0);
	for (n = g_alarms + 1; g_alarms < n; g_selects++)
		pselect(0, NULL, NULL, NULL, NULL, &all_but);
	arm(0);
	for (n = g_alarms + 1; g_alarms < n; g_epolls++)
		epoll_pwait(ep, &ev, 1, -1, &old);
	sigprocmask(SIG_SETMASK, &old, NULL);
	arm(2000);
	n = g_alarms + 3;
	do {
		ppoll(NULL, 0, NULL, &old);
		g_open_polls++;
	} while (g_alarms < n);
	arm(-1);
	g_zero = ppoll(NULL, 0, &zero, &old);
	g_zero += pselect(0, NULL, NULL, NULL, &zero, &all_but);
	printf("alarms %d suspends %d pauses %d open suspends %d polls %d selects %d epolls %d "
	       "open polls %d\n", (int)g_alarms, g_suspends, g_pauses, g_open_suspends, g_polls,
	       g_selects, g_epolls, g_open_polls);
	return 0;
}
