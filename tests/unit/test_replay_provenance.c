/*
 * tests/unit/test_replay_provenance.c: replay/decode/provenance.c on software
 * recordings of tests/programs/origin.c made here (built without PIE, so
 * that nm gives its functions' ranges and its globals' addresses: the
 * independent source).
 *
 * - chain A B (A, B picked here): the last write to g_val before the end
 *   is set_again's (B again), the last change set_second's (before A,
 *   after B), the one before it in set_first (before 0, after A), and
 *   before that there is none.
 * - r13 at origin_after was last changed by the move from r12 between the
 *   labels origin_load and origin_use; r12 by the load at origin_load,
 *   which read 8 bytes at g_ptr and gave the address of g_target.
 * - the address origin of origin_use's `movq (%r13)`: r13 = &g_target,
 *   two moves back to the load, and the store in set_ptr that wrote g_ptr.
 * - clobber: the fault's address register holds 0x4141414141414141,
 *   loaded from table[1].next (nm's table + 40), which the memset wrote
 *   (eight 0x41 bytes, outside the program's own functions, before the
 *   load).
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
#include <unistd.h>

#include <cmocka.h>

#include "protocol/rsp_regs.h"
#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/decode/explain.h"
#include "replay/frontend/frontend.h"
#include "replay/decode/provenance.h"
#include "replay/decode/timeline.h"
#include "stub/recorders/stub_rec.h"
#include "tests/unit/testlib_nm.h"

#define PROGS "tests/programs"

static char work[256], exe[512], chain_dir[512], clobber_dir[512];
static long val_a, val_b;

static void run(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		print_error("command failed (%d): %s\n", r, cmd);
	assert_int_equal(r, 0);
}

static void record(const char *dir, char *const argv[])
{
	struct stub_rec_options o = { 0 };
	struct stub_rec *rec = NULL;
	pid_t pid;

	o.dir = dir;
	assert_int_equal(stub_rec_spawn(argv, &pid), 0);
	assert_int_equal(stub_rec_new(&rec, &o, pid, argv, false), 0);
	assert_true(stub_rec_run(rec) >= 0);
	stub_rec_free(rec);
}

/* The [start, end) nm -S gives function @sym. */
static void nm_range(const char *sym, uint64_t *start, uint64_t *end)
{
	char cmd[1024], line[512], type, name[256];
	uint64_t a, n;
	FILE *f;

	*start = *end = 0;
	snprintf(cmd, sizeof(cmd), "nm -S %s", exe);
	f = popen(cmd, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%" SCNx64 " %" SCNx64 " %c %255s", &a, &n, &type, name) == 4 &&
		    !strcmp(name, sym)) {
			*start = a;
			*end = a + n;
		}
	pclose(f);
	assert_true(*end > *start);
}

static bool in_function(const char *sym, uint64_t ip)
{
	uint64_t s, e;

	nm_range(sym, &s, &e);
	return ip >= s && ip < e;
}

static int setup(void **state)
{
	char cmd[2048], a[32], b[32];
	char mode1[] = "chain", mode2[] = "clobber";
	char *cargv[] = { exe, mode1, a, b, NULL }, *kargv[] = { exe, mode2, NULL };
	(void)state;

	srand((unsigned)getpid());
	val_a = 1000 + rand() % 1000;
	val_b = 3000 + rand() % 1000;
	snprintf(a, sizeof(a), "%ld", val_a);
	snprintf(b, sizeof(b), "%ld", val_b);
	snprintf(work, sizeof(work), "/tmp/hindsight-prov.XXXXXX");
	if (!mkdtemp(work))
		return -1;
	snprintf(exe, sizeof(exe), "%s/origin", work);
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -no-pie -o %s %s/origin.c", exe, PROGS);
	run(cmd);
	snprintf(chain_dir, sizeof(chain_dir), "%s/chain.bundle", work);
	snprintf(clobber_dir, sizeof(clobber_dir), "%s/clobber.bundle", work);
	record(chain_dir, cargv);
	record(clobber_dir, kargv);
	return 0;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
	return getenv("KEEP_WORK") || system(cmd) == 0 ? 0 : -1;
}

