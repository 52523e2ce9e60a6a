/*
 * stub/recorders/stub_hwpt_caps.c: the intel_pt PMU's sysfs description, the CPU,
 * and the config chosen from them (stub/recorders/stub_hwpt_caps.h).
 */
#include "stub/recorders/stub_hwpt_caps.h"

#include <cpuid.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* perf's defaults when supported: MTC every 2^3 CTC, PSB every 16 KiB. */
#define DEFAULT_MTC_PERIOD 3
#define DEFAULT_PSB_PERIOD 3

static int say(char *why, size_t whysize, int rc, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int say(char *why, size_t whysize, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (why && whysize)
		vsnprintf(why, whysize, fmt, ap);
	va_end(ap);
	return rc;
}

/* stub_hwpt_cpuinfo_ratio of this machine's /proc/cpuinfo (its start). */
static uint32_t cpuinfo_ratio(void)
{
	char text[4096];
	FILE *f = fopen("/proc/cpuinfo", "re");
	size_t n;

	if (!f)
		return 0;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = 0;
	return stub_hwpt_cpuinfo_ratio(text);
}

void stub_hwpt_cpu_probe(struct stub_hwpt_cpu *c)
{
	unsigned a, b, cx, d, max;

	memset(c, 0, sizeof(*c));
	if (!__get_cpuid(0, &max, &b, &cx, &d))
		return;
	memcpy(c->cpu.vendor, &b, 4);
	memcpy(c->cpu.vendor + 4, &d, 4);
	memcpy(c->cpu.vendor + 8, &cx, 4);
	__cpuid(1, a, b, cx, d);
	c->cpu.family = (a >> 8) & 0xf;
	c->cpu.model = (a >> 4) & 0xf;
	c->cpu.stepping = a & 0xf;
	if (c->cpu.family == 0xf)
		c->cpu.family += (a >> 20) & 0xff;
	if (c->cpu.family == 0x6 || c->cpu.family >= 0xf)
		c->cpu.model += ((a >> 16) & 0xf) << 4;
	c->hypervisor = cx & (1u << 31);
	if (max >= 7) {
		__cpuid_count(7, 0, a, b, cx, d);
		c->has_pt = b & (1u << 25);
	}
	if (max >= 0x15) {
		__cpuid(0x15, a, b, cx, d);
		c->cpuid_0x15_eax = a;
		c->cpuid_0x15_ebx = b;
	}
	if (max >= 0x16) {
		__cpuid(0x16, a, b, cx, d);
		c->base_ratio = (a & 0xffff) / 100;     /* base frequency, MHz */
	}
	if (!c->base_ratio)
		c->base_ratio = cpuinfo_ratio();
}

uint32_t stub_hwpt_cpuinfo_ratio(const char *text)
{
	const char *p = strstr(text, "model name");
	const char *eol, *at;
	double ghz;

	if (!p)
		return 0;
	eol = strchr(p, '\n');
	at = strstr(p, "@ ");
	if (!at || (eol && at > eol) || sscanf(at + 2, "%lfGHz", &ghz) != 1 || ghz <= 0 ||
	    ghz > 100)
		return 0;
	return (uint32_t)(ghz * 10 + 0.5);
}

int stub_hwpt_field_parse(const char *text, struct stub_hwpt_field *f)
{
	unsigned lo, hi;
	int n = 0;

	memset(f, 0, sizeof(*f));
	if (sscanf(text, "config:%u-%u%n", &lo, &hi, &n) == 2 && n) {
		/* a range */
	} else if (n = 0, sscanf(text, "config:%u%n", &lo, &n) == 1 && n) {
		hi = lo;
	} else {
		return -EINVAL;
	}
	text += n;
	while (*text == '\n' || *text == ' ')
		text++;
	if (*text || lo > hi || hi > 63)
		return -EINVAL;
	f->present = true;
	f->lo = (uint8_t)lo;
	f->hi = (uint8_t)hi;
	return 0;
}

uint64_t stub_hwpt_field_get(const struct stub_hwpt_field *f, uint64_t config)
{
	uint64_t width = (uint64_t)f->hi - f->lo + 1;

	if (!f->present)
		return 0;
	config >>= f->lo;
	return width == 64 ? config : config & ((1ULL << width) - 1);
}

/* @v into term @f of *@config; false if it does not fit or is absent. */
static bool field_set(const struct stub_hwpt_field *f, uint64_t v, uint64_t *config)
{
	uint64_t width = (uint64_t)f->hi - f->lo + 1;
	uint64_t mask = width == 64 ? ~0ULL : (1ULL << width) - 1;

	if (!f->present || (v & ~mask))
		return false;
	*config = (*config & ~(mask << f->lo)) | (v << f->lo);
	return true;
}

/* The first line of DIR/NAME into @buf; -errno. */
static int read_line(const char *dir, const char *name, char *buf, size_t size)
{
	char path[512];
	FILE *f;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)size, f))
		rc = -EINVAL;
	fclose(f);
	return rc;
}

