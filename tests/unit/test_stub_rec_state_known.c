/*
 * tests/unit/test_stub_rec_state_known.c: the state log written from known
 * values (stub_rec_state_known_*, the Valgrind recorder's way) reads back
 * through replay/model/state.h as what was written: registers at each position
 * (only the slots a record names change; a checkpoint every 16K
 * instructions), the time of each position when other threads ran in
 * between (TIME records), memory before and after a write, memory a MAP
 * record made zeros, and no x87 / SSE state (no XSAVE area). Through the
 * writer thread (stub_rec_writer) the log and its checksums are the same
 * bytes, and a write that fails (ENOSPC) is told at the flush.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/user.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/model/state.h"
#include "stub/recorders/stub_rec_state.h"
#include "stub/recorders/stub_sum.h"

#define TID 4242
#define SLOT_RAX 10
#define SLOT_RBX 5
#define SLOT_RSP 19

static char work[] = "/tmp/hindsight-known.XXXXXX";

static uint64_t gp_at(struct replay_state *st, uint64_t index, unsigned slot)
{
	uint64_t gp[REPLAY_STATE_NGP];
	size_t xl = 1;

	assert_int_equal(replay_state_raw_at(st, TID, index, gp, NULL, &xl), 0);
	assert_int_equal(xl, 0);
	return gp[slot];
}

/* A bundle of one thread, TID, of 20000 instructions, whose state log is
 * work/t.state. */
static struct replay_bundle *bundle_of_log(void)
{
	struct replay_bundle *b;
	int idx;

	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(replay_bundle_set_str(&b->dir, work), 0);
	idx = replay_bundle_add_thread(b, TID, "t.pt");
	assert_true(idx >= 0);
	assert_int_equal(replay_bundle_set_str(&b->threads[idx].state_file, "t.state"), 0);
	b->threads[idx].instructions = 20000;
	return b;
}

static void test_known_round_trip(void **unused)
{
	struct user_regs_struct regs = { .rax = 1, .rsp = 0x1000, .eflags = 0x202,
					 .rip = 0x400000, .cs = 0x33, .ss = 0x2b };
	uint8_t old[8] = { 0 }, now[8] = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	uint8_t buf[8], known[8];
	struct stub_rec_state s;
	struct replay_bundle *b;
	struct replay_state *st;
	char path[512], err[256];
	uint64_t t, synced, pos;
	FILE *f;

	(void)unused;
	snprintf(path, sizeof(path), "%s/t.state", work);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(stub_rec_state_init(&s, TID, f), 0);
	/* Before instruction 1, at time 0. */
	assert_int_equal(stub_rec_state_known_start(&s, &regs, 0, 0), 0);
	/* Instruction 1 (time 1) sets rax. */
	regs.rax = 2;
	assert_int_equal(stub_rec_state_known_regs(&s, &regs, 1u << SLOT_RAX, 1, 1), 0);
	/* Three instructions of other threads; instruction 2 (time 5) stores
	 * and pushes. */
	assert_int_equal(stub_rec_state_known_mem(&s, 0x2000, 8, old, now, 2, 5), 0);
	regs.rsp = 0xff8;
	assert_int_equal(stub_rec_state_known_regs(&s, &regs, 1u << SLOT_RSP, 2, 5), 0);
	/* Instruction 3: rbx differs in the struct but is not named: unchanged. */
	regs.rbx = 99;
	regs.rax = 3;
	assert_int_equal(stub_rec_state_known_regs(&s, &regs, 1u << SLOT_RAX, 3, 6), 0);
	assert_int_equal(stub_rec_state_known_map(&s, 0x3000, 0x1000, STUB_REC_MAP_ZERO, 3, 6), 0);
	/* Instruction 4 runs after another thread's (time 8): only a TIME
	 * record, nothing else changed. */
	assert_int_equal(stub_rec_state_known_time(&s, 4, 8), 0);
	/* A flush point: whole before instruction 5 and time 9. */
	assert_int_equal(stub_rec_state_sync(&s, 5, 9), 0);
	synced = s.bytes + s.nrec;
	/* Far on: a checkpoint is due. */
	regs.rax = 7;
	assert_int_equal(stub_rec_state_known_regs(&s, &regs, 1u << SLOT_RAX, 20000, 20004), 0);
	assert_int_equal(stub_rec_state_end(&s), 0);
	assert_int_equal(stub_rec_state_end(&s), 0);   /* once */
	assert_int_equal(stub_rec_state_flush(&s), 0);
	stub_rec_state_release(&s);
	fclose(f);

	b = bundle_of_log();
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);

	assert_int_equal(gp_at(st, 1, SLOT_RAX), 1);
	assert_int_equal(gp_at(st, 2, SLOT_RAX), 2);
	assert_int_equal(gp_at(st, 2, SLOT_RSP), 0x1000);
	assert_int_equal(gp_at(st, 3, SLOT_RSP), 0xff8);
	assert_int_equal(gp_at(st, 4, SLOT_RAX), 3);
	assert_int_equal(gp_at(st, 4, SLOT_RBX), 0);
	assert_int_equal(gp_at(st, 20000, SLOT_RAX), 3);
	assert_int_equal(gp_at(st, 20001, SLOT_RAX), 7);
	assert_int_equal(gp_at(st, 20001, SLOT_RSP), 0xff8);

	/* Position 3 is after instruction 2, which ran at time 5; position
	 * 5 after instruction 4, at time 8. */
	assert_int_equal(replay_state_time_at(st, TID, 3, &t), 0);
	assert_int_equal(t, 5);
	assert_int_equal(replay_state_time_at(st, TID, 5, &t), 0);
	assert_int_equal(t, 8);

	assert_int_equal(replay_state_read_mem(st, 4, 0x2000, buf, 8, known), 0);
	assert_memory_equal(buf, old, 8);
	assert_int_equal(replay_state_read_mem(st, 5, 0x2000, buf, 8, known), 0);
	assert_memory_equal(buf, now, 8);
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(replay_state_read_mem(st, 7, 0x3100, buf, 8, known), 0);
	assert_memory_equal(buf, old, 8);
	assert_false(replay_state_cut(st, TID, &pos, &t));
	replay_state_free(st);

	/* Cut right after the sync (a recorder killed then): whole up to
	 * it, no further. */
	assert_int_equal(truncate(path, (off_t)synced), 0);
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	assert_true(replay_state_cut(st, TID, &pos, &t));
	assert_int_equal(pos, 5);
	assert_int_equal(t, 9);
	assert_int_equal(gp_at(st, 5, SLOT_RAX), 3);
	assert_int_equal(replay_state_raw_at(st, TID, 6, NULL, NULL, NULL), -ENODATA);
	assert_int_equal(replay_state_read_mem(st, 8, 0x2000, buf, 8, known), 0);
	assert_int_equal(replay_state_read_mem(st, 9, 0x2000, buf, 8, known), -ENOENT);
	replay_state_free(st);
	replay_bundle_free(b);
}

