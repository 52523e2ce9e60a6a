/*
 * lines.c: code whose line table has what GDB reads its own way, for
 * `info line` and `disassemble /s` and `/m` (t_replay_disas_line): loops
 * (rows of one line split by discriminators, lines out of address
 * order), a statement over several lines, blank and comment lines between
 * statements, a function in a header (lines_inc.h), a switch; a local
 * array for x and $_ / $__.
 */
#include <stdio.h>

#include "lines_inc.h"

static long g_total;

static int weigh(int x)
{
	int w = 0;

	switch (x % 4) {
	case 0:
		w = 3;
		break;
	case 1:
		w = clamp(x * 7,
			  2,
			  40);
		break;
	default:

		/* nothing to add */

		w = x;
	}
	return w;
}

int main(int argc, char **argv)
{
	long buf[4] = { 0x11223344, -2, 3, 4 };

	(void)argv;
	for (int i = 0; i < 10 + argc; i++) {
		g_total += weigh(i);
		if (g_total > 1000)
			break;
	}
	while (g_total > 50)
		g_total -= 7;
	buf[1] = g_total;
	printf("%ld %ld\n", g_total, buf[0] + buf[1]); /* LINE:print */
	return 0;
}
