/*
 * tests/unit/test_rsp_reply.c: reply builders (protocol/rsp_reply.h).
 *
 * Tables of {what the server wants to say, to which client -> reply payload
 * bytes}. Where the protocol allows two spellings of a number (a watch
 * address or a thread pc with or without leading zeros) a row lists both.
 * Stop replies follow RSP-REFERENCE.md 3.4: `T<sig>[reason;]06:<rbp>;07:<rsp>;
 * 10:<rip>;thread:<id>;` with registers as little-endian bytes in hex; the
 * pairs of a T reply may come in any order (both clients accept that).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_packet.h"
#include "protocol/rsp_regs.h"
#include "protocol/rsp_reply.h"

static int failures;
#define FAIL(...) (print_error(__VA_ARGS__), print_error("\n"), failures++)

static void expect_no_failures(void)
{
	int n = failures;

	failures = 0;
	if (n)
		fail_msg("%d mismatches (listed above)", n);
}

/* Splits the `n:r;` pairs after `T<sig>` into @pairs, sorted. */
static size_t stop_pairs(const char *reply, char pairs[][96], size_t max)
{
	size_t n = 0;

	for (const char *p = reply + 3; *p && n < max; n++) {
		size_t len = strcspn(p, ";");

		snprintf(pairs[n], sizeof(pairs[n]), "%.*s", (int)len, p);
		p += len + (p[len] == ';');
	}
	qsort(pairs, n, sizeof(pairs[0]), (int (*)(const void *, const void *))strcmp);
	return n;
}

/* GDB and LLDB read the pairs of a T reply in any order, so two T replies
 * are the same when they have the same signal and the same pairs, each
 * ended by `;`. */
static bool same_reply(const char *got, const char *want)
{
	char a[16][96], b[16][96];
	size_t na, nb;

	if (!strcmp(got, want))
		return true;
	if (got[0] != 'T' || want[0] != 'T' || strncmp(got, want, 3) || strlen(got) != strlen(want))
		return false;
	if (got[strlen(got) - 1] != ';')
		return false;
	na = stop_pairs(got, a, 16);
	nb = stop_pairs(want, b, 16);
	if (na != nb)
		return false;
	for (size_t i = 0; i < na; i++)
		if (strcmp(a[i], b[i]))
			return false;
	return true;
}

/* Compares the reply with @want (or @alt, when not NULL). */
static void expect_reply(const char *name, const struct rsp_buf *out, const char *want,
			 const char *alt)
{
	const char *got = rsp_buf_str(out);

	if (out->len != strlen(got))
		FAIL("%s: reply has a NUL inside (%zu bytes)", name, out->len);
	else if (!same_reply(got, want) && (!alt || !same_reply(got, alt)))
		FAIL("%s:\n   got  \"%s\"\n   want \"%s\"", name, got, want);
}

/* ---- clients ------------------------------------------------------------- */

static const struct rsp_client gdb_client = {
	.features = RSP_CLIENT_MULTIPROCESS | RSP_CLIENT_SWBREAK | RSP_CLIENT_HWBREAK |
		    RSP_CLIENT_VCONT_SUPPORTED | RSP_CLIENT_NO_RESUMED,
};
/* GDB with `set remote swbreak-feature-packet off` and friends. */
static const struct rsp_client gdb_no_swbreak = {
	.features = RSP_CLIENT_MULTIPROCESS | RSP_CLIENT_VCONT_SUPPORTED,
};
static const struct rsp_client gdb_no_multiprocess = {
	.features = RSP_CLIENT_SWBREAK | RSP_CLIENT_HWBREAK | RSP_CLIENT_VCONT_SUPPORTED,
};
/* LLDB 14 with every optional extension acked. */
static const struct rsp_client lldb_client = {
	.features = RSP_CLIENT_MULTIPROCESS,
	.error_strings = true, .thread_suffix = true, .threads_in_stop = true,
};
static const struct rsp_client lldb_plain = { .features = 0, .threads_in_stop = true };
static const struct rsp_client lldb_thread_suffix = { .features = 0, .thread_suffix = true };
static const struct rsp_client plain_client = { .features = RSP_CLIENT_MULTIPROCESS };
static const struct rsp_client bare_client = { .features = 0 };

