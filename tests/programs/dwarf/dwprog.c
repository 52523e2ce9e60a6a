/* A C test program for dwarf/: plain functions, static inline helpers that
 * get inlined (two levels deep, across a header), a cold path, a recursive
 * function and a function pointer, so addr2line -i has work to do. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dwprog_util.h"

struct point { int x, y; };

static inline int square(int v)
{
	return v * v;
}

static inline int dist2(struct point a, struct point b)
{
	return square(a.x - b.x) + square(a.y - b.y);
}

__attribute__((noinline)) int fib(int n)
{
	if (n < 2)
		return n;
	return fib(n - 1) + fib(n - 2);
}

__attribute__((noinline, cold)) static void fail(const char *why)
{
	fprintf(stderr, "fail: %s\n", why);
	exit(3);
}

__attribute__((noinline)) int checked_div(int a, int b)
{
	if (__builtin_expect(b == 0, 0))
		fail("division by zero");
	return a / b;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

__attribute__((noinline)) int nearest(const struct point *pts, int n, struct point q)
{
	int best = -1, bestd = 0;
	for (int i = 0; i < n; i++) {
		int d = dist2(pts[i], q);
		if (best < 0 || d < bestd) {
			best = i;
			bestd = d;
		}
	}
	return best;
}

int main(int argc, char **argv)
{
	struct point pts[4] = { { 1, 2 }, { 3, 4 }, { -5, 6 }, { 7, -8 } };
	unsigned v[8];
	int vals[5] = { 5, 3, 9, 1, 7 };

	for (int i = 0; i < 8; i++)
		v[i] = (unsigned)(argc * 31 + i);
	qsort(vals, 5, sizeof vals[0], cmp_int);
	printf("%d %d %u %d\n", nearest(pts, 4, (struct point){ argc, 0 }),
	       fib(argc + 10), util_sum(v, 8), checked_div(vals[4], argc));
	if (argc > 1 && strcmp(argv[1], "crash") == 0)
		fail("asked to");
	return 0;
}
