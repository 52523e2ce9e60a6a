/*
 * tests/unit/test_stub_hwpt.c: the hardware recorder's error paths, with
 * a constructed intel_pt sysfs tree and perf_event_open / mmap replaced
 * by failing fakes (this machine has no intel_pt PMU), and the
 * perf_event_attr it would open.
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

#include "replay/bundle.h"
#include "stub/stub_hwpt.h"

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
	assert_true(a.sample_id_all && a.mmap2 && a.comm && a.comm_exec && a.context_switch);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_enoent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eopnotsupp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_eacces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mmap_fails, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_pmu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_option, setup, teardown),
		cmocka_unit_test(test_attr),
		cmocka_unit_test(test_messages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