/* ---- errors ---------------------------------------------------------------- */

struct error_case {
	const char *name;
	const struct rsp_client *client;
	int err;
	const char *text;
	const char *want;
};

static void test_error(void **state)
{
	static const struct error_case cases[] = {
		{ "GDB gets E.text", &gdb_client, -EIO, "Btrace not enabled.",
		  "E.Btrace not enabled." },
		/* GDB reads E.text only for some packets (not `m`): without a
		 * text the reply is the two-digit form. */
		{ "GDB, no text: two digits", &gdb_client, -ENOENT, NULL, "E02" },
		{ "LLDB with error strings", &lldb_client, -EIO, "boom", "E05;626f6f6d" },
		{ "LLDB with error strings, no text", &lldb_client, -EPERM, NULL,
		  "E01;4f7065726174696f6e206e6f74207065726d6974746564" },
		{ "plain EIO", &plain_client, -EIO, "ignored", "E05" },
		{ "plain EPERM", &plain_client, -EPERM, NULL, "E01" },
		{ "plain EINVAL", &plain_client, -EINVAL, NULL, "E16" },
		{ "LLDB without error strings", &lldb_plain, -ENOENT, "x", "E02" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct error_case *c = &cases[i];
		struct rsp_buf out;

		rsp_buf_init(&out);
		assert_int_equal(rsp_reply_error(&out, c->client, c->err, c->text), 0);
		expect_reply(c->name, &out, c->want, NULL);
		rsp_buf_release(&out);
	}
	expect_no_failures();
}

/* Errnos above 0xff are clamped to two digits. */
static void test_error_large_errno(void **state)
{
	struct rsp_buf out;

	(void)state;
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_error(&out, &plain_client, -300, NULL), 0);
	assert_int_equal(out.len, 3);
	assert_true(strcasecmp(rsp_buf_str(&out), "Eff") == 0);
	rsp_buf_release(&out);
}

/* ---- small builders ----------------------------------------------------------- */

static void test_ok_console_xml(void **state)
{
	struct rsp_buf out;

	(void)state;
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_ok(&out), 0);
	expect_reply("ok", &out, "OK", NULL);

	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_console(&out, "hi\n"), 0);
	expect_reply("console", &out, "O68690a", NULL);

	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_console(&out, "proxy: position 110\n"), 0);
	expect_reply("console 2", &out, "O70726f78793a20706f736974696f6e203131300a", NULL);

	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_xml_text(&out, "a<b>&\"'c"), 0);
	expect_reply("xml five specials", &out, "a&lt;b&gt;&amp;&quot;&apos;c", NULL);

	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_xml_text(&out, "/lib/x86_64-linux-gnu/libc.so.6"), 0);
	expect_reply("xml plain path", &out, "/lib/x86_64-linux-gnu/libc.so.6", NULL);

	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_xml_text(&out, ""), 0);
	expect_reply("xml empty", &out, "", NULL);
	rsp_buf_release(&out);
	expect_no_failures();
}

/* Builders append to what is already in the buffer. */
static void test_builders_append(void **state)
{
	struct rsp_buf out;

	(void)state;
	rsp_buf_init(&out);
	assert_int_equal(rsp_buf_puts(&out, "<name>"), 0);
	assert_int_equal(rsp_reply_xml_text(&out, "a&b"), 0);
	assert_int_equal(rsp_reply_ok(&out), 0);
	assert_int_equal(rsp_reply_console(&out, "A"), 0);
	expect_reply("appended", &out, "<name>a&amp;bOKO41", NULL);
	rsp_buf_release(&out);
	expect_no_failures();
}

struct ptid_case {
	const struct rsp_client *client;
	struct rsp_ptid ptid;
	const char *want;
};

