/*
 * tests/unit/test_stub_swpt.c: the software PT writer. Synthetic event
 * sequences are encoded, decoded again with libipt's packet decoder
 * (pt_pkt_*) and compared with the packets expected; the return-stack
 * mirror is checked against pt_retstack.c's rules.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <intel-pt.h>

#include "stub/recorders/stub_swpt.h"

struct sink {
	char *mem;
	size_t len;
	FILE *f;
	struct stub_swpt w;
};

static void sink_open(struct sink *s, uint32_t period, bool retcomp)
{
	s->mem = NULL;
	s->len = 0;
	s->f = open_memstream(&s->mem, &s->len);
	assert_non_null(s->f);
	assert_int_equal(stub_swpt_init(&s->w, s->f, period, retcomp), 0);
}

static void sink_close(struct sink *s)
{
	assert_int_equal(stub_swpt_flush(&s->w), 0);
	stub_swpt_release(&s->w);
	fclose(s->f);
}

/* An expected packet: type, and for IP packets the IP the decoder's last
 * IP holds after it (0 for suppressed), for TNT the bits, for TSC the
 * value. */
struct want {
	enum pt_packet_type type;
	uint64_t val;
	uint8_t bits;
};

static void check_packets(const struct sink *s, const struct want *w, size_t n)
{
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet p;
	uint64_t last = 0;
	size_t i = 0;
	int r;

	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)s->mem;
	cfg.end = (uint8_t *)s->mem + s->len;
	d = pt_pkt_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_int_equal(pt_pkt_sync_set(d, 0), 0);
	while ((r = pt_pkt_next(d, &p, sizeof(p))) > 0) {
		assert_true(i < n);
		assert_int_equal(p.type, w[i].type);
		switch (p.type) {
		case ppt_tip: case ppt_fup: case ppt_tip_pge: case ppt_tip_pgd:
			if (p.type == ppt_psb)
				last = 0;
			switch (p.payload.ip.ipc) {
			case pt_ipc_suppressed: break;
			case pt_ipc_update_16: last = (last & ~0xffffull) | (p.payload.ip.ip & 0xffff); break;
			case pt_ipc_update_32: last = (last & ~0xffffffffull) | (p.payload.ip.ip & 0xffffffff); break;
			case pt_ipc_update_48: last = (last & ~0xffffffffffffull) | (p.payload.ip.ip & 0xffffffffffffull); break;
			case pt_ipc_sext_48: last = (uint64_t)((int64_t)(p.payload.ip.ip << 16) >> 16); break;
			case pt_ipc_full: last = p.payload.ip.ip; break;
			}
			if (p.payload.ip.ipc != pt_ipc_suppressed)
				assert_int_equal(last, w[i].val);
			else
				assert_int_equal(0, w[i].val);
			break;
		case ppt_tnt_8:
			assert_int_equal(p.payload.tnt.bit_size, w[i].bits);
			assert_int_equal(p.payload.tnt.payload, w[i].val);
			break;
		case ppt_tsc:
			assert_int_equal(p.payload.tsc.tsc, w[i].val);
			break;
		case ppt_mode:
			assert_int_equal(p.payload.mode.leaf, pt_mol_exec);
			assert_int_equal(p.payload.mode.bits.exec.csl, 1);
			assert_int_equal(p.payload.mode.bits.exec.csd, 0);
			break;
		case ppt_psb:
			last = 0;
			break;
		default:
			break;
		}
		i++;
	}
	assert_int_equal(r, -pte_eos);
	assert_int_equal(i, n);
	pt_pkt_free_decoder(d);
}

