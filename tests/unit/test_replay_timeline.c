/*
 * tests/unit/test_replay_timeline.c: replay/decode/timeline.c without a debugger,
 * over a software recording made here of tests/programs/rec/threads.c
 * (three workers adding 1, 2, 3 to one counter 500 times each under a
 * mutex, recorded with short slices so they interleave; built without
 * PIE so nm gives the counter's address). The state log's writes to the
 * counter are the reference: each is the instruction a breakpoint is put
 * at, in some worker, at a known time.
 *
 * - the clock: at open every thread is at its end and the time is the
 *   end's; positions compare by time;
 * - the table: a point inserted twice is there once, a tag tells two
 *   breakpoints at one address apart, removing one leaves the other; a
 *   watchpoint needs a clock and a length;
 * - reverse-continue from the end stops at every write's instruction,
 *   newest first, in the thread that made it, whichever thread moved
 *   (the nearest hit in time in any thread wins), every other thread
 *   where that time puts it; past the first, the beginning with every
 *   thread at position 1; continue forward the same hits oldest first;
 * - a thread's step and reverse step move the time by its instruction and
 *   the others follow; follow (a goto) makes a position's time current;
 * - a write watchpoint stops at the same writes, as a watch stop;
 * - an interrupted scan stops without passing a hit: continuing again
 *   finds it;
 * - without a clock (no state log given) a thread moves alone.
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
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/model/state.h"
#include "replay/decode/timeline.h"
#include "stub/recorders/stub_rec.h"
#include "tests/unit/testlib_nm.h"

#define PROGS "tests/programs"
#define CHECKED 300                /* hits followed backward from the end */
#define FIRST 50                   /* hits followed forward from the start */

static char work[256], threads_dir[512];
static uint64_t counter_addr, main_addr;
/* The counter's writes: the newest, newest first; the oldest, oldest
 * first (a search costs milliseconds: not all of them). */
static struct replay_state_write newest[CHECKED], oldest[FIRST];

/* ---- the recording ------------------------------------------------------ */

static int writes(void)
{
	struct replay_bundle *b;
	struct replay_state *st;
	uint64_t time = UINT64_MAX;
	char err[256];
	int r = 0;

	if (replay_bundle_load(threads_dir, &b, err, sizeof(err)))
		return -1;
	if (replay_state_open(b, &st, err, sizeof(err))) {
		replay_bundle_free(b);
		return -1;
	}
	for (int n = 0; n < CHECKED && !r; n++) {
		r = replay_state_write_before(st, counter_addr, 8, time, &newest[n]);
		time = newest[n].time;
	}
	time = 0;
	for (int n = 0; n < FIRST && !r; n++) {
		r = replay_state_write_after(st, counter_addr, 8, time, &oldest[n]);
		time = oldest[n].time;
	}
	replay_state_free(st);
	replay_bundle_free(b);
	return r;
}

static int setup(void **state)
{
	char exe[512], cmd[1024];
	char *argv[] = { exe, NULL };
	struct stub_rec_options o = { 0 };
	struct stub_rec *rec = NULL;
	pid_t pid;
	(void)state;

	snprintf(work, sizeof(work), "/tmp/hindsight-timeline.XXXXXX");
	if (!mkdtemp(work))
		return -1;
	snprintf(exe, sizeof(exe), "%s/threads", work);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -no-pie -pthread -o %s %s/rec/threads.c", exe,
		 PROGS);
	if (system(cmd) != 0)
		return -1;
	counter_addr = nm_symbol(exe, "counter");
	main_addr = nm_symbol(exe, "main");
	snprintf(threads_dir, sizeof(threads_dir), "%s/threads.bundle", work);
	o.dir = threads_dir;
	o.slice = 97;                      /* short slices: many switches */
	if (stub_rec_spawn(argv, &pid) || stub_rec_new(&rec, &o, pid, argv, false) ||
	    stub_rec_run(rec))
		return -1;
	stub_rec_free(rec);
	return writes();
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
	return getenv("KEEP_WORK") || system(cmd) == 0 ? 0 : -1;
}

/* ---- a session ------------------------------------------------------------ */

struct session {
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_timeline *tl;
	const struct replay_state_write *w;    /* newest */
	uint64_t store;                        /* the instruction that writes it */
};

static struct session *open_session(bool timed)
{
	struct session *s = calloc(1, sizeof(*s));
	char err[256];
	size_t failed;

