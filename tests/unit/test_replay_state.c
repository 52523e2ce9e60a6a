/*
 * tests/unit/test_replay_state.c: the state log reader on logs written by
 * hand, byte by byte (docs/bundle.md, "State log"): registers redone from
 * a checkpoint, memory before / between / after writes, mapping records,
 * two threads merged by time, a truncated tail, a file that is not a log,
 * padding; the writes of a range searched both ways by time, times and
 * positions mapped both ways, and what each byte of a read is (known,
 * untouched, unknowable); then random logs of three threads, many
 * checkpoints and writes across blocks and pages, every read and search
 * checked against a brute-force walk over all the records.
 * tests/unit/test_replay_target.c does the same on a real recording.
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
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/model/state.h"

static char dir[64];

struct wbuf {
	uint8_t b[1 << 16];
	size_t n;
};

static void put(struct wbuf *w, uint64_t v)
{
	while (v >= 0x80) {
		w->b[w->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	w->b[w->n++] = (uint8_t)v;
}

static void put_s(struct wbuf *w, int64_t v)
{
	put(w, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static void tag(struct wbuf *w, unsigned kind, unsigned delta)
{
	w->b[w->n++] = (uint8_t)(kind | delta << 3);
}

/* Header (xsave_len 16: two words) and a checkpoint at @index, @base
 * with rax (slot 10) = @rax, everything else 0. */
static void start(struct wbuf *w, uint64_t index, uint64_t base, uint64_t rax)
{
	memcpy(w->b, "HSSTATE1", 8);
	w->n = 8;
	put(w, 7);
	put(w, 16);
	put(w, 27);
	tag(w, 6, 0);
	put(w, index);
	put(w, base);
	for (int i = 0; i < 27; i++)
		put(w, i == 10 ? rax : 0);
	put(w, 0);                         /* no XSAVE runs: all zero */
}

static void mem(struct wbuf *w, unsigned delta, int64_t rel, const char *old, const char *new)
{
	size_t len = strlen(old);

	tag(w, 3, delta);
	put_s(w, rel);
	put(w, len);
	memcpy(w->b + w->n, old, len);
	memcpy(w->b + w->n + len, new, len);
	w->n += 2 * len;
}

/* A MAP record @delta after the last one: @len bytes at end + @rel, @how. */
static void map(struct wbuf *w, unsigned delta, int64_t rel, uint64_t len, uint8_t how)
{
	tag(w, 4, delta);
	put_s(w, rel);
	put(w, len);
	w->b[w->n++] = how;
}

/* A TIME record: from @delta after the last record on, time - index is @base. */
static void time_base(struct wbuf *w, unsigned delta, uint64_t base)
{
	tag(w, 5, delta);
	put(w, base);
}

/* A SYNC record at the last record's index: whole before that index +
 * @ahead and before time @until; @until 0: the end of the log. */
static void sync_rec(struct wbuf *w, unsigned ahead, uint64_t until)
{
	tag(w, 7, 0);
	put(w, ahead);
	put(w, until);
}

/* Threads (bits) whose logs bundle_of leaves without an end record (cut
 * short); the others get one, as a recorder that ends writes. */
static unsigned cut_mask;

static struct replay_bundle *bundle_of(struct wbuf *w, size_t nthreads)
{
	struct replay_bundle *b;
	char path[128], rel[32];

	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(replay_bundle_set_str(&b->dir, dir), 0);
	for (size_t i = 0; i < nthreads; i++) {
		FILE *f;

		snprintf(rel, sizeof(rel), "t%zu.state", i);
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(w[i].b, 1, w[i].n, f), w[i].n);
		if (!(cut_mask >> i & 1))
			assert_int_equal(fwrite("\7\0\0", 1, 3, f), 3);
		fclose(f);
		assert_true(replay_bundle_add_thread(b, 7 + (int64_t)i, "x.pt") >= 0);
		assert_int_equal(replay_bundle_set_str(&b->threads[i].state_file, rel), 0);
	}
	return b;
}

