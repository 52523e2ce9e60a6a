/*
 * tests/unit/test_stub_hwpt.c: the hardware recorder's events, with a
 * constructed intel_pt sysfs tree (this machine has no intel_pt PMU):
 * perf_event_open / mmap failing, and the kernel's part played in memory
 * (test_stub_hwpt_fake.h): the mmaps and control page, full mode drained
 * across the ring's end with the tail released and the event re-enabled,
 * the last data published by the disable before the last read, snapshot
 * mode before and after the ring wrapped, sideband of two threads applied
 * in time order with perf time converted to TSC, the vDSO, hangups.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_hwpt.h"
#include "test_stub_hwpt_fake.h"

static char root[64];
static int open_errno, mmap_errno, opens;

static int fake_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group,
		     unsigned long flags)
{
	(void)attr; (void)tid; (void)cpu; (void)group; (void)flags;
	opens++;
	if (open_errno) {
		errno = open_errno;
		return -1;
	}
	return dup(0);
}

static void *fake_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	(void)addr; (void)len; (void)prot; (void)flags; (void)fd; (void)off;
	errno = mmap_errno;
	return MAP_FAILED;
}

static void put(const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/intel_pt/%s", root, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	char path[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_stub_hwpt.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/intel_pt", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/intel_pt/format", root);
	mkdir(path, 0755);
	put("type", "8\n");
	put("format/pt", "config:0\n");
	put("format/tsc", "config:10\n");
	put("format/branch", "config:13\n");
	stub_hwpt_sys.perf_event_open = fake_open;
	stub_hwpt_sys.mmap = fake_mmap;
	open_errno = mmap_errno = opens = 0;
	return 0;
}

static int setup_fk(void **state)
{
	int rc = setup(state);

	fk_install();
	return rc;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static struct stub_hwpt *open_ok(struct replay_bundle **b)
{
	struct stub_hwpt_setup s = { .sysfs_root = root, .opts = STUB_HWPT_OPTS_DEFAULT,
				     .dir = root, .pid = 100 };
	struct stub_hwpt *h = NULL;
	char why[256] = "";

	assert_int_equal(replay_bundle_new(b), 0);
	if (stub_hwpt_open(&s, *b, &h, why, sizeof(why)))
		fail_msg("%s", why);
	assert_string_equal((*b)->recorder, "hardware");
	assert_int_equal((*b)->pid, 100);
	return h;
}

static void expect_open_error(int err, const char *text)
{
	struct replay_bundle *b;
	struct stub_hwpt *h = open_ok(&b);
	char why[256] = "";

	open_errno = err;
	assert_int_equal(stub_hwpt_add_thread(h, 123, why, sizeof(why)), -err);
	assert_non_null(strstr(why, "perf_event_open(intel_pt, config 0x2401) for thread 123: "));
	assert_non_null(strstr(why, text));
	assert_int_equal(b->nthreads, 0);
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static void test_enoent(void **state)
{
	(void)state;
	expect_open_error(ENOENT, "this kernel has no intel_pt PMU of that type");
}

static void test_eopnotsupp(void **state)
{
	(void)state;
	expect_open_error(EOPNOTSUPP, "cannot trace this way");
}

static void test_eacces(void **state)
{
	(void)state;
	expect_open_error(EACCES, "perf_event_paranoid");
}

static void test_mmap_fails(void **state)
{
	struct replay_bundle *b;
	struct stub_hwpt *h = open_ok(&b);
	char why[256] = "";

	(void)state;
	mmap_errno = EPERM;
	assert_int_equal(stub_hwpt_add_thread(h, 5, why, sizeof(why)), -EPERM);
	assert_non_null(strstr(why, "mmap of the DATA area for thread 5"));
	assert_non_null(strstr(why, "perf_event_mlock_kb"));
	assert_int_equal(stub_hwpt_remove_thread(h, 5), -ESRCH);
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static void test_no_pmu(void **state)
{
	struct stub_hwpt_setup s = { .opts = STUB_HWPT_OPTS_DEFAULT, .dir = root };
	struct replay_bundle *b;
	struct stub_hwpt *h = NULL;
	char why[256] = "", missing[128];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/none", root);
	s.sysfs_root = missing;
	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(stub_hwpt_open(&s, b, &h, why, sizeof(why)), -ENOENT);
	assert_null(h);
	assert_non_null(strstr(why, "Intel PT is not available here: no intel_pt PMU ("));
	assert_int_equal(opens, 0);
	replay_bundle_free(b);
}

static void test_bad_option(void **state)
{
	struct stub_hwpt_setup s = { .sysfs_root = root, .opts = STUB_HWPT_OPTS_DEFAULT,
				     .dir = root };
	struct replay_bundle *b;
	struct stub_hwpt *h = NULL;
	char why[256] = "";

	(void)state;
	s.opts.psb_period = 2;
	assert_int_equal(replay_bundle_new(&b), 0);
	assert_int_equal(stub_hwpt_open(&s, b, &h, why, sizeof(why)), -ENOTSUP);
	assert_non_null(strstr(why, "--psb-period"));
	replay_bundle_free(b);
}

static void test_attr(void **state)
{
	struct perf_event_attr a;

	(void)state;
	stub_hwpt_attr(8, 0x300e601, true, 1 << 20, &a);
	assert_int_equal(a.type, 8);
	assert_int_equal(a.size, sizeof(a));
	assert_int_equal(a.config, 0x300e601);
	assert_true(a.disabled && a.exclude_kernel && a.exclude_hv);
	assert_true(a.sample_id_all && a.mmap2 && a.comm && a.comm_exec && a.task);
	assert_int_equal(a.context_switch, 0);     /* per-thread: nothing uses it */
	assert_int_equal(a.aux_watermark, 1 << 20);
	assert_int_equal(a.inherit, 0);
	stub_hwpt_attr(8, 0x300e601, false, 1 << 20, &a);
	assert_int_equal(a.aux_watermark, 0);
}

