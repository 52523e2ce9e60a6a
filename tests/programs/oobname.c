/*
 * oobname.c: a read past an array's end, for tests/e2e/t_run_names.sh.
 * deref(p, i) loads p[i] and follows it; with i past the end of what p
 * points into, the load reads the object beyond, whose pointer is null,
 * and the crash's origin names the memory loaded. "global I": p is the
 * global v[8] and v[I] lies in best[] (the test picks I from nm: the
 * linker puts best after v); "heap I": p is an 8-element malloc'd block
 * and p[I] lies in the block malloc gave next, main's b; "stack K": p is
 * whichever of main's arrays loc[8] and other[8] lies lower, and p[I]
 * element K of the other one (main prints its name).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long one = 1;
long *v[8];
long *best[8];

__attribute__((noinline)) long deref(long **p, int i)
{
	return *p[i]; /* LINE:fault */
}

int main(int argc, char **argv)
{
	long **a = malloc(8 * sizeof(*a)), **b = malloc(4 * sizeof(*b));
	long *loc[8], *other[8];
	int i = argc > 2 ? atoi(argv[2]) : 10;

	for (int k = 0; k < 8; k++)
		v[k] = a[k] = best[k] = loc[k] = other[k] = &one;
	memset(b, 0, 4 * sizeof(*b));
	printf("%p %p\n", (void *)a, (void *)b);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "heap"))
		return (int)deref(a, i);
	if (argc > 1 && !strcmp(argv[1], "stack")) {
		long **lo = loc < other ? loc : other, **hi = loc < other ? other : loc;

		printf("%s\n", hi == loc ? "loc" : "other");
		fflush(stdout);
		hi[i] = NULL;
		return (int)deref(lo, (int)(hi - lo) + i);
	}
	best[i - 8] = NULL;
	return (int)deref(v, i);
}
