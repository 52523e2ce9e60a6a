/* tests/programs/lines_inc.h: a function whose code is in a header, for
 * lines.c (its line table then has two files). */
static int clamp(int v, int lo, int hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}