static void test_messages(void **state)
{
	char why[256];

	(void)state;
	stub_hwpt_open_error(EBUSY, 7, 1, why, sizeof(why));
	assert_string_equal(why, "perf_event_open(intel_pt, config 0x1) for thread 7: Intel PT "
			    "is in use by another tracer");
	stub_hwpt_open_error(ESRCH, 7, 1, why, sizeof(why));
	assert_non_null(strstr(why, "the thread is gone"));
}


/* ---- the kernel's part played in memory ---- */

static struct stub_hwpt *open_fk(struct replay_bundle **b, bool full, uint64_t aux,
				 const char *vdso)
{
	struct stub_hwpt_setup s = { .sysfs_root = root, .opts = STUB_HWPT_OPTS_DEFAULT,
				     .full = full, .aux_size = aux, .dir = root, .pid = 10,
				     .vdso_file = vdso };
	struct stub_hwpt *h = NULL;
	char why[256] = "";

	assert_int_equal(replay_bundle_new(b), 0);
	if (stub_hwpt_open(&s, *b, &h, why, sizeof(why)))
		fail_msg("%s", why);
	return h;
}

static void add_ok(struct stub_hwpt *h, pid_t tid)
{
	char why[256] = "";

	if (stub_hwpt_add_thread(h, tid, why, sizeof(why)))
		fail_msg("%s", why);
}

static void expect_file(pid_t tid, const uint8_t *want, size_t n)
{
	static uint8_t got[1 << 17];
	char path[128];

	snprintf(path, sizeof(path), "%s/threads/%d.pt", root, (int)tid);
	assert_int_equal(fk_slurp(path, got, sizeof(got)), (ssize_t)n);
	assert_memory_equal(got, want, n);
}

static void pattern(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(0x10 + (i * 7 + seed) % 0x60);   /* never 0x02: no PSB */
}

