/*
 * tests/unit/test_replay_cursor.c: replay/decode/cursor.c on real and
 * software-made traces.
 *
 * LLDB's intelpt-trace (21 instructions of a loop, from SOURCES.md):
 * stepping back to the start and forward to the end visits exactly the
 * known addresses, reverse / forward continue find the latest earlier and
 * the first later hit of a breakpoint, the edges say so. A software
 * recording of tests/programs/rec/control.c made here with a small PSB
 * period (many window segments), with the recorder's log of every stepped
 * instruction as the truth: every item's address, N steps back then N
 * forward from random positions, and continue in both directions to
 * addresses picked from the log.
 *
 * Interrupts: with the flag already set, continue moves nothing and range
 * stepping one instruction; set by a timer in the middle of scans of the
 * software recording, each interrupted continue leaves the position on an
 * instruction with no hit between it and where it started, and continuing
 * again until something else stops ends where one uninterrupted continue
 * does.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "stub/recorders/stub_rec.h"

#define LLDB HINDSIGHT_SHARED "/ptdata/lldb"
#define SRC "tests/programs/rec"

static char work[256];

/* ---- LLDB's trace ----------------------------------------------------- */

static uint64_t lldb_seq[21];

static void lldb_init_seq(void)
{
	static const uint64_t loop[4] = { 0x400529, 0x40052d, 0x400521, 0x400525 };
	size_t n = 0;

	lldb_seq[n++] = 0x400511;
	lldb_seq[n++] = 0x400518;
	lldb_seq[n++] = 0x40051f;
	for (int k = 0; k < 4; k++)
		for (int i = 0; i < 4; i++)
			lldb_seq[n++] = loop[i];
	lldb_seq[n++] = 0x400529;
	lldb_seq[n++] = 0x40052d;
}

static struct replay_bundle *load(const char *dir)
{
	struct replay_bundle *b = NULL;
	char err[256];

	assert_int_equal(replay_bundle_load(dir, &b, err, sizeof(err)), 0);
	return b;
}

static uint64_t pc_of(struct replay_cursor *c)
{
	uint64_t pc = 0;

	assert_int_equal(replay_cursor_pc(c, &pc), 0);
	return pc;
}

static void test_lldb_steps(void **state)
{
	struct replay_bundle *b = load(LLDB "/intelpt-trace");
	struct replay_cursor *c;
	(void)state;

	assert_int_equal(replay_cursor_new(b, 0, NULL, NULL, &c), 0);
	assert_int_equal(replay_cursor_size(c), 21);
	assert_int_equal(replay_cursor_position(c), 22);
	assert_int_equal(pc_of(c), 0x40052f); /* after the last jle (2 bytes) */
	for (int i = 20; i >= 0; i--) {
		assert_int_equal(replay_cursor_step(c, REPLAY_BACKWARD), REPLAY_CURSOR_STEP);
		assert_int_equal(replay_cursor_position(c), i + 1);
		assert_int_equal(pc_of(c), lldb_seq[i]);
	}
	assert_int_equal(replay_cursor_step(c, REPLAY_BACKWARD), REPLAY_CURSOR_BEGIN);
	assert_int_equal(replay_cursor_position(c), 1);
	for (int i = 1; i < 21; i++) {
		assert_int_equal(replay_cursor_step(c, REPLAY_FORWARD), REPLAY_CURSOR_STEP);
		assert_int_equal(pc_of(c), lldb_seq[i]);
	}
	assert_int_equal(replay_cursor_step(c, REPLAY_FORWARD), REPLAY_CURSOR_END);
	assert_int_equal(replay_cursor_position(c), 22);
	assert_int_equal(replay_cursor_step(c, REPLAY_FORWARD), REPLAY_CURSOR_END);
	assert_int_equal(replay_cursor_goto(c, 0), -ENOENT);
	assert_int_equal(replay_cursor_goto(c, 23), -ENOENT);
	assert_int_equal(replay_cursor_goto(c, 5), 0);
	assert_int_equal(pc_of(c), lldb_seq[4]);
	replay_cursor_free(c);
	replay_bundle_free(b);
}

