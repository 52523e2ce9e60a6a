/*
 * stub/recorders/stub_hwpt_caps.h: whether Intel PT can be recorded here, and with
 * which perf_event_attr.config.
 *
 * The kernel describes the intel_pt PMU under
 * /sys/bus/event_source/devices/intel_pt: `type` (the perf_event_attr.type
 * to open), `caps/` (what this CPU supports: psb_cyc, psb_periods, mtc,
 * mtc_periods, cycle_thresholds, ip_filtering, ...; hex masks or 0/1) and
 * `format/` (where each config term lives: "config:10", "config:24-27").
 * These functions read that tree from a root directory given by the caller
 * (tests build one in a temporary directory) and choose the config from
 * the user's options. The CPU's family / model / stepping and CPUID leaf
 * 0x15 (the TSC:core crystal clock ratio libipt needs with MTC) come from
 * the cpuid instruction. Nothing here prints.
 *
 * For the recorder (cli/cli_record.c):
 *   char why[256];
 *   if (stub_hwpt_available(NULL, why, sizeof(why)) <= 0)
 *           --record=auto: print why, use software PT; --record=pt: fail with why
 */
#ifndef HINDSIGHT_STUB_HWPT_CAPS_H
#define HINDSIGHT_STUB_HWPT_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/model/bundle.h"

#define STUB_HWPT_SYSFS_DEVICES "/sys/bus/event_source/devices"

/* A config term's bits: config[lo..hi]; present false if the kernel has no
 * such term. */
struct stub_hwpt_field {
	bool present;
	uint8_t lo, hi;
};

struct stub_hwpt_caps {
	uint32_t pmu_type;
	bool psb_cyc, mtc, ip_filtering;
	uint32_t psb_periods, mtc_periods, cycle_thresholds;   /* valid-value masks */
	uint32_t max_nonturbo_ratio;                           /* 0 if not given */
	struct stub_hwpt_field pt, tsc, noretcomp, psb_period, mtc_f, mtc_period, cyc, branch;
};

/* What the cpuid instruction says about this CPU. */
struct stub_hwpt_cpu {
	struct replay_cpu cpu;
	bool hypervisor;           /* CPUID.1:ECX[31]: running in a VM */
	bool has_pt;               /* CPUID.(7,0):EBX[25] */
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;
	uint32_t base_ratio;       /* base frequency / 100 MHz: CPUID 0x16, else
				    * /proc/cpuinfo's "@ 3.40GHz"; 0 if unknown */
};

/* The user's tracing options (--noretcomp, --psb-period, ...). */
struct stub_hwpt_opts {
	bool noretcomp;            /* no return compression */
	int psb_period;            /* -1: the kernel's default; else 2^(n+11) bytes */
	int mtc_period;            /* -1: 3, as perf; MTC is on when supported */
	bool cyc;                  /* cycle-accurate mode (off by default) */
};
#define STUB_HWPT_OPTS_DEFAULT { false, -1, -1, false }

/* Reads this CPU with cpuid. */
void stub_hwpt_cpu_probe(struct stub_hwpt_cpu *c);

/* The base frequency in units of 100 MHz from /proc/cpuinfo's text (the
 * "@ 3.40GHz" of its first model name: 34), or 0. */
uint32_t stub_hwpt_cpuinfo_ratio(const char *text);

/* Parses a format file's text ("config:10\n", "config:24-27"). 0, or
 * -EINVAL (another attr field than config, bits out of 0..63, junk). */
int stub_hwpt_field_parse(const char *text, struct stub_hwpt_field *f);

/* Reads ROOT/intel_pt (ROOT NULL: STUB_HWPT_SYSFS_DEVICES). Returns 0;
 * -ENOENT if there is no intel_pt PMU; -EINVAL for an unreadable type or
 * format file; with a line in @why. Missing caps files read as 0. */
int stub_hwpt_caps_read(const char *root, struct stub_hwpt_caps *c, char *why, size_t whysize);

/* The config for @o on @c: pt, tsc and branch on; noretcomp if asked;
 * psb_period if asked and psb_cyc is supported; mtc with mtc_period (3 by
 * default) when supported; cyc only if asked. Returns 0, or -EINVAL /
 * -ENOTSUP with a line in @why ("psb_period 9 is not supported here
 * (valid: 0-5)", "cycle-accurate mode (cyc) is not supported here"). */
int stub_hwpt_config(const struct stub_hwpt_caps *c, const struct stub_hwpt_opts *o,
		     uint64_t *config, char *why, size_t whysize);

/* The value of term @f in @config. */
uint64_t stub_hwpt_field_get(const struct stub_hwpt_field *f, uint64_t config);

/* Why Intel PT is not available, for @cpu and the PMU tree under @root:
 * returns 1 if it is, 0 with the one-line reason in @why if not ("Intel PT
 * is not available here: no intel_pt PMU (this is an AMD CPU)"). */
int stub_hwpt_why_not(const char *root, const struct stub_hwpt_cpu *cpu, char *why,
		      size_t whysize);

/* stub_hwpt_why_not for this machine's CPU. */
int stub_hwpt_available(const char *root, char *why, size_t whysize);

/* Fills @b's cpu and CPUID 0x15 fields from @cpu, nom_freq from @c's
 * max_nonturbo_ratio (perf's source too; else @cpu's base_ratio) and
 * mtc_freq / ret_compression / psb_period from @config. */
void stub_hwpt_fill_bundle(const struct stub_hwpt_cpu *cpu, const struct stub_hwpt_caps *c,
			   uint64_t config, struct replay_bundle *b);

#endif
