/*
 * tests/unit/test_replay_target.c: replay/target/replay_target.c driven through
 * its struct rsp_target_ops, as the server drives it, over software
 * recordings made here (tests/programs/watch.c and
 * tests/programs/rec/threads.c, built without PIE so nm gives the
 * addresses of their globals).
 *
 * Write watchpoints (Z2) from the state log: reverse-continue stops at each
 * write of the watched global with pc = the writing instruction and the
 * old value in memory, forward continue after it with the new one, the
 * beginning and the end still stop; a breakpoint between two writes wins
 * in both directions; with three threads adding to one counter each stop
 * is in the thread that wrote, and the values step by that thread's
 * addend. Z3 / Z4 are refused, and Z2 without a state log.
 *
 * One timeline for all threads (threads.c, a breakpoint at the store to
 * the counter): after every resume each thread stands where the current
 * time puts it (the instructions before its position ran at or before it,
 * the one at it after it); reverse-continue from the end stops at every
 * hit of every thread in reverse time order (the state log's writes, which
 * those instructions make, are the reference), in the thread that hit
 * (often not the one resumed, whose own previous hit is earlier), down to
 * the beginning where every thread is at position 1; continue goes forward
 * the same way; reverse-stepi / stepi move the time by one instruction of
 * the thread; a step or range step of main, blocked in pthread_join, stops
 * at a worker's hit when the workers are resumed too and not when main is
 * resumed alone (scheduler-locking); `monitor goto` moves the time; at the
 * end every thread is at its end. Also the state
 * log's write searches and time <-> position maps on the real log, the
 * present-memory hook and at_end, and BTS blocks (they split the history
 * up to the position into runs of consecutive instructions; the buffer
 * size bounds them; `new` reads only after a move).
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/target/replay_target.h"
#include "replay/model/state.h"
#include "stub/recorders/stub_rec.h"
#include "tests/unit/testlib_nm.h"

#define PROGS "tests/programs"
#define LLDB HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace"

static char work[256];
static char watch_dir[512], threads_dir[512];
static uint64_t g_addr, main_addr, counter_addr;

/* ---- recordings ------------------------------------------------------- */

static void run(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		print_error("command failed (%d): %s\n", r, cmd);
	assert_int_equal(r, 0);
}

static void record(const char *dir, char *const argv[], uint32_t slice)
{
	struct stub_rec_options o = { 0 };
	struct stub_rec *rec = NULL;
	pid_t pid;

	o.dir = dir;
	o.slice = slice;
	assert_int_equal(stub_rec_spawn(argv, &pid), 0);
	assert_int_equal(stub_rec_new(&rec, &o, pid, argv, false), 0);
	assert_int_equal(stub_rec_run(rec), 0);
	stub_rec_free(rec);
}

static int setup(void **state)
{
	char exe[512], exe2[512], cmd[2048];
	char a[] = "11", b[] = "22", c[] = "33";
	char *wargv[] = { exe, a, b, c, NULL }, *targv[] = { exe2, NULL };
	(void)state;

	snprintf(work, sizeof(work), "/tmp/hindsight-target.XXXXXX");
	if (!mkdtemp(work))
		return -1;
	snprintf(exe, sizeof(exe), "%s/watch", work);
	snprintf(exe2, sizeof(exe2), "%s/threads", work);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -no-pie -o %s %s/watch.c && "
		 "gcc -g -O0 -no-pie -pthread -o %s %s/rec/threads.c", exe, PROGS, exe2, PROGS);
	run(cmd);
	g_addr = nm_symbol(exe, "g");
	main_addr = nm_symbol(exe, "main");
	counter_addr = nm_symbol(exe2, "counter");
	snprintf(watch_dir, sizeof(watch_dir), "%s/watch.bundle", work);
	snprintf(threads_dir, sizeof(threads_dir), "%s/threads.bundle", work);
	record(watch_dir, wargv, 0);
	record(threads_dir, targv, 97);     /* short slices: many switches */
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
	return getenv("KEEP_WORK") || system(cmd) == 0 ? 0 : -1;
}

/* ---- driving the target ---------------------------------------------- */

struct session {
	struct replay_target *t;
	struct rsp_target rt;
	int64_t tid;               /* the thread of the last stop */
};

static void open_session(struct session *s, const char *dir)
{
	struct rsp_thread_info info[8];
	char err[256];

	assert_int_equal(replay_target_open(dir, &s->t, err, sizeof(err)), 0);
	s->rt = replay_target_rsp(s->t);
	assert_true(s->rt.ops->threads(s->rt.ctx, info, 8) >= 1);
	s->tid = info[0].ptid.tid;
}

/* Resumes the last stop's thread with @kind; the stop. */
static struct rsp_stop resume(struct session *s, enum rsp_resume_kind kind)
{
	struct rsp_resume act = { { replay_target_pid(s->t), s->tid }, kind, 0, 0, 0 };
	struct rsp_stop stop;