static void test_ptid(void **state)
{
	static const struct ptid_case cases[] = {
		{ &gdb_client, { 1, 2 }, "p1.2" },
		{ &gdb_client, { 0x2420, 0x2420 }, "p2420.2420" },
		{ &gdb_client, { 0x2420, -1 }, "p2420.-1" },
		{ &gdb_no_multiprocess, { 0x2420, 0x2421 }, "2421" },
		{ &gdb_no_multiprocess, { 1, -1 }, "-1" },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct rsp_buf out;

		rsp_buf_init(&out);
		assert_int_equal(rsp_reply_ptid(&out, cases[i].client, cases[i].ptid), 0);
		expect_reply(cases[i].want, &out, cases[i].want, NULL);
		rsp_buf_release(&out);
	}
	expect_no_failures();
}

/* ---- qXfer slices -------------------------------------------------------------------- */

struct xfer_case {
	const char *name;
	uint64_t offset, len;
	const char *want;
	size_t want_len;
};

#define BIN(s) s, sizeof(s) - 1

static void test_xfer_slices(void **state)
{
	static const char obj[] = "0123456789";
	static const struct xfer_case cases[] = {
		{ "first slice, more remains", 0, 4, BIN("m0123") },
		{ "middle slice", 4, 2, BIN("m45") },
		{ "slice that ends exactly at the end", 6, 4, BIN("l6789") },
		{ "slice past the end", 6, 100, BIN("l6789") },
		{ "whole object", 0, 0x1000, BIN("l0123456789") },
		{ "offset at the end", 10, 4, BIN("l") },
		{ "offset past the end", 0x1000, 0x1000, BIN("l") },
		{ "len that overflows offset + len", 2, UINT64_MAX, BIN("l23456789") },
		{ "offset near 2^64", UINT64_MAX, 2, BIN("l") },
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct xfer_case *c = &cases[i];
		struct rsp_buf out;

		rsp_buf_init(&out);
		assert_int_equal(rsp_reply_xfer(&out, obj, sizeof(obj) - 1, c->offset, c->len), 0);
		expect_reply(c->name, &out, c->want, NULL);
		rsp_buf_release(&out);
	}
	expect_no_failures();
}

/* The slice is binary and goes out as it is: the framer escapes it. */
static void test_xfer_binary(void **state)
{
	static const uint8_t auxv[] = { 0x21, 0, 0, 0, '#', '$', '}', '*', 0xff };
	struct rsp_buf out;

	(void)state;
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_xfer(&out, auxv, sizeof(auxv), 0, 0x1000), 0);
	assert_int_equal(out.len, 1 + sizeof(auxv));
	assert_int_equal(out.data[0], 'l');
	assert_memory_equal(out.data + 1, auxv, sizeof(auxv));
	rsp_buf_release(&out);
}

/* ---- registers ------------------------------------------------------------------------- */

static void test_regs_hex_and_unavailable(void **state)
{
	const struct rsp_client gdb = { .features = RSP_CLIENT_VCONT_SUPPORTED };
	struct rsp_regs regs;
	struct rsp_buf out;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	rsp_regs_set(&regs, RSP_REG_RAX, 0x0102030405060708);
	rsp_regs_set(&regs, RSP_REG_RCX, 0);        /* rbx stays unavailable */
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_regs(&out, &gdb, &regs, 3), 0);
	expect_reply("rax rbx rcx", &out, "0807060504030201" "xxxxxxxxxxxxxxxx" "0000000000000000", NULL);

	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_regs(&out, &gdb, &regs, 0), 0);
	expect_reply("no registers", &out, "", NULL);
	rsp_buf_release(&out);
	expect_no_failures();
}

static void test_regs_sizes(void **state)
{
	const struct rsp_client gdb = { .features = RSP_CLIENT_VCONT_SUPPORTED };
	struct rsp_regs regs;
	struct rsp_buf out;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_regs(&out, &gdb, &regs, RSP_REG_COUNT_NOAVX), 0);
	assert_int_equal(out.len, 2 * RSP_REGS_SIZE_NOAVX);
	for (size_t i = 0; i < out.len; i++)
		assert_int_equal(out.data[i], 'x');

	memset(regs.avail, 1, sizeof(regs.avail));
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_regs(&out, &gdb, &regs, RSP_REG_COUNT), 0);
	assert_int_equal(out.len, 2 * RSP_REGS_SIZE);
	for (size_t i = 0; i < out.len; i++)
		assert_int_equal(out.data[i], '0');
	rsp_buf_release(&out);
}

