/*
 * protocol/rsp_frame.c: the RSP framing state machine and encoder.
 *
 * Decoding, byte by byte:
 *   IDLE     '$' starts a packet; '+', '-', 0x03 are events; the rest is noise
 *   PAYLOAD  '#' ends it, '}' escapes the next byte, '*' repeats the last
 *            byte (count - 29) more times, '$' restarts the packet
 *   CSUM1/2  two hex digits, compared with the sum of the raw payload bytes
 * Bytes past max_payload are still consumed (so the stream stays in step)
 * but not stored; the packet then ends as RSP_FRAME_ERROR / -EMSGSIZE.
 */
#include "protocol/rsp_frame.h"

#include <errno.h>

#include "protocol/rsp_hex.h"

void rsp_frame_init(struct rsp_frame *f, size_t max_payload)
{
	f->state = RSP_FRAME_IDLE;
	f->max_payload = max_payload;
	rsp_buf_init(&f->payload);
	f->sum = 0;
	f->csum = 0;
	f->csum_ok = false;
	f->error = 0;
}

void rsp_frame_release(struct rsp_frame *f)
{
	rsp_buf_release(&f->payload);
}

static void start_packet(struct rsp_frame *f)
{
	f->error = 0;
	rsp_buf_reset(&f->payload);
	/* Keep a buffer even for an empty payload: parsers write a NUL
	 * after it. */
	if (rsp_buf_reserve(&f->payload, 0))
		f->error = -ENOMEM;
	else
		f->payload.data[0] = 0;
	f->state = RSP_FRAME_IN_PAYLOAD;
	f->sum = 0;
}

static void store(struct rsp_frame *f, uint8_t c, size_t count)
{
	if (f->error)
		return;
	if (count > f->max_payload - f->payload.len) {
		f->error = -EMSGSIZE;
		return;
	}
	for (size_t i = 0; i < count && !f->error; i++)
		if (rsp_buf_putc(&f->payload, c))
			f->error = -EMSGSIZE;
}

static enum rsp_frame_event feed_idle(struct rsp_frame *f, uint8_t c)
{
	switch (c) {
	case '$':
		start_packet(f);
		return RSP_FRAME_NONE;
	case '+':
		return RSP_FRAME_ACK;
	case '-':
		return RSP_FRAME_NACK;
	case 0x03:
		return RSP_FRAME_INTERRUPT;
	default:
		return RSP_FRAME_NONE;
	}
}

static void feed_payload(struct rsp_frame *f, uint8_t c)
{
	if (c == '$') {
		start_packet(f);
		return;
	}
	if (c == '#') {
		f->state = RSP_FRAME_IN_CSUM1;
		return;
	}
	f->sum += c;
	if (c == '}')
		f->state = RSP_FRAME_IN_ESCAPE;
	else if (c == '*')
		f->state = RSP_FRAME_IN_RLE;
	else
		store(f, c, 1);
}

static void feed_rle(struct rsp_frame *f, uint8_t c)
{
	f->sum += c;
	f->state = RSP_FRAME_IN_PAYLOAD;
	if (f->payload.len == 0 || c < 29 + 3 || c > 126) {
		if (!f->error)
			f->error = -EBADMSG;
		return;
	}
	store(f, f->payload.data[f->payload.len - 1], (size_t)(c - 29));
}

static enum rsp_frame_event feed_csum(struct rsp_frame *f, uint8_t c)
{
	int d = rsp_hex_digit(c);

	if (f->state == RSP_FRAME_IN_CSUM1) {
		f->csum = (uint8_t)((d < 0 ? 0 : d) << 4);
		f->csum_ok = d >= 0;
		f->state = RSP_FRAME_IN_CSUM2;
		return RSP_FRAME_NONE;
	}
	f->csum |= (uint8_t)(d < 0 ? 0 : d);
	f->csum_ok = f->csum_ok && d >= 0 && f->csum == f->sum;
	f->state = RSP_FRAME_IDLE;
	return f->error ? RSP_FRAME_ERROR : RSP_FRAME_PACKET;
}

enum rsp_frame_event rsp_frame_feed(struct rsp_frame *f, uint8_t c)
{
	switch (f->state) {
	case RSP_FRAME_IDLE:
		return feed_idle(f, c);
	case RSP_FRAME_IN_PAYLOAD:
		feed_payload(f, c);
		return RSP_FRAME_NONE;
	case RSP_FRAME_IN_ESCAPE:
		f->sum += c;
		store(f, c ^ 0x20, 1);
		f->state = RSP_FRAME_IN_PAYLOAD;
		return RSP_FRAME_NONE;
	case RSP_FRAME_IN_RLE:
		feed_rle(f, c);
		return RSP_FRAME_NONE;
	case RSP_FRAME_IN_CSUM1:
	case RSP_FRAME_IN_CSUM2:
		return feed_csum(f, c);
	}
	return RSP_FRAME_NONE;
}

static bool needs_escape(uint8_t c)
{
	return c == '$' || c == '#' || c == '}' || c == '*';
}

int rsp_frame_encode(struct rsp_buf *out, const void *payload, size_t len)
{
	const uint8_t *p = payload;
	uint8_t sum = 0;
	int err;

	/* Worst case every byte escaped, plus "$", "#xx". */
	if (len > (SIZE_MAX - 4) / 2)
		return -ENOMEM;
	err = rsp_buf_reserve(out, 2 * len + 4);
	if (err)
		return err;
	rsp_buf_putc(out, '$');
	for (size_t i = 0; i < len; i++) {
		uint8_t c = p[i];

		if (needs_escape(c)) {
			rsp_buf_putc(out, '}');
			sum += '}';
			c ^= 0x20;
		}
		rsp_buf_putc(out, c);
		sum += c;
	}
	return rsp_buf_printf(out, "#%02x", sum);
}
