/*
 * protocol/rsp_buf.c: a growable byte buffer, always NUL-terminated.
 */
#include "protocol/rsp_buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rsp_buf_init(struct rsp_buf *b)
{
	b->data = NULL;
	b->len = 0;
	b->cap = 0;
}

void rsp_buf_release(struct rsp_buf *b)
{
	free(b->data);
	rsp_buf_init(b);
}

void rsp_buf_reset(struct rsp_buf *b)
{
	b->len = 0;
	if (b->data)
		b->data[0] = 0;
}

int rsp_buf_reserve(struct rsp_buf *b, size_t extra)
{
	size_t need, cap;
	uint8_t *data;

	if (extra > SIZE_MAX - b->len - 1)
		return -ENOMEM;
	need = b->len + extra + 1;
	if (need <= b->cap)
		return 0;
	cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap = cap > SIZE_MAX / 2 ? need : cap * 2;
	data = realloc(b->data, cap);
	if (!data)
		return -ENOMEM;
	b->data = data;
	b->cap = cap;
	return 0;
}

int rsp_buf_append(struct rsp_buf *b, const void *data, size_t len)
{
	int err = rsp_buf_reserve(b, len);

	if (err)
		return err;
	if (len)
		memcpy(b->data + b->len, data, len);
	b->len += len;
	b->data[b->len] = 0;
	return 0;
}

int rsp_buf_putc(struct rsp_buf *b, uint8_t c)
{
	return rsp_buf_append(b, &c, 1);
}

int rsp_buf_puts(struct rsp_buf *b, const char *s)
{
	return rsp_buf_append(b, s, strlen(s));
}

int rsp_buf_vprintf(struct rsp_buf *b, const char *fmt, va_list ap)
{
	va_list again;
	int n, err;

	va_copy(again, ap);
	n = vsnprintf(NULL, 0, fmt, again);
	va_end(again);
	if (n < 0)
		return -EINVAL;
	err = rsp_buf_reserve(b, (size_t)n);
	if (err)
		return err;
	vsnprintf((char *)b->data + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int rsp_buf_printf(struct rsp_buf *b, const char *fmt, ...)
{
	va_list ap;
	int err;

	va_start(ap, fmt);
	err = rsp_buf_vprintf(b, fmt, ap);
	va_end(ap);
	return err;
}

int rsp_buf_put_hex(struct rsp_buf *b, const void *data, size_t len)
{
	static const char digits[] = "0123456789abcdef";
	const uint8_t *p = data;
	uint8_t *out;
	int err;

	if (len > SIZE_MAX / 2)
		return -ENOMEM;
	err = rsp_buf_reserve(b, 2 * len);
	if (err)
		return err;
	out = b->data + b->len;
	for (size_t i = 0; i < len; i++) {
		*out++ = (uint8_t)digits[p[i] >> 4];
		*out++ = (uint8_t)digits[p[i] & 15];
	}
	b->len += 2 * len;
	b->data[b->len] = 0;
	return 0;
}

const char *rsp_buf_str(const struct rsp_buf *b)
{
	return b->data ? (const char *)b->data : "";
}