static void test_lldb_continue(void **state)
{
	struct replay_bundle *b = load(LLDB "/intelpt-trace");
	uint64_t addrs[] = { 0x400521 };
	struct replay_cursor_breaks bps = { addrs, 1 };
	struct replay_cursor *c;
	(void)state;

	assert_int_equal(replay_cursor_new(b, 0, NULL, NULL, &c), 0);
	/* 0x400521 is items 6, 10, 14, 18: backwards from the end. */
	for (uint64_t want = 18; want >= 6; want -= 4) {
		assert_int_equal(replay_cursor_continue(c, REPLAY_BACKWARD, &bps), REPLAY_CURSOR_BREAK);
		assert_int_equal(replay_cursor_position(c), want);
		assert_int_equal(pc_of(c), 0x400521);
	}
	assert_int_equal(replay_cursor_continue(c, REPLAY_BACKWARD, &bps), REPLAY_CURSOR_BEGIN);
	assert_int_equal(replay_cursor_position(c), 1);
	assert_int_equal(replay_cursor_continue(c, REPLAY_BACKWARD, &bps), REPLAY_CURSOR_BEGIN);
	/* Forwards: the first later hit, never the position itself. */
	for (uint64_t want = 6; want <= 18; want += 4) {
		assert_int_equal(replay_cursor_continue(c, REPLAY_FORWARD, &bps), REPLAY_CURSOR_BREAK);
		assert_int_equal(replay_cursor_position(c), want);
	}
	assert_int_equal(replay_cursor_continue(c, REPLAY_FORWARD, &bps), REPLAY_CURSOR_END);
	assert_int_equal(replay_cursor_position(c), 22);
	/* Range stepping: the loop body [0x400521, 0x400529) from item 6. */
	assert_int_equal(replay_cursor_goto(c, 6), 0);
	assert_int_equal(replay_cursor_range_step(c, 0x400521, 0x400529, NULL), REPLAY_CURSOR_STEP);
	assert_int_equal(replay_cursor_position(c), 8);
	assert_int_equal(pc_of(c), 0x400529);
	/* No breakpoints: back to the beginning at once. */
	bps.n = 0;
	assert_int_equal(replay_cursor_continue(c, REPLAY_BACKWARD, &bps), REPLAY_CURSOR_BEGIN);
	assert_int_equal(pc_of(c), 0x400511);
	replay_cursor_free(c);
	replay_bundle_free(b);
}

static volatile sig_atomic_t stop_flag;

static void test_lldb_interrupt(void **state)
{
	struct replay_bundle *b = load(LLDB "/intelpt-trace");
	uint64_t addrs[] = { 0x400521 };
	struct replay_cursor_breaks bps = { addrs, 1 };
	struct replay_cursor *c;
	(void)state;

	assert_int_equal(replay_cursor_new(b, 0, NULL, NULL, &c), 0);
	replay_cursor_set_interrupt(c, &stop_flag);
	stop_flag = 1;
	/* Seen before the first block: nothing moves. */
	assert_int_equal(replay_cursor_continue(c, REPLAY_BACKWARD, &bps), REPLAY_CURSOR_INTERRUPTED);
	assert_int_equal(replay_cursor_position(c), 22);
	assert_int_equal(replay_cursor_goto(c, 1), 0);
	assert_int_equal(replay_cursor_continue(c, REPLAY_FORWARD, &bps), REPLAY_CURSOR_INTERRUPTED);
	assert_int_equal(replay_cursor_position(c), 1);
	/* Range stepping takes one step first. */
	assert_int_equal(replay_cursor_goto(c, 6), 0);
	assert_int_equal(replay_cursor_range_step(c, 0x400521, 0x400529, NULL),
			 REPLAY_CURSOR_INTERRUPTED);
	assert_int_equal(replay_cursor_position(c), 7);
	assert_int_equal(pc_of(c), 0x400525);
	/* Leaving the range or a breakpoint still wins. */
	assert_int_equal(replay_cursor_range_step(c, 0x400521, 0x400529, NULL), REPLAY_CURSOR_STEP);
	assert_int_equal(replay_cursor_position(c), 8);
	/* Cleared, or no flag at all: as before. */
	stop_flag = 0;
	assert_int_equal(replay_cursor_continue(c, REPLAY_FORWARD, &bps), REPLAY_CURSOR_BREAK);
	assert_int_equal(replay_cursor_position(c), 10);
	stop_flag = 1;
	replay_cursor_set_interrupt(c, NULL);
	assert_int_equal(replay_cursor_continue(c, REPLAY_BACKWARD, &bps), REPLAY_CURSOR_BREAK);
	assert_int_equal(replay_cursor_position(c), 6);
	stop_flag = 0;
	replay_cursor_free(c);
	replay_bundle_free(b);
}

/* ---- a software recording --------------------------------------------- */

struct truth {
	uint64_t *ip;
	size_t n;
};

static void read_log(const char *path, struct truth *t)
{
	FILE *f = fopen(path, "r");
	char line[128];
	size_t cap = 0;
	uint64_t a;
	int tid;

	assert_non_null(f);
	memset(t, 0, sizeof(*t));
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "psb", 3) == 0 || sscanf(line, "%d %" SCNx64, &tid, &a) != 2)
			continue;
		if (t->n == cap) {
			cap = cap ? cap * 2 : 65536;
			t->ip = realloc(t->ip, cap * sizeof(*t->ip));
			assert_non_null(t->ip);
		}
		t->ip[t->n++] = a;
	}
	fclose(f);
}