	assert_int_equal(s->rt.ops->resume(s->rt.ctx, &act, 1), 0);
	assert_int_equal(s->rt.ops->wait(s->rt.ctx, &stop, true), 1);
	assert_int_equal(stop.kind, RSP_STOP_SIGNAL);
	s->tid = stop.thread.tid;
	return stop;
}

static uint64_t read_u64(struct session *s, uint64_t addr, size_t len)
{
	uint64_t v = 0;

	assert_int_equal(s->rt.ops->read_mem(s->rt.ctx, addr, &v, len), (int)len);
	return v;
}

static uint64_t pc_of(struct session *s)
{
	struct rsp_regs r;

	assert_int_equal(s->rt.ops->read_regs(s->rt.ctx, (struct rsp_ptid){ 0, s->tid }, &r), 0);
	assert_true(r.avail[RSP_REG_RIP]);
	return rsp_regs_get(&r, RSP_REG_RIP);
}

static uint64_t position_of_tid(struct session *s, int64_t tid)
{
	return replay_cursor_position(replay_target_cursor(s->t, tid));
}

static uint64_t position_of(struct session *s)
{
	return position_of_tid(s, s->tid);
}

/* ---- the state log's queries on a real log ------------------------------ */

static void test_state_queries(void **state)
{
	static const uint32_t values[] = { 34, 33, 22, 11 };
	struct replay_state_write w[5];
	struct replay_bundle *b;
	struct replay_state *st;
	uint64_t time = UINT64_MAX, pos, t2;
	uint32_t v;
	char err[256];
	(void)state;

	assert_int_equal(replay_bundle_load(watch_dir, &b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	/* Backward from the end: the four writes to g, newest first, each
	 * with the new value at its time and the old one just before. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(replay_state_write_before(st, g_addr, 4, time, &w[i]), 0);
		assert_int_equal(w[i].tid, b->threads[0].tid);
		assert_int_equal(replay_state_read_mem(st, w[i].time, g_addr, &v, 4, NULL), 0);
		assert_int_equal(v, values[i]);
		assert_int_equal(replay_state_read_mem(st, w[i].time - 1, g_addr, &v, 4, NULL), 0);
		assert_int_equal(v, i < 3 ? values[i + 1] : 0);
		/* The write's instruction: time_at(index + 1) is its time, and back. */
		assert_int_equal(replay_state_time_at(st, w[i].tid, w[i].index + 1, &t2), 0);
		assert_int_equal(t2, w[i].time);
		assert_int_equal(replay_state_position_at(st, w[i].tid, w[i].time, &pos), 0);
		assert_int_equal(pos, w[i].index + 1);
		assert_int_equal(replay_state_position_at(st, w[i].tid, w[i].time - 1, &pos), 0);
		assert_int_equal(pos, w[i].index);
		time = w[i].time;
	}
	assert_int_equal(replay_state_write_before(st, g_addr, 4, time, &w[4]), -ENOENT);
	/* Forward: the same writes, oldest first. */
	time = 0;
	for (int i = 3; i >= 0; i--) {
		struct replay_state_write f;

		assert_int_equal(replay_state_write_after(st, g_addr, 4, time, &f), 0);
		assert_int_equal(f.time, w[i].time);
		assert_int_equal(f.index, w[i].index);
		time = f.time;
	}
	assert_int_equal(replay_state_write_after(st, g_addr, 4, time, &w[4]), -ENOENT);
	/* One byte of g is enough. */
	assert_int_equal(replay_state_write_before(st, g_addr + 3, 1, UINT64_MAX, &w[4]), 0);
	assert_int_equal(w[4].time, w[0].time);
	/* Positions and times, both ways, across the history. */
	for (pos = 1; pos <= b->threads[0].instructions; pos += 997) {
		uint64_t back;

		assert_int_equal(replay_state_time_at(st, b->threads[0].tid, pos, &t2), 0);
		assert_int_equal(replay_state_position_at(st, b->threads[0].tid, t2, &back), 0);
		assert_int_equal(back, pos);
	}
	replay_state_free(st);
	replay_bundle_free(b);
}

/* ---- watchpoints ------------------------------------------------------ */

/* A stop at a write of g: the value there, pc = the writing instruction. */
static void expect_watch_stop(struct session *s, struct rsp_stop stop, uint32_t value)
{
	uint64_t ip;

	assert_int_equal(stop.reason, RSP_REASON_WATCH);
	assert_int_equal(stop.watch_addr, g_addr);
	assert_int_equal(read_u64(s, g_addr, 4), value);
	assert_int_equal(replay_cursor_item_ip(replay_target_cursor(s->t, s->tid), position_of(s),
					       &ip), 0);
	assert_int_equal(pc_of(s), ip);
}

static void test_watch(void **state)
{
	struct session s;
	struct rsp_stop stop;
	uint64_t pos[4], bp;
	(void)state;

	open_session(&s, watch_dir);
	assert_true(replay_target_at_end(s.t));
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_WRITE_WATCH, g_addr, 4), 0);
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_WRITE_WATCH, g_addr, 4), 0);
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_READ_WATCH, g_addr, 4),
			 -EOPNOTSUPP);
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_ACCESS_WATCH, g_addr, 4),
			 -EOPNOTSUPP);
	assert_int_equal(read_u64(&s, g_addr, 4), 34);
	/* Backward: g = g + 1 (34 -> 33 seen backward), watch_set, g = b, g = a. */
	stop = resume(&s, RSP_RESUME_REVERSE_CONTINUE);
	expect_watch_stop(&s, stop, 33);
	assert_false(replay_target_at_end(s.t));
	pos[0] = position_of(&s);
	expect_watch_stop(&s, resume(&s, RSP_RESUME_REVERSE_CONTINUE), 22);
	pos[1] = position_of(&s);
	expect_watch_stop(&s, resume(&s, RSP_RESUME_REVERSE_CONTINUE), 11);
	pos[2] = position_of(&s);
	expect_watch_stop(&s, resume(&s, RSP_RESUME_REVERSE_CONTINUE), 0);
	pos[3] = position_of(&s);
	assert_true(pos[0] > pos[1] && pos[1] > pos[2] && pos[2] > pos[3]);
	stop = resume(&s, RSP_RESUME_REVERSE_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_REPLAY_BEGIN);
	assert_int_equal(position_of(&s), 1);
	/* Forward: after each write, at the instruction after it. */
	stop = resume(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_WATCH);
	assert_int_equal(read_u64(&s, g_addr, 4), 11);
	assert_int_equal(position_of(&s), pos[3] + 1);
	stop = resume(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(read_u64(&s, g_addr, 4), 22);
	assert_int_equal(position_of(&s), pos[2] + 1);
	/* Back from after a write: that same write. */
	expect_watch_stop(&s, resume(&s, RSP_RESUME_REVERSE_CONTINUE), 11);
	assert_int_equal(position_of(&s), pos[2]);
	/* A reverse step over the write stops as a watchpoint too. */
	stop = resume(&s, RSP_RESUME_STEP);
	assert_int_equal(stop.reason, RSP_REASON_WATCH);
	assert_int_equal(position_of(&s), pos[2] + 1);
	stop = resume(&s, RSP_RESUME_REVERSE_STEP);
	assert_int_equal(stop.reason, RSP_REASON_WATCH);
	assert_int_equal(position_of(&s), pos[2]);
	stop = resume(&s, RSP_RESUME_REVERSE_STEP);
	assert_int_equal(stop.reason, RSP_REASON_STEP);

	/* A breakpoint at the instruction two after the g = b write, before
	 * watch_set's: it wins going forward, then the write wins. */
	assert_int_equal(replay_cursor_item_ip(replay_target_cursor(s.t, s.tid), pos[2] + 2, &bp),
			 0);
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_SW_BREAK, bp, 1), 0);
	stop = resume(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_WATCH);  /* g = b itself comes first */
	assert_int_equal(position_of(&s), pos[2] + 1);
	stop = resume(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_SWBREAK);
	assert_int_equal(position_of(&s), pos[2] + 2);
	stop = resume(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_WATCH);
	assert_int_equal(position_of(&s), pos[1] + 1);
	/* Backward from after watch_set's write: the write, the breakpoint. */
	expect_watch_stop(&s, resume(&s, RSP_RESUME_REVERSE_CONTINUE), 22);
	stop = resume(&s, RSP_RESUME_REVERSE_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_SWBREAK);
	assert_int_equal(position_of(&s), pos[2] + 2);
	/* Without the watchpoint: to the end. */
	assert_int_equal(s.rt.ops->remove_point(s.rt.ctx, RSP_POINT_WRITE_WATCH, g_addr, 4), 0);
	stop = resume(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_REPLAY_END);
	assert_true(replay_target_at_end(s.t));
	assert_int_equal(read_u64(&s, g_addr, 4), 34);
	replay_target_free(s.t);
}

