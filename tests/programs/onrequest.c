/*
 * onrequest.c: a long loop, then a mark, then the same loop shortly: a
 * debugger stops at mark() at full speed, turns recording on there, and
 * goes back from the second work() to where recording started (the first
 * work() ran before it). t_serve_on_request.
 */
#include <stdio.h>

volatile long g;

__attribute__((noinline)) void work(int n)
{
	for (int i = 0; i < n; i++)
		g += i;
}

__attribute__((noinline)) void mark(void)
{
	g++;
}

int main(int argc, char **argv)
{
	(void)argv;
	work(argc > 1 ? 10 : 1000000);
	mark();
	work(10);
	printf("%ld\n", g);
	return 0;
}