static void test_reg_single(void **state)
{
	const struct rsp_client gdb = { .features = RSP_CLIENT_VCONT_SUPPORTED };
	static const uint8_t st0[10] = { 0, 0, 0, 0, 0, 0, 0, 0x80, 0xff, 0x3f }; /* 1.0 */
	struct rsp_regs regs;
	struct rsp_buf out;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	rsp_regs_set(&regs, RSP_REG_EFLAGS, 0x246);
	rsp_regs_set(&regs, RSP_REG_RIP, 0x555555555163);
	rsp_regs_set_bytes(&regs, RSP_REG_ST0, st0);
	rsp_buf_init(&out);

	assert_int_equal(rsp_reply_reg(&out, &gdb, &regs, RSP_REG_EFLAGS), 0);
	expect_reply("eflags", &out, "46020000", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_reg(&out, &gdb, &regs, RSP_REG_RIP), 0);
	expect_reply("rip", &out, "6351555555550000", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_reg(&out, &gdb, &regs, RSP_REG_ST0), 0);
	expect_reply("st0", &out, "0000000000000080ff3f", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_reg(&out, &gdb, &regs, RSP_REG_CS), 0);
	expect_reply("unavailable cs", &out, "xxxxxxxx", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_reg(&out, &gdb, &regs, RSP_REG_XMM0 + 15), 0);
	expect_reply("unavailable xmm15", &out, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", NULL);
	rsp_buf_release(&out);
	expect_no_failures();
}

/* LLDB 14 reads `xx` as 0xcc bytes: an unavailable register is refused
 * with lldb-server's E15, with its text once error strings are on; an
 * available one is spelled as for GDB. */
static void test_reg_unavailable_lldb(void **state)
{
	struct rsp_client lldb = { .thread_suffix = true };
	struct rsp_regs regs;
	struct rsp_buf out;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	rsp_regs_set(&regs, RSP_REG_RAX, 0x0102030405060708);
	rsp_buf_init(&out);
	assert_true(rsp_client_is_lldb(&lldb));
	assert_int_equal(rsp_reply_reg(&out, &lldb, &regs, RSP_REG_RAX), 0);
	expect_reply("available rax", &out, "0807060504030201", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_reg(&out, &lldb, &regs, RSP_REG_XMM0), 0);
	expect_reply("unavailable xmm0", &out, "E15", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_regs(&out, &lldb, &regs, 1), 0);
	expect_reply("g of rax alone", &out, "0807060504030201", NULL);
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_regs(&out, &lldb, &regs, 2), 0);
	expect_reply("g with rbx unavailable", &out, "E15", NULL);
	rsp_buf_reset(&out);
	lldb.thread_suffix = false;
	lldb.error_strings = true;
	assert_int_equal(rsp_reply_reg(&out, &lldb, &regs, RSP_REG_ST0), 0);
	expect_reply("with error strings", &out, "E15;726567697374657220756e617661696c61626c65", NULL);
	rsp_buf_release(&out);
	expect_no_failures();
}

/* ---- stop replies ------------------------------------------------------------------------ */

#define RBP 0x7fffffffe5d0
#define RSP 0x7fffffffe318
#define RIP 0x7ffff7fcc060
#define REGS_HEX "06:d0e5ffffff7f0000;07:18e3ffffff7f0000;10:60c0fcf7ff7f0000;"

struct stop_case {
	const char *name;
	const struct rsp_client *client;
	struct rsp_stop stop;
	bool with_regs;
	const char *want;
	const char *alt;     /* the same with zero-padded numbers */
};

#define THREAD_2420 { 0x2420, 0x2420 }
#define SIGNAL_STOP(sig, why) { .kind = RSP_STOP_SIGNAL, .thread = THREAD_2420, \
				.signo = (sig), .reason = (why) }
