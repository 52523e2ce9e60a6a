/*
 * tailcall.c: entry values across a tail call, for
 * tests/e2e/t_replay_tailcall.sh (built with -O2). main calls middle
 * through a function pointer (an indirect call whose target no debugger
 * can compute afterwards), and middle tail-calls callee: the call site in
 * main that callee returns to is middle's, so its parameter values are
 * middle's, not callee's; GDB shows callee's entry values as unknown
 * there ("a=<optimized out>"). direct calls callee normally: there the
 * entry values hold ("a=a@entry=5").
 */
#include <stdlib.h>

volatile int sinkv;

/* One line: where GDB and we break in it is the same line. */
__attribute__((noinline, noclone)) void leaf(int v) { sinkv = v; }

__attribute__((noinline, noclone)) int callee(int a, int b)
{
	leaf(a * b);
	return 7;
}

__attribute__((noinline, noclone)) int middle(int x, int y)
{
	if (x > 100)
		return 1;
	return callee(y, x + 1);
}

__attribute__((noinline, noclone)) int direct(int x, int y)
{
	return callee(x, y) + 1;
}

int (*volatile pick)(int, int) = middle;

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	int r = pick(n, 5);

	r += direct(n + 2, 9);
	return r == 15 ? 0 : 1;
}