static void test_watch_refused(void **state)
{
	struct replay_target *t;
	struct rsp_target rt;
	char err[256];
	(void)state;

	/* No length. */
	assert_int_equal(replay_target_open(watch_dir, &t, err, sizeof(err)), 0);
	rt = replay_target_rsp(t);
	assert_int_equal(rt.ops->insert_point(rt.ctx, RSP_POINT_WRITE_WATCH, g_addr, 0),
			 -EOPNOTSUPP);
	replay_target_free(t);
	/* A hardware PT recording has no state log. */
	if (access(LLDB "/trace.json", R_OK) != 0) {
		printf("  (no LLDB bundle at %s)\n", LLDB);
		return;
	}
	assert_int_equal(replay_target_open(LLDB, &t, err, sizeof(err)), 0);
	rt = replay_target_rsp(t);
	assert_int_equal(rt.ops->insert_point(rt.ctx, RSP_POINT_WRITE_WATCH, 0x1000, 4),
			 -EOPNOTSUPP);
	assert_int_equal(rt.ops->insert_point(rt.ctx, RSP_POINT_SW_BREAK, 0x1000, 1), 0);
	replay_target_free(t);
}

/* The time at @tid's position (+ @plus). */
static uint64_t time_of(struct replay_state *st, struct session *s, int64_t tid, uint64_t plus)
{
	uint64_t time, pos = replay_cursor_position(replay_target_cursor(s->t, tid));

	assert_int_equal(replay_state_time_at(st, tid, pos + plus, &time), 0);
	return time;
}

