/*
 * protocol/rsp_buf.h: a growable byte buffer.
 *
 * Replies, payloads and qXfer objects are built in one of these. The data is
 * always followed by a NUL byte (not counted in len) so text can be used as a
 * C string. Lifetime: rsp_buf_init / rsp_buf_release; rsp_buf_reset keeps the
 * memory for reuse.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_BUF_H
#define HINDSIGHT_PROTOCOL_RSP_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_buf {
	uint8_t *data;
	size_t len;
	size_t cap;
};

void rsp_buf_init(struct rsp_buf *b);
void rsp_buf_release(struct rsp_buf *b);
/* Empties the buffer, keeping its memory. */
void rsp_buf_reset(struct rsp_buf *b);

/* Each returns 0 or -ENOMEM (the buffer is then unchanged). */
int rsp_buf_reserve(struct rsp_buf *b, size_t extra);
int rsp_buf_append(struct rsp_buf *b, const void *data, size_t len);
int rsp_buf_putc(struct rsp_buf *b, uint8_t c);
int rsp_buf_puts(struct rsp_buf *b, const char *s);
int rsp_buf_printf(struct rsp_buf *b, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
int rsp_buf_vprintf(struct rsp_buf *b, const char *fmt, va_list ap);
/* Two lower-case hex digits per byte of @data. */
int rsp_buf_put_hex(struct rsp_buf *b, const void *data, size_t len);

/* The text as a C string (never NULL). */
const char *rsp_buf_str(const struct rsp_buf *b);

#endif
