/* Helpers for dwprog.c that live in a header, so their lines carry a
 * different file name than the caller's, and get inlined at -O2. */
#ifndef DWPROG_UTIL_H
#define DWPROG_UTIL_H

static inline unsigned util_mix(unsigned x)
{
	x ^= x >> 13;
	x *= 0x5bd1e995u;
	x ^= x >> 15;
	return x;
}

static inline unsigned util_sum(const unsigned *v, int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++)
		s += util_mix(v[i]);
	return s;
}

#endif
