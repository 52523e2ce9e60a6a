/*
 * replay/model/perf_ptinfo.h: what a decoder must know about an Intel PT
 * recording made by perf.
 *
 * perf writes a PERF_RECORD_AUXTRACE_INFO record of type
 * PERF_AUXTRACE_INTEL_PT whose private u64 array holds, in perf's order:
 * the PMU type, the perf-time/TSC conversion (time_shift, time_mult,
 * time_zero, cap_user_time_zero), the config bits of tsc and noretcomp,
 * have_sched_switch, snapshot_mode, per_cpu_mmaps, then (perf 4.3 and
 * later) the mtc bit, the mtc_period field's mask, the TSC:CTC ratio n / d
 * and the cyc bit, then (4.7 and later) max_non_turbo_ratio and the
 * address filter's length. Older files stop earlier; missing fields read
 * as 0. With the intel_pt event's attr.config and HEADER_CPUID this gives
 * libipt's configuration: cpu, mtc_freq (the mtc_period field of config),
 * nom_freq (max_non_turbo_ratio), cpuid_0x15.eax / ebx (ratio d / n).
 */
#ifndef HINDSIGHT_REPLAY_PERF_PTINFO_H
#define HINDSIGHT_REPLAY_PERF_PTINFO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/model/bundle.h"
#include "replay/model/perf_sideband.h"

struct pt_config;

#define REPLAY_PERF_AUXTRACE_INTEL_PT 1

enum {                              /* indexes into the private array */
	REPLAY_PERF_PT_PMU_TYPE,
	REPLAY_PERF_PT_TIME_SHIFT,
	REPLAY_PERF_PT_TIME_MULT,
	REPLAY_PERF_PT_TIME_ZERO,
	REPLAY_PERF_PT_CAP_USER_TIME_ZERO,
	REPLAY_PERF_PT_TSC_BIT,
	REPLAY_PERF_PT_NORETCOMP_BIT,
	REPLAY_PERF_PT_HAVE_SCHED_SWITCH,
	REPLAY_PERF_PT_SNAPSHOT_MODE,
	REPLAY_PERF_PT_PER_CPU_MMAPS,
	REPLAY_PERF_PT_MTC_BIT,
	REPLAY_PERF_PT_MTC_FREQ_BITS,
	REPLAY_PERF_PT_TSC_CTC_N,
	REPLAY_PERF_PT_TSC_CTC_D,
	REPLAY_PERF_PT_CYC_BIT,
	REPLAY_PERF_PT_MAX_NONTURBO_RATIO,
	REPLAY_PERF_PT_FILTER_STR_LEN,
	REPLAY_PERF_PT_NPRIV,
};

struct replay_perf_ptinfo {
	size_t npriv;                       /* fields the file had */
	uint64_t priv[REPLAY_PERF_PT_NPRIV];
	struct replay_perf_tconv tconv;
	bool snapshot_mode, per_cpu_mmaps, have_sched_switch;
};

/* Parses the body of an AUXTRACE_INFO record (after its 8-byte header):
 * u32 type, u32 reserved, u64 priv[]. Returns 0; -ENOTSUP if the type is
 * not Intel PT; -EBADMSG if shorter than the old (perf 4.1) layout of
 * REPLAY_PERF_PT_PER_CPU_MMAPS + 1 fields. */
int replay_perf_ptinfo_parse(struct replay_perf_ptinfo *pi, const void *body, size_t len);

/* The libipt timing configuration and the tracing options from @pi and the
 * intel_pt event's @config: fills b->mtc_freq, nom_freq, cpuid_0x15_eax /
 * ebx, ret_compression and psb_period. */
void replay_perf_ptinfo_fill(const struct replay_perf_ptinfo *pi, uint64_t config,
			     struct replay_bundle *b);

/* Parses perf's HEADER_CPUID for x86 ("GenuineIntel,6,94,3"). 0 or
 * -EINVAL. */
int replay_perf_cpuid_parse(const char *s, struct replay_cpu *cpu);

/* A libipt configuration for @b's cpu and timing fields (errata from
 * pt_cpu_errata); @cfg's buffer fields are left to the caller. 0 or the
 * negative libipt error of pt_cpu_errata. */
int replay_perf_pt_config(const struct replay_bundle *b, struct pt_config *cfg);

#endif