/* Three workers add 1, 2, 3 to counter 500 times each, under a mutex
 * (recorded with short slices: the threads interleave). Every write, from
 * the end back to the first: each stop is in the writing thread, the
 * values step by its addend, and the thread that was resumed is left where
 * it was at the moment before the write. */
static void test_watch_threads(void **state)
{
	struct session s;
	struct replay_bundle *b;
	struct replay_state *st;
	int64_t main_tid, tids[3] = { 0 };
	uint64_t value, delta_of[3] = { 0 };
	int stops = 0, switches = 0;
	struct timeval t0, t1;
	char err[256];
	(void)state;

	assert_int_equal(replay_bundle_load(threads_dir, &b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	open_session(&s, threads_dir);
	main_tid = s.tid;
	value = read_u64(&s, counter_addr, 8);
	assert_int_equal(value, 3000);
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_WRITE_WATCH, counter_addr, 8),
			 0);
	gettimeofday(&t0, NULL);
	for (int i = 0; i < 1500; i++) {
		int64_t resumed = s.tid;
		struct rsp_stop stop = resume(&s, RSP_RESUME_REVERSE_CONTINUE);
		uint64_t old = read_u64(&s, counter_addr, 8), d = value - old;
		uint64_t moment = time_of(st, &s, s.tid, 1) - 1;   /* before the write */
		int k;

		assert_int_equal(stop.reason, RSP_REASON_WATCH);
		assert_int_equal(stop.thread.tid, s.tid);
		assert_true(s.tid != main_tid);
		if (resumed != s.tid) {
			switches++;
			/* (At position 1 when it had not started yet.) */
			assert_true(position_of_tid(&s, resumed) == 1 ||
				    time_of(st, &s, resumed, 0) <= moment);
			assert_true(time_of(st, &s, resumed, 1) > moment ||
				    replay_cursor_position(replay_target_cursor(s.t, resumed)) >
					    replay_cursor_size(replay_target_cursor(s.t, resumed)));
		}
		assert_true(d >= 1 && d <= 3);
		/* Each thread always adds the same. */
		for (k = 0; k < 3 && tids[k] && tids[k] != s.tid; k++)
			;
		assert_true(k < 3);
		if (!tids[k]) {
			tids[k] = s.tid;
			delta_of[k] = d;
		}
		assert_int_equal(delta_of[k], d);
		value = old;
		stops++;
	}
	gettimeofday(&t1, NULL);
	printf("  threads: %d stops back (%d in another thread) in %.2f s, counter %" PRIu64 "\n",
	       stops, switches,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_usec - t0.tv_usec) / 1e6, value);
	assert_int_equal(value, 0);
	assert_true(tids[0] && tids[1] && tids[2]);
	assert_true(switches > 3);
	/* Forward again: the same writes, in order. */
	for (int i = 0; i < 50; i++) {
		struct rsp_stop stop = resume(&s, RSP_RESUME_CONTINUE);
		uint64_t now = read_u64(&s, counter_addr, 8);

		assert_int_equal(stop.reason, RSP_REASON_WATCH);
		assert_true(now - value >= 1 && now - value <= 3);
		value = now;
	}
	replay_target_free(s.t);
	replay_state_free(st);
	replay_bundle_free(b);
}

/* ---- one timeline ------------------------------------------------------ */

/* Every thread stands where the current time puts it: the instruction
 * before its position ran at or before that time, the one at it after.
 * The time. */
static uint64_t check_timeline(struct session *s, struct replay_state *st)
{
	struct rsp_thread_info info[8];
	uint64_t now, t0, t1;
	int n = s->rt.ops->threads(s->rt.ctx, info, 8);

	assert_int_equal(replay_target_time(s->t, &now), 0);
	for (int i = 0; i < n; i++) {
		struct replay_cursor *c = replay_target_cursor(s->t, info[i].ptid.tid);
		uint64_t p = replay_cursor_position(c);

		if (p > 1) {
			assert_int_equal(replay_state_time_at(st, info[i].ptid.tid, p, &t0), 0);
			assert_true(t0 <= now);
		}
		if (p <= replay_cursor_size(c)) {
			assert_int_equal(replay_state_time_at(st, info[i].ptid.tid, p + 1, &t1), 0);
			assert_true(t1 > now);
		}
	}
	return now;
}