#define WATCH_STOP(why) { .kind = RSP_STOP_SIGNAL, .thread = THREAD_2420, .signo = SIGTRAP, \
			  .reason = (why), .watch_addr = 0x55555555802c }

static const struct stop_case stop_cases[] = {
	{ "breakpoint, GDB with swbreak", &gdb_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_SWBREAK), true,
	  "T05swbreak:;" REGS_HEX "thread:p2420.2420;", NULL },
	{ "breakpoint, client without swbreak: same pc, no key", &gdb_no_swbreak,
	  SIGNAL_STOP(SIGTRAP, RSP_REASON_SWBREAK), true, "T05" REGS_HEX "thread:p2420.2420;", NULL },
	{ "breakpoint, LLDB 14 (no swbreak)", &plain_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_SWBREAK),
	  false, "T05thread:p2420.2420;", NULL },
	{ "breakpoint without registers", &gdb_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_SWBREAK), false,
	  "T05swbreak:;thread:p2420.2420;", NULL },
	{ "hardware breakpoint", &gdb_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_HWBREAK), true,
	  "T05hwbreak:;" REGS_HEX "thread:p2420.2420;", NULL },
	{ "hardware breakpoint, client without hwbreak", &gdb_no_swbreak,
	  SIGNAL_STOP(SIGTRAP, RSP_REASON_HWBREAK), true, "T05" REGS_HEX "thread:p2420.2420;", NULL },
	{ "single step: no reason key", &gdb_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_STEP), true,
	  "T05" REGS_HEX "thread:p2420.2420;", NULL },
	{ "interrupt", &gdb_client, SIGNAL_STOP(SIGINT, RSP_REASON_NONE), true,
	  "T02" REGS_HEX "thread:p2420.2420;", NULL },
	{ "write watchpoint", &gdb_client, WATCH_STOP(RSP_REASON_WATCH), true,
	  "T05watch:55555555802c;" REGS_HEX "thread:p2420.2420;",
	  "T05watch:000055555555802c;" REGS_HEX "thread:p2420.2420;" },
	{ "write watchpoint, client without multiprocess", &bare_client, WATCH_STOP(RSP_REASON_WATCH), false,
	  "T05watch:55555555802c;thread:2420;", "T05watch:000055555555802c;thread:2420;" },
	{ "read watchpoint", &gdb_client, WATCH_STOP(RSP_REASON_RWATCH), false,
	  "T05rwatch:55555555802c;thread:p2420.2420;", "T05rwatch:000055555555802c;thread:p2420.2420;" },
	{ "access watchpoint", &gdb_client, WATCH_STOP(RSP_REASON_AWATCH), false,
	  "T05awatch:55555555802c;thread:p2420.2420;", "T05awatch:000055555555802c;thread:p2420.2420;" },
	{ "start of history", &gdb_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_REPLAY_BEGIN), true,
	  "T05replaylog:begin;" REGS_HEX "thread:p2420.2420;", NULL },
	{ "start of history, signal 0 (rr)", &gdb_client, SIGNAL_STOP(0, RSP_REASON_REPLAY_BEGIN), false,
	  "T00replaylog:begin;thread:p2420.2420;", NULL },
	{ "end of history", &gdb_client, SIGNAL_STOP(SIGTRAP, RSP_REASON_REPLAY_END), false,
	  "T05replaylog:end;thread:p2420.2420;", NULL },
	{ "no multiprocess: plain tid", &gdb_no_multiprocess, SIGNAL_STOP(SIGTRAP, RSP_REASON_SWBREAK),
	  true, "T05swbreak:;" REGS_HEX "thread:2420;", NULL },
	/* Host signal numbers become GDB's. */
	{ "SIGUSR1 is GDB 30", &gdb_client, SIGNAL_STOP(SIGUSR1, RSP_REASON_NONE), false,
	  "T1ethread:p2420.2420;", NULL },
	{ "SIGBUS is GDB 10", &gdb_client, SIGNAL_STOP(SIGBUS, RSP_REASON_NONE), false,
	  "T0athread:p2420.2420;", NULL },
	{ "SIGSEGV is GDB 11", &gdb_client, SIGNAL_STOP(SIGSEGV, RSP_REASON_NONE), false,
	  "T0bthread:p2420.2420;", NULL },
	{ "SIGCHLD is GDB 20", &gdb_client, SIGNAL_STOP(SIGCHLD, RSP_REASON_NONE), false,
	  "T14thread:p2420.2420;", NULL },
	{ "SIGSTOP is GDB 17", &gdb_client, SIGNAL_STOP(SIGSTOP, RSP_REASON_NONE), false,
	  "T11thread:p2420.2420;", NULL },
	/* Exit and kill. */
	{ "exit 7, multiprocess", &gdb_client,
	  { .kind = RSP_STOP_EXITED, .thread = THREAD_2420, .status = 7 }, false,
	  "W07;process:2420", NULL },
	{ "exit 0, no multiprocess", &gdb_no_multiprocess,
	  { .kind = RSP_STOP_EXITED, .thread = THREAD_2420, .status = 0 }, false, "W00", NULL },
	{ "exit 255", &gdb_no_multiprocess,
	  { .kind = RSP_STOP_EXITED, .thread = THREAD_2420, .status = 255 }, false, "Wff", NULL },
	{ "killed by SIGKILL, multiprocess", &gdb_client,
	  { .kind = RSP_STOP_TERMINATED, .thread = THREAD_2420, .signo = SIGKILL }, false,
	  "X09;process:2420", NULL },
	{ "killed by SIGKILL, no multiprocess", &bare_client,
	  { .kind = RSP_STOP_TERMINATED, .thread = THREAD_2420, .signo = SIGKILL }, false,
	  "X09", NULL },
	{ "killed by SIGUSR1: GDB number", &gdb_no_multiprocess,
	  { .kind = RSP_STOP_TERMINATED, .thread = THREAD_2420, .signo = SIGUSR1 }, false,
	  "X1e", NULL },
	/* LLDB gets the host's numbers, as lldb-server sends them (it read
	 * GDB's 30 for SIGUSR1 as Linux's SIGPWR). */
	{ "SIGUSR1 to LLDB is 10", &lldb_thread_suffix, SIGNAL_STOP(SIGUSR1, RSP_REASON_NONE), false,
	  "T0athread:2420;", NULL },
	{ "SIGCHLD to LLDB is 17", &lldb_thread_suffix, SIGNAL_STOP(SIGCHLD, RSP_REASON_NONE), false,
	  "T11thread:2420;", NULL },
	{ "killed by SIGUSR2, to LLDB", &lldb_thread_suffix,
	  { .kind = RSP_STOP_TERMINATED, .thread = THREAD_2420, .signo = SIGUSR2 }, false,
	  "X0c", NULL },
	{ "no resumed threads", &gdb_client, { .kind = RSP_STOP_NO_RESUMED }, false, "N", NULL },
};