struct recording {
	struct replay_bundle *b;
	struct truth truth;
};

static void record_control(struct recording *r)
{
	struct stub_rec_options o = { 0 };
	struct stub_rec *rec = NULL;
	char dir[512], log[512], exe[512], cmd[1024];
	char *argv[] = { exe, NULL };
	pid_t pid;

	snprintf(exe, sizeof(exe), "%s/control", work);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -o %s %s/control.c", exe, SRC);
	assert_int_equal(system(cmd), 0);
	snprintf(dir, sizeof(dir), "%s/control.bundle", work);
	snprintf(log, sizeof(log), "%s/control.iplog", work);
	o.dir = dir;
	o.ip_log = log;
	o.psb_period = 512;
	assert_int_equal(stub_rec_spawn(argv, &pid), 0);
	assert_int_equal(stub_rec_new(&rec, &o, pid, argv, false), 0);
	assert_int_equal(stub_rec_run(rec), 0);
	stub_rec_free(rec);
	read_log(log, &r->truth);
	r->b = load(dir);
	assert_int_equal(r->b->nthreads, 1);
}

static void check_all_items(struct replay_cursor *c, const struct truth *t)
{
	uint64_t ip;

	assert_int_equal(replay_cursor_size(c), t->n);
	for (uint64_t n = 1; n <= t->n; n++) {
		assert_int_equal(replay_cursor_item_ip(c, n, &ip), 0);
		if (ip != t->ip[n - 1])
			fail_msg("item %" PRIu64 ": 0x%" PRIx64 ", the log says 0x%" PRIx64, n, ip,
				 t->ip[n - 1]);
	}
}

/* N steps back then N forward from @start: the log's addresses each way. */
static void back_and_forth(struct replay_cursor *c, const struct truth *t, uint64_t start, uint64_t n)
{
	assert_int_equal(replay_cursor_goto(c, start), 0);
	for (uint64_t i = 1; i <= n && start - i >= 1; i++) {
		assert_int_equal(replay_cursor_step(c, REPLAY_BACKWARD), REPLAY_CURSOR_STEP);
		assert_int_equal(pc_of(c), t->ip[start - i - 1]);
	}
	for (uint64_t p = replay_cursor_position(c) + 1; p <= start && p <= t->n; p++) {
		assert_int_equal(replay_cursor_step(c, REPLAY_FORWARD), REPLAY_CURSOR_STEP);
		assert_int_equal(pc_of(c), t->ip[p - 1]);
	}
}

/* Continue both ways from @from to @addr, against the log. */
static void continue_to(struct replay_cursor *c, const struct truth *t, uint64_t from, uint64_t addr)
{
	struct replay_cursor_breaks bps = { &addr, 1 };
	uint64_t back = 0, fwd = 0;
	int r;

	for (uint64_t n = 1; n < from; n++)
		if (t->ip[n - 1] == addr)
			back = n;
	for (uint64_t n = from + 1; n <= t->n && !fwd; n++)
		if (t->ip[n - 1] == addr)
			fwd = n;
	assert_int_equal(replay_cursor_goto(c, from), 0);
	r = replay_cursor_continue(c, REPLAY_BACKWARD, &bps);
	assert_int_equal(r, back ? REPLAY_CURSOR_BREAK : REPLAY_CURSOR_BEGIN);
	assert_int_equal(replay_cursor_position(c), back ? back : 1);
	assert_int_equal(replay_cursor_goto(c, from), 0);
	r = replay_cursor_continue(c, REPLAY_FORWARD, &bps);
	assert_int_equal(r, fwd ? REPLAY_CURSOR_BREAK : REPLAY_CURSOR_END);
	assert_int_equal(replay_cursor_position(c), fwd ? fwd : t->n + 1);
}

static void on_alarm(int sig)
{
	(void)sig;
	stop_flag = 1;
}

/* A one-shot SIGALRM in @us microseconds; 0 disarms. */
static void alarm_in(long us)
{
	struct itimerval it = { { 0, 0 }, { us / 1000000, us % 1000000 } };

	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
}

/* Whether the log has @addr at an item in [@lo, @hi). */
static bool hit_in(const struct truth *t, uint64_t addr, uint64_t lo, uint64_t hi)
{
	for (uint64_t n = lo; n < hi && n <= t->n; n++)
		if (t->ip[n - 1] == addr)
			return true;
	return false;
}

