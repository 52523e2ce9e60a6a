/* tests/programs/rec/control.c: control flow for the recorder round trip:
 * loops, recursion deeper than the 64-entry return stack, function
 * pointers, a switch the compiler makes a jump table, setjmp / longjmp. */
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf env;
static volatile int sink;

__attribute__((noinline)) static int fib(int n)
{
	return n < 2 ? n : fib(n - 1) + fib(n - 2);
}

__attribute__((noinline)) static int depth(int n)
{
	if (n == 0)
		return 0;
	sink = n;
	return 1 + depth(n - 1);
}

__attribute__((noinline)) static int op_add(int a, int b) { return a + b; }
__attribute__((noinline)) static int op_sub(int a, int b) { return a - b; }
__attribute__((noinline)) static int op_mul(int a, int b) { return a * b; }

__attribute__((noinline)) static int classify(int x)
{
	switch (x % 9) {
	case 0: return x * 3;
	case 1: return x + 11;
	case 2: return x ^ 0x55;
	case 3: return x - 7;
	case 4: return x << 2;
	case 5: return x >> 1;
	case 6: return ~x;
	case 7: return x * x;
	default: return 42;
	}
}

__attribute__((noinline)) static void jumper(int n)
{
	if (n == 0)
		longjmp(env, 7);
	sink = n;
	jumper(n - 1);
}

int main(int argc, char **argv)
{
	int (*ops[])(int, int) = { op_add, op_sub, op_mul };
	long total = 0;
	(void)argv;

	for (int i = 0; i < 300; i++)
		total += ops[(i + argc) % 3](i, 3);
	for (int i = 0; i < 200; i++)
		total += classify(i + argc);
	total += fib(12);
	total += depth(100);
	for (int k = 0; k < 3; k++) {
		int v = setjmp(env);
		if (v == 0)
			jumper(10 + k * 30);
		total += v;
	}
	printf("control %ld\n", total);
	return 0;
}