static void stop_regs(struct rsp_regs *regs)
{
	memset(regs, 0, sizeof(*regs));
	rsp_regs_set(regs, RSP_REG_RAX, 0x1c);
	rsp_regs_set(regs, RSP_REG_RBP, RBP);
	rsp_regs_set(regs, RSP_REG_RSP, RSP);
	rsp_regs_set(regs, RSP_REG_RIP, RIP);
}

static void test_stop_replies(void **state)
{
	struct rsp_regs regs;

	(void)state;
	stop_regs(&regs);
	for (size_t i = 0; i < sizeof(stop_cases) / sizeof(stop_cases[0]); i++) {
		const struct stop_case *c = &stop_cases[i];
		struct rsp_stop_extra extra = { .regs = c->with_regs ? &regs : NULL };
		struct rsp_buf out;

		rsp_buf_init(&out);
		assert_int_equal(rsp_reply_stop(&out, c->client, &c->stop, &extra), 0);
		expect_reply(c->name, &out, c->want, c->alt);
		rsp_buf_release(&out);
	}
	expect_no_failures();
}

/* Expedited registers whose value is unknown (a PT-only replay knows just
 * the pc) are left out: GDB cannot parse `xx` in a T reply. */
static void test_stop_unavailable_registers_left_out(void **state)
{
	struct rsp_stop stop = SIGNAL_STOP(SIGTRAP, RSP_REASON_STEP);
	struct rsp_regs regs;
	struct rsp_stop_extra extra = { .regs = &regs };
	struct rsp_buf out;

	(void)state;
	memset(&regs, 0, sizeof(regs));
	rsp_regs_set(&regs, RSP_REG_RIP, RIP);
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_stop(&out, &gdb_client, &stop, &extra), 0);
	expect_reply("pc only", &out, "T0510:60c0fcf7ff7f0000;thread:p2420.2420;", NULL);
	rsp_buf_release(&out);
	expect_no_failures();
}