#define PSB_HDR(t) { ppt_psb, 0, 0 }, { ppt_mode, 0, 0 }, { ppt_tsc, (t), 0 }
#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_start_enable_disable(void **state)
{
	struct sink s;
	(void)state;
	static const struct want w[] = {
		PSB_HDR(0), { ppt_psbend, 0, 0 },
		{ ppt_tsc, 1, 0 }, { ppt_tip_pge, 0x401000, 0 },
		{ ppt_tnt_8, 0x5, 3 },                      /* 1 0 1 */
		{ ppt_tip, 0x7ffff7fd0123, 0 },
		{ ppt_tip_pgd, 0, 0 },                      /* syscall */
		{ ppt_tsc, 9, 0 }, { ppt_tip_pge, 0x7ffff7fd0125, 0 },
		{ ppt_fup, 0x7ffff7fd0200, 0 }, { ppt_tip_pgd, 0, 0 },
	};

	sink_open(&s, 0, true);
	assert_int_equal(stub_swpt_begin(&s.w, 0), 0);
	assert_int_equal(stub_swpt_enable(&s.w, 0x401000, 1), 0);
	stub_swpt_cond(&s.w, true);
	stub_swpt_cond(&s.w, false);
	stub_swpt_cond(&s.w, true);
	assert_int_equal(stub_swpt_indirect(&s.w, 0x7ffff7fd0123), 0);
	assert_int_equal(stub_swpt_disable(&s.w), 0);
	assert_int_equal(stub_swpt_enable(&s.w, 0x7ffff7fd0125, 9), 0);
	assert_int_equal(stub_swpt_async_disable(&s.w, 0x7ffff7fd0200), 0);
	sink_close(&s);
	check_packets(&s, w, N(w));
	free(s.mem);
}

static void test_tnt_groups_of_six(void **state)
{
	struct sink s;
	(void)state;
	static const struct want w[] = {
		PSB_HDR(0), { ppt_psbend, 0, 0 },
		{ ppt_tsc, 0, 0 }, { ppt_tip_pge, 0x1000, 0 },
		{ ppt_tnt_8, 0x2b, 6 },  /* 1 0 1 0 1 1 */
		{ ppt_tnt_8, 0x1, 1 },
	};
	static const bool bits[] = { 1, 0, 1, 0, 1, 1, 1 };

	sink_open(&s, 0, true);
	stub_swpt_begin(&s.w, 0);
	stub_swpt_enable(&s.w, 0x1000, 0);
	for (size_t i = 0; i < N(bits); i++)
		assert_int_equal(stub_swpt_cond(&s.w, bits[i]), 0);
	sink_close(&s);
	check_packets(&s, w, N(w));
	free(s.mem);
}

static void test_ret_compression(void **state)
{
	struct sink s;
	(void)state;
	static const struct want w[] = {
		PSB_HDR(0), { ppt_psbend, 0, 0 },
		{ ppt_tsc, 0, 0 }, { ppt_tip_pge, 0x1000, 0 },
		/* ret to 0x2005 (compressed), ret to 0x9999 (mismatch: TIP),
		 * ret to 0x1005 (compressed), ret with empty stack: TIP. */
		{ ppt_tnt_8, 0x1, 1 }, { ppt_tip, 0x9999, 0 },
		{ ppt_tnt_8, 0x1, 1 }, { ppt_tip, 0x1005, 0 },
	};

	sink_open(&s, 0, true);
	stub_swpt_begin(&s.w, 0);
	stub_swpt_enable(&s.w, 0x1000, 0);
	stub_swpt_call(&s.w, 0x1005);
	stub_swpt_call(&s.w, 0x2005);
	assert_int_equal(stub_swpt_ret(&s.w, 0x2005), 0);
	assert_int_equal(stub_swpt_ret(&s.w, 0x9999), 0);   /* like longjmp */
	assert_int_equal(stub_swpt_ret(&s.w, 0x1005), 0);
	assert_int_equal(stub_swpt_ret(&s.w, 0x1005), 0);   /* empty */
	sink_close(&s);
	check_packets(&s, w, N(w));
	free(s.mem);
}

static void test_noretcomp(void **state)
{
	struct sink s;
	(void)state;
	static const struct want w[] = {
		PSB_HDR(0), { ppt_psbend, 0, 0 },
		{ ppt_tsc, 0, 0 }, { ppt_tip_pge, 0x1000, 0 },
		{ ppt_tip, 0x1005, 0 },
	};

	sink_open(&s, 0, false);
	stub_swpt_begin(&s.w, 0);
	stub_swpt_enable(&s.w, 0x1000, 0);
	stub_swpt_call(&s.w, 0x1005);
	stub_swpt_ret(&s.w, 0x1005);
	sink_close(&s);
	check_packets(&s, w, N(w));
	free(s.mem);
}