static struct replay_cursor *cursor_of(void *ctx, int64_t tid)
{
	struct replay_frontend *f = ctx;

	for (size_t i = 0; i < f->nthreads; i++)
		if (f->b->threads[i].tid == tid)
			return f->cur[i];
	return NULL;
}

static struct replay_prov_env env_of(struct replay_frontend *f)
{
	return (struct replay_prov_env){ f->st, f->img, cursor_of, f, NULL };
}

static struct replay_frontend *open_rec(const char *dir)
{
	struct replay_frontend *f = NULL;
	char err[256];

	assert_int_equal(replay_frontend_open(dir, &f, err, sizeof(err)), 0);
	assert_non_null(f->st);
	return f;
}

/* The first position of the current thread whose pc is @ip. */
static uint64_t position_of_ip(struct replay_frontend *f, uint64_t ip)
{
	struct replay_cursor *c = replay_frontend_cursor(f);
	uint64_t at;

	for (uint64_t p = 1; p <= replay_cursor_size(c); p++)
		if (replay_cursor_item_ip(c, p, &at) == 0 && at == ip)
			return p;
	fail_msg("no item at 0x%" PRIx64, ip);
	return 0;
}

static uint64_t ip_of(struct replay_frontend *f, uint64_t position)
{
	uint64_t ip = 0;

	assert_int_equal(replay_cursor_item_ip(replay_frontend_cursor(f), position, &ip), 0);
	return ip;
}

static void test_write_walk(void **state)
{
	struct replay_frontend *f = open_rec(chain_dir);
	uint64_t g = nm_symbol(exe, "g_val"), now;
	struct replay_prov_write w1, w2, w3;
	long before, after;
	(void)state;

	assert_int_equal(replay_timeline_time(f->tl, &now), 0);
	/* the last write wrote B again; the last change is set_second's */
	assert_int_equal(replay_prov_write_before(f->st, g, 8, now, &w1), 0);
	assert_true(in_function("set_again", ip_of(f, w1.position)));
	assert_memory_equal(w1.before, w1.after, 8);
	assert_int_equal(replay_prov_change_before(f->st, g, 8, now, &w1), 0);
	memcpy(&before, w1.before, 8);
	memcpy(&after, w1.after, 8);
	assert_int_equal(after, val_b);
	assert_int_equal(before, val_a);
	assert_true(in_function("set_second", ip_of(f, w1.position)));
	assert_int_equal(replay_prov_write_before(f->st, g, 8, w1.time - 1, &w2), 0);
	memcpy(&before, w2.before, 8);
	memcpy(&after, w2.after, 8);
	assert_int_equal(after, val_a);
	assert_int_equal(before, 0);
	assert_true(w2.time < w1.time);
	assert_true(in_function("set_first", ip_of(f, w2.position)));
	assert_int_equal(replay_prov_write_before(f->st, g, 8, w2.time - 1, &w3), -ENOENT);
	/* a byte in the middle of the value: the same writes */
	assert_int_equal(replay_prov_write_before(f->st, g + 1, 1, now, &w3), 0);
	assert_true(in_function("set_again", ip_of(f, w3.position)));
	assert_int_equal(replay_prov_change_before(f->st, g + 1, 1, now, &w3), 0);
	assert_int_equal(w3.position, w1.position);
	assert_int_equal(w3.after[0], (uint8_t)(val_b >> 8));
	assert_int_equal(replay_prov_write_before(f->st, g, 0, now, &w3), -EINVAL);
	replay_frontend_free(f);
}