/* Continue in @dir from @from to @addr, interrupted by a timer after 2, 4,
 * 8 ... us until something else stops it: each interruption is checked,
 * the end must be what one uninterrupted continue gives. The number of
 * interruptions. */
static int continue_interrupted(struct replay_cursor *c, const struct truth *t, uint64_t from,
				uint64_t addr, enum replay_cursor_dir dir)
{
	struct replay_cursor_breaks bps = { &addr, 1 };
	uint64_t want, pos;
	int r, want_r, n = 0;

	assert_int_equal(replay_cursor_goto(c, from), 0);
	want_r = replay_cursor_continue(c, dir, &bps);
	want = replay_cursor_position(c);
	assert_int_equal(replay_cursor_goto(c, from), 0);
	for (long us = 2;; us *= 2) {
		pos = replay_cursor_position(c);
		stop_flag = 0;
		alarm_in(us);
		r = replay_cursor_continue(c, dir, &bps);
		alarm_in(0);
		if (r != REPLAY_CURSOR_INTERRUPTED)
			break;
		n++;
		/* On an instruction, nothing to stop at on the way. */
		if (dir == REPLAY_FORWARD) {
			assert_true(replay_cursor_position(c) >= pos);
			assert_false(hit_in(t, addr, pos + 1, replay_cursor_position(c) + 1));
		} else {
			assert_true(replay_cursor_position(c) <= pos);
			assert_false(hit_in(t, addr, replay_cursor_position(c), pos));
		}
		if (replay_cursor_position(c) <= t->n)
			assert_int_equal(pc_of(c), t->ip[replay_cursor_position(c) - 1]);
	}
	stop_flag = 0;
	assert_int_equal(r, want_r);
	assert_int_equal(replay_cursor_position(c), want);
	return n;
}

static void interrupted(struct replay_cursor *c, const struct truth *t)
{
	struct sigaction sa;
	int n = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	replay_cursor_set_interrupt(c, &stop_flag);
	for (int i = 0; i < 20; i++) {
		uint64_t from = 1 + (uint64_t)random() % (t->n + 1);
		uint64_t addr = t->ip[(uint64_t)random() % t->n];

		n += continue_interrupted(c, t, from, addr, REPLAY_FORWARD);
		n += continue_interrupted(c, t, from, addr, REPLAY_BACKWARD);
	}
	/* Whole scans: an address never run, from each edge. */
	n += continue_interrupted(c, t, 1, 1, REPLAY_FORWARD);
	n += continue_interrupted(c, t, t->n + 1, 1, REPLAY_BACKWARD);
	printf("  %d interrupted continues\n", n);
	replay_cursor_set_interrupt(c, NULL);
	signal(SIGALRM, SIG_DFL);
}

static void test_software(void **state)
{
	struct recording r;
	struct replay_cursor *c;
	(void)state;

	record_control(&r);
	assert_int_equal(replay_cursor_new(r.b, 0, NULL, NULL, &c), 0);
	printf("  control: %zu instructions, %zu PSB entries\n", r.truth.n,
	       replay_cursor_index(c)->nentries);
	assert_true(replay_cursor_index(c)->nentries > 5);
	check_all_items(c, &r.truth);
	srandom(42);
	for (int i = 0; i < 20; i++)
		back_and_forth(c, &r.truth, 1 + (uint64_t)random() % (r.truth.n + 1), 3000);
	back_and_forth(c, &r.truth, r.truth.n + 1, 5000);
	for (int i = 0; i < 30; i++) {
		uint64_t from = 1 + (uint64_t)random() % (r.truth.n + 1);
		uint64_t addr = r.truth.ip[(uint64_t)random() % r.truth.n];

		continue_to(c, &r.truth, from, addr);
	}
	/* A breakpoint at the very first instruction: reached from the end. */
	continue_to(c, &r.truth, r.truth.n + 1, r.truth.ip[0]);
	assert_int_equal(replay_cursor_position(c), r.truth.n + 1);
	interrupted(c, &r.truth);
	replay_cursor_free(c);
	replay_bundle_free(r.b);
	free(r.truth.ip);
}

static int setup(void **state)
{
	(void)state;
	lldb_init_seq();
	snprintf(work, sizeof(work), "/tmp/hindsight-cursor.XXXXXX");
	return mkdtemp(work) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
	return getenv("KEEP_WORK") || system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lldb_steps),
		cmocka_unit_test(test_lldb_continue),
		cmocka_unit_test(test_lldb_interrupt),
		cmocka_unit_test(test_software),
	};

	if (access(SRC "/control.c", R_OK) != 0) {
		fprintf(stderr, "run from the repository root (no %s)\n", SRC);
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