/* 70 nested calls: the 64 newest are kept, the oldest 6 dropped. */
static void test_retstack_overflow(void **state)
{
	struct stub_swpt_retstack r;
	uint64_t ip;
	(void)state;

	stub_swpt_retstack_init(&r);
	assert_true(stub_swpt_retstack_empty(&r));
	assert_false(stub_swpt_retstack_pop(&r, &ip));
	for (uint64_t i = 0; i < 70; i++)
		stub_swpt_retstack_push(&r, 0x1000 + i);
	for (uint64_t i = 70; i > 6; i--) {
		assert_true(stub_swpt_retstack_pop(&r, &ip));
		assert_int_equal(ip, 0x1000 + i - 1);
	}
	assert_true(stub_swpt_retstack_empty(&r));
	assert_false(stub_swpt_retstack_pop(&r, &ip));
	/* Usable again after running empty. */
	stub_swpt_retstack_push(&r, 7);
	assert_true(stub_swpt_retstack_top(&r, &ip));
	assert_int_equal(ip, 7);
}

/* A PSB resets the mirror: a return after it is not compressed, and the
 * first IP after it is compressed against 0. */
static void test_psb_resets(void **state)
{
	struct sink s;
	(void)state;
	static const struct want w[] = {
		PSB_HDR(0), { ppt_psbend, 0, 0 },
		{ ppt_tsc, 0, 0 }, { ppt_tip_pge, 0x555555551000, 0 },
		{ ppt_tnt_8, 0x1, 1 },
		PSB_HDR(5), { ppt_fup, 0x555555551010, 0 }, { ppt_psbend, 0, 0 },
		{ ppt_tip, 0x555555551005, 0 },
	};

	sink_open(&s, 0, true);
	stub_swpt_begin(&s.w, 0);
	stub_swpt_enable(&s.w, 0x555555551000, 0);
	stub_swpt_call(&s.w, 0x555555551005);
	stub_swpt_cond(&s.w, true);
	assert_int_equal(stub_swpt_psb(&s.w, 0x555555551010, 5), 0);
	assert_int_equal(s.w.last_psb, 44);
	stub_swpt_ret(&s.w, 0x555555551005);
	sink_close(&s);
	check_packets(&s, w, N(w));
	free(s.mem);
}

/* Periodic PSB: after psb_period bytes, at the next boundary. */
static void test_psb_period(void **state)
{
	struct sink s;
	int psbs = 0;
	(void)state;

	sink_open(&s, 64, true);
	stub_swpt_begin(&s.w, 0);
	stub_swpt_enable(&s.w, 0x1000, 0);
	for (int i = 0; i < 100; i++) {
		stub_swpt_indirect(&s.w, 0x100000 + (uint64_t)i * 0x10000);
		int r = stub_swpt_boundary(&s.w, 0x2000, (uint64_t)i);
		assert_true(r >= 0);
		psbs += r;
	}
	/* 100 TIPs of 5 bytes (update_32); a PSB+ of 31 bytes counts too:
	 * one every 7 TIPs. */
	assert_int_equal(psbs, 14);
	sink_close(&s);
	free(s.mem);
}

/* More than one encoder buffer: the bytes still decode. */
static void test_drain(void **state)
{
	struct sink s;
	struct pt_config cfg;
	struct pt_packet_decoder *d;
	struct pt_packet p;
	int tips = 0, r;
	(void)state;

	sink_open(&s, 0, true);
	stub_swpt_begin(&s.w, 0);
	stub_swpt_enable(&s.w, 0x1000, 0);
	for (int i = 0; i < 40000; i++)
		stub_swpt_indirect(&s.w, (uint64_t)i << 20);
	sink_close(&s);
	assert_true(s.len > STUB_SWPT_BUF);
	pt_config_init(&cfg);
	cfg.begin = (uint8_t *)s.mem;
	cfg.end = (uint8_t *)s.mem + s.len;
	d = pt_pkt_alloc_decoder(&cfg);
	assert_int_equal(pt_pkt_sync_set(d, 0), 0);
	while ((r = pt_pkt_next(d, &p, sizeof(p))) > 0)
		tips += p.type == ppt_tip;
	assert_int_equal(r, -pte_eos);
	assert_int_equal(tips, 40000);
	pt_pkt_free_decoder(d);
	free(s.mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_start_enable_disable),
		cmocka_unit_test(test_tnt_groups_of_six),
		cmocka_unit_test(test_ret_compression),
		cmocka_unit_test(test_noretcomp),
		cmocka_unit_test(test_retstack_overflow),
		cmocka_unit_test(test_psb_resets),
		cmocka_unit_test(test_psb_period),
		cmocka_unit_test(test_drain),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
