/* A shared library for dwarf/ tests: exported and static functions, one
 * inlined helper, so lookups in a .so at its own addresses can be checked. */
static inline int lib_scale(int x, int k)
{
	return x * k + (x >> 2);
}

static int lib_private(int x)
{
	int s = 0;
	for (int i = 0; i < x; i++)
		s += lib_scale(i, 3);
	return s;
}

int lib_public(int x)
{
	return lib_private(x) + lib_scale(x, 5);
}

int lib_other(const char *s)
{
	int n = 0;
	while (*s)
		n += *s++;
	return n;
}