/* The size of the records one call added, written out. */
static uint64_t grew(struct stub_rec_state *s, uint64_t *was)
{
	uint64_t n;

	assert_int_equal(stub_rec_state_flush(s), 0);
	n = s->bytes - *was;
	*was = s->bytes;
	return n;
}

/* A write whose old bytes an earlier record of the same range wrote
 * leaves them out (REPLAY_STATE_MEM_SAME), unless a checkpoint or a MAP
 * record came between, or the bytes differ (another thread wrote there);
 * memory reads the same at every time either way. */
static void test_known_same_old_bytes(void **unused)
{
	struct user_regs_struct regs = { .rsp = 0x1000, .eflags = 0x202, .cs = 0x33 };
	uint8_t v[6][8], buf[8], known[8];
	struct stub_rec_state s;
	struct replay_bundle *b;
	struct replay_state *st;
	char path[512], err[256];
	uint64_t was, full, t;
	FILE *f;

	(void)unused;
	for (int i = 0; i < 6; i++)
		memset(v[i], 0x10 * (i + 1), 8);
	snprintf(path, sizeof(path), "%s/t.state", work);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(stub_rec_state_init(&s, TID, f), 0);
	assert_int_equal(stub_rec_state_known_start(&s, &regs, 0, 0), 0);
	was = s.bytes;
	/* Instruction 1: v0 -> v1 (nothing before it: the old bytes are in). */
	assert_int_equal(stub_rec_state_known_mem(&s, 0x2000, 8, v[0], v[1], 1, 1), 0);
	full = grew(&s, &was);
	assert_int_equal(full, 1 + 3 + 1 + 16);         /* tag, 0x2000, len, old, new */
	/* Instruction 2: v1 -> v2, its old bytes those instruction 1 wrote. */
	assert_int_equal(stub_rec_state_known_mem(&s, 0x2000, 8, v[1], v[2], 2, 2), 0);
	assert_int_equal(grew(&s, &was), 1 + 1 + 1 + 8); /* tag, -8, len | same, new */
	/* Instruction 3: another thread wrote v3 there at time 3: old v3 is
	 * not what this log wrote last: in full. */
	assert_int_equal(stub_rec_state_known_mem(&s, 0x2000, 8, v[3], v[4], 3, 4), 0);
	assert_int_equal(grew(&s, &was), 2 + 1 + 1 + 1 + 16); /* TIME, tag, -8, len */
	/* A MAP record elsewhere, then instruction 4: in full again. */
	assert_int_equal(stub_rec_state_known_map(&s, 0x9000, 0x1000, STUB_REC_MAP_ZERO, 3, 4), 0);
	was = s.bytes + s.nrec;
	assert_int_equal(stub_rec_state_known_mem(&s, 0x2000, 8, v[4], v[5], 4, 5), 0);
	assert_int_equal(grew(&s, &was), 1 + 3 + 1 + 16); /* from 0xa000: -0x8000 */
	/* Past a checkpoint (instruction 20000): in full. */
	regs.rax = 1;
	assert_int_equal(stub_rec_state_known_regs(&s, &regs, 1u << SLOT_RAX, 19999, 20000), 0);
	was = s.bytes + s.nrec;
	assert_int_equal(stub_rec_state_known_mem(&s, 0x2000, 8, v[5], v[0], 20000, 20001), 0);
	assert_true(grew(&s, &was) >= 1 + 1 + 1 + 16);
	assert_int_equal(stub_rec_state_end(&s), 0);
	assert_int_equal(stub_rec_state_flush(&s), 0);
	stub_rec_state_release(&s);
	fclose(f);

	b = bundle_of_log();
	assert_int_equal(replay_state_open(b, &st, err, sizeof(err)), 0);
	/* Time t shows what the last write at or before it left; before the
	 * first, its old bytes. */
	{
		static const struct { uint64_t time; int v; } want[] = {
			{ 0, 0 }, { 1, 1 }, { 2, 2 }, { 4, 4 }, { 5, 5 }, { 20000, 5 }, { 20001, 0 },
		};

		for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
			t = want[i].time;
			assert_int_equal(replay_state_read_mem(st, t, 0x2000, buf, 8, known), 0);
			assert_memory_equal(buf, v[want[i].v], 8);
		}
	}
	replay_state_free(st);
	replay_bundle_free(b);
}


