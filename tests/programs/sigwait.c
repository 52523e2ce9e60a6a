/* tests/programs/sigwait.c: a program that waits for signals from outside
 * (the kernel's timer): with sigsuspend, SIGALRM blocked outside the wait
 * as it should be, then with pause. The signals end the waits at points
 * no run repeats. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>
#include <unistd.h>

static volatile sig_atomic_t g_alarms;
volatile int g_suspends, g_pauses;

static void on_alarm(int sig)
{
	(void)sig;
	g_alarms++;
}

int main(void)
{
	struct itimerval it = { { 0, 0 }, { 0, 2000 } };
	sigset_t alarm, old;

	signal(SIGALRM, on_alarm);
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	sigprocmask(SIG_BLOCK, &alarm, &old);
	setitimer(ITIMER_REAL, &it, NULL);
	while (g_alarms < 1) {
		sigsuspend(&old);
		g_suspends++;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	while (g_alarms < 2) {
		pause();
		g_pauses++;
	}
	printf("alarms %d suspends %d pauses %d\n", (int)g_alarms, g_suspends, g_pauses);
	return 0;
}
