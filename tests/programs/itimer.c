/* tests/programs/itimer.c: a loop that a 1 ms interval timer interrupts
 * until its handler has run three times (the third disarms it): signals
 * from outside the program, at points no run repeats, between
 * superblocks of a small loop VEX unrolls. */
#include <signal.h>
#include <stdio.h>
#include <sys/time.h>

static volatile sig_atomic_t g_ticks;
volatile unsigned long g_spins;

static void on_alarm(int sig)
{
	static const struct itimerval off;

	(void)sig;
	if (++g_ticks == 3)
		setitimer(ITIMER_REAL, &off, NULL);
}

int main(void)
{
	struct itimerval it = { { 0, 1000 }, { 0, 1000 } };

	signal(SIGALRM, on_alarm);
	setitimer(ITIMER_REAL, &it, NULL);
	while (g_ticks < 3)
		g_spins++;
	printf("ticks %d\n", (int)g_ticks);
	return 0;
}