/* Resumes with @n actions; the stop. */
static struct rsp_stop resume_n(struct session *s, const struct rsp_resume *acts, size_t n)
{
	struct rsp_stop stop;

	assert_int_equal(s->rt.ops->resume(s->rt.ctx, acts, n), 0);
	assert_int_equal(s->rt.ops->wait(s->rt.ctx, &stop, true), 1);
	s->tid = stop.thread.tid;
	return stop;
}

/* Resumes every thread as GDB's vCont;c does: @kind for the last stop's
 * thread, continue for the others. */
static struct rsp_stop resume_all(struct session *s, enum rsp_resume_kind kind)
{
	struct rsp_thread_info info[8];
	struct rsp_resume acts[8] = { 0 };
	int n = s->rt.ops->threads(s->rt.ctx, info, 8);

	for (int i = 0; i < n; i++) {
		acts[i].thread = info[i].ptid;
		acts[i].kind = info[i].ptid.tid == s->tid ? kind : RSP_RESUME_CONTINUE;
	}
	return resume_n(s, acts, (size_t)n);
}

/* A stop at write @w's instruction: in its thread, the time just before. */
static void expect_hit(struct session *s, struct replay_state *st, struct rsp_stop stop,
		       const struct replay_state_write *w)
{
	assert_int_equal(stop.reason, RSP_REASON_SWBREAK);
	assert_int_equal(stop.thread.tid, w->tid);
	assert_int_equal(position_of(s), w->index);
	assert_int_equal(check_timeline(s, st), w->time - 1);
}

#define NWRITES 1500

/* Bundle thread number of @tid. */
static size_t thread_index(const struct replay_bundle *b, int64_t tid)
{
	for (size_t i = 0; i < b->nthreads; i++)
		if (b->threads[i].tid == tid)
			return i;
	fail();
	return 0;
}

/* Backward from the end: every hit, of every thread, newest first. */
static void timeline_back(struct session *s, struct replay_state *st, struct replay_bundle *b,
			  const struct replay_state_write *w)
{
	int64_t tids[3] = { 0 };
	uint64_t value = read_u64(s, counter_addr, 8), delta_of[3] = { 0 };
	int switches = 0, own_earlier = 0;
	struct timeval t0, t1;

	gettimeofday(&t0, NULL);
	for (int i = 0; i < NWRITES; i++) {
		int64_t resumed = s->tid;
		uint64_t from = position_of(s), old, d;
		struct rsp_stop stop = resume(s, RSP_RESUME_REVERSE_CONTINUE);
		int k;

		expect_hit(s, st, stop, &w[i]);
		old = read_u64(s, counter_addr, 8);
		d = value - old;
		assert_true(d >= 1 && d <= 3);
		for (k = 0; k < 3 && tids[k] && tids[k] != s->tid; k++)
			;
		assert_true(k < 3);
		if (!tids[k]) {
			tids[k] = s->tid;
			delta_of[k] = d;
		}
		assert_int_equal(delta_of[k], d);
		value = old;
		if (resumed == s->tid)
			continue;
		switches++;
		/* The resumed thread's own previous hit (what a resume of it
		 * alone finds) is earlier than the one of the thread that hit. */
		if (own_earlier < 3) {
			struct replay_cursor *c, *wc = replay_target_cursor(s->t, w[0].tid);
			size_t k2 = thread_index(b, resumed);
			uint64_t ip, when;
			struct replay_cursor_breaks bps = { &ip, 1 };
			int r;

			assert_int_equal(replay_cursor_item_ip(wc, w[0].index, &ip), 0);
			assert_int_equal(replay_cursor_new(b, k2, NULL, NULL, &c), 0);
			assert_int_equal(replay_cursor_goto(c, from), 0);
			r = replay_cursor_continue(c, REPLAY_BACKWARD, &bps);
			if (r == REPLAY_CURSOR_BREAK) {
				when = replay_cursor_position(c) + 1;
				assert_int_equal(replay_state_time_at(st, resumed, when, &when), 0);
				assert_true(when < w[i].time);
				own_earlier++;
			}
			replay_cursor_free(c);
		}
	}
	gettimeofday(&t1, NULL);
	printf("  timeline: %d hits back (%d in another thread) in %.2f s\n", NWRITES, switches,
	       (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_usec - t0.tv_usec) / 1e6);
	assert_int_equal(value, 0);
	assert_true(switches > 3);
	assert_int_equal(own_earlier, 3);
}

/* Thread @tid steps (or range-steps over its instruction) with the
 * workers continuing, or alone. */
static struct rsp_stop step_with(struct session *s, int64_t tid, enum rsp_resume_kind kind,
				 const int64_t *others, size_t nothers)
{
	struct rsp_resume acts[4] = { 0 };
	size_t n = 0;

	acts[n].thread = (struct rsp_ptid){ replay_target_pid(s->t), tid };
	acts[n].kind = kind;
	if (kind == RSP_RESUME_RANGE) {
		s->tid = tid;
		acts[n].range_start = pc_of(s);
		acts[n].range_end = acts[n].range_start + 1;
	}
	n++;
	for (size_t i = 0; i < nothers && n < 4; i++, n++) {
		acts[n].thread = (struct rsp_ptid){ replay_target_pid(s->t), others[i] };
		acts[n].kind = RSP_RESUME_CONTINUE;
	}
	return resume_n(s, acts, n);
}