	assert_non_null(s);
	assert_int_equal(replay_bundle_load(threads_dir, &s->b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(s->b, &s->st, err, sizeof(err)), 0);
	s->w = newest;
	assert_int_equal(replay_timeline_new(s->b, timed ? s->st : NULL, &s->tl, &failed), 0);
	assert_int_equal(replay_timeline_nthreads(s->tl), s->b->nthreads);
	return s;
}

static void close_session(struct session *s)
{
	replay_timeline_free(s->tl);
	replay_state_free(s->st);
	replay_bundle_free(s->b);
	free(s);
}

static size_t thread_index(const struct session *s, int64_t tid)
{
	for (size_t i = 0; i < s->b->nthreads; i++)
		if (s->b->threads[i].tid == tid)
			return i;
	fail();
	return 0;
}

static uint64_t position(struct session *s, size_t i)
{
	return replay_cursor_position(replay_timeline_cursor(s->tl, i));
}

/* Every thread stands where the current time puts it: the instruction
 * before its position ran at or before it, the one at it after. The
 * time. */
static uint64_t check_clock(struct session *s)
{
	uint64_t now, t0, t1;

	assert_int_equal(replay_timeline_time(s->tl, &now), 0);
	for (size_t i = 0; i < s->b->nthreads; i++) {
		struct replay_cursor *c = replay_timeline_cursor(s->tl, i);
		uint64_t p = replay_cursor_position(c);

		if (p > 1) {
			assert_int_equal(replay_timeline_time_at(s->tl, i, p, &t0), 0);
			assert_true(t0 <= now);
		}
		if (p <= replay_cursor_size(c)) {
			assert_int_equal(replay_timeline_time_at(s->tl, i, p + 1, &t1), 0);
			assert_true(t1 > now);
		}
	}
	return now;
}

static struct replay_timeline_stop resume(struct session *s, size_t thread,
					  enum replay_timeline_move move)
{
	struct replay_timeline_resume rq = { thread, move, 0, 0, NULL };
	struct replay_timeline_stop stop;

