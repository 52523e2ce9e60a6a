/* breakplace: where `break FUNC` goes (tests/e2e/t_replay_break_place.sh).
 * Built from three files: this one and breakplace_b.c at -O0, breakplace_opt.c
 * at -O2 -fno-omit-frame-pointer; breakplace_dl.c is a library it loads with
 * dlopen from the path in argv[1]. Each function below is one kind GDB 13 places differently. */
#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

int opt_sum(const int *v, int n);     /* -O2, in a unit with location lists */
int opt_squares(int a, int b);        /* -O2, sq() inlined into it twice */
int opt_call(int (*f)(int, int), int x); /* -O2, not a leaf */
int helper_b(int x);                  /* calls breakplace_b.c's own static helper */

void *volatile nothing;               /* free(NULL) the compiler cannot drop */

int add(int a, int b) { return a + b; }

static int helper(int x)
{
	return x * 3;
}

int count(int n)
{
	int c = 0;

	for (int i = 0; i < n; i++)
		c += i;
	return c;
}

int main(int argc, char **argv)
{
	int v[4] = { 1, 2, 3, 4 };
	char *p = malloc(32);
	int r;

	for (int i = 0; i < 3; i++)
		free(nothing);
	free(p);
	r = add(1, 2) + add(5, 7) + helper(1) + helper_b(2) + count(4);
	r += opt_sum(v, 4) + opt_squares(3, 4) + opt_call(add, 2);
	if (argc > 1) {
		void *h = dlopen(argv[1], RTLD_NOW);
		int (*scale)(int) = h ? (int (*)(int))dlsym(h, "dl_scale") : NULL;

		if (!scale)
			return 2;
		r += scale(2) + scale(3);
	}
	if (write(1, "done\n", 5) != 5)
		return 1;
	exit(r == 0);
}