/* A caps file: decimal 0/1 or a hex mask; 0 if missing. */
static uint32_t read_cap(const char *dir, const char *name, bool hex)
{
	char line[64];

	if (read_line(dir, name, line, sizeof(line)))
		return 0;
	return (uint32_t)strtoul(line, NULL, hex ? 16 : 10);
}

static int read_field(const char *dir, const char *name, struct stub_hwpt_field *f, char *why,
		      size_t whysize)
{
	char line[64];
	int rc = read_line(dir, name, line, sizeof(line));

	memset(f, 0, sizeof(*f));
	if (rc == -ENOENT)
		return 0;                   /* this kernel has no such term */
	if (!rc)
		rc = stub_hwpt_field_parse(line, f);
	if (rc)
		return say(why, whysize, -EINVAL, "%s/%s: cannot read a config term from it",
			   dir, name);
	return 0;
}

static int read_format(const char *pmu, struct stub_hwpt_caps *c, char *why, size_t whysize)
{
	static const struct {
		const char *name;
		size_t off;
	} terms[] = {
		{ "format/pt", offsetof(struct stub_hwpt_caps, pt) },
		{ "format/tsc", offsetof(struct stub_hwpt_caps, tsc) },
		{ "format/noretcomp", offsetof(struct stub_hwpt_caps, noretcomp) },
		{ "format/psb_period", offsetof(struct stub_hwpt_caps, psb_period) },
		{ "format/mtc", offsetof(struct stub_hwpt_caps, mtc_f) },
		{ "format/mtc_period", offsetof(struct stub_hwpt_caps, mtc_period) },
		{ "format/cyc", offsetof(struct stub_hwpt_caps, cyc) },
		{ "format/branch", offsetof(struct stub_hwpt_caps, branch) },
	};
	int rc = 0;

	for (size_t i = 0; i < sizeof(terms) / sizeof(terms[0]) && !rc; i++)
		rc = read_field(pmu, terms[i].name,
				(struct stub_hwpt_field *)((char *)c + terms[i].off), why, whysize);
	return rc;
}

int stub_hwpt_caps_read(const char *root, struct stub_hwpt_caps *c, char *why, size_t whysize)
{
	char pmu[400], line[64], *end;
	unsigned long type;
	struct stat st;

	memset(c, 0, sizeof(*c));
	snprintf(pmu, sizeof(pmu), "%s/intel_pt", root ? root : STUB_HWPT_SYSFS_DEVICES);
	if (stat(pmu, &st) || !S_ISDIR(st.st_mode))
		return say(why, whysize, -ENOENT, "Intel PT is not available here: no intel_pt "
			   "PMU (%s is missing)", pmu);
	if (read_line(pmu, "type", line, sizeof(line)) ||
	    (type = strtoul(line, &end, 10), end == line) || type > UINT32_MAX)
		return say(why, whysize, -EINVAL, "%s/type: cannot read the PMU type", pmu);
	c->pmu_type = (uint32_t)type;
	c->psb_cyc = read_cap(pmu, "caps/psb_cyc", false);
	c->mtc = read_cap(pmu, "caps/mtc", false);
	c->ip_filtering = read_cap(pmu, "caps/ip_filtering", false);
	c->psb_periods = read_cap(pmu, "caps/psb_periods", true);
	c->mtc_periods = read_cap(pmu, "caps/mtc_periods", true);
	c->cycle_thresholds = read_cap(pmu, "caps/cycle_thresholds", true);
	c->max_nonturbo_ratio = read_cap(pmu, "max_nonturbo_ratio", false);
	return read_format(pmu, c, why, whysize);
}

/* Whether @v is in valid-value mask @mask. */
static bool valid(uint32_t mask, int v)
{
	return v >= 0 && v < 32 && (mask & (1u << v));
}

static int set_psb(const struct stub_hwpt_caps *c, const struct stub_hwpt_opts *o,
		   uint64_t *config, char *why, size_t whysize)
{
	if (o->psb_period < 0) {
		if (c->psb_cyc && valid(c->psb_periods, DEFAULT_PSB_PERIOD))
			field_set(&c->psb_period, DEFAULT_PSB_PERIOD, config);
		return 0;
	}
	if (!c->psb_cyc || !c->psb_period.present)
		return say(why, whysize, -ENOTSUP, "--psb-period: this CPU has a fixed PSB "
			   "period (no psb_cyc capability)");
	if (!valid(c->psb_periods, o->psb_period) ||
	    !field_set(&c->psb_period, (uint64_t)o->psb_period, config))
		return say(why, whysize, -EINVAL, "psb_period %d is not supported here (valid "
			   "values: mask 0x%x)", o->psb_period, c->psb_periods);
	return 0;
}