static void test_registers(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	uint64_t gp[REPLAY_STATE_NGP], time;
	struct rsp_regs r;
	(void)state;

	start(&w, 0, 0, 100);
	tag(&w, 1, 1);                     /* insn 1: rax += 5 (mask bit 1) */
	put(&w, 2);
	put_s(&w, 5);
	tag(&w, 1, 2);                     /* insn 3: rax -= 1, rsp (bit 4) = 8 */
	put(&w, 2 | 16);
	put_s(&w, -1);
	put_s(&w, 8);
	tag(&w, 5, 1);                     /* insn 4 ran at time 14 */
	put(&w, 10);
	tag(&w, 2, 0);                     /* ... and set XSAVE word 1 to 0xff */
	put(&w, 1);
	put(&w, 1);
	put(&w, 1);
	memcpy(w.b + w.n, "\xff\0\0\0\0\0\0\0", 8);
	w.n += 8;
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_raw_at(st, 7, 1, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 100);
	assert_int_equal(replay_state_raw_at(st, 7, 2, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 105);
	assert_int_equal(replay_state_raw_at(st, 7, 4, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 104);
	assert_int_equal(gp[19], 8);
	assert_int_equal(replay_state_regs_at(st, 7, 2, &r), 0);   /* backward */
	assert_int_equal(rsp_regs_get(&r, RSP_REG_RAX), 105);
	assert_false(r.avail[RSP_REG_RIP]);
	assert_int_equal(replay_state_time_at(st, 7, 4, &time), 0);
	assert_int_equal(time, 3);
	assert_int_equal(replay_state_time_at(st, 7, 5, &time), 0);
	assert_int_equal(time, 14);
	assert_int_equal(replay_state_raw_at(st, 7, 0, gp, NULL, NULL), -ENOENT);
	assert_int_equal(replay_state_raw_at(st, 8, 1, gp, NULL, NULL), -ENOENT);
	assert_int_equal(replay_state_last_index(st, 7), 4);
	replay_state_free(st);
	replay_bundle_free(b);
}

static void test_memory(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	char buf[8];
	uint8_t known[8];
	(void)state;

	start(&w, 0, 0, 0);
	mem(&w, 2, 0x1000, "abcd", "ABCD");        /* time 2: [0x1000, 0x1004) */
	mem(&w, 3, -2, "CD", "xy");                /* time 5: [0x1002, 0x1004) */
	tag(&w, 4, 1);                             /* time 6: [0x1003, 0x1005) zeros */
	put_s(&w, -1);
	put(&w, 2);
	w.b[w.n++] = 1;
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_read_mem(st, 1, 0x1000, buf, 4, NULL), 0);
	assert_memory_equal(buf, "abcd", 4);
	assert_int_equal(replay_state_read_mem(st, 2, 0x1000, buf, 4, NULL), 0);
	assert_memory_equal(buf, "ABCD", 4);
	assert_int_equal(replay_state_read_mem(st, 5, 0x1000, buf, 4, NULL), 0);
	assert_memory_equal(buf, "ABxy", 4);
	assert_int_equal(replay_state_read_mem(st, 9, 0x1000, buf, 5, known), 0);
	assert_memory_equal(buf, "ABx\0\0", 5);
	/* Before the zeros appeared, 0x1004 was never written: unknown. */
	assert_int_equal(replay_state_read_mem(st, 5, 0x1003, buf, 3, known), -ENOENT);
	assert_int_equal(known[0], 1);
	assert_int_equal(known[1], 0);
	assert_int_equal(known[2], 0);
	replay_state_free(st);
	replay_bundle_free(b);
}

static void test_threads_merge(void **state)
{
	struct wbuf w[2] = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	char buf[2];
	(void)state;

	start(&w[0], 0, 0, 0);
	mem(&w[0], 1, 0x2000, "aa", "bb");         /* thread 7, time 1 */
	start(&w[1], 0, 10, 0);
	mem(&w[1], 1, 0x2000, "bb", "cc");         /* thread 8, time 11 */
	b = bundle_of(w, 2);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_read_mem(st, 0, 0x2000, buf, 2, NULL), 0);
	assert_memory_equal(buf, "aa", 2);
	assert_int_equal(replay_state_read_mem(st, 5, 0x2000, buf, 2, NULL), 0);
	assert_memory_equal(buf, "bb", 2);
	assert_int_equal(replay_state_read_mem(st, 11, 0x2000, buf, 2, NULL), 0);
	assert_memory_equal(buf, "cc", 2);
	replay_state_free(st);
	replay_bundle_free(b);
}

/* A thread made while only another ran has a state log of no bytes: it
 * has no state, and the others' logs are read as ever (a damaged one
 * after it named by its own name). */
static void test_thread_never_ran(void **state)
{
	struct wbuf w[3] = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	uint64_t gp[REPLAY_STATE_NGP];
	char buf[2], err[256];
	(void)state;

	start(&w[0], 0, 0, 0);
	mem(&w[0], 1, 0x2000, "aa", "bb");         /* thread 7, time 1 */
	start(&w[2], 0, 10, 0);
	mem(&w[2], 1, 0x2000, "bb", "cc");         /* thread 9, time 11 */
	cut_mask = 2;                              /* thread 8: no byte */
	b = bundle_of(w, 3);
	cut_mask = 0;
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	assert_int_equal(replay_state_raw_at(st, 8, 1, gp, NULL, NULL), -ENOENT);
	assert_int_equal(replay_state_raw_at(st, 9, 1, gp, NULL, NULL), 0);
	assert_int_equal(replay_state_read_mem(st, 5, 0x2000, buf, 2, NULL), 0);
	assert_memory_equal(buf, "bb", 2);
	assert_int_equal(replay_state_read_mem(st, 11, 0x2000, buf, 2, NULL), 0);
	assert_memory_equal(buf, "cc", 2);
	replay_state_free(st);
	replay_bundle_free(b);

	/* No thread has run yet: a state that knows nothing, not "no state
	 * log" (it is to be extended as they run). */
	cut_mask = 1;
	b = bundle_of(&w[1], 1);
	cut_mask = 0;
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	assert_int_equal(replay_state_raw_at(st, 7, 1, gp, NULL, NULL), -ENOENT);
	assert_int_equal(replay_state_read_mem(st, 5, 0x2000, buf, 2, NULL), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);

	/* ... but one of a thread that ran (the manifest counts its
	 * instructions) is a log lost: damage, said so. */
	cut_mask = 2;
	b = bundle_of(w, 3);
	cut_mask = 0;
	b->threads[1].instructions = 5;
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t1.state: not a state log");
	replay_bundle_free(b);

	memcpy(w[2].b, "HSSTATE9", 8);
	cut_mask = 2;
	b = bundle_of(w, 3);
	cut_mask = 0;
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t2.state: not a state log");
	replay_bundle_free(b);
}

