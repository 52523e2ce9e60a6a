/* tests/programs/clreq.c: a program that asks Valgrind questions through
 * valgrind.h's client requests, as GLib, V8 and Qt do: each a special
 * instruction sequence (four rotates of rdi and a marker), which VEX takes
 * as one instruction of 19 bytes and the program's bytes hold as five. A
 * request (marker `xchg %rbx,%rbx`) ends its superblock; the address a
 * wrapped function had (`xchg %rcx,%rcx`, here in no wrapper: 0) is read
 * in the middle of one, with instructions and a branch after it. Natively
 * each request gives its default: 0. */
#include <stdio.h>
#include <valgrind/valgrind.h>

volatile unsigned long g_on, g_count, g_nraddr, g_odd;

int main(int argc, char **argv)
{
	OrigFn fn;

	(void)argv;
	g_on = RUNNING_ON_VALGRIND;
	/* Another request of the core's, with no answer. */
	VALGRIND_DISCARD_TRANSLATIONS(&g_on, sizeof(g_on));
	/* The errors the tool counted (none: 0). */
	g_count = VALGRIND_COUNT_ERRORS;
	g_odd = 7;
	VALGRIND_GET_ORIG_FN(fn);
	g_nraddr = fn.nraddr;
	if (argc & 1)
		g_odd = (unsigned long)argc * 3;
	printf("on valgrind %lu errors %lu nraddr %lu odd %lu\n", g_on, g_count, g_nraddr, g_odd);
	return 0;
}
