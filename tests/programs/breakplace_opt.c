/* breakplace_opt: built at -O2 (GCC: optimized code, location lists). */
static inline __attribute__((always_inline)) int sq(int x)
{
	return x * x;
}

__attribute__((noinline)) int opt_sum(const int *v, int n)
{
	int s = 0;

	for (int i = 0; i < n; i++)
		s += v[i] * (i + 1);
	return s;
}

__attribute__((noinline)) int opt_squares(int a, int b)
{
	return sq(a) + sq(b + a);
}

/* Not a leaf: with -fno-omit-frame-pointer it starts push %rbp; mov %rsp,%rbp,
 * and GDB still breaks at its entry (the unit's locations are valid). */
__attribute__((noinline)) int opt_call(int (*f)(int, int), int x)
{
	int r = f(x, x + 1);

	return r * 2 + f(r, x);
}
