/*
 * tests/unit/test_rsp_signals.c: host (Linux) signal numbers and GDB's.
 *
 * The table is RSP-REFERENCE.md 3.5 (GDB's include/gdb/signals.def), one
 * row per Linux signal.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "protocol/rsp_signals.h"
#include "protocol/target.h"

#define GDB_SIGNAL_UNKNOWN 143

struct signal_case {
	int host;
	int gdb;
};

static const struct signal_case signal_table[] = {
	{ SIGHUP, 1 }, { SIGINT, 2 }, { SIGQUIT, 3 }, { SIGILL, 4 }, { SIGTRAP, 5 },
	{ SIGABRT, 6 }, { SIGBUS, 10 }, { SIGFPE, 8 }, { SIGKILL, 9 }, { SIGUSR1, 30 },
	{ SIGSEGV, 11 }, { SIGUSR2, 31 }, { SIGPIPE, 13 }, { SIGALRM, 14 }, { SIGTERM, 15 },
	{ SIGCHLD, 20 }, { SIGCONT, 19 }, { SIGSTOP, 17 }, { SIGTSTP, 18 },
	{ SIGTTIN, 21 }, { SIGTTOU, 22 }, { SIGURG, 16 }, { SIGXCPU, 24 }, { SIGXFSZ, 25 },
	{ SIGVTALRM, 26 }, { SIGPROF, 27 }, { SIGWINCH, 28 }, { SIGIO, 23 }, { SIGPWR, 32 },
	{ SIGSYS, 12 },
	/* Real-time: 32 is GDB's SIG32 (77), 33..63 are 45..75, 64 is SIG64 (78). */
	{ 32, 77 }, { 33, 45 }, { 34, 46 }, { 50, 62 }, { 63, 75 }, { 64, 78 },
};

static void test_host_to_gdb(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++) {
		const struct signal_case *c = &signal_table[i];

		if (rsp_signal_to_gdb(c->host) != c->gdb)
			fail_msg("host %d -> GDB %d, want %d", c->host,
				 rsp_signal_to_gdb(c->host), c->gdb);
	}
}

static void test_gdb_to_host(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(signal_table) / sizeof(signal_table[0]); i++) {
		const struct signal_case *c = &signal_table[i];

		if (rsp_signal_from_gdb(c->gdb) != c->host)
			fail_msg("GDB %d -> host %d, want %d", c->gdb,
				 rsp_signal_from_gdb(c->gdb), c->host);
	}
}

static void test_zero_is_no_signal(void **state)
{
	(void)state;
	assert_int_equal(rsp_signal_to_gdb(0), 0);
	assert_int_equal(rsp_signal_from_gdb(0), 0);
}

/* Every host signal but SIGSTKFLT, which GDB has no name for, comes back. */
static void test_round_trip(void **state)
{
	(void)state;
	for (int sig = 1; sig < RSP_NSIG; sig++) {
		int gsig;

		if (sig == SIGSTKFLT)
			continue;
		gsig = rsp_signal_to_gdb(sig);
		if (gsig <= 0 || gsig == GDB_SIGNAL_UNKNOWN)
			fail_msg("host %d has no GDB number (%d)", sig, gsig);
		if (rsp_signal_from_gdb(gsig) != sig)
			fail_msg("host %d -> GDB %d -> host %d", sig, gsig, rsp_signal_from_gdb(gsig));
	}
}

/* No two host signals share a GDB number. */
static void test_to_gdb_is_one_to_one(void **state)
{
	int seen[256] = { 0 };

	(void)state;
	for (int sig = 1; sig < RSP_NSIG; sig++) {
		int gsig = rsp_signal_to_gdb(sig);

		assert_true(gsig > 0 && gsig < 256);
		if (gsig == GDB_SIGNAL_UNKNOWN)
			continue;
		if (seen[gsig])
			fail_msg("host %d and %d both map to GDB %d", seen[gsig], sig, gsig);
		seen[gsig] = sig;
	}
}

static void test_unknown_numbers(void **state)
{
	static const int no_host[] = {
		7 /* EMT */, 29 /* LOST */, 34 /* WIND */, 76 /* CANCEL */,
		GDB_SIGNAL_UNKNOWN, 142 /* INFO */, 144, 1000, -1, -1000,
	};

	(void)state;
	for (size_t i = 0; i < sizeof(no_host) / sizeof(no_host[0]); i++)
		if (rsp_signal_from_gdb(no_host[i]) != -EINVAL)
			fail_msg("GDB %d -> host %d, want -EINVAL", no_host[i],
				 rsp_signal_from_gdb(no_host[i]));
	assert_int_equal(rsp_signal_to_gdb(RSP_NSIG), GDB_SIGNAL_UNKNOWN);
	assert_int_equal(rsp_signal_to_gdb(-1), GDB_SIGNAL_UNKNOWN);
	assert_int_equal(rsp_signal_to_gdb(1000), GDB_SIGNAL_UNKNOWN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_host_to_gdb),
		cmocka_unit_test(test_gdb_to_host),
		cmocka_unit_test(test_zero_is_no_signal),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_to_gdb_is_one_to_one),
		cmocka_unit_test(test_unknown_numbers),
	};

	return cmocka_run_group_tests_name("rsp_signals", tests, NULL, NULL);
}
