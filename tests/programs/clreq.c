/* tests/programs/clreq.c: a program that asks Valgrind questions through
 * valgrind.h's client requests, as GLib, V8 and Qt do: each a special
 * instruction sequence (four rotates of rdi and a marker), which VEX takes
 * as one instruction of 19 bytes and the program's bytes hold as five.
 * Natively each request gives its default: 0. */
#include <stdio.h>
#include <valgrind/valgrind.h>

volatile unsigned long g_on, g_count;

int main(void)
{
	g_on = RUNNING_ON_VALGRIND;
	/* Another request of the core's, with no answer. */
	VALGRIND_DISCARD_TRANSLATIONS(&g_on, sizeof(g_on));
	/* The errors the tool counted (none: 0). */
	g_count = VALGRIND_COUNT_ERRORS;
	printf("on valgrind %lu errors %lu\n", g_on, g_count);
	return 0;
}
