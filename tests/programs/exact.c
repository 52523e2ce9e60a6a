/* tests/programs/exact.c: what a recorder that trusts the machine gets
 * wrong, one mode per run (argv[1]):
 *   cpuid    CPUID, then a store right after it, three times
 *   strings  glibc's string functions (rep movs / stos, vector loops)
 *   signal   a caught signal, its handler, and the return from it
 *   longjmp  setjmp / longjmp across frames
 *   crash    a store through a null pointer (SIGSEGV)
 * Every mode prints one line and exits 0, except crash. */
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile uint64_t g_after_cpuid;
volatile int g_handled;
static jmp_buf g_jb;
static char g_src[8192], g_dst[8192];

static void mode_cpuid(void)
{
	unsigned leaf0[2] = { 0, 0 };

	for (unsigned i = 0; i < 3; i++) {
		unsigned a = i, b, c = 0, d;

		/* the store is the instruction a lost trap would run unseen */
		__asm__ volatile("cpuid\n\t"
				 "movq $0x5eed0001, g_after_cpuid(%%rip)"  /* LINE:after_cpuid */
				 : "+a"(a), "=b"(b), "+c"(c), "=d"(d) : : "memory");
		if (i == 0) {
			leaf0[0] = a;
			leaf0[1] = b;
		}
		g_after_cpuid += i;
	}
	printf("cpuid %llx leaf0 %#x %#x\n", (unsigned long long)g_after_cpuid, leaf0[0], leaf0[1]);
}

static void mode_strings(void)
{
	size_t n = 0;

	memset(g_src, 'a', sizeof(g_src) - 1);
	memcpy(g_dst, g_src, sizeof(g_src));
	memmove(g_dst + 1, g_dst, 4000);
	n = strlen(g_dst) + (size_t)(strchr(g_dst, 'a') - g_dst) + (size_t)memcmp(g_src, g_dst, 100);
	printf("strings %zu\n", n);
}

static void on_usr1(int sig)
{
	g_handled += sig;                        /* LINE:handler */
}

static void mode_signal(void)
{
	signal(SIGUSR1, on_usr1);
	raise(SIGUSR1);
	raise(SIGUSR1);
	printf("signal %d\n", g_handled);
}

static __attribute__((noinline)) void jump_back(int v)
{
	longjmp(g_jb, v);
}

static void mode_longjmp(void)
{
	volatile int round = 0;

	if (setjmp(g_jb) < 3)
		jump_back(++round);
	printf("longjmp %d\n", round);
}

static __attribute__((noinline)) void crash_store(int *p, int v)
{
	*p = v;                                  /* LINE:crash_store */
}

int main(int argc, char **argv)
{
	const char *m = argc > 1 ? argv[1] : "";

	if (!strcmp(m, "cpuid"))
		mode_cpuid();
	else if (!strcmp(m, "strings"))
		mode_strings();
	else if (!strcmp(m, "signal"))
		mode_signal();
	else if (!strcmp(m, "longjmp"))
		mode_longjmp();
	else if (!strcmp(m, "crash"))
		crash_store((int *)(uintptr_t)(argc - 2), 7);
	else
		return 2;
	return 0;
}
