/*
 * protocol/rsp_hex.c: hex numbers and hex strings as packets spell them.
 */
#include "protocol/rsp_hex.h"

#include <errno.h>

int rsp_hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

int rsp_hex_u64(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	if (s >= end || rsp_hex_digit(*s) < 0)
		return -EINVAL;
	for (; s < end && (d = rsp_hex_digit(*s)) >= 0; s++) {
		if (v >> 60)
			return -ERANGE;
		v = v << 4 | (uint64_t)d;
	}
	*p = s;
	*out = v;
	return 0;
}

int rsp_hex_decode(const char *in, size_t len, uint8_t *out)
{
	if (len % 2 || len / 2 > (size_t)INT32_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len / 2; i++) {
		int hi = rsp_hex_digit(in[2 * i]);
		int lo = rsp_hex_digit(in[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return (int)(len / 2);
}