static void test_timeline(void **state)
{
	static struct replay_state_write w[NWRITES + 1];
	struct rsp_thread_info info[8];
	struct replay_bundle *b;
	struct replay_state *st;
	struct session s;
	struct rsp_stop stop;
	int64_t main_tid, workers[3];
	uint64_t time = UINT64_MAX, bp, now, p;
	char err[256];
	int n;
	(void)state;

	assert_int_equal(replay_bundle_load(threads_dir, &b, err, sizeof(err)), 0);
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	/* The reference: the writes to the counter, newest first. */
	for (n = 0; n < NWRITES; n++) {
		assert_int_equal(replay_state_write_before(st, counter_addr, 8, time, &w[n]), 0);
		time = w[n].time;
	}
	assert_int_equal(replay_state_write_before(st, counter_addr, 8, time, &w[n]), -ENOENT);
	open_session(&s, threads_dir);
	main_tid = s.tid;
	/* At the end the workers have exited (each history ends with its
	 * exit syscall): main alone is listed, as GDB lists it natively. */
	n = s.rt.ops->threads(s.rt.ctx, info, 8);
	assert_int_equal(n, 1);
	assert_int_equal(info[0].ptid.tid, main_tid);
	assert_int_equal(b->nthreads, 4);
	for (int i = 1; i < 4; i++)
		workers[i - 1] = b->threads[i].tid;
	assert_true(replay_target_at_end(s.t));
	check_timeline(&s, st);
	/* Every worker's store is the same instruction. */
	assert_int_equal(replay_cursor_item_ip(replay_target_cursor(s.t, w[0].tid), w[0].index,
					       &bp), 0);
	assert_int_equal(s.rt.ops->insert_point(s.rt.ctx, RSP_POINT_SW_BREAK, bp, 1), 0);

	timeline_back(&s, st, b, w);
	stop = resume(&s, RSP_RESUME_REVERSE_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_REPLAY_BEGIN);
	for (size_t i = 0; i < b->nthreads; i++)
		assert_int_equal(position_of_tid(&s, b->threads[i].tid), 1);
	now = check_timeline(&s, st);
	assert_true(now < w[NWRITES - 1].time);
	assert_int_equal(read_u64(&s, counter_addr, 8), 0);
	/* A reverse step at the beginning: nothing moves. */
	stop = resume(&s, RSP_RESUME_REVERSE_STEP);
	assert_int_equal(stop.reason, RSP_REASON_REPLAY_BEGIN);
	assert_int_equal(check_timeline(&s, st), now);

	/* Forward: the same hits, oldest first. */
	for (int i = NWRITES - 1; i >= NWRITES - 50; i--)
		expect_hit(&s, st, resume_all(&s, RSP_RESUME_CONTINUE), &w[i]);
	/* A worker's reverse-stepi and stepi: one instruction of it, the
	 * others where that time puts them. */
	p = position_of(&s);
	for (int i = 1; i <= 3; i++) {
		stop = resume(&s, RSP_RESUME_REVERSE_STEP);
		assert_int_equal(stop.reason, RSP_REASON_STEP);
		assert_int_equal(position_of(&s), p - (uint64_t)i);
		assert_int_equal(replay_state_time_at(st, s.tid, p - (uint64_t)i + 1, &time), 0);
		assert_int_equal(check_timeline(&s, st), time - 1);
	}
	for (int i = 2; i >= 0; i--) {
		stop = resume(&s, RSP_RESUME_STEP);
		assert_int_equal(stop.reason, RSP_REASON_STEP);
		assert_int_equal(position_of(&s), p - (uint64_t)i);
		assert_int_equal(replay_state_time_at(st, s.tid, p - (uint64_t)i, &time), 0);
		assert_int_equal(check_timeline(&s, st), time);
	}

	/* Halfway, main waits in pthread_join: its next instruction runs
	 * after many hits. Stepping it with the workers resumed stops at the
	 * next hit, in a worker; stepping it alone does not. */
	for (int i = NWRITES - 51; i >= NWRITES / 2; i--)
		expect_hit(&s, st, resume_all(&s, RSP_RESUME_CONTINUE), &w[i]);
	p = replay_cursor_position(replay_target_cursor(s.t, main_tid));
	assert_int_equal(replay_state_time_at(st, main_tid, p + 1, &time), 0);
	assert_true(time > w[NWRITES / 2 - 2].time);
	expect_hit(&s, st, step_with(&s, main_tid, RSP_RESUME_STEP, workers, 3),
		   &w[NWRITES / 2 - 1]);
	expect_hit(&s, st, step_with(&s, main_tid, RSP_RESUME_RANGE, workers, 3),
		   &w[NWRITES / 2 - 2]);
	stop = step_with(&s, main_tid, RSP_RESUME_STEP, NULL, 0);
	assert_int_equal(stop.reason, RSP_REASON_STEP);
	assert_int_equal(stop.thread.tid, main_tid);
	assert_int_equal(position_of(&s), p + 1);
	assert_int_equal(check_timeline(&s, st), time);
	/* Back to where main's instruction ran: a hit before it, in a worker. */
	stop = resume(&s, RSP_RESUME_REVERSE_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_SWBREAK);
	assert_true(s.tid != main_tid);
	assert_true(check_timeline(&s, st) < time);

	/* monitor goto: the current thread there, the others at its time. */
	{
		struct rsp_buf out;

		rsp_buf_init(&out);
		assert_int_equal(s.rt.ops->monitor(s.rt.ctx, "goto 100", &out), 0);
		rsp_buf_release(&out);
		assert_int_equal(position_of(&s), 100);
		assert_int_equal(replay_state_time_at(st, s.tid, 100, &time), 0);
		assert_int_equal(check_timeline(&s, st), time);
	}

	/* Without the breakpoint: to the end, every thread at its end. */
	assert_int_equal(s.rt.ops->remove_point(s.rt.ctx, RSP_POINT_SW_BREAK, bp, 1), 0);
	stop = resume_all(&s, RSP_RESUME_CONTINUE);
	assert_int_equal(stop.reason, RSP_REASON_REPLAY_END);
	assert_true(replay_target_at_end(s.t));
	check_timeline(&s, st);
	assert_int_equal(read_u64(&s, counter_addr, 8), 3000);
	stop = resume(&s, RSP_RESUME_STEP);
	assert_int_equal(stop.reason, RSP_REASON_REPLAY_END);
	replay_target_free(s.t);
	replay_state_free(st);
	replay_bundle_free(b);
}

