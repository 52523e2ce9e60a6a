/*
 * tests/unit/test_replay_state_cache.c: the cache of decoded chunks
 * (replay/model/state_cache.[ch]) is invisible but for speed.
 *
 * First the cache alone: entries found by key, the least recently used
 * evicted, the byte budget kept, a chunk over half of it refused, narrow
 * writes sorted by address and wide ones apart. Then random HSSTATE2
 * logs of two threads, many short chunks, writes over 8 KB (narrow, wide
 * ones across blocks, empty ones, ones with their old bytes left out) and
 * mapping records: every read and write search made with the cache on
 * (its default size, and one entry so that it evicts at every other
 * chunk) equals the one made with it off, byte for byte, at random times
 * and at chunk boundaries, over ranges across blocks and bytes never
 * written; and the cache did hit.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/model/state.h"
#include "replay/model/state_cache.h"

static char dir[64];

/* --- the cache alone ----------------------------------------------------- */

/* An entry of @n writes for chunk (@thread, @off) with addresses from @addr
 * down, every fourth one wide. */
static struct state_centry entry_of(uint32_t thread, uint64_t off, size_t n, uint64_t addr)
{
	struct state_centry e = { .key = { thread, off, off + 100 }, .n = n };

	e.w = calloc(n ? n : 1, sizeof(*e.w));
	assert_non_null(e.w);
	for (size_t i = 0; i < n; i++)
		e.w[i] = (struct state_cwrite){ .addr = addr - 8 * i, .len = i % 4 ? 8 : 1000,
						.time = i };
	state_cache_sort(&e);
	return e;
}

static void test_cache_lru(void **state)
{
	struct state_cache c;
	struct state_ckey k = { 0 };
	(void)state;

	state_cache_init(&c, 3);
	for (uint64_t i = 0; i < 3; i++) {
		struct state_centry e = entry_of(1, 1000 * i, 10, 5000);

		assert_non_null(state_cache_put(&c, &e));
	}
	k = (struct state_ckey){ 1, 0, 100 };
	assert_non_null(state_cache_find(&c, &k));            /* 0 used: 1000 is oldest */
	{
		struct state_centry e = entry_of(2, 0, 10, 5000);

		assert_non_null(state_cache_put(&c, &e));
	}
	assert_non_null(state_cache_find(&c, &k));
	k = (struct state_ckey){ 1, 1000, 1100 };
	assert_null(state_cache_find(&c, &k));                /* evicted */
	k = (struct state_ckey){ 1, 2000, 2100 };
	assert_non_null(state_cache_find(&c, &k));
	k = (struct state_ckey){ 2, 0, 100 };
	assert_non_null(state_cache_find(&c, &k));
	k.end = 101;                                          /* the chunk grew: another key */
	assert_null(state_cache_find(&c, &k));
	assert_int_equal(c.hits, 4);
	assert_int_equal(c.misses, 2);
	state_cache_clear(&c);
	assert_int_equal(c.bytes, 0);
	k.end = 100;
	assert_null(state_cache_find(&c, &k));
}

static void test_cache_budget(void **state)
{
	size_t per = STATE_CACHE_BYTES / 3 / sizeof(struct state_cwrite);
	struct state_cache c;
	struct state_centry e;
	struct state_ckey k;
	(void)state;

	state_cache_init(&c, STATE_CACHE_ENTRIES);
	for (uint64_t i = 0; i < 4; i++) {
		e = entry_of(0, i, per, 1u << 30);
		assert_non_null(state_cache_put(&c, &e));
		assert_true(c.bytes <= STATE_CACHE_BYTES);
	}
	/* Four thirds do not fit: the oldest went, the others stay. */
	k = (struct state_ckey){ 0, 0, 100 };
	assert_null(state_cache_find(&c, &k));
	for (k.off = 1; k.off < 4; k.off++) {
		k.end = k.off + 100;
		assert_non_null(state_cache_find(&c, &k));
	}
	/* Over half the budget: refused, the caller keeps its writes. */
	e = entry_of(0, 9, STATE_CACHE_BYTES / 2 / sizeof(struct state_cwrite) + 1, 1u << 30);
	assert_null(state_cache_put(&c, &e));
	free(e.w);
	/* Off: nothing kept. */
	state_cache_clear(&c);
	state_cache_init(&c, 0);
	e = entry_of(0, 0, 4, 100);
	assert_null(state_cache_put(&c, &e));
	free(e.w);
}

