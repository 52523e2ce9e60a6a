/*
 * czero.c: a crash through a pointer calloc left zero, for
 * tests/e2e/t_run_calloc.sh. main callocs a struct (small: from the heap
 * brk grows; "big" in argv[1]: 1 MiB, which glibc mmaps) and never sets
 * its pointer; store() writes through it. calloc does not clear memory
 * fresh from the kernel: no instruction ever wrote those zeros, brk's or
 * mmap's system call made them. main prints the struct's address.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cfg {
	long n;
	long *out;
};

__attribute__((noinline)) void store(struct cfg *c, long v)
{
	*c->out = v; /* LINE:fault */
}

int main(int argc, char **argv)
{
	int big = argc > 1 && !strcmp(argv[1], "big");
	struct cfg *c = calloc(1, big ? 1 << 20 : sizeof(*c));

	printf("%p\n", (void *)c);
	fflush(stdout);
	c->n = argc;
	store(c, 7);
	return 0;
}