/* ---- hooks ------------------------------------------------------------ */

static int present_calls;

static int present_fill(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)addr;
	present_calls++;
	memset(buf, *(const uint8_t *)ctx, len);
	return (int)len;
}

static int present_fail(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	(void)addr;
	(void)buf;
	(void)len;
	present_calls++;
	return -EIO;
}

static void test_present_mem(void **state)
{
	struct session s;
	uint8_t code[16], got[16], pattern = 0xab, want[16];
	(void)state;

	open_session(&s, watch_dir);
	/* Code no one wrote: from the file, then from the present when there
	 * is one (a live process), the file again when the present fails. */
	assert_int_equal(s.rt.ops->read_mem(s.rt.ctx, main_addr, code, 16), 16);
	replay_target_set_present_mem(s.t, present_fill, &pattern);
	assert_int_equal(s.rt.ops->read_mem(s.rt.ctx, main_addr, got, 16), 16);
	memset(want, pattern, 16);
	assert_memory_equal(got, want, 16);
	assert_true(present_calls > 0);
	/* What the log knows does not ask the present. */
	present_calls = 0;
	assert_int_equal(read_u64(&s, g_addr, 4), 34);
	assert_int_equal(present_calls, 0);
	replay_target_set_present_mem(s.t, present_fail, NULL);
	assert_int_equal(s.rt.ops->read_mem(s.rt.ctx, main_addr, got, 16), 16);
	assert_memory_equal(got, code, 16);
	replay_target_set_present_mem(s.t, NULL, NULL);
	present_calls = 0;
	assert_int_equal(s.rt.ops->read_mem(s.rt.ctx, main_addr, got, 16), 16);
	assert_int_equal(present_calls, 0);
	/* at_end: every thread at its end. */
	assert_true(replay_target_at_end(s.t));
	resume(&s, RSP_RESUME_REVERSE_STEP);
	assert_false(replay_target_at_end(s.t));
	resume(&s, RSP_RESUME_STEP);
	assert_true(replay_target_at_end(s.t));
	replay_target_free(s.t);
}

/* ---- BTS -------------------------------------------------------------- */

/* The blocks, oldest first, hold items 1 .. position - 1 and then the pc,
 * in order, each block a run of increasing addresses from its begin to
 * its end; the newest ends at the pc. */
static void check_blocks(struct replay_cursor *c, const struct rsp_btrace_data *d)
{
	uint64_t n = 1, pos = replay_cursor_position(c), ip, pc;

	assert_int_equal(replay_cursor_pc(c, &pc), 0);
	assert_int_equal(d->blocks[0].end, pc);
	for (size_t i = d->nblocks; i-- > 0;) {
		const struct rsp_btrace_block *blk = &d->blocks[i];
		uint64_t prev = 0;

		do {
			if (n < pos)
				assert_int_equal(replay_cursor_item_ip(c, n, &ip), 0);
			else
				ip = pc;
			if (prev)
				assert_true(ip > prev);
			else
				assert_int_equal(ip, blk->begin);
			assert_true(ip <= blk->end);
			prev = ip;
			n++;
		} while (ip != blk->end);
	}
	assert_int_equal(n, pos + 1);
}

