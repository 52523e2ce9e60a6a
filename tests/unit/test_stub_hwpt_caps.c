/*
 * tests/unit/test_stub_hwpt_caps.c: the intel_pt PMU's sysfs tree, built
 * in a temporary directory as a Skylake's kernel shows it (and as an older
 * or smaller one does), into capabilities, a config and the "why not"
 * line.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "stub/recorders/stub_hwpt_caps.h"

static char root[64];

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

/* A Skylake's intel_pt PMU (values from perf-intel-pt(1) and a 4.15
 * kernel). */
static int setup_skl(void **state)
{
	char path[128];

	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_stub_hwpt_caps.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	snprintf(path, sizeof(path), "%s/intel_pt", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/intel_pt/caps", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/intel_pt/format", root);
	mkdir(path, 0755);
	put("type", "8\n");
	put("max_nonturbo_ratio", "32\n");
	put("caps/psb_cyc", "1\n");
	put("caps/psb_periods", "003f\n");
	put("caps/mtc", "1\n");
	put("caps/mtc_periods", "249\n");
	put("caps/cycle_thresholds", "3fff\n");
	put("caps/ip_filtering", "1\n");
	put("format/pt", "config:0\n");
	put("format/cyc", "config:1\n");
	put("format/mtc", "config:9\n");
	put("format/tsc", "config:10\n");
	put("format/noretcomp", "config:11\n");
	put("format/branch", "config:13\n");
	put("format/mtc_period", "config:14-17\n");
	put("format/cyc_thresh", "config:19-22\n");
	put("format/psb_period", "config:24-27\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static void test_field_parse(void **state)
{
	struct stub_hwpt_field f;

	(void)state;
	assert_int_equal(stub_hwpt_field_parse("config:10\n", &f), 0);
	assert_true(f.present);
	assert_int_equal(f.lo, 10);
	assert_int_equal(f.hi, 10);
	assert_int_equal(stub_hwpt_field_parse("config:24-27", &f), 0);
	assert_int_equal(f.lo, 24);
	assert_int_equal(f.hi, 27);
	assert_int_equal(stub_hwpt_field_get(&f, 0x300e601), 3);
	assert_int_equal(stub_hwpt_field_parse("config1:3", &f), -EINVAL);
	assert_int_equal(stub_hwpt_field_parse("config:27-24", &f), -EINVAL);
	assert_int_equal(stub_hwpt_field_parse("config:64", &f), -EINVAL);
	assert_int_equal(stub_hwpt_field_parse("config:3x", &f), -EINVAL);
	assert_int_equal(stub_hwpt_field_parse("", &f), -EINVAL);
}

static struct stub_hwpt_caps read_caps(void)
{
	struct stub_hwpt_caps c;
	char why[256] = "";

	if (stub_hwpt_caps_read(root, &c, why, sizeof(why)))
		fail_msg("%s", why);
	return c;
}

static void test_caps_read(void **state)
{
	struct stub_hwpt_caps c = read_caps();

	(void)state;
	assert_int_equal(c.pmu_type, 8);
	assert_true(c.psb_cyc && c.mtc && c.ip_filtering);
	assert_int_equal(c.psb_periods, 0x3f);
	assert_int_equal(c.mtc_periods, 0x249);
	assert_int_equal(c.max_nonturbo_ratio, 32);
	assert_int_equal(c.psb_period.lo, 24);
	assert_int_equal(c.mtc_period.hi, 17);
}

/* The default is perf's own: what HASE recorded with (0x300e601). */
static void test_default_config(void **state)
{
	struct stub_hwpt_caps c = read_caps();
	struct stub_hwpt_opts o = STUB_HWPT_OPTS_DEFAULT;
	uint64_t config;

	(void)state;
	assert_int_equal(stub_hwpt_config(&c, &o, &config, NULL, 0), 0);
	assert_int_equal(config, 0x300e601);
}

static void test_options(void **state)
{
	struct stub_hwpt_caps c = read_caps();
	struct stub_hwpt_opts o = STUB_HWPT_OPTS_DEFAULT;
	uint64_t config;
	char why[256];

	(void)state;
	o.noretcomp = true;
	o.psb_period = 0;
	o.cyc = true;
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), 0);
	assert_int_equal(config, 0xe601 | (1 << 11) | (1 << 1));
	o.psb_period = 9;
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "psb_period 9 is not supported here (valid values: mask 0x3f)");
	o.psb_period = -1;
	o.mtc_period = 1;               /* mask 0x249: 0, 3, 6, 9 */
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), -EINVAL);
	o.mtc_period = 6;
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), 0);
	assert_int_equal((config >> 14) & 0xf, 6);
}

/* A Broadwell: no psb_cyc, no MTC; the tracing HASE's bdw files had. */
static void test_older_cpu(void **state)
{
	struct stub_hwpt_caps c;
	struct stub_hwpt_opts o = STUB_HWPT_OPTS_DEFAULT;
	uint64_t config;
	char why[256];

	(void)state;
	put("caps/psb_cyc", "0\n");
	put("caps/mtc", "0\n");
	put("caps/psb_periods", "0\n");
	c = read_caps();
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), 0);
	assert_int_equal(config, 0x2401);
	o.psb_period = 2;
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), -ENOTSUP);
	assert_string_equal(why, "--psb-period: this CPU has a fixed PSB period (no psb_cyc "
			    "capability)");
	o.psb_period = -1;
	o.cyc = true;
	assert_int_equal(stub_hwpt_config(&c, &o, &config, why, sizeof(why)), -ENOTSUP);
	assert_string_equal(why, "cycle-accurate mode (cyc) is not supported here");
}