static int set_mtc(const struct stub_hwpt_caps *c, const struct stub_hwpt_opts *o,
		   uint64_t *config, char *why, size_t whysize)
{
	int period = o->mtc_period < 0 ? DEFAULT_MTC_PERIOD : o->mtc_period;

	if (!c->mtc || !c->mtc_f.present) {
		if (o->mtc_period >= 0)
			return say(why, whysize, -ENOTSUP, "--mtc-period: this CPU has no MTC "
				   "packets");
		return 0;
	}
	if (!valid(c->mtc_periods, period)) {
		if (o->mtc_period >= 0)
			return say(why, whysize, -EINVAL, "mtc_period %d is not supported here "
				   "(valid values: mask 0x%x)", period, c->mtc_periods);
		return 0;                   /* no valid default: no MTC */
	}
	field_set(&c->mtc_f, 1, config);
	field_set(&c->mtc_period, (uint64_t)period, config);
	return 0;
}

int stub_hwpt_config(const struct stub_hwpt_caps *c, const struct stub_hwpt_opts *o,
		     uint64_t *config, char *why, size_t whysize)
{
	int rc;

	*config = 0;
	field_set(&c->pt, 1, config);
	field_set(&c->tsc, 1, config);
	field_set(&c->branch, 1, config);
	if (o->noretcomp && !field_set(&c->noretcomp, 1, config))
		return say(why, whysize, -ENOTSUP, "--noretcomp: this kernel has no noretcomp "
			   "term");
	if (o->cyc && !(c->psb_cyc && field_set(&c->cyc, 1, config)))
		return say(why, whysize, -ENOTSUP, "cycle-accurate mode (cyc) is not supported "
			   "here");
	rc = set_psb(c, o, config, why, whysize);
	if (!rc)
		rc = set_mtc(c, o, config, why, whysize);
	return rc;
}

/* Why a CPU without the intel_pt PMU has none. */
static const char *reason(const struct stub_hwpt_cpu *cpu)
{
	if (!strcmp(cpu->cpu.vendor, "AuthenticAMD") || !strcmp(cpu->cpu.vendor, "HygonGenuine"))
		return "this is an AMD CPU; Intel PT is Intel's";
	if (strcmp(cpu->cpu.vendor, "GenuineIntel"))
		return "this is not an Intel CPU";
	if (cpu->hypervisor)
		return "this is a virtual machine that does not expose Intel PT; KVM does "
		       "not by default";
	if (!cpu->has_pt)
		return "this Intel CPU has no Intel PT";
	return "the kernel has no intel_pt driver";
}

int stub_hwpt_why_not(const char *root, const struct stub_hwpt_cpu *cpu, char *why,
		      size_t whysize)
{
	struct stub_hwpt_caps c;
	char err[512];
	int rc = stub_hwpt_caps_read(root, &c, err, sizeof(err));

	if (rc == -ENOENT)
		return say(why, whysize, 0, "Intel PT is not available here: no intel_pt PMU "
			   "(%s)", reason(cpu));
	if (rc)
		return say(why, whysize, 0, "Intel PT is not available here: %s", err);
	return 1;
}

int stub_hwpt_available(const char *root, char *why, size_t whysize)
{
	struct stub_hwpt_cpu cpu;

	stub_hwpt_cpu_probe(&cpu);
	return stub_hwpt_why_not(root, &cpu, why, whysize);
}

void stub_hwpt_fill_bundle(const struct stub_hwpt_cpu *cpu, const struct stub_hwpt_caps *c,
			   uint64_t config, struct replay_bundle *b)
{
	b->cpu = cpu->cpu;
	b->cpuid_0x15_eax = cpu->cpuid_0x15_eax;
	b->cpuid_0x15_ebx = cpu->cpuid_0x15_ebx;
	b->nom_freq = (uint8_t)(c->max_nonturbo_ratio ? c->max_nonturbo_ratio : cpu->base_ratio);
	b->mtc_freq = stub_hwpt_field_get(&c->mtc_f, config)
			      ? (uint8_t)stub_hwpt_field_get(&c->mtc_period, config) : 0;
	b->ret_compression = !stub_hwpt_field_get(&c->noretcomp, config);
	b->psb_period = c->psb_period.present
				? 1u << (stub_hwpt_field_get(&c->psb_period, config) + 11) : 0;
}
