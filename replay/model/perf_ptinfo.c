/*
 * replay/model/perf_ptinfo.c: perf's Intel PT AUXTRACE_INFO and HEADER_CPUID
 * into libipt's configuration (replay/model/perf_ptinfo.h).
 */
#include "replay/model/perf_ptinfo.h"

#include <errno.h>
#include <intel-pt.h>
#include <stdio.h>
#include <string.h>

int replay_perf_ptinfo_parse(struct replay_perf_ptinfo *pi, const void *body, size_t len)
{
	const uint8_t *p = body;
	uint32_t type;
	size_t n;

	memset(pi, 0, sizeof(*pi));
	if (len < 8)
		return -EBADMSG;
	memcpy(&type, p, 4);
	if (type != REPLAY_PERF_AUXTRACE_INTEL_PT)
		return -ENOTSUP;
	n = (len - 8) / 8;
	if (n <= REPLAY_PERF_PT_PER_CPU_MMAPS)
		return -EBADMSG;
	pi->npriv = n < REPLAY_PERF_PT_NPRIV ? n : REPLAY_PERF_PT_NPRIV;
	memcpy(pi->priv, p + 8, pi->npriv * 8);
	pi->tconv.valid = pi->priv[REPLAY_PERF_PT_CAP_USER_TIME_ZERO] != 0;
	pi->tconv.time_shift = (uint16_t)pi->priv[REPLAY_PERF_PT_TIME_SHIFT];
	pi->tconv.time_mult = (uint32_t)pi->priv[REPLAY_PERF_PT_TIME_MULT];
	pi->tconv.time_zero = pi->priv[REPLAY_PERF_PT_TIME_ZERO];
	pi->snapshot_mode = pi->priv[REPLAY_PERF_PT_SNAPSHOT_MODE] != 0;
	pi->per_cpu_mmaps = pi->priv[REPLAY_PERF_PT_PER_CPU_MMAPS] != 0;
	pi->have_sched_switch = pi->priv[REPLAY_PERF_PT_HAVE_SCHED_SWITCH] != 0;
	return 0;
}

/* The value of the config field under @mask. */
static uint64_t field(uint64_t config, uint64_t mask)
{
	if (!mask)
		return 0;
	return (config & mask) >> __builtin_ctzll(mask);
}

void replay_perf_ptinfo_fill(const struct replay_perf_ptinfo *pi, uint64_t config,
			     struct replay_bundle *b)
{
	const uint64_t *v = pi->priv;
	/* Files from before perf 4.3 do not name these; the PMU's layout
	 * then was mtc at bit 9 and mtc_period at bits 14-17. */
	uint64_t mtc_bit = v[REPLAY_PERF_PT_MTC_BIT] ? v[REPLAY_PERF_PT_MTC_BIT] : 1u << 9;
	uint64_t mtc_mask = v[REPLAY_PERF_PT_MTC_FREQ_BITS] ? v[REPLAY_PERF_PT_MTC_FREQ_BITS]
							    : 0xfULL << 14;
	uint64_t psb = field(config, 0xfULL << 24);

	b->mtc_freq = (config & mtc_bit) ? (uint8_t)field(config, mtc_mask) : 0;
	b->nom_freq = (uint8_t)v[REPLAY_PERF_PT_MAX_NONTURBO_RATIO];
	b->cpuid_0x15_eax = (uint32_t)v[REPLAY_PERF_PT_TSC_CTC_D];
	b->cpuid_0x15_ebx = (uint32_t)v[REPLAY_PERF_PT_TSC_CTC_N];
	b->ret_compression = !(v[REPLAY_PERF_PT_NORETCOMP_BIT] &&
			       (config & v[REPLAY_PERF_PT_NORETCOMP_BIT]));
	/* psb_period n: a PSB every 2^(n + 11) bytes. */
	b->psb_period = (uint32_t)(1u << (psb + 11));
}

int replay_perf_cpuid_parse(const char *s, struct replay_cpu *cpu)
{
	char vendor[16];
	unsigned f, m, st;
	int n = 0;

	if (!s || sscanf(s, "%15[^,],%u,%u,%u%n", vendor, &f, &m, &st, &n) != 4 || !n)
		return -EINVAL;
	memset(cpu, 0, sizeof(*cpu));
	memcpy(cpu->vendor, vendor, sizeof(vendor));
	cpu->family = f;
	cpu->model = m;
	cpu->stepping = st;
	return 0;
}

int replay_perf_pt_config(const struct replay_bundle *b, struct pt_config *cfg)
{
	pt_config_init(cfg);
	if (!strcmp(b->cpu.vendor, "GenuineIntel")) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)b->cpu.family;
		cfg->cpu.model = (uint8_t)b->cpu.model;
		cfg->cpu.stepping = (uint8_t)b->cpu.stepping;
	}
	cfg->mtc_freq = b->mtc_freq;
	cfg->nom_freq = b->nom_freq;
	cfg->cpuid_0x15_eax = b->cpuid_0x15_eax;
	cfg->cpuid_0x15_ebx = b->cpuid_0x15_ebx;
	if (cfg->cpu.vendor == pcv_unknown)
		return 0;
	return pt_cpu_errata(&cfg->errata, &cfg->cpu);
}
