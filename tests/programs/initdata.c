/*
 * initdata: globals whose values come from the program file (initialised
 * .data, and .bss) and are never written while it runs, next to one it
 * writes. t_replay_initial compiles it with -DINIT=N (N random) and reads
 * them from a recording as GDB reads them from the live program.
 */
#include <stdio.h>

#ifndef INIT
#define INIT 12345
#endif
#define STR_(x) #x
#define STR(x) STR_(x)

int g_init = INIT;
char g_name[16] = "hs-" STR(INIT);
long g_bss;
struct pair {
	int a;
	short b;
} g_pair = { -INIT, 7 };
int g_written = 1;

void __attribute__((noinline)) stop_here(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(void)
{
	g_written = INIT + 1;
	stop_here();
	printf("initdata: %d %s %ld %d\n", g_init, g_name, g_bss, g_written);
	return 0;
}