/* 300,000 instructions of a loop that changes registers and writes
 * memory, into @path (and @path.sum) through @w (or none): several
 * batches, checkpoints (the sums' block ends), a rep-like grown write.
 * Returns the flush's result. */
static int write_loop(const char *path, struct stub_rec_writer *w)
{
	struct user_regs_struct regs = { .rsp = 0x1000, .eflags = 0x202, .cs = 0x33 };
	struct stub_rec_state s;
	uint8_t old[8] = { 0 }, now[8];
	int e = 0, ef;
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	assert_int_equal(stub_rec_state_init(&s, TID, f), 0);
	s.sum = stub_sum_create(path, false);
	assert_non_null(s.sum);
	stub_rec_state_writer(&s, w);
	assert_int_equal(stub_rec_state_known_start(&s, &regs, 0, 0), 0);
	for (uint64_t i = 1; i <= 300000 && e >= 0; i++) {
		regs.rax = i * 0x9E3779B97F4A7C15ull;
		regs.rsp = 0x1000 - 8 * (i % 7);
		e = stub_rec_state_known_regs(&s, &regs, 1u << SLOT_RAX | 1u << SLOT_RSP, i,
					      i + i / 1000);
		memcpy(now, &regs.rax, 8);
		if (e >= 0 && i % 3 == 0)
			e = stub_rec_state_known_mem(&s, 0x2000 + 8 * (i % 64), 8, old, now, i,
						     i + i / 1000);
		if (e >= 0 && i % 5000 == 0)   /* two pieces of one write, joined */
			e = stub_rec_state_known_mem(&s, 0x9008, 8, old, now, i, i + i / 1000);
	}
	if (e >= 0)
		e = stub_rec_state_end(&s);
	ef = stub_rec_state_flush(&s);
	stub_rec_state_release(&s);
	fclose(f);
	return e < 0 ? e : ef;
}

static void test_known_writer(void **unused)
{
	char a[128], b[128], cmd[1024];
	struct stub_rec_writer *w;

	(void)unused;
	snprintf(a, sizeof(a), "%s/direct.state", work);
	snprintf(b, sizeof(b), "%s/writer.state", work);
	assert_int_equal(stub_rec_writer_start(&w), 0);
	assert_int_equal(write_loop(a, NULL), 0);
	assert_int_equal(write_loop(b, w), 0);
	snprintf(cmd, sizeof(cmd), "cmp -s %s %s && cmp -s %s.sum %s.sum && test $(stat -c %%s %s) -gt 1000000",
		 a, b, a, b, a);
	assert_int_equal(system(cmd), 0);
	/* A disk that is full: said at the flush, nothing held on to. */
	assert_int_equal(write_loop("/dev/full", w), -ENOSPC);
	stub_rec_writer_stop(w);
	snprintf(cmd, sizeof(cmd), "rm -f %s %s %s.sum %s.sum", a, b, a, b);
	assert_int_equal(system(cmd), 0);
}

static int setup(void **unused)
{
	(void)unused;
	return mkdtemp(work) ? 0 : -1;
}

static int teardown(void **unused)
{
	char path[512];

	(void)unused;
	snprintf(path, sizeof(path), "%s/t.state", work);
	unlink(path);
	return rmdir(work);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_round_trip),
		cmocka_unit_test(test_known_same_old_bytes),
		cmocka_unit_test(test_known_writer),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