static void test_bad_format_file(void **state)
{
	struct stub_hwpt_caps c;
	char why[256];

	(void)state;
	put("format/tsc", "config1:10\n");
	assert_int_equal(stub_hwpt_caps_read(root, &c, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "format/tsc: cannot read a config term"));
	put("format/tsc", "config:10\n");
	put("type", "x\n");
	assert_int_equal(stub_hwpt_caps_read(root, &c, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "/type: cannot read the PMU type"));
}

static void test_why_not(void **state)
{
	struct stub_hwpt_cpu amd = { .cpu = { "AuthenticAMD", 25, 1, 1 } };
	struct stub_hwpt_cpu vm = { .cpu = { "GenuineIntel", 6, 167, 1 }, .hypervisor = true };
	struct stub_hwpt_cpu skl = { .cpu = { "GenuineIntel", 6, 94, 3 }, .has_pt = true };
	char why[256], missing[128];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/none", root);
	assert_int_equal(stub_hwpt_why_not(missing, &amd, why, sizeof(why)), 0);
	assert_string_equal(why, "Intel PT is not available here: no intel_pt PMU (this is an "
			    "AMD CPU; Intel PT is Intel's)");
	assert_int_equal(stub_hwpt_why_not(missing, &vm, why, sizeof(why)), 0);
	assert_string_equal(why, "Intel PT is not available here: no intel_pt PMU (this is a "
			    "virtual machine that does not expose Intel PT; KVM does not by "
			    "default)");
	assert_int_equal(stub_hwpt_why_not(missing, &skl, why, sizeof(why)), 0);
	assert_string_equal(why, "Intel PT is not available here: no intel_pt PMU (the kernel "
			    "has no intel_pt driver)");
	assert_int_equal(stub_hwpt_why_not(root, &skl, why, sizeof(why)), 1);
}

/* This machine: whatever it is, the answer is one line, and matches
 * whether the PMU directory exists. */
static void test_this_machine(void **state)
{
	struct stub_hwpt_cpu cpu;
	struct stat st;
	char why[256] = "";
	int avail = stub_hwpt_available(NULL, why, sizeof(why));

	(void)state;
	stub_hwpt_cpu_probe(&cpu);
	assert_true(cpu.cpu.vendor[0] != 0);
	assert_int_equal(avail, stat(STUB_HWPT_SYSFS_DEVICES "/intel_pt", &st) == 0);
	if (!avail) {
		assert_null(strchr(why, '\n'));
		assert_non_null(strstr(why, "Intel PT is not available here: no intel_pt PMU"));
	}
}

static void test_fill_bundle(void **state)
{
	struct stub_hwpt_caps c = read_caps();
	struct stub_hwpt_cpu cpu = { .cpu = { "GenuineIntel", 6, 94, 3 },
				     .cpuid_0x15_eax = 2, .cpuid_0x15_ebx = 266 };
	struct replay_bundle b = { 0 };

	(void)state;
	stub_hwpt_fill_bundle(&cpu, &c, 0x300e601, &b);
	assert_int_equal(b.cpu.model, 94);
	assert_int_equal(b.mtc_freq, 3);
	assert_int_equal(b.nom_freq, 32);
	assert_int_equal(b.cpuid_0x15_eax, 2);
	assert_int_equal(b.cpuid_0x15_ebx, 266);
	assert_true(b.ret_compression);
	assert_int_equal(b.psb_period, 16384);
	/* without max_nonturbo_ratio: the base frequency */
	c.max_nonturbo_ratio = 0;
	cpu.base_ratio = 34;
	stub_hwpt_fill_bundle(&cpu, &c, 0x300e601, &b);
	assert_int_equal(b.nom_freq, 34);
}

static void test_cpuinfo_ratio(void **state)
{
	(void)state;
	assert_int_equal(stub_hwpt_cpuinfo_ratio("processor\t: 0\nvendor_id\t: GenuineIntel\n"
						 "model name\t: Intel(R) Core(TM) i7-6700 CPU @ "
						 "3.40GHz\nstepping\t: 3\n"), 34);
	assert_int_equal(stub_hwpt_cpuinfo_ratio("model name\t: Intel(R) Xeon(R) Gold 6148 CPU @ "
						 "2.40GHz\n"), 24);
	/* AMD names say no frequency; nor does a VM's "QEMU Virtual CPU" */
	assert_int_equal(stub_hwpt_cpuinfo_ratio("model name\t: AMD EPYC 7B13\nflags\t: a @ b\n"),
			 0);
	assert_int_equal(stub_hwpt_cpuinfo_ratio("model name\t: X @ fastGHz\n"), 0);
	assert_int_equal(stub_hwpt_cpuinfo_ratio(""), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_parse),
		cmocka_unit_test_setup_teardown(test_caps_read, setup_skl, teardown),
		cmocka_unit_test_setup_teardown(test_default_config, setup_skl, teardown),
		cmocka_unit_test_setup_teardown(test_options, setup_skl, teardown),
		cmocka_unit_test_setup_teardown(test_older_cpu, setup_skl, teardown),
		cmocka_unit_test_setup_teardown(test_bad_format_file, setup_skl, teardown),
		cmocka_unit_test_setup_teardown(test_why_not, setup_skl, teardown),
		cmocka_unit_test(test_this_machine),
		cmocka_unit_test_setup_teardown(test_fill_bundle, setup_skl, teardown),
		cmocka_unit_test(test_cpuinfo_ratio),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
