/*
 * tests/unit/test_rsp_frame.c: RSP framing, both directions.
 *
 * Decoder tests are tables of {bytes on the wire -> the events they must
 * produce}: every byte is fed on its own, each byte that completes nothing
 * must return RSP_FRAME_NONE, and the other events must come in the order
 * listed. Encoder tests are {payload -> bytes on the wire}. The contract is
 * protocol/rsp_frame.h and RSP-REFERENCE.md section 1.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_frame.h"

/* A string literal as (pointer, length): the length counts embedded NULs. */
#define BYTES(s) s, sizeof(s) - 1

struct want {
	enum rsp_frame_event event; /* RSP_FRAME_NONE ends the list */
	const char *payload;        /* PACKET: the decoded payload */
	size_t len;
	bool csum_ok;               /* PACKET / ERROR */
	int error;                  /* ERROR */
};

#define PACKET(s) { RSP_FRAME_PACKET, s, sizeof(s) - 1, true, 0 }
#define BAD_CSUM(s) { RSP_FRAME_PACKET, s, sizeof(s) - 1, false, 0 }
#define ERROR(e) { RSP_FRAME_ERROR, NULL, 0, true, e }
#define ACK { RSP_FRAME_ACK, NULL, 0, false, 0 }
#define NACK { RSP_FRAME_NACK, NULL, 0, false, 0 }
#define INTERRUPT { RSP_FRAME_INTERRUPT, NULL, 0, false, 0 }

struct decode_case {
	const char *name;
	const char *wire;
	size_t wire_len;
	size_t max_payload;         /* 0: DEFAULT_MAX */
	struct want want[8];
};

#define DEFAULT_MAX 4096

static const char *event_name(enum rsp_frame_event ev)
{
	switch (ev) {
	case RSP_FRAME_NONE: return "NONE";
	case RSP_FRAME_PACKET: return "PACKET";
	case RSP_FRAME_ERROR: return "ERROR";
	case RSP_FRAME_ACK: return "ACK";
	case RSP_FRAME_NACK: return "NACK";
	case RSP_FRAME_INTERRUPT: return "INTERRUPT";
	}
	return "?";
}

static void check_event(const struct decode_case *c, size_t byte_at,
			const struct rsp_frame *f, enum rsp_frame_event got,
			const struct want *w)
{
	if (w->event == RSP_FRAME_NONE)
		fail_msg("%s: unexpected %s at byte %zu", c->name, event_name(got), byte_at);
	if (got != w->event)
		fail_msg("%s: byte %zu gave %s, want %s", c->name, byte_at,
			 event_name(got), event_name(w->event));
	if (got == RSP_FRAME_PACKET) {
		const char *got_payload = rsp_buf_str(&f->payload);

		if (f->payload.len != w->len || memcmp(got_payload, w->payload, w->len))
			fail_msg("%s: payload \"%.*s\" (%zu bytes), want \"%.*s\" (%zu)",
				 c->name, (int)f->payload.len, got_payload,
				 f->payload.len, (int)w->len, w->payload, w->len);
		if (got_payload[f->payload.len] != 0)
			fail_msg("%s: payload not NUL-terminated", c->name);
	}
	if (got == RSP_FRAME_ERROR && f->error != w->error)
		fail_msg("%s: error %d, want %d", c->name, f->error, w->error);
	if ((got == RSP_FRAME_PACKET || got == RSP_FRAME_ERROR) && f->csum_ok != w->csum_ok)
		fail_msg("%s: csum_ok %d, want %d", c->name, f->csum_ok, w->csum_ok);
}

static void run_decode_case(const struct decode_case *c)
{
	struct rsp_frame f;
	size_t i, k = 0;

	rsp_frame_init(&f, c->max_payload ? c->max_payload : DEFAULT_MAX);
	for (i = 0; i < c->wire_len; i++) {
		enum rsp_frame_event ev = rsp_frame_feed(&f, (uint8_t)c->wire[i]);

		if (ev != RSP_FRAME_NONE)
			check_event(c, i, &f, ev, &c->want[k++]);
	}
	if (c->want[k].event != RSP_FRAME_NONE)
		fail_msg("%s: input ended before event %zu (%s)", c->name, k,
			 event_name(c->want[k].event));
	rsp_frame_release(&f);
}

static void run_decode_table(const struct decode_case *cases, size_t n)
{
	for (size_t i = 0; i < n; i++)
		run_decode_case(&cases[i]);
}