static void test_reg_origin(void **state)
{
	struct replay_frontend *f = open_rec(chain_dir);
	uint64_t load = nm_symbol(exe, "origin_load"), use = nm_symbol(exe, "origin_use");
	uint64_t after = position_of_ip(f, nm_symbol(exe, "origin_after"));
	struct replay_prov_reg r13, r12;
	(void)state;

	struct replay_prov_env env = env_of(f);
	int64_t tid = replay_frontend_tid(f);

	assert_int_equal(replay_prov_reg_origin(&env, tid, RSP_USER_R13, after, &r13), 0);
	assert_true(r13.ip > load && r13.ip < use);
	assert_int_equal(r13.after, nm_symbol(exe, "g_target"));
	assert_false(r13.load);
	assert_int_equal(r13.op.src, RSP_USER_R12);
	assert_int_equal(r13.op.dest, RSP_USER_R13);
	assert_int_equal(replay_prov_reg_origin(&env, tid, RSP_USER_R12, r13.position, &r12), 0);
	assert_int_equal(r12.ip, load);
	assert_true(r12.load);
	assert_int_equal(r12.mem_addr, nm_symbol(exe, "g_ptr"));
	assert_int_equal(r12.mem_len, 8);
	assert_int_equal(r12.after, nm_symbol(exe, "g_target"));
	assert_string_equal(replay_prov_reg_name(RSP_USER_R12), "r12");
	assert_int_equal(replay_prov_reg_origin(&env, tid, RSP_USER_RIP, after, &r12), -EINVAL);
	replay_frontend_free(f);
}

static void test_address_origin(void **state)
{
	struct replay_frontend *f = open_rec(chain_dir);
	uint64_t use = position_of_ip(f, nm_symbol(exe, "origin_use")), ptr;
	struct replay_prov_env env = env_of(f);
	struct replay_prov_origin o;
	(void)state;

	assert_int_equal(replay_prov_address_origin(&env, replay_frontend_tid(f), use, &o), 0);
	assert_int_equal(o.reg, RSP_USER_R13);
	assert_string_equal(o.reg_name, "r13");
	assert_int_equal(o.reg_value, nm_symbol(exe, "g_target"));
	assert_int_equal(o.op.addr, nm_symbol(exe, "g_target"));
	assert_true(o.op.reads);
	/* move r12 -> r13, the load of g_ptr, the store in set_ptr (of a
	 * constant: the chain ends there) */
	assert_true(o.nlinks >= 3);
	assert_int_equal(o.links[0].kind, REPLAY_PROV_MOVE);
	assert_int_equal(o.links[1].kind, REPLAY_PROV_LOAD);
	assert_int_equal(o.links[1].reg.ip, nm_symbol(exe, "origin_load"));
	assert_int_equal(o.links[2].kind, REPLAY_PROV_STORE);
	assert_true(in_function("set_ptr", o.links[2].store_ip));
	assert_true(in_function("set_ptr", ip_of(f, o.links[2].store.position)));
	memcpy(&ptr, o.links[2].store.after, 8);
	assert_int_equal(ptr, nm_symbol(exe, "g_target"));
	replay_frontend_free(f);
}

static void test_clobber(void **state)
{
	struct replay_frontend *f = open_rec(clobber_dir);
	uint64_t table = nm_symbol(exe, "table"), fault;
	struct replay_prov_env env = env_of(f);
	struct replay_prov_origin o;
	size_t t = replay_explain_thread(f->b, f->st);
	const struct replay_prov_link *load = NULL, *store = NULL;
	(void)state;

	fault = replay_explain_position(f->b, t, f->cur[t]);
	assert_int_equal(replay_prov_address_origin(&env, f->b->threads[t].tid, fault, &o), 0);
	assert_true(in_function("walk", o.pc));
	assert_int_equal(o.reg_value, 0x4141414141414141ull);
	/* through walk's local e (spilled and reloaded at -O0) to the load
	 * of table[1].next, then the store that wrote it */
	for (size_t i = 0; i < o.nlinks; i++) {
		if (o.links[i].kind == REPLAY_PROV_LOAD &&
		    o.links[i].reg.mem_addr == table + 24 + 16)
			load = &o.links[i];
		if (load && !store && o.links[i].kind == REPLAY_PROV_STORE)
			store = &o.links[i];
	}
	assert_non_null(load);
	assert_true(in_function("walk", load->reg.ip));
	assert_non_null(store);
	assert_true(store->store.position < load->reg.position);
	for (int i = 0; i < 8; i++)
		assert_int_equal(store->store.after[i], 0x41);
	/* memset, not the program's own code */
	assert_false(in_function("clobber", store->store_ip));
	assert_false(in_function("walk", store->store_ip));
	assert_int_equal(o.end, 0);
	replay_frontend_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_walk),
		cmocka_unit_test(test_reg_origin),
		cmocka_unit_test(test_address_origin),
		cmocka_unit_test(test_clobber),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