	assert_int_equal(replay_timeline_resume(s->tl, &rq, &stop), 0);
	return stop;
}

/* A stop at write @w's instruction: in its thread, the moment before. */
static void expect_hit(struct session *s, struct replay_timeline_stop stop,
		       const struct replay_state_write *w, int kind)
{
	assert_int_equal(stop.kind, kind);
	assert_int_equal(s->b->threads[stop.thread].tid, w->tid);
	assert_int_equal(position(s, stop.thread), w->index);
	assert_int_equal(check_clock(s), w->time - 1);
}

static void put_break(struct session *s)
{
	size_t i = thread_index(s, s->w[0].tid);

	assert_int_equal(replay_cursor_item_ip(replay_timeline_cursor(s->tl, i), s->w[0].index,
					       &s->store), 0);
	assert_int_equal(replay_timeline_point_insert(s->tl, REPLAY_TIMELINE_BREAK, s->store, 0, 1),
			 0);
}

/* ---- the tests ------------------------------------------------------------ */

static void test_clock(void **state)
{
	struct session *s = open_session(true);
	uint64_t now, t1, t2;
	(void)state;

	assert_true(replay_timeline_timed(s->tl));
	assert_true(replay_timeline_at_end(s->tl));
	now = check_clock(s);
	assert_true(now >= s->w[0].time);
	/* A thread's positions have growing times. */
	assert_int_equal(replay_timeline_time_at(s->tl, 1, 100, &t1), 0);
	assert_int_equal(replay_timeline_time_at(s->tl, 1, 101, &t2), 0);
	assert_true(t1 < t2);
	assert_int_equal(replay_timeline_time_at(s->tl, 1, 0, &t1), -ENODATA);
	close_session(s);
}

static void test_points(void **state)
{
	struct session *s = open_session(true);
	struct replay_timeline *tl = s->tl;
	(void)state;

	assert_false(replay_timeline_break_at(tl, 0x1000, -1));
	assert_int_equal(replay_timeline_point_insert(tl, REPLAY_TIMELINE_BREAK, 0x1000, 0, 1), 0);
	assert_int_equal(replay_timeline_point_insert(tl, REPLAY_TIMELINE_BREAK, 0x1000, 0, 1), 0);
	assert_int_equal(replay_timeline_point_insert(tl, REPLAY_TIMELINE_BREAK, 0x1000, 0, 2), 0);
	assert_true(replay_timeline_break_at(tl, 0x1000, -1));
	assert_true(replay_timeline_break_at(tl, 0x1000, 2));
	assert_false(replay_timeline_break_at(tl, 0x1000, 3));
	/* Inserted twice, there once: one removal takes it. */
	assert_int_equal(replay_timeline_point_remove(tl, REPLAY_TIMELINE_BREAK, 0x1000, 0, 1), 0);
	assert_int_equal(replay_timeline_point_remove(tl, REPLAY_TIMELINE_BREAK, 0x1000, 0, 1),
			 -ENOENT);
	assert_true(replay_timeline_break_at(tl, 0x1000, 2));
	assert_int_equal(replay_timeline_point_remove(tl, REPLAY_TIMELINE_BREAK, 0x1000, 0, 2), 0);
	assert_false(replay_timeline_break_at(tl, 0x1000, -1));
	/* A watchpoint is not a breakpoint, and needs a length. */
	assert_int_equal(replay_timeline_point_insert(tl, REPLAY_TIMELINE_WATCH, 0x1000, 8, 0), 0);
	assert_false(replay_timeline_break_at(tl, 0x1000, -1));
	assert_int_equal(replay_timeline_point_insert(tl, REPLAY_TIMELINE_WATCH, 0x1000, 0, 0),
			 -EOPNOTSUPP);
	close_session(s);
	/* Without a clock no write can be found. */
	s = open_session(false);
	assert_false(replay_timeline_timed(s->tl));
	assert_int_equal(replay_timeline_point_insert(s->tl, REPLAY_TIMELINE_WATCH, 0x1000, 8, 0),
			 -EOPNOTSUPP);
	close_session(s);
}

/* From the end, backward over CHECKED hits, moving the thread of the last
 * stop (or always main's, @from_main: its own hits are none, the workers'
 * still win); then to the beginning; then forward over the same hits. */
static void run_both_ways(bool from_main)
{
	struct session *s = open_session(true);
	struct replay_timeline_stop stop;
	size_t x = 0, switches = 0, want = 0;
	uint64_t now;

	put_break(s);
	for (int n = 0; n < CHECKED; n++) {
		stop = resume(s, x, REPLAY_TIMELINE_REVERSE_CONTINUE);
		expect_hit(s, stop, &s->w[n], REPLAY_CURSOR_BREAK);
		switches += stop.thread != x;
		want += from_main || !n || s->w[n].tid != s->w[n - 1].tid;
		if (!from_main)
			x = stop.thread;
	}
	/* The nearest hit wins, whichever thread moved. */
	assert_int_equal(switches, want);
	/* Forward again from there: the later hits, oldest first. */
	for (int n = CHECKED - 2; n >= CHECKED - 50; n--) {
		stop = resume(s, x, REPLAY_TIMELINE_CONTINUE);
		expect_hit(s, stop, &s->w[n], REPLAY_CURSOR_BREAK);
		if (!from_main)
			x = stop.thread;
	}
	/* Without the breakpoint: the beginning, every thread at 1. */
	assert_int_equal(replay_timeline_point_remove(s->tl, REPLAY_TIMELINE_BREAK, s->store, 0, 1),
			 0);
	stop = resume(s, x, REPLAY_TIMELINE_REVERSE_CONTINUE);
	assert_int_equal(stop.kind, REPLAY_CURSOR_BEGIN);
	for (size_t i = 0; i < s->b->nthreads; i++)
		assert_int_equal(position(s, i), 1);
	now = check_clock(s);
	assert_true(now < oldest[0].time);
	/* From the beginning: the first hits in order. */
	put_break(s);
	for (int n = 0; n < FIRST; n++) {
		stop = resume(s, x, REPLAY_TIMELINE_CONTINUE);
		expect_hit(s, stop, &oldest[n], REPLAY_CURSOR_BREAK);
		if (!from_main)
			x = stop.thread;
	}
	close_session(s);
}

static void test_continue_any_thread(void **state)
{
	(void)state;
	run_both_ways(false);
}

static void test_continue_from_main(void **state)
{
	(void)state;
	run_both_ways(true);
}

/* A worker's reverse step and step: one instruction of it, the time by
 * that instruction, the others where it puts them; follow makes a
 * position's time the current one. */
static void test_step_and_follow(void **state)
{
	struct session *s = open_session(true);
	struct replay_timeline_stop stop;
	uint64_t p, time;
	size_t x;
	(void)state;

	put_break(s);
	stop = resume(s, 0, REPLAY_TIMELINE_REVERSE_CONTINUE);
	expect_hit(s, stop, &s->w[0], REPLAY_CURSOR_BREAK);
	x = stop.thread;
	p = position(s, x);
	for (uint64_t k = 1; k <= 3; k++) {
		stop = resume(s, x, REPLAY_TIMELINE_REVERSE_STEP);
		assert_int_equal(stop.kind, REPLAY_CURSOR_STEP);
		assert_int_equal(stop.thread, x);
		assert_int_equal(position(s, x), p - k);
		assert_int_equal(replay_timeline_time_at(s->tl, x, p - k + 1, &time), 0);
		assert_int_equal(check_clock(s), time - 1);
	}
	for (uint64_t k = 2; k + 1 > 0; k--) {
		stop = resume(s, x, REPLAY_TIMELINE_STEP);
		assert_int_equal(stop.kind, REPLAY_CURSOR_STEP);
		assert_int_equal(position(s, x), p - k);
		assert_int_equal(replay_timeline_time_at(s->tl, x, p - k, &time), 0);
		assert_int_equal(check_clock(s), time);
	}
	/* Main to position 100 (a goto), the others to its time. */
	assert_int_equal(replay_cursor_goto(replay_timeline_cursor(s->tl, 0), 100), 0);
	assert_int_equal(replay_timeline_follow(s->tl, 0, false), 0);
	assert_int_equal(replay_timeline_time_at(s->tl, 0, 100, &time), 0);
	assert_int_equal(check_clock(s), time);
	assert_int_equal(replay_timeline_follow(s->tl, 0, true), 0);
	assert_int_equal(replay_timeline_time_at(s->tl, 0, 101, &time), 0);
	assert_int_equal(check_clock(s), time - 1);
	close_session(s);
}

/* A write watchpoint on the counter: the same writes, as watch stops;
 * backward at the writing instruction, forward after it. */
static void test_watch(void **state)
{
	struct session *s = open_session(true);
	struct replay_timeline_stop stop;
	size_t x = 0;
	(void)state;

	assert_int_equal(replay_timeline_point_insert(s->tl, REPLAY_TIMELINE_WATCH, counter_addr,
						      8, 0), 0);
	for (int n = 0; n < 50; n++) {
		stop = resume(s, x, REPLAY_TIMELINE_REVERSE_CONTINUE);
		expect_hit(s, stop, &s->w[n], REPLAY_TIMELINE_STOP_WATCH);
		assert_int_equal(stop.watch_addr, counter_addr);
		x = stop.thread;
	}
	stop = resume(s, x, REPLAY_TIMELINE_CONTINUE);
	assert_int_equal(stop.kind, REPLAY_TIMELINE_STOP_WATCH);
	assert_int_equal(s->b->threads[stop.thread].tid, s->w[49].tid);
	assert_int_equal(position(s, stop.thread), s->w[49].index + 1);
	assert_int_equal(check_clock(s), s->w[49].time);
	close_session(s);
}

/* A breakpoint at main's first instruction, far from the end: an
 * interrupt stops the scan short of it, and continuing finds it. */
static void test_interrupt(void **state)
{
	static volatile sig_atomic_t flag;
	struct session *s = open_session(true);
	struct replay_timeline_stop stop;
	uint64_t stopped, pc;
	(void)state;

	assert_int_equal(replay_timeline_point_insert(s->tl, REPLAY_TIMELINE_BREAK, main_addr, 0, 1),
			 0);
	replay_timeline_set_interrupt(s->tl, &flag);
	flag = 1;
	stop = resume(s, 0, REPLAY_TIMELINE_REVERSE_CONTINUE);
	assert_int_equal(stop.kind, REPLAY_CURSOR_INTERRUPTED);
	stopped = check_clock(s);
	flag = 0;
	stop = resume(s, stop.thread, REPLAY_TIMELINE_REVERSE_CONTINUE);
	assert_int_equal(stop.kind, REPLAY_CURSOR_BREAK);
	assert_int_equal(stop.thread, 0);
	assert_int_equal(replay_cursor_pc(replay_timeline_cursor(s->tl, 0), &pc), 0);
	assert_int_equal(pc, main_addr);
	assert_true(check_clock(s) < stopped);
	close_session(s);
}

/* No clock: the moved thread alone, the others stay. */
static void test_alone(void **state)
{
	struct session *s = open_session(false);
	struct replay_timeline_stop stop;
	size_t x = thread_index(s, s->w[0].tid), other = x == 1 ? 2 : 1;
	uint64_t end = position(s, other), q;
	(void)state;

	assert_int_equal(replay_timeline_time(s->tl, &q), -ENODATA);
	put_break(s);
	stop = resume(s, x, REPLAY_TIMELINE_REVERSE_CONTINUE);
	assert_int_equal(stop.kind, REPLAY_CURSOR_BREAK);
	assert_int_equal(stop.thread, x);
	q = position(s, x);
	assert_int_equal(q, s->w[0].index);
	assert_int_equal(position(s, other), end);
	assert_int_equal(position(s, 0), replay_cursor_size(replay_timeline_cursor(s->tl, 0)) + 1);
	stop = resume(s, x, REPLAY_TIMELINE_REVERSE_STEP);
	assert_int_equal(stop.kind, REPLAY_CURSOR_STEP);
	assert_int_equal(position(s, x), q - 1);
	assert_int_equal(position(s, other), end);
	close_session(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_points),
		cmocka_unit_test(test_continue_any_thread),
		cmocka_unit_test(test_continue_from_main),
		cmocka_unit_test(test_step_and_follow),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_interrupt),
		cmocka_unit_test(test_alone),
	};

	if (access(PROGS "/rec/threads.c", R_OK) != 0) {
		fprintf(stderr, "run from the repository root (no %s)\n", PROGS "/rec/threads.c");
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