static const struct rsp_thread_info two_threads[] = {
	{ .ptid = { 0x2420, 0x2420 }, .name = "t", .core = 0 },
	{ .ptid = { 0x2420, 0x2421 }, .name = "worker", .core = 1 },
};
static const uint64_t two_pcs[] = { 0x555555555163, 0x7ffff7fcc060 };

/* LLDB's QListThreadsInStopReply: every thread and its pc in the T reply. */
static void test_stop_lldb_threads(void **state)
{
	struct rsp_stop stop = SIGNAL_STOP(SIGTRAP, RSP_REASON_SWBREAK);
	struct rsp_stop_extra extra = { .threads = two_threads, .thread_pcs = two_pcs, .nthreads = 2 };
	struct rsp_buf out;
	const char *got;

	(void)state;
	rsp_buf_init(&out);
	assert_int_equal(rsp_reply_stop(&out, &lldb_plain, &stop, &extra), 0);
	got = rsp_buf_str(&out);
	if (strncmp(got, "T05", 3) || !strstr(got, "thread:2420;") || strstr(got, "swbreak"))
		FAIL("LLDB stop \"%s\": want T05...thread:2420; and no swbreak", got);
	if (!strstr(got, "threads:2420,2421;"))
		FAIL("LLDB stop \"%s\": want threads:2420,2421;", got);
	if (!strstr(got, "thread-pcs:555555555163,7ffff7fcc060;") &&
	    !strstr(got, "thread-pcs:0000555555555163,00007ffff7fcc060;"))
		FAIL("LLDB stop \"%s\": want thread-pcs:555555555163,7ffff7fcc060;", got);
	if (got[out.len - 1] != ';')
		FAIL("LLDB stop \"%s\": want a final ';'", got);

	/* LLDB announces multiprocess: the ids may then carry the pid. */
	rsp_buf_reset(&out);
	assert_int_equal(rsp_reply_stop(&out, &lldb_client, &stop, &extra), 0);
	got = rsp_buf_str(&out);
	if (!strstr(got, "threads:2420,2421;") && !strstr(got, "threads:p2420.2420,p2420.2421;"))
		FAIL("LLDB (multiprocess) stop \"%s\": want the thread list", got);
	if (!strstr(got, "thread-pcs:555555555163,7ffff7fcc060;") &&
	    !strstr(got, "thread-pcs:0000555555555163,00007ffff7fcc060;"))
		FAIL("LLDB (multiprocess) stop \"%s\": want thread-pcs", got);
	rsp_buf_release(&out);
	expect_no_failures();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_error),
		cmocka_unit_test(test_error_large_errno),
		cmocka_unit_test(test_ok_console_xml),
		cmocka_unit_test(test_builders_append),
		cmocka_unit_test(test_ptid),
		cmocka_unit_test(test_xfer_slices),
		cmocka_unit_test(test_xfer_binary),
		cmocka_unit_test(test_regs_hex_and_unavailable),
		cmocka_unit_test(test_regs_sizes),
		cmocka_unit_test(test_reg_single),
		cmocka_unit_test(test_reg_unavailable_lldb),
		cmocka_unit_test(test_stop_replies),
		cmocka_unit_test(test_stop_unavailable_registers_left_out),
		cmocka_unit_test(test_stop_lldb_threads),
	};

	return cmocka_run_group_tests_name("rsp_reply", tests, NULL, NULL);
}