static int bts_read(struct session *s, enum rsp_btrace_read kind, struct rsp_btrace_data *d)
{
	struct rsp_ptid th = { replay_target_pid(s->t), s->tid };

	free(d->blocks);
	memset(d, 0, sizeof(*d));
	return s->rt.ops->btrace_read(s->rt.ctx, th, kind, d);
}

static void test_bts(void **state)
{
	struct session s;
	struct rsp_btrace_data d = { 0 }, all = { 0 };
	struct rsp_ptid th;
	enum rsp_btrace_format f;
	struct replay_cursor *c;
	uint64_t size, n;
	(void)state;

	open_session(&s, watch_dir);
	th = (struct rsp_ptid){ replay_target_pid(s.t), s.tid };
	c = replay_target_cursor(s.t, s.tid);
	assert_true(s.rt.ops->features(s.rt.ctx) & RSP_TARGET_BTRACE_BTS);
	assert_int_equal(bts_read(&s, RSP_BTRACE_READ_ALL, &d), -ENOENT);
	assert_int_equal(s.rt.ops->btrace_enable(s.rt.ctx, th, RSP_BTRACE_BTS, 0), 0);
	assert_int_equal(s.rt.ops->btrace_enable(s.rt.ctx, th, RSP_BTRACE_BTS, 0), -EALREADY);
	assert_int_equal(s.rt.ops->btrace_conf(s.rt.ctx, th, &f, &size), 0);
	assert_int_equal(f, RSP_BTRACE_BTS);
	assert_int_equal(size, 0);
	assert_int_equal(bts_read(&s, RSP_BTRACE_READ_DELTA, &d), -EOPNOTSUPP);
	/* Everything: the whole history, far fewer blocks than instructions. */
	assert_int_equal(bts_read(&s, RSP_BTRACE_READ_NEW, &all), 0);
	assert_int_equal(all.format, RSP_BTRACE_BTS);
	n = replay_cursor_size(c);
	printf("  bts: %zu blocks for %" PRIu64 " instructions\n", all.nblocks, n);
	assert_true(all.nblocks > 100 && all.nblocks < n / 2);
	check_blocks(c, &all);
	assert_int_equal(bts_read(&s, RSP_BTRACE_READ_NEW, &d), 1);    /* nothing moved */
	/* In the past: up to the position. */
	resume(&s, RSP_RESUME_REVERSE_STEP);
	resume(&s, RSP_RESUME_REVERSE_STEP);
	assert_int_equal(bts_read(&s, RSP_BTRACE_READ_NEW, &d), 0);
	check_blocks(c, &d);
	resume(&s, RSP_RESUME_STEP);
	resume(&s, RSP_RESUME_STEP);
	/* A 240-byte buffer: the newest 10 blocks. */
	assert_int_equal(s.rt.ops->btrace_disable(s.rt.ctx, th), 0);
	assert_int_equal(s.rt.ops->btrace_enable(s.rt.ctx, th, RSP_BTRACE_BTS, 240), 0);
	assert_int_equal(bts_read(&s, RSP_BTRACE_READ_ALL, &d), 0);
	assert_int_equal(d.nblocks, 10);
	assert_memory_equal(d.blocks, all.blocks, 10 * sizeof(*d.blocks));
	/* PT still works as it did. */
	assert_int_equal(s.rt.ops->btrace_disable(s.rt.ctx, th), 0);
	assert_int_equal(s.rt.ops->btrace_enable(s.rt.ctx, th, RSP_BTRACE_PT, 0), 0);
	assert_int_equal(s.rt.ops->btrace_conf(s.rt.ctx, th, &f, &size), 0);
	assert_int_equal(f, RSP_BTRACE_PT);
	{
		struct rsp_buf raw;

		rsp_buf_init(&raw);
		free(d.blocks);
		memset(&d, 0, sizeof(d));
		d.raw = &raw;
		assert_int_equal(s.rt.ops->btrace_read(s.rt.ctx, th, RSP_BTRACE_READ_ALL, &d), 0);
		assert_int_equal(d.format, RSP_BTRACE_PT);
		assert_true(raw.len > 0);
		assert_int_equal(raw.len, size);
		rsp_buf_release(&raw);
		d.raw = NULL;
	}
	free(d.blocks);
	free(all.blocks);
	replay_target_free(s.t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_queries),
		cmocka_unit_test(test_watch),
		cmocka_unit_test(test_watch_refused),
		cmocka_unit_test(test_watch_threads),
		cmocka_unit_test(test_timeline),
		cmocka_unit_test(test_present_mem),
		cmocka_unit_test(test_bts),
	};

	if (access(PROGS "/watch.c", R_OK) != 0) {
		fprintf(stderr, "run from the repository root (no %s)\n", PROGS "/watch.c");
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