static void test_cache_sorted(void **state)
{
	struct state_centry e = entry_of(0, 0, 40, 4000);
	size_t i;
	(void)state;

	assert_int_equal(e.n, 30);
	assert_int_equal(e.nwide, 10);
	for (i = 1; i < e.n; i++)
		assert_true(e.w[i - 1].addr <= e.w[i].addr);
	for (i = e.n; i < e.n + e.nwide; i++)
		assert_true(e.w[i].len > STATE_CACHE_WIDE);
	/* The first narrow write that may reach 3900: none below 3900 - 512. */
	i = state_cache_first(&e, 3900);
	assert_true(i == 0 || e.w[i - 1].addr < 3900 - STATE_CACHE_WIDE);
	assert_true(i < e.n && e.w[i].addr >= 3900 - STATE_CACHE_WIDE);
	free(e.w);
}

/* --- random logs, with and without the cache ---------------------------- */

#define LO 0x10000u                /* writes fall in [LO, LO + SPAN) */
#define SPAN 0x2000u
#define LOGMAX (1u << 20)

struct wbuf {
	uint8_t *b;
	size_t n;
	uint64_t index, base, mem_end;
	uint64_t last_addr, last_len;      /* the chunk's last MEM record: 0 len none */
};

static void put(struct wbuf *w, uint64_t v)
{
	while (v >= 0x80) {
		w->b[w->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	w->b[w->n++] = (uint8_t)v;
}

static void tag(struct wbuf *w, unsigned kind, unsigned delta)
{
	w->b[w->n++] = (uint8_t)(kind | delta << 3);
}

static unsigned rnd(unsigned n)
{
	return (unsigned)(random() % n);
}

static void checkpoint(struct wbuf *w, unsigned delta)
{
	tag(w, 6, delta);
	w->index += delta;
	put(w, w->index);
	put(w, w->base);
	for (int i = 0; i < 27; i++)
		put(w, 0);
	put(w, 0);
	w->mem_end = 0;
	w->last_len = 0;
}

/* A MEM record (a MAP one if @map) at @addr, @len bytes; its old bytes
 * left out half the time when the chunk's last record had its range. */
static void write_rec(struct wbuf *w, unsigned delta, uint64_t addr, uint64_t len, bool map)
{
	bool same = !map && len && len == w->last_len && addr == w->last_addr && rnd(2);

	tag(w, map ? 4 : 3, delta);
	w->index += delta;
	put(w, ((addr - w->mem_end) << 1) ^ (uint64_t)((int64_t)(addr - w->mem_end) >> 63));
	put(w, map ? len : len << 1 | same);
	w->mem_end = addr + len;
	if (map) {
		w->b[w->n++] = (uint8_t)rnd(2);    /* unknown or zeros */
		w->last_len = 0;
		return;
	}
	for (uint64_t i = 0; i < (same ? 1 : 2) * len; i++)
		w->b[w->n++] = (uint8_t)random();
	w->last_addr = addr;
	w->last_len = len;
}

/* One step of @w's thread at the shared *@clock: a checkpoint (1 in 40)
 * or a write; *@clock moves to its time. */
static void step(struct wbuf *w, uint64_t *clock, uint64_t *ckt, size_t *nckt)
{
	unsigned delta = 1 + rnd(3), kind = rnd(100);
	uint64_t addr, len;

	if (w->index + w->base + delta <= *clock) {     /* catch up: a TIME record */
		w->base = *clock + 1 - w->index - delta;
		tag(w, 5, 0);
		put(w, w->base);
	}
	if (rnd(40) == 0) {
		checkpoint(w, delta);
		ckt[(*nckt)++] = w->index + w->base;
	} else if (kind < 30 && kind >= 14 && w->last_len) {     /* the same range again */
		write_rec(w, delta, w->last_addr, w->last_len, false);
	} else {
		len = kind < 12 ? STATE_CACHE_WIDE + 1 + rnd(2500) : kind < 14 ? 0 :
		      1 + rnd(kind < 80 ? 16 : 200);
		addr = LO + rnd(SPAN - (unsigned)len);
		write_rec(w, delta, addr, len, rnd(20) == 0);
	}
	*clock = w->index + w->base;
}

static struct replay_bundle *bundle_of(struct wbuf *w, size_t n)
{
	struct replay_bundle *b;
	char path[128], rel[32];

	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(replay_bundle_set_str(&b->dir, dir), 0);
	for (size_t i = 0; i < n; i++) {
		FILE *f;

		snprintf(rel, sizeof(rel), "c%zu.state", i);
		snprintf(path, sizeof(path), "%s/%s", dir, rel);
		f = fopen(path, "wb");
		assert_non_null(f);
		assert_int_equal(fwrite(w[i].b, 1, w[i].n, f), w[i].n);
		assert_int_equal(fwrite("\7\0\0", 1, 3, f), 3);        /* the end record */
		fclose(f);
		assert_true(replay_bundle_add_thread(b, 40 + (int64_t)i, "x.pt") >= 0);
		assert_int_equal(replay_bundle_set_str(&b->threads[i].state_file, rel), 0);
	}
	return b;
}

static void same_write(int r0, const struct replay_state_write *w0, int r1,
		       const struct replay_state_write *w1)
{
	assert_int_equal(r0, r1);
	if (r0 < 0)
		return;
	assert_int_equal(w0->tid, w1->tid);
	assert_int_equal(w0->index, w1->index);
	assert_int_equal(w0->time, w1->time);
	assert_int_equal(w0->addr, w1->addr);
	assert_int_equal(w0->len, w1->len);
}

/* One read and both searches of [addr, addr + len) at @time: the same in
 * @off (the cache off) and in each of @on. */
static void compare(struct replay_state *off, struct replay_state **on, size_t non, uint64_t time,
		    uint64_t addr, size_t len)
{
	static uint8_t buf0[8192], st0[8192], buf1[8192], st1[8192];
	struct replay_state_write w0, w1;
	int rr, r0, r1;

	rr = replay_state_read_mem_status(off, time, addr, buf0, len, st0);
	for (size_t k = 0; k < non; k++) {
		r1 = replay_state_read_mem_status(on[k], time, addr, buf1, len, st1);
		assert_int_equal(rr, r1);
		if (memcmp(st0, st1, len) || memcmp(buf0, buf1, len))
			fail_msg("read of %zu at %#lx, time %lu: differs with the cache (%zu)", len,
				 (unsigned long)addr, (unsigned long)time, k);
		r0 = replay_state_write_before(off, addr, len, time, &w0);
		r1 = replay_state_write_before(on[k], addr, len, time, &w1);
		same_write(r0, &w0, r1, &w1);
		r0 = replay_state_write_after(off, addr, len, time, &w0);
		r1 = replay_state_write_after(on[k], addr, len, time, &w1);
		same_write(r0, &w0, r1, &w1);
	}
}

/* A query's range: across blocks, near the written span or far from it. */
static void pick_range(uint64_t *addr, size_t *len)
{
	unsigned k = rnd(10);

	*len = k < 4 ? 1 + rnd(16) : k < 8 ? 1 + rnd(4096) : 4096 + rnd(4096);
	*addr = LO - 700 + rnd(SPAN + 1400);
	if (rnd(20) == 0)
		*addr = 0x7f0000000000ull + rnd(1 << 20);    /* never written */
}

static void test_random_on_off(void **state)
{
	static uint64_t ckt[4096];
	struct wbuf w[2];
	(void)state;

	for (unsigned seed = 1; seed <= 4; seed++) {
		struct replay_state *off, *on[2];
		struct replay_bundle *b;
		uint64_t clock = 0, hits, misses;
		size_t nckt = 0;

		srandom(seed);
		for (int t = 0; t < 2; t++) {
			w[t] = (struct wbuf){ .b = malloc(LOGMAX), .base = (uint64_t)t * 5 };
			assert_non_null(w[t].b);
			memcpy(w[t].b, "HSSTATE2", 8);
			w[t].n = 8;
			put(&w[t], 7);
			put(&w[t], 0);             /* no XSAVE area */
			put(&w[t], 27);
			checkpoint(&w[t], 0);
		}
		while (w[0].n < LOGMAX - 16384 && w[1].n < LOGMAX - 16384 && nckt < 4000) {
			unsigned t = rnd(2), n = 1 + rnd(40);

			for (unsigned k = 0; k < n && w[t].n < LOGMAX - 16384; k++)
				step(&w[t], &clock, ckt, &nckt);
			if (clock > 60000)
				break;
		}
		b = bundle_of(w, 2);
		assert_int_equal(replay_state_open(b, &off, NULL, 0), 0);
		assert_int_equal(replay_state_open(b, &on[0], NULL, 0), 0);
		assert_int_equal(replay_state_open(b, &on[1], NULL, 0), 0);
		replay_state_cache_set(off, 0);
		replay_state_cache_set(on[0], STATE_CACHE_ENTRIES);
		replay_state_cache_set(on[1], 1);
		for (unsigned q = 0; q < 300; q++) {
			uint64_t time = rnd((unsigned)clock + 3), addr;
			size_t len;

			if (rnd(3) == 0 && nckt)           /* at a chunk boundary, or next to it */
				time = ckt[rnd((unsigned)nckt)] - 1 + rnd(3);
			pick_range(&addr, &len);
			compare(off, on, 2, time, addr, len);
			/* Again nearby in time and memory: from the cache. */
			compare(off, on, 2, time + rnd(50), addr + rnd(64), len);
		}
		replay_state_cache_stats(off, &hits, &misses);
		assert_int_equal(hits + misses, 0);
		replay_state_cache_stats(on[0], &hits, &misses);
		assert_true(hits > 0);
		assert_true(misses > STATE_CACHE_ENTRIES);     /* it evicted */
		replay_state_cache_stats(on[1], &hits, &misses);
		assert_true(hits > 0 && misses > 0);
		/* Dropped, it answers the same again. */
		replay_state_cache_drop(on[0]);
		compare(off, on, 1, clock / 2, LO, SPAN);
		replay_state_free(off);
		replay_state_free(on[0]);
		replay_state_free(on[1]);
		replay_bundle_free(b);
		free(w[0].b);
		free(w[1].b);
	}
}

/* Bytes never written read as untouched with the cache on too, the
 * written ones as known, the first time (a miss) and the second (a hit). */
static void test_never_written(void **state)
{
	struct wbuf w = { .b = malloc(LOGMAX) };
	struct replay_state *st;
	struct replay_bundle *b;
	uint8_t buf[1024], status[1024];
	uint64_t hits, misses;
	(void)state;

	assert_non_null(w.b);
	memcpy(w.b, "HSSTATE2", 8);
	w.n = 8;
	put(&w, 7);
	put(&w, 0);
	put(&w, 27);
	checkpoint(&w, 0);
	write_rec(&w, 1, LO + 10, 4, false);
	checkpoint(&w, 1);
	b = bundle_of(&w, 1);
	assert_int_equal(replay_state_open(b, &st, NULL, 0), 0);
	for (int k = 0; k < 2; k++) {
		assert_int_equal(replay_state_read_mem_status(st, 3, LO, buf, sizeof(buf), status),
				 -ENOENT);
		for (size_t i = 0; i < sizeof(buf); i++)
			assert_int_equal(status[i], i >= 10 && i < 14 ? REPLAY_STATE_KNOWN :
						    REPLAY_STATE_UNTOUCHED);
	}
	replay_state_cache_stats(st, &hits, &misses);
	assert_int_equal(misses, 1);
	assert_true(hits >= 1);
	replay_state_free(st);
	replay_bundle_free(b);
	free(w.b);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/hindsight-state-cache.XXXXXX");
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
		cmocka_unit_test(test_cache_lru),
		cmocka_unit_test(test_cache_budget),
		cmocka_unit_test(test_cache_sorted),
		cmocka_unit_test(test_random_on_off),
		cmocka_unit_test(test_never_written),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