static void test_exec_and_volatile(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	char buf[4];
	(void)state;

	start(&w, 0, 0, 0);
	mem(&w, 1, 0x3000, "ab", "cd");            /* time 1 */
	tag(&w, 4, 1);                             /* time 2: exec */
	put_s(&w, -0x3002);
	put(&w, 0);
	w.b[w.n++] = 4;
	tag(&w, 4, 1);                             /* time 3: [0x4000, +4) volatile */
	put_s(&w, 0x4000);
	put(&w, 4);
	w.b[w.n++] = 3;
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_read_mem(st, 1, 0x3000, buf, 2, NULL), 0);
	assert_memory_equal(buf, "cd", 2);
	assert_int_equal(replay_state_read_mem(st, 2, 0x3000, buf, 2, NULL), -ENOENT);
	assert_int_equal(replay_state_read_mem(st, 3, 0x4000, buf, 4, NULL), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);
}

/* replay_state_map_before: the latest mapping record over a range at or
 * before a time, MEM records passed over, none across an exec. */
static void test_map_before(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_state_mapping m;
	(void)state;

	start(&w, 0, 0, 0);
	map(&w, 1, 0x10000, 0x2000, 1);              /* time 1: brk's zeros */
	mem(&w, 2, 0x10010 - 0x12000, "ab", "cd");   /* time 3: a write */
	map(&w, 2, 0x11000 - 0x10012, 0x1000, 2);    /* time 5: [0x11000, +4K) gone */
	map(&w, 1, 0, 0, 4);                         /* time 6: exec */
	map(&w, 1, 0x10000 - 0x12000, 0x1000, 1);    /* time 7: zeros again */
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_map_before(st, 0x10010, 2, 0, &m), -ENOENT);
	assert_int_equal(replay_state_map_before(st, 0x10010, 2, 1, &m), 0);
	assert_int_equal(m.tid, 7);
	assert_int_equal(m.index, 1);
	assert_int_equal(m.time, 1);
	assert_int_equal(m.addr, 0x10000);
	assert_int_equal(m.len, 0x2000);
	assert_int_equal(m.how, 1);
	assert_int_equal(replay_state_map_before(st, 0x10010, 2, 4, &m), 0);
	assert_int_equal(m.time, 1);                 /* the write is no mapping */
	assert_int_equal(replay_state_map_before(st, 0x10ff8, 16, 5, &m), 0);
	assert_int_equal(m.time, 5);                 /* overlapping is enough */
	assert_int_equal(m.how, 2);
	assert_int_equal(replay_state_map_before(st, 0x10010, 2, 5, &m), 0);
	assert_int_equal(m.time, 1);
	assert_int_equal(replay_state_map_before(st, 0x10010, 2, 6, &m), -ENOENT);
	assert_int_equal(replay_state_map_before(st, 0x10010, 2, 9, &m), 0);
	assert_int_equal(m.time, 7);
	assert_int_equal(replay_state_map_before(st, 0x20000, 8, 9, &m), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);
}

