/*
 * fpreg.c: a double that lives in a vector register when the program
 * faults. Built with -O2: scale(x, p) keeps x in xmm0 and faults reading
 * *p (p is NULL unless a second argument is given). Usage: fpreg X [ok]
 */
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) double scale(double x, const int *p)
{
	return x * *p; /* LINE:scale */
}

int main(int argc, char **argv)
{
	int one = 1;
	double x = argc > 1 ? atof(argv[1]) : 1.5;

	printf("%g\n", scale(x, argc > 2 ? &one : NULL));
	return 0;
}
