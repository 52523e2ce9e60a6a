/* tests/programs/rec/signals.c: asynchronous control flow: a SIGUSR1
 * raised by the program, SIGALRM from a timer interrupting a loop and a
 * blocking syscall (pause, nanosleep: restarted or EINTR). */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t usr1, alrm;

static void on_usr1(int sig) { (void)sig; usr1++; }
static void on_alrm(int sig) { (void)sig; alrm++; }

int main(void)
{
	struct sigaction sa;
	struct itimerval it;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	volatile unsigned long spin = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	sa.sa_handler = on_alrm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	raise(SIGUSR1);
	raise(SIGUSR1);

	memset(&it, 0, sizeof(it));
	it.it_value.tv_usec = 2000;
	setitimer(ITIMER_REAL, &it, NULL);
	while (!alrm)
		spin++;
	alarm(1);
	pause();
	it.it_value.tv_usec = 5000;
	setitimer(ITIMER_REAL, &it, NULL);
	nanosleep(&ts, NULL);
	printf("signals usr1=%d alrm=%d\n", (int)usr1, (int)alrm);
	return 0;
}