static void test_truncated_and_bad(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	uint64_t gp[REPLAY_STATE_NGP], pos, time;
	char err[128];
	(void)state;

	start(&w, 0, 0, 1);
	tag(&w, 1, 1);
	put(&w, 2);
	put_s(&w, 1);
	mem(&w, 1, 0x1000, "abcd", "ABCD");
	w.n -= 3;                                  /* the recorder died mid-record */
	cut_mask = 1;
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	/* Instruction 1 may have written more than its REGS record: only
	 * position 1 is known, and memory before time 1. */
	assert_int_equal(replay_state_raw_at(st, 7, 1, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 1);
	assert_int_equal(replay_state_raw_at(st, 7, 2, gp, NULL, NULL), -ENODATA);
	assert_int_equal(replay_state_raw_at(st, 7, 3, gp, NULL, NULL), -ENODATA);
	assert_int_equal(replay_state_last_index(st, 7), 1);
	assert_true(replay_state_cut(st, 7, &pos, &time));
	assert_int_equal(pos, 1);
	assert_int_equal(time, 1);
	replay_state_free(st);
	replay_bundle_free(b);
	cut_mask = 0;

	/* Padding (zeros: a --snapshot ring's hole, a tail the file system
	 * left zeroed) between records and up to the end is skipped. */
	w.n = 0;
	start(&w, 0, 0, 1);
	memset(w.b + w.n, 0, 5);
	w.n += 5;
	tag(&w, 1, 1);
	put(&w, 2);
	put_s(&w, 1);
	memset(w.b + w.n, 0, 9);
	w.n += 9;
	sync_rec(&w, 0, 0);
	memset(w.b + w.n, 0, 9);
	w.n += 9;
	cut_mask = 1;                              /* it has its end, before zeros */
	b = bundle_of(&w, 1);
	cut_mask = 0;
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_last_index(st, 7), 1);
	assert_int_equal(replay_state_raw_at(st, 7, 1, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 1);
	assert_int_equal(replay_state_raw_at(st, 7, 2, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 2);
	assert_int_equal(replay_state_raw_at(st, 7, 5, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 2);
	assert_false(replay_state_cut(st, 7, &pos, &time));
	replay_state_free(st);
	replay_bundle_free(b);

	memcpy(w.b, "HSSTATE9", 8);
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "t0.state: not a state log");
	replay_bundle_free(b);
}

static void expect_write(const struct replay_state_write *w, int64_t tid, uint64_t index,
			 uint64_t time, uint64_t addr, uint64_t len)
{
	assert_int_equal(w->tid, tid);
	assert_int_equal(w->index, index);
	assert_int_equal(w->time, time);
	assert_int_equal(w->addr, addr);
	assert_int_equal(w->len, len);
}

/* A log cut short after a sync: registers up to the sync's position,
 * memory (of every thread) before its time, write searches that could
 * miss a lost write refused; a whole log (an end record) is not cut. */
static void test_cut_short(void **state)
{
	struct wbuf w[2] = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_state_write wr;
	uint64_t gp[REPLAY_STATE_NGP], pos, time;
	char buf[4];
	(void)state;

	start(&w[0], 0, 0, 5);
	mem(&w[0], 1, 0x1000, "abcd", "ABCD");     /* thread 7, time 1 */
	sync_rec(&w[0], 2, 20);                    /* whole before 3 and time 20 */
	tag(&w[0], 1, 0);                          /* insn 1 again (a signal): rax += 100 */
	put(&w[0], 2);
	put_s(&w[0], 100);
	tag(&w[0], 1, 6);                          /* insn 7 (time 7): rax += 1 */
	put(&w[0], 2);
	put_s(&w[0], 1);
	start(&w[1], 0, 10, 0);
	mem(&w[1], 15, 0x1000, "ABCD", "wxyz");    /* thread 8, time 25 */
	cut_mask = 1;
	b = bundle_of(w, 2);
	cut_mask = 0;
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	/* The REGS record at 7 is whole: positions up to 7 are known. */
	assert_true(replay_state_cut(st, 7, &pos, &time));
	assert_int_equal(pos, 7);
	assert_int_equal(time, 20);
	assert_false(replay_state_cut(st, 8, &pos, &time));
	assert_int_equal(replay_state_raw_at(st, 7, 1, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 5);
	assert_int_equal(replay_state_raw_at(st, 7, 2, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 105);             /* the record after the sync counts */
	assert_int_equal(replay_state_raw_at(st, 7, 7, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 105);
	assert_int_equal(replay_state_raw_at(st, 7, 8, gp, NULL, NULL), -ENODATA);
	/* Memory before time 20 is known; after it, not even thread 8's
	 * logged write can be trusted to be the last. */
	assert_int_equal(replay_state_read_mem(st, 19, 0x1000, buf, 4, NULL), 0);
	assert_memory_equal(buf, "ABCD", 4);
	assert_int_equal(replay_state_read_mem(st, 20, 0x1000, buf, 4, NULL), -ENOENT);
	assert_int_equal(replay_state_read_mem(st, 30, 0x1000, buf, 4, NULL), -ENOENT);
	assert_int_equal(replay_state_write_before(st, 0x1000, 4, 20, &wr), 0);
	expect_write(&wr, 7, 1, 1, 0x1000, 4);
	assert_int_equal(replay_state_write_before(st, 0x1000, 4, 21, &wr), -ENODATA);
	assert_int_equal(replay_state_write_after(st, 0x1000, 4, 0, &wr), 0);
	expect_write(&wr, 7, 1, 1, 0x1000, 4);
	assert_int_equal(replay_state_write_after(st, 0x1000, 4, 1, &wr), -ENODATA);
	/* Read while its recorder is alive: whole up to the present. */
	replay_state_set_whole(st);
	assert_false(replay_state_cut(st, 7, &pos, &time));
	assert_int_equal(replay_state_raw_at(st, 7, 8, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 106);
	assert_int_equal(replay_state_read_mem(st, 30, 0x1000, buf, 4, NULL), 0);
	assert_memory_equal(buf, "wxyz", 4);
	replay_state_free(st);
	replay_bundle_free(b);

	/* The same with an end record: nothing is cut. */
	sync_rec(&w[0], 0, 0);
	cut_mask = 1;
	b = bundle_of(w, 1);
	cut_mask = 0;
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_false(replay_state_cut(st, 7, &pos, &time));
	assert_int_equal(replay_state_raw_at(st, 7, 9, gp, NULL, NULL), 0);
	assert_int_equal(gp[10], 106);
	assert_int_equal(replay_state_read_mem(st, 30, 0x1000, buf, 4, NULL), 0);
	assert_int_equal(replay_state_write_after(st, 0x1000, 4, 1, &wr), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);
}

static void test_writes(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_state_write wr;
	(void)state;

	start(&w, 0, 0, 0);
	mem(&w, 2, 0x1000, "abcd", "ABCD");        /* time 2: [0x1000, 0x1004) */
	mem(&w, 3, -2, "CD", "xy");                /* time 5: [0x1002, 0x1004) */
	map(&w, 1, -1, 2, 1);                      /* time 6: [0x1003, 0x1005) zeros */
	mem(&w, 2, 0x1ffe - 0x1005, "pqrs", "PQRS"); /* time 8: [0x1ffe, 0x2002) */
	mem(&w, 0, -4, "PQ", "PQ");                /* time 8 again, unchanged bytes */
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);

	assert_int_equal(replay_state_write_before(st, 0x1000, 4, 100, &wr), 0);
	expect_write(&wr, 7, 5, 5, 0x1002, 2);
	assert_int_equal(replay_state_write_before(st, 0x1000, 2, 100, &wr), 0);
	expect_write(&wr, 7, 2, 2, 0x1000, 4);     /* [0x1002, ..) is not in the range */
	assert_int_equal(replay_state_write_before(st, 0x1000, 4, 5, &wr), 0);
	expect_write(&wr, 7, 2, 2, 0x1000, 4);     /* strictly before */
	assert_int_equal(replay_state_write_before(st, 0x1000, 4, 2, &wr), -ENOENT);
	/* The zeros at time 6 are a mapping change, not a write. */
	assert_int_equal(replay_state_write_before(st, 0x1003, 2, 100, &wr), 0);
	expect_write(&wr, 7, 5, 5, 0x1002, 2);
	assert_int_equal(replay_state_write_after(st, 0x1000, 4, 0, &wr), 0);
	expect_write(&wr, 7, 2, 2, 0x1000, 4);
	assert_int_equal(replay_state_write_after(st, 0x1000, 4, 2, &wr), 0);
	expect_write(&wr, 7, 5, 5, 0x1002, 2);
	assert_int_equal(replay_state_write_after(st, 0x1000, 4, 5, &wr), -ENOENT);
	/* Across a page boundary, from either page; of two writes at one
	 * time, the last logged backward and the first forward; a write of
	 * the same bytes counts. */
	assert_int_equal(replay_state_write_before(st, 0x2001, 1, 100, &wr), 0);
	expect_write(&wr, 7, 8, 8, 0x1ffe, 4);
	assert_int_equal(replay_state_write_before(st, 0x1ffe, 1, 100, &wr), 0);
	expect_write(&wr, 7, 8, 8, 0x1ffe, 2);
	assert_int_equal(replay_state_write_after(st, 0x1f00, 0x200, 5, &wr), 0);
	expect_write(&wr, 7, 8, 8, 0x1ffe, 4);
	assert_int_equal(replay_state_write_before(st, 0x1000, 0, 100, &wr), -ENOENT);
	assert_int_equal(replay_state_write_before(st, 0x3000, 8, 100, &wr), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);
}

static void test_writes_threads(void **state)
{
	struct wbuf w[2] = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_state_write wr;
	uint64_t pos, time;
	(void)state;

	/* Thread 7 runs instructions 1, 2 at times 1, 2; thread 8 (base 5)
	 * runs at times 5 .. 12; thread 7 again from instruction 3 at 13. */
	start(&w[0], 0, 0, 0);
	mem(&w[0], 1, 0x3000, "ab", "cd");         /* thread 7, insn 1, time 1 */
	time_base(&w[0], 2, 10);                   /* insn 3 at time 13 */
	mem(&w[0], 1, 0x3000 - 0x3002, "ef", "gh"); /* insn 4, time 14 */
	start(&w[1], 0, 5, 0);
	mem(&w[1], 3, 0x3001, "d", "e");           /* thread 8, insn 3, time 8 */
	b = bundle_of(w, 2);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);

	assert_int_equal(replay_state_write_before(st, 0x3000, 2, 100, &wr), 0);
	expect_write(&wr, 7, 4, 14, 0x3000, 2);
	assert_int_equal(replay_state_write_before(st, 0x3000, 2, 14, &wr), 0);
	expect_write(&wr, 8, 3, 8, 0x3001, 1);
	assert_int_equal(replay_state_write_before(st, 0x3000, 2, 8, &wr), 0);
	expect_write(&wr, 7, 1, 1, 0x3000, 2);
	assert_int_equal(replay_state_write_after(st, 0x3000, 2, 1, &wr), 0);
	expect_write(&wr, 8, 3, 8, 0x3001, 1);
	assert_int_equal(replay_state_write_after(st, 0x3000, 1, 1, &wr), 0);
	expect_write(&wr, 7, 4, 14, 0x3000, 2);    /* thread 8 wrote the other byte */

	/* Times of thread 7's positions: 0, 1, 2, then 13, 14, ... */
	assert_int_equal(replay_state_time_at(st, 7, 3, &time), 0);
	assert_int_equal(time, 2);
	assert_int_equal(replay_state_time_at(st, 7, 4, &time), 0);
	assert_int_equal(time, 13);
	assert_int_equal(replay_state_time_at(st, 7, 5, &time), 0);
	assert_int_equal(time, 14);
	/* ... and back: while thread 8 runs, thread 7 waits at position 3. */
	assert_int_equal(replay_state_position_at(st, 7, 0, &pos), 0);
	assert_int_equal(pos, 1);
	assert_int_equal(replay_state_position_at(st, 7, 2, &pos), 0);
	assert_int_equal(pos, 3);
	assert_int_equal(replay_state_position_at(st, 7, 8, &pos), 0);
	assert_int_equal(pos, 3);
	assert_int_equal(replay_state_position_at(st, 7, 12, &pos), 0);
	assert_int_equal(pos, 3);
	assert_int_equal(replay_state_position_at(st, 7, 13, &pos), 0);
	assert_int_equal(pos, 4);
	assert_int_equal(replay_state_position_at(st, 7, 14, &pos), 0);
	assert_int_equal(pos, 5);
	assert_int_equal(replay_state_position_at(st, 7, 100, &pos), 0);
	assert_int_equal(pos, 91);                 /* past the log: one a tick */
	/* A write's position after it has its time. */
	assert_int_equal(replay_state_position_at(st, 8, 8, &pos), 0);
	assert_int_equal(pos, 4);
	assert_int_equal(replay_state_time_at(st, 8, 4, &time), 0);
	assert_int_equal(time, 8);
	assert_int_equal(replay_state_position_at(st, 8, 4, &pos), -ENOENT);
	assert_int_equal(pos, 1);                  /* before thread 8 began */
	assert_int_equal(replay_state_position_at(st, 9, 4, &pos), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);
}

static void test_read_status(void **state)
{
	struct wbuf w = { 0 };
	struct replay_bundle *b;
	struct replay_state *st;
	struct replay_state_write wr;
	uint8_t buf[8], status[8];
	static const uint8_t untouched_known[8] = { 0, 0, 1, 1, 1, 1, 0, 0 };
	static const uint8_t unknown[4] = { 2, 2, 2, 2 };
	(void)state;

	start(&w, 0, 0, 0);
	mem(&w, 2, 0x1000, "abcd", "ABCD");        /* time 2 */
	map(&w, 1, 0x5000 - 0x1004, 4, 3);         /* time 3: volatile */
	map(&w, 1, 0x6000 - 0x5004, 4, 0);         /* time 4: unknown contents */
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_read_mem_status(st, 1, 0x0ffe, buf, 8, status), -ENOENT);
	assert_memory_equal(status, untouched_known, 8);
	assert_memory_equal(buf + 2, "abcd", 4);
	assert_int_equal(replay_state_read_mem_status(st, 1, 0x5000, buf, 4, status), -ENOENT);
	assert_memory_equal(status, unknown, 4);
	assert_int_equal(replay_state_read_mem_status(st, 9, 0x5000, buf, 4, status), -ENOENT);
	assert_memory_equal(status, unknown, 4);
	assert_int_equal(replay_state_read_mem_status(st, 1, 0x6000, buf, 4, status), -ENOENT);
	assert_memory_equal(status, unknown, 4);
	assert_int_equal(replay_state_read_mem_status(st, 9, 0x6000, buf, 4, status), -ENOENT);
	assert_memory_equal(status, unknown, 4);
	assert_int_equal(replay_state_read_mem_status(st, 9, 0x1000, buf, 4, status), 0);
	assert_memory_equal(buf, "ABCD", 4);
	replay_state_free(st);
	replay_bundle_free(b);

	/* An exec later: what nothing touched before it is gone by the end. */
	w.n = 0;
	start(&w, 0, 0, 0);
	map(&w, 2, 0, 0, 4);                       /* time 2: exec */
	mem(&w, 1, 0x1000, "ab", "cd");            /* time 3 */
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	assert_int_equal(replay_state_read_mem_status(st, 1, 0x9000, buf, 1, status), -ENOENT);
	assert_int_equal(status[0], REPLAY_STATE_UNKNOWN);
	assert_int_equal(replay_state_read_mem_status(st, 2, 0x9000, buf, 1, status), -ENOENT);
	assert_int_equal(status[0], REPLAY_STATE_UNTOUCHED);
	/* Writes of another exec epoch are not searched. */
	assert_int_equal(replay_state_write_after(st, 0x1000, 2, 0, &wr), -ENOENT);
	assert_int_equal(replay_state_write_after(st, 0x1000, 2, 2, &wr), 0);
	assert_int_equal(wr.time, 3);
	replay_state_free(st);
	replay_bundle_free(b);
}

/* --- random logs against brute force ----------------------------------- */

struct grec {                              /* a generated MEM or MAP record */
	uint64_t time, index, addr, len;
	unsigned thread, kind;             /* 3 MEM, 4 MAP */
	uint8_t how;
	uint8_t old[40], new[40];
};

static struct grec grecs[3000];
static size_t ngrec;
static uint8_t gmem[0x600];                /* the truth of [0x1d00, 0x2300) */
#define GLO 0x1d00u

static unsigned rnd(unsigned n)
{
	return (unsigned)(random() % n);
}

/* Thread @ti's log: records in time order, interleaved with the other
 * threads' through the shared clock *@clock. */
static void gen_step(struct wbuf *w, unsigned ti, uint64_t *index, uint64_t *base,
		     uint64_t *mem_end, uint64_t *clock)
{
	unsigned op = rnd(100), delta = rnd(4);
	struct grec *g;

	if (*index + *base < *clock)       /* catch up with the clock: a TIME record */
		delta = 0;
	if (*index + *base + delta < *clock) {
		*base = *clock - *index - delta;
		time_base(w, delta, *base);
		*index += delta;
		delta = 0;
	}
	if (op < 8) {                      /* a checkpoint: ranges count from 0 again */
		tag(w, 6, delta);
		*index += delta;
		put(w, *index);
		put(w, *base);
		for (int i = 0; i < 27; i++)
			put(w, 0);
		put(w, 0);
		*mem_end = 0;
		*clock = *index + *base;
		return;
	}
	g = &grecs[ngrec++];
	*index += delta;
	*g = (struct grec){ .time = *index + *base, .index = *index, .thread = ti, .kind = 3 };
	*clock = g->time;
	g->len = rnd(8) ? 1 + rnd(16) : 1 + rnd(40);
	g->addr = GLO + rnd((unsigned)(sizeof(gmem) - g->len));
	if (op < 12) {                     /* zeros or unknown contents */
		g->kind = 4;
		g->how = (uint8_t)rnd(2);
	} else if (op < 13) {              /* an exec */
		g->kind = 4;
		g->how = 4;
		g->addr = *mem_end;
		g->len = 0;
	} else if (op < 15) {              /* zeros or unknown over 1 GiB or 2 TiB */
		g->kind = 4;
		g->how = (uint8_t)rnd(2);
		g->len = rnd(2) ? 1ull << 30 : 1ull << 41;
		g->addr = rnd(GLO);        /* from below the window, over all of it */
	}
	tag(w, g->kind, delta);
	put_s(w, (int64_t)(g->addr - *mem_end));
	put(w, g->len);
	*mem_end = g->addr + g->len;
	if (g->kind == 4) {
		w->b[w->n++] = g->how;
		if (g->how == 1 && g->len > sizeof(gmem)) {       /* the window's part */
			uint64_t a = g->addr > GLO ? g->addr : GLO;
			uint64_t e = g->addr + g->len < GLO + sizeof(gmem) ? g->addr + g->len :
				     GLO + sizeof(gmem);

			memset(gmem + (a - GLO), 0, e - a);
		} else if (g->how == 1) {
			memset(gmem + (g->addr - GLO), 0, g->len);
		}
		return;
	}
	memcpy(g->old, gmem + (g->addr - GLO), g->len);
	for (uint64_t i = 0; i < g->len; i++)
		g->new[i] = (uint8_t)random();
	memcpy(gmem + (g->addr - GLO), g->new, g->len);
	memcpy(w->b + w->n, g->old, g->len);
	memcpy(w->b + w->n + g->len, g->new, g->len);
	w->n += 2 * g->len;
}

/* The exec epoch around @time, as the reader defines it. */
static void gen_epoch(uint64_t time, uint64_t *from, uint64_t *to)
{
	*from = 0;
	*to = UINT64_MAX;
	for (size_t i = 0; i < ngrec; i++) {
		if (grecs[i].kind != 4 || grecs[i].how != 4)
			continue;
		if (grecs[i].time <= time && grecs[i].time > *from)
			*from = grecs[i].time;
		if (grecs[i].time > time && grecs[i].time < *to)
			*to = grecs[i].time;
	}
}

/* Whether @a was logged before @b: time, then thread, then log order. */
static int gen_before(const struct grec *a, const struct grec *b)
{
	if (a->time != b->time)
		return a->time < b->time;
	if (a->thread != b->thread)
		return a->thread < b->thread;
	return a < b;
}

static int gen_covers(const struct grec *g, uint64_t x)
{
	return !(g->kind == 4 && g->how == 4) && g->addr <= x && x < g->addr + g->len;
}

static void brute_byte(uint64_t time, uint64_t x, uint8_t *val, uint8_t *st)
{
	const struct grec *best = NULL;
	uint64_t from, to;

	gen_epoch(time, &from, &to);
	*val = 0;
	for (size_t i = 0; i < ngrec; i++) {
		const struct grec *g = &grecs[i];

		if (gen_covers(g, x) && g->time >= from && g->time <= time &&
		    (!best || gen_before(best, g)))
			best = g;
	}
	if (best) {
		*st = best->kind == 3 || best->how == 1 ? REPLAY_STATE_KNOWN : REPLAY_STATE_UNKNOWN;
		if (*st == REPLAY_STATE_KNOWN)
			*val = best->kind == 3 ? best->new[x - best->addr] : 0;
		return;
	}
	for (size_t i = 0; i < ngrec; i++) {
		const struct grec *g = &grecs[i];

		if (gen_covers(g, x) && g->time > time && g->time < to &&
		    (!best || gen_before(g, best)))
			best = g;
	}
	if (best) {
		*st = best->kind == 3 ? REPLAY_STATE_KNOWN : REPLAY_STATE_UNKNOWN;
		if (*st == REPLAY_STATE_KNOWN)
			*val = best->old[x - best->addr];
		return;
	}
	*st = to != UINT64_MAX ? REPLAY_STATE_UNKNOWN : REPLAY_STATE_UNTOUCHED;
}

static const struct grec *brute_search(uint64_t addr, uint64_t len, uint64_t time, int after)
{
	const struct grec *best = NULL;
	uint64_t from, to;

	gen_epoch(after ? time : time - 1, &from, &to);
	for (size_t i = 0; i < ngrec; i++) {
		const struct grec *g = &grecs[i];

		if (g->kind != 3 || g->addr >= addr + len || addr >= g->addr + g->len)
			continue;
		if (after ? g->time <= time || g->time >= to : g->time >= time || g->time < from)
			continue;
		if (!best || gen_before(best, g) != after)
			best = g;
	}
	return best;
}

/* Opens @b's state twice into *@st: the first open scans the logs and
 * keeps the index (DIR/state.idx, made anew), the second reads it back,
 * unless @damage flipped a byte of it: then it is scanned and kept again. */
static void kept_index_reopen(struct replay_bundle *b, struct replay_state **st, bool damage)
{
	char path[128];
	struct stat a, c;

	snprintf(path, sizeof(path), "%s/state.idx", dir);
	unlink(path);
	assert_int_equal(replay_state_open(b, st, NULL, 0), 0);
	replay_state_free(*st);
	assert_int_equal(stat(path, &a), 0);
	assert_int_equal(a.st_mode & 0777, 0600);
	if (damage) {
		FILE *f = fopen(path, "r+b");
		long at = (long)(random() % a.st_size);
		int ch;

		assert_non_null(f);
		fseek(f, at, SEEK_SET);
		ch = fgetc(f);
		fseek(f, at, SEEK_SET);
		fputc(ch ^ (1 << (random() % 8)), f);
		fclose(f);
	}
	assert_int_equal(replay_state_open(b, st, NULL, 0), 0);
	assert_int_equal(stat(path, &c), 0);
	/* Read back: the same file; damaged: another one renamed over it. */
	assert_int_equal(a.st_ino == c.st_ino, !damage);
}

static void test_random_against_brute_force(void **state)
{
	static struct wbuf w[3];
	(void)state;

	for (unsigned seed = 1; seed <= 12; seed++) {
		uint64_t index[3] = { 0 }, base[3], mem_end[3] = { 0 }, clock = 0, maxt = 0, cut;
		struct replay_bundle *b;
		struct replay_state *st;

		srandom(seed);
		ngrec = 0;
		for (size_t i = 0; i < sizeof(gmem); i++)
			gmem[i] = (uint8_t)random();
		for (unsigned t = 0; t < 3; t++) {
			base[t] = t * 3;
			w[t].n = 0;
			start(&w[t], 0, base[t], 0);
		}
		/* Threads take turns of random length on one clock. */
		while (ngrec < sizeof(grecs) / sizeof(grecs[0]) - 1) {
			unsigned t = rnd(3), n = 1 + rnd(30);

			for (unsigned k = 0; k < n && ngrec < sizeof(grecs) / sizeof(grecs[0]) - 1 &&
			     w[t].n < sizeof(w[t].b) - 512; k++)
				gen_step(&w[t], t, &index[t], &base[t], &mem_end[t], &clock);
			if (w[t].n >= sizeof(w[t].b) - 512)
				break;
		}
		for (size_t i = 0; i < ngrec; i++)
			maxt = grecs[i].time > maxt ? grecs[i].time : maxt;
		/* Every third seed, thread 0's log has no end (cut short): it
		 * is whole before the time of its last record only. */
		cut = seed % 3 == 0 ? index[0] + base[0] : UINT64_MAX;
		cut_mask = seed % 3 == 0;
		b = bundle_of(w, 3);
		cut_mask = 0;
		/* Even seeds: a finished recording, whose index is kept; read
		 * back from the kept file, or, every fourth seed, after it was
		 * damaged (scanned again, and kept anew). */
		if (seed % 2 == 0) {
			assert_int_equal(replay_bundle_set_str(&b->recorder, "software"), 0);
			b->complete = true;
			kept_index_reopen(b, &st, seed % 4 == 0);
		} else {
			assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
		}
		for (unsigned q = 0; q < 400; q++) {
			uint64_t time = rnd((unsigned)maxt + 3);
			uint64_t len = 1 + rnd(rnd(4) ? 24 : 700);
			uint64_t addr = GLO - 8 + rnd((unsigned)(sizeof(gmem) + 16 - len));
			uint8_t buf[800], status[800], val, sb;
			struct replay_state_write wr;
			const struct grec *g;

			replay_state_read_mem_status(st, time, addr, buf, len, status);
			for (uint64_t i = 0; i < len; i++) {
				brute_byte(time, addr + i, &val, &sb);
				if (time >= cut) {
					sb = REPLAY_STATE_UNKNOWN;
					val = 0;
				}
				if (status[i] != sb || buf[i] != val)
					fail_msg("seed %u: byte %#lx at time %lu: %u/%#x, brute force %u/%#x",
						 seed, (unsigned long)(addr + i), (unsigned long)time,
						 status[i], buf[i], sb, val);
			}
			for (int after = 0; after < 2; after++) {
				int r = after ? replay_state_write_after(st, addr, len, time, &wr) :
						replay_state_write_before(st, addr, len, time, &wr);

				g = time || after ? brute_search(addr, len, time, after) : NULL;
				/* Past the cut a lost write could be the answer. */
				if (cut != UINT64_MAX && (after ? !g || g->time >= cut : time > cut)) {
					assert_int_equal(r, -ENODATA);
					continue;
				}
				if (!g) {
					assert_int_equal(r, -ENOENT);
					continue;
				}
				assert_int_equal(r, 0);
				expect_write(&wr, 7 + g->thread, g->index, g->time, g->addr, g->len);
			}
		}
		replay_state_free(st);
		replay_bundle_free(b);
	}
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hindsight-state.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_registers),
		cmocka_unit_test(test_memory),
		cmocka_unit_test(test_threads_merge),
		cmocka_unit_test(test_thread_never_ran),
		cmocka_unit_test(test_exec_and_volatile),
		cmocka_unit_test(test_map_before),
		cmocka_unit_test(test_truncated_and_bad),
		cmocka_unit_test(test_cut_short),
		cmocka_unit_test(test_writes),
		cmocka_unit_test(test_writes_threads),
		cmocka_unit_test(test_read_status),
		cmocka_unit_test(test_random_against_brute_force),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