static void test_full_mode(void **state)
{
	static uint8_t trace[40000];
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct fk_event *e;

	(void)state;
	h = open_fk(&b, true, 16384, NULL);
	add_ok(h, 10);
	e = fk_by_tid(10);
	assert_non_null(e);
	assert_int_equal(e->attr.type, 8);
	assert_int_equal(e->attr.config, 0x2401);
	assert_true(e->attr.disabled && e->attr.exclude_kernel && !e->attr.inherit);
	assert_int_equal(e->attr.aux_watermark, 4096);
	assert_int_equal(e->base_len, 65 * 4096);
	assert_int_equal(e->page->aux_offset, 65 * 4096);
	assert_int_equal(e->page->aux_size, 16384);
	assert_int_equal(e->aux_prot, PROT_READ | PROT_WRITE);
	assert_int_equal(e->enables, 1);
	assert_int_equal(b->nthreads, 1);
	assert_string_equal(b->threads[0].pt_file, "threads/10.pt");
	/* 40000 bytes through a 16 KiB ring, read three times: it wraps */
	pattern(trace, sizeof(trace), 1);
	fk_aux_write(e, trace, 12000);
	assert_int_equal(stub_hwpt_poll(h), 0);
	assert_int_equal(e->page->aux_tail, 12000);
	assert_int_equal(e->enables, 2);          /* re-enabled after a read */
	fk_aux_write(e, trace + 12000, 16000);
	assert_int_equal(stub_hwpt_poll(h), 0);
	assert_int_equal(stub_hwpt_poll(h), 0);   /* nothing new: no enable */
	assert_int_equal(e->enables, 3);
	fk_aux_write(e, trace + 28000, 12000);
	assert_int_equal(stub_hwpt_poll(h), 0);
	assert_int_equal(e->page->aux_tail, 40000);
	assert_int_equal(stub_hwpt_trace_bytes(h), 40000);
	assert_int_equal(stub_hwpt_remove_thread(h, 10), 0);
	expect_file(10, trace, sizeof(trace));
	assert_int_equal(e->unmaps, 2);
	assert_int_equal(stub_hwpt_remove_thread(h, 10), -ESRCH);
	assert_int_equal(stub_hwpt_trace_bytes(h), 40000);
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static const uint8_t tail_bytes[100] = { 0x11, 0x22 };

/* The kernel publishes the last aux_head when the event stops. */
static void publish_on_disable(struct fk_event *e)
{
	fk_aux_write(e, tail_bytes, sizeof(tail_bytes));
}

static void test_last_read_after_disable(void **state)
{
	static uint8_t want[1100];
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct fk_event *e;

	(void)state;
	h = open_fk(&b, true, 16384, NULL);
	add_ok(h, 10);
	e = fk_by_tid(10);
	pattern(want, 1000, 3);
	memcpy(want + 1000, tail_bytes, sizeof(tail_bytes));
	fk_aux_write(e, want, 1000);
	fk_on_disable = publish_on_disable;
	assert_int_equal(stub_hwpt_remove_thread(h, 10), 0);
	assert_int_equal(e->disables, 1);
	assert_int_equal(e->enables, 1);          /* a removed thread is not re-enabled */
	expect_file(10, want, sizeof(want));
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static void test_snapshot_not_wrapped(void **state)
{
	static uint8_t trace[5000];
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct fk_event *e;

	(void)state;
	h = open_fk(&b, false, 16384, NULL);
	add_ok(h, 10);
	e = fk_by_tid(10);
	assert_int_equal(e->aux_prot, PROT_READ);
	assert_int_equal(e->attr.aux_watermark, 0);
	pattern(trace, sizeof(trace), 5);
	memcpy(trace, fk_psb, sizeof(fk_psb));
	fk_aux_write(e, trace, sizeof(trace));
	assert_int_equal(stub_hwpt_poll(h), 0);   /* snapshot: AUX untouched */
	assert_int_equal(e->page->aux_tail, 0);
	assert_int_equal(stub_hwpt_remove_thread(h, 10), 0);
	assert_int_equal(e->disables, 1);
	expect_file(10, trace, sizeof(trace));
	assert_int_equal(b->ngaps, 0);
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static void test_snapshot_wrapped(void **state)
{
	static uint8_t trace[16384 * 2 + 3000];
	const uint8_t *last = trace + sizeof(trace) - 16384;
	size_t first_psb = 0;
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct fk_event *e;

	(void)state;
	h = open_fk(&b, false, 16384, NULL);
	add_ok(h, 10);
	e = fk_by_tid(10);
	pattern(trace, sizeof(trace), 9);
	for (size_t at = 0; at + 16 <= sizeof(trace); at += 4000)
		memcpy(trace + at, fk_psb, 16);
	while (memcmp(last + first_psb, fk_psb, 16))
		first_psb++;
	fk_aux_write(e, trace, sizeof(trace));
	assert_true(e->page->aux_head < 16384);   /* an offset in snapshot mode */
	/* a snapshot at a stop: the window, the event enabled again */
	assert_int_equal(stub_hwpt_snapshot(h), 0);
	assert_int_equal(e->disables, 1);
	assert_int_equal(e->enables, 2);
	expect_file(10, last + first_psb, 16384 - first_psb);
	assert_int_equal(b->ngaps, 0);
	/* the end: the window again, and a gap for what was overwritten */
	assert_int_equal(stub_hwpt_remove_thread(h, 10), 0);
	assert_int_equal(e->enables, 2);
	expect_file(10, last + first_psb, 16384 - first_psb);
	assert_int_equal(b->ngaps, 1);
	assert_string_equal(b->gaps[0].kind, "lost");
	assert_int_equal(b->gaps[0].tid, 10);
	assert_non_null(strstr(b->gaps[0].text, "kept the newest 16 KiB"));
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

/* Thread 10's ring holds the later mapping, 11's the earlier one at the
 * same address: applied in time order, the earlier ends at the later. */
static void test_sideband_time_order(void **state)
{
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct fk_rec r;

	(void)state;
	fk_time_valid = true;
	h = open_fk(&b, true, 16384, "images/vdso-10.so");
	add_ok(h, 10);
	add_ok(h, 11);
	fk_mmap2(&r, 10, 10, 0x7000, 0x1000, "/lib/b.so", 5000);
	fk_data_write(fk_by_tid(10), r.b, r.n);
	fk_aux(&r, 10, 10, 0, 0x100, PERF_AUX_FLAG_TRUNCATED, 5000);
	fk_data_write(fk_by_tid(10), r.b, r.n);
	fk_mmap2(&r, 10, 11, 0x7000, 0x1000, "/lib/a.so", 3000);
	fk_data_write(fk_by_tid(11), r.b, r.n);
	fk_mmap2(&r, 10, 11, 0x9000, 0x2000, "[vdso]", 3000);
	fk_data_write(fk_by_tid(11), r.b, r.n);
	assert_int_equal(stub_hwpt_poll(h), 0);
	assert_int_equal(b->nmaps, 3);
	/* perf time -> TSC: (t - 1000) * 1024 / 2048 */
	assert_string_equal(b->maps[0].file, "/lib/a.so");
	assert_int_equal(b->maps[0].time_map, 1000);
	assert_int_equal(b->maps[0].time_unmap, 2000);
	assert_string_equal(b->maps[1].file, "images/vdso-10.so");
	assert_string_equal(b->maps[1].system_path, "[vdso]");
	assert_int_equal(b->maps[1].start, 0x9000);
	assert_int_equal(b->maps[1].offset, 0);
	assert_string_equal(b->maps[2].file, "/lib/b.so");
	assert_int_equal(b->maps[2].time_map, 2000);
	assert_int_equal(b->maps[2].time_unmap, REPLAY_TIME_NEVER);
	assert_int_equal(b->ngaps, 1);
	assert_string_equal(b->gaps[0].kind, "truncated");
	assert_int_equal(b->gaps[0].tid, 10);
	assert_int_equal(b->gaps[0].time, 2000);
	assert_true(stub_hwpt_now(h) >= 2000);    /* the TSC, at least the sideband's */
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static void test_hangup_and_now(void **state)
{
	struct replay_bundle *b;
	struct stub_hwpt *h;
	struct pollfd fds[4];
	struct fk_rec r;
	uint8_t x[10] = { 0 };

	(void)state;
	h = open_fk(&b, true, 16384, NULL);
	add_ok(h, 10);
	add_ok(h, 11);
	assert_int_equal(stub_hwpt_fds(h, fds, 4), 2);
	assert_int_equal(fds[0].fd, fk_by_tid(10)->fd);
	assert_int_equal(fds[0].events, POLLIN);
	stub_hwpt_hangup(h, fk_by_tid(10)->fd);
	assert_int_equal(stub_hwpt_fds(h, fds, 4), 1);
	assert_int_equal(fds[0].fd, fk_by_tid(11)->fd);
	/* a hung-up thread is still read, but not re-enabled */
	fk_aux_write(fk_by_tid(10), x, sizeof(x));
	assert_int_equal(stub_hwpt_poll(h), 0);
	assert_int_equal(fk_by_tid(10)->enables, 1);
	assert_int_equal(stub_hwpt_trace_bytes(h), 10);
	/* no time conversion: the present is the last sideband time */
	fk_exit(&r, 10, 11, 777);
	fk_data_write(fk_by_tid(11), r.b, r.n);
	assert_int_equal(stub_hwpt_poll(h), 0);
	assert_int_equal(stub_hwpt_now(h), 777);
	assert_int_equal(stub_hwpt_remove_all(h), 0);
	assert_int_equal(stub_hwpt_fds(h, fds, 4), 0);
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

static void test_aux_mmap_fails(void **state)
{
	struct replay_bundle *b;
	struct stub_hwpt *h;
	char why[256] = "";

	(void)state;
	h = open_fk(&b, false, 1 << 20, NULL);
	fk_aux_errno = ENOMEM;
	assert_int_equal(stub_hwpt_add_thread(h, 12, why, sizeof(why)), -ENOMEM);
	assert_non_null(strstr(why, "mmap of the AUX area for thread 12 (1024 KiB)"));
	assert_non_null(strstr(why, "--snapshot"));
	assert_int_equal(fk_by_tid(12)->unmaps, 1);    /* the DATA area again */
	assert_int_equal(b->nthreads, 0);
	stub_hwpt_close(h);
	replay_bundle_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eopnotsupp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eacces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_option, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_mode, setup_fk, teardown),
		cmocka_unit_test_setup_teardown(test_last_read_after_disable, setup_fk, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_not_wrapped, setup_fk, teardown),
		cmocka_unit_test_setup_teardown(test_snapshot_wrapped, setup_fk, teardown),
		cmocka_unit_test_setup_teardown(test_sideband_time_order, setup_fk, teardown),
		cmocka_unit_test_setup_teardown(test_hangup_and_now, setup_fk, teardown),
		cmocka_unit_test_setup_teardown(test_aux_mmap_fails, setup_fk, teardown),
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