#define RUN_TABLE(t) run_decode_table(t, sizeof(t) / sizeof(t[0]))

static void test_decode_plain_packets(void **state)
{
	static const struct decode_case cases[] = {
		{ "halt reason", BYTES("$?#3f"), 0, { PACKET("?") } },
		{ "upper-case checksum digits", BYTES("$OK#9A"), 0, { PACKET("OK") } },
		{ "empty payload", BYTES("$#00"), 0, { PACKET("") } },
		{ "two packets back to back", BYTES("$?#3f$g#67"), 0,
		  { PACKET("?"), PACKET("g") } },
		{ "qSupported", BYTES("$qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+#9b"), 0,
		  { PACKET("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+") } },
		{ "'+' inside a payload is data", BYTES("$a+b#ee"), 0, { PACKET("a+b") } },
		{ "0x03 inside a payload is data", BYTES("$a\x03" "b#c6"), 0, { PACKET("a\x03" "b") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

static void test_decode_bad_checksum(void **state)
{
	static const struct decode_case cases[] = {
		{ "wrong checksum", BYTES("$?#40"), 0, { BAD_CSUM("?") } },
		{ "non-hex checksum", BYTES("$?#zz"), 0, { BAD_CSUM("?") } },
		{ "bad then good", BYTES("$?#00$?#3f"), 0, { BAD_CSUM("?"), PACKET("?") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

static void test_decode_acks_and_interrupt(void **state)
{
	static const struct decode_case cases[] = {
		{ "ack", BYTES("+"), 0, { ACK } },
		{ "nack", BYTES("-"), 0, { NACK } },
		{ "interrupt", BYTES("\x03"), 0, { INTERRUPT } },
		{ "initial ack then packet", BYTES("+$?#3f"), 0, { ACK, PACKET("?") } },
		{ "between packets", BYTES("$?#3f+\x03-$g#67+"), 0,
		  { PACKET("?"), ACK, INTERRUPT, NACK, PACKET("g"), ACK } },
	};
	(void)state;
	RUN_TABLE(cases);
}

static void test_decode_garbage_ignored(void **state)
{
	static const struct decode_case cases[] = {
		{ "garbage before", BYTES("xyz\n\r#00 $?#3f"), 0, { PACKET("?") } },
		{ "garbage between", BYTES("$?#3fjunk}*#$g#67"), 0, { PACKET("?"), PACKET("g") } },
		{ "NUL bytes between", BYTES("\0\0$?#3f\0"), 0, { PACKET("?") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

/* GDB's behaviour: a `$` inside a payload starts the packet again. */
static void test_decode_dollar_restarts(void **state)
{
	static const struct decode_case cases[] = {
		{ "restart", BYTES("$ab$?#3f"), 0, { PACKET("?") } },
		{ "restart after a long prefix", BYTES("$qSupported:xyz$g#67"), 0, { PACKET("g") } },
		{ "restart clears an overflow", BYTES("$abcdefgh$?#3f"), 4, { PACKET("?") } },
		{ "restart clears a bad run", BYTES("$*0$?#3f"), 0, { PACKET("?") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

/* `}` + (byte ^ 0x20); the checksum covers the bytes as sent. */
static void test_decode_escapes(void **state)
{
	static const struct decode_case cases[] = {
		{ "escaped }", BYTES("$}]#da"), 0, { PACKET("}") } },
		{ "escaped #", BYTES("$}\x03#80"), 0, { PACKET("#") } },
		{ "escaped $", BYTES("$}\x04#81"), 0, { PACKET("$") } },
		{ "escaped *", BYTES("$}\x0a#87"), 0, { PACKET("*") } },
		{ "X packet with all four", BYTES("$X1000,4:a}]}\x03}\x04}\x0a" "b#d8"), 0,
		  { PACKET("X1000,4:a}#$*b") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

/* `X*c`: the previous character c - 29 more times (`0* ` is `0000`). */
static void test_decode_run_length(void **state)
{
	static const struct decode_case cases[] = {
		{ "0* is 0000", BYTES("$0* #7a"), 0, { PACKET("0000") } },
		{ "count \" is 5 more", BYTES("$0*\"#7c"), 0, { PACKET("000000") } },
		{ "largest count ~", BYTES("$0*~#d8"), 0,
		  { PACKET("0000000000000000000000000000000000000000000000000"
			   "0000000000000000000000000000000000000000000000000") } },
		{ "two runs in a row", BYTES("$0* * #c4"), 0, { PACKET("0000000") } },
		{ "run after text", BYTES("$1* #7b"), 0, { PACKET("1111") } },
		{ "run of an escaped byte repeats the unescaped byte", BYTES("$}]* #24"), 0,
		  { PACKET("}}}}") } },
		{ "run as first byte", BYTES("$*0#5a"), 0, { ERROR(-EBADMSG) } },
		{ "count not printable", BYTES("$0*\x1f#79"), 0, { ERROR(-EBADMSG) } },
		{ "count above 126", BYTES("$0*\x7f#d9"), 0, { ERROR(-EBADMSG) } },
		{ "usable after a bad run", BYTES("$*0#5a$?#3f"), 0,
		  { ERROR(-EBADMSG), PACKET("?") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

static void test_decode_oversized(void **state)
{
	static const struct decode_case cases[] = {
		{ "exactly the limit", BYTES("$abcd#8a"), 4, { PACKET("abcd") } },
		{ "one past the limit", BYTES("$abcde#ef"), 4, { ERROR(-EMSGSIZE) } },
		{ "run-length past the limit", BYTES("$0* #7a"), 3, { ERROR(-EMSGSIZE) } },
		{ "usable afterwards", BYTES("$abcde#ef+$ab#c3"), 4,
		  { ERROR(-EMSGSIZE), ACK, PACKET("ab") } },
	};
	(void)state;
	RUN_TABLE(cases);
}

/* A flood without `#` must not be buffered whole. */
static void test_decode_oversized_keeps_memory_bounded(void **state)
{
	struct rsp_frame f;
	enum rsp_frame_event ev = RSP_FRAME_NONE;
	const char *tail = "#00";

	(void)state;
	rsp_frame_init(&f, 16);
	assert_int_equal(rsp_frame_feed(&f, '$'), RSP_FRAME_NONE);
	for (int i = 0; i < 100000; i++)
		assert_int_equal(rsp_frame_feed(&f, 'a'), RSP_FRAME_NONE);
	assert_true(f.payload.cap <= 4096);
	for (; *tail; tail++)
		ev = rsp_frame_feed(&f, (uint8_t)*tail);
	assert_int_equal(ev, RSP_FRAME_ERROR);
	assert_int_equal(f.error, -EMSGSIZE);
	rsp_frame_release(&f);
}

struct encode_case {
	const char *name;
	const char *payload;
	size_t len;
	const char *wire;
	size_t wire_len;
};

static void test_encode(void **state)
{
	static const struct encode_case cases[] = {
		{ "OK", BYTES("OK"), BYTES("$OK#9a") },
		{ "empty", BYTES(""), BYTES("$#00") },
		{ "halt reason", BYTES("?"), BYTES("$?#3f") },
		{ "the four escaped bytes, checksum over the escaped form",
		  BYTES("a$b#c}d*e"), BYTES("$a}\x04" "b}\x03" "c}]d}\x0a" "e#51") },
		{ "runs are never compressed", BYTES("0000000"), BYTES("$0000000#50") },
		{ "NUL and 0x03 pass as they are", BYTES("\0\x03"), BYTES("$\0\x03#03") },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct encode_case *c = &cases[i];
		struct rsp_buf out;

		rsp_buf_init(&out);
		assert_int_equal(rsp_frame_encode(&out, c->payload, c->len), 0);
		if (out.len != c->wire_len || memcmp(out.data, c->wire, c->wire_len))
			fail_msg("%s: got \"%.*s\", want \"%.*s\"", c->name, (int)out.len,
				 (const char *)out.data, (int)c->wire_len, c->wire);
		rsp_buf_release(&out);
	}
}

static void test_encode_appends(void **state)
{
	struct rsp_buf out;

	(void)state;
	rsp_buf_init(&out);
	assert_int_equal(rsp_buf_puts(&out, "+"), 0);
	assert_int_equal(rsp_frame_encode(&out, "OK", 2), 0);
	assert_int_equal(rsp_frame_encode(&out, "?", 1), 0);
	assert_string_equal(rsp_buf_str(&out), "+$OK#9a$?#3f");
	rsp_buf_release(&out);
}

/* Decodes a whole encoded packet; fails unless it is exactly one PACKET. */
static void decode_one(const struct rsp_buf *wire, struct rsp_frame *f)
{
	size_t events = 0;

	for (size_t i = 0; i < wire->len; i++) {
		enum rsp_frame_event ev = rsp_frame_feed(f, wire->data[i]);

		if (ev == RSP_FRAME_NONE)
			continue;
		assert_int_equal(ev, RSP_FRAME_PACKET);
		assert_int_equal(i, wire->len - 1);
		assert_true(f->csum_ok);
		events++;
	}
	assert_int_equal(events, 1);
}

/* Between `$` and `#` an encoded packet has no raw `$ # *`, and every `}`
 * starts an escape of one of the four special bytes. */
static void check_encoded_body(const struct rsp_buf *wire)
{
	assert_true(wire->len >= 4);
	assert_int_equal(wire->data[0], '$');
	assert_int_equal(wire->data[wire->len - 3], '#');
	for (size_t i = 1; i < wire->len - 3; i++) {
		uint8_t b = wire->data[i];

		assert_true(b != '$' && b != '#' && b != '*');
		if (b == '}') {
			uint8_t orig;

			assert_true(++i < wire->len - 3);
			orig = wire->data[i] ^ 0x20;
			assert_true(orig == '$' || orig == '#' || orig == '}' || orig == '*');
		}
	}
}

static void test_round_trip_all_bytes(void **state)
{
	uint8_t all[256];
	struct rsp_buf wire;
	struct rsp_frame f;

	(void)state;
	for (int i = 0; i < 256; i++)
		all[i] = (uint8_t)i;
	rsp_buf_init(&wire);
	rsp_frame_init(&f, sizeof(all));

	assert_int_equal(rsp_frame_encode(&wire, all, sizeof(all)), 0);
	check_encoded_body(&wire);
	decode_one(&wire, &f);
	assert_int_equal(f.payload.len, sizeof(all));
	assert_memory_equal(f.payload.data, all, sizeof(all));

	for (int i = 0; i < 256; i++) {
		uint8_t one[3] = { (uint8_t)i, (uint8_t)i, (uint8_t)i };

		rsp_buf_reset(&wire);
		assert_int_equal(rsp_frame_encode(&wire, one, sizeof(one)), 0);
		check_encoded_body(&wire);
		decode_one(&wire, &f);
		assert_int_equal(f.payload.len, sizeof(one));
		assert_memory_equal(f.payload.data, one, sizeof(one));
	}
	rsp_frame_release(&f);
	rsp_buf_release(&wire);
}

/* An empty first packet: nothing was ever stored, yet the payload has a
 * buffer with room for the NUL a parser writes after it. */
static void test_empty_first_packet(void **state)
{
	struct rsp_frame f;
	const char *wire = "$#00";
	enum rsp_frame_event ev = RSP_FRAME_NONE;

	(void)state;
	rsp_frame_init(&f, 64);
	for (; *wire; wire++)
		ev = rsp_frame_feed(&f, (uint8_t)*wire);
	assert_int_equal(ev, RSP_FRAME_PACKET);
	assert_true(f.csum_ok);
	assert_int_equal(f.payload.len, 0);
	assert_non_null(f.payload.data);
	assert_string_equal(rsp_buf_str(&f.payload), "");
	rsp_frame_release(&f);
}

/* Release after an unfinished packet must not leak (run under ASan). */
static void test_release_mid_packet(void **state)
{
	struct rsp_frame f;
	const char *wire = "$qSupported:multipro";

	(void)state;
	rsp_frame_init(&f, 64);
	for (; *wire; wire++)
		assert_int_equal(rsp_frame_feed(&f, (uint8_t)*wire), RSP_FRAME_NONE);
	rsp_frame_release(&f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_decode_plain_packets),
		cmocka_unit_test(test_decode_bad_checksum),
		cmocka_unit_test(test_decode_acks_and_interrupt),
		cmocka_unit_test(test_decode_garbage_ignored),
		cmocka_unit_test(test_decode_dollar_restarts),
		cmocka_unit_test(test_decode_escapes),
		cmocka_unit_test(test_decode_run_length),
		cmocka_unit_test(test_decode_oversized),
		cmocka_unit_test(test_decode_oversized_keeps_memory_bounded),
		cmocka_unit_test(test_encode),
		cmocka_unit_test(test_encode_appends),
		cmocka_unit_test(test_round_trip_all_bytes),
		cmocka_unit_test(test_empty_first_packet),
		cmocka_unit_test(test_release_mid_packet),
	};

	return cmocka_run_group_tests_name("rsp_frame", tests, NULL, NULL);
}
