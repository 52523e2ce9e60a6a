/*
 * cli/cli_doctor.c: `hindsight doctor`, what this machine gives hindsight.
 *
 * One line per fact, each measured here rather than assumed: Intel PT (and
 * why not), perf_event_paranoid, ptrace's scope, whether debug registers
 * fire and single-step traps survive CPUID (stub/live/stub_probe.h), the
 * single-step rate on one CPU, Valgrind, and which recorder
 * `--record=auto` picks, with what it costs. --json prints one object.
 */
#include "cli/cli_doctor.h"

#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "stub/recorders/stub_hwpt_caps.h"
#include "stub/live/stub_probe.h"
#include "stub/recorders/stub_recorder.h"
#include "stub/recorders/stub_vgrec.h"

#define DOCTOR_STEPS 20000        /* single steps timed for the rate */

struct doctor_line {
	const char *key;              /* the JSON member, and the text's label */
	int ok;                       /* 1 fine, 0 missing or broken, -1 unknown */
	char value[512];              /* what was found, one line */
};

enum { D_PT, D_PARANOID, D_PTRACE, D_DREGS, D_CPUID, D_RATE, D_VALGRIND, D_AUTO, D_SERVE, D_N };

/* The first line of @path into @buf; false if it cannot be read. */
static bool doctor_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok = f && fgets(buf, (int)size, f);

	if (f)
		fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = 0;
	return ok;
}

static void doctor_paranoid(struct doctor_line *d)
{
	char v[32];
	int n;

	if (!doctor_read_line("/proc/sys/kernel/perf_event_paranoid", v, sizeof(v))) {
		d->ok = -1;
		snprintf(d->value, sizeof(d->value), "unknown (no /proc/sys/kernel/perf_event_paranoid)");
		return;
	}
	n = atoi(v);
	d->ok = n <= 2;
	snprintf(d->value, sizeof(d->value), "%d (%s)", n,
		 n <= 1 ? "user and kernel tracing allowed" :
		 n == 2 ? "user-space tracing of your own processes allowed; root may trace anything" :
		 "perf events only for root or CAP_PERFMON");
}

static void doctor_ptrace(struct doctor_line *d, enum stub_probe_answer seen)
{
	char v[32];

	if (doctor_read_line("/proc/sys/kernel/yama/ptrace_scope", v, sizeof(v)))
		snprintf(d->value, sizeof(d->value), "Yama ptrace_scope %s (%s)", v,
			 !strcmp(v, "0") ? "any process of the same user" :
			 !strcmp(v, "1") ? "children only: --attach needs root or CAP_SYS_PTRACE" :
			 !strcmp(v, "2") ? "root only" : "ptrace is disabled");
	else
		snprintf(d->value, sizeof(d->value), "no Yama: any process of the same user");
	d->ok = seen != STUB_PROBE_UNKNOWN;
	if (!d->ok)
		snprintf(d->value + strlen(d->value), sizeof(d->value) - strlen(d->value),
			 "; tracing a child failed here: nothing can be recorded");
}

static void doctor_valgrind(struct doctor_line *d)
{
	FILE *p = popen("valgrind --version 2>/dev/null", "re");
	char v[128] = "";
	bool ok = p && fgets(v, sizeof(v), p);

	if (p)
		pclose(p);
	char dir[4096], why[256];

	v[strcspn(v, "\n")] = 0;
	d->ok = ok && v[0];
	if (!d->ok) {
		snprintf(d->value, sizeof(d->value), "not found (apt-get install valgrind): "
			 "no fast recorder (--record=valgrind)");
		return;
	}
	d->ok = stub_vgrec_available(dir, sizeof(dir), why, sizeof(why));
	if (d->ok)
		snprintf(d->value, sizeof(d->value), "%s, with hindsight's tool: --record=valgrind "
			 "records every instruction, register and write (docs/record.md)", v);
	else
		snprintf(d->value, sizeof(d->value), "%s, but %s", v, why);
}

/* What `record --record=auto` of a program would use: the recorders'
 * own choice (stub_recorder_new), not a copy of its rule. */
static enum stub_recorder_kind doctor_auto_kind(void)
{
	static char *const argv[] = { "/bin/true", NULL };
	struct stub_recorder_options o = { .mode = "auto", .argv = argv };
	struct stub_recorder *rec;
	enum stub_recorder_kind kind;

	if (stub_recorder_new(&rec, &o) < 0)
		return STUB_RECORDER_SW;
	kind = stub_recorder_kind(rec);
	stub_recorder_free(rec);
	return kind;
}

static void doctor_collect(struct doctor_line *l)
{
	enum stub_recorder_kind kind;
	enum stub_probe_answer dregs, cpuid;
	char why[256];
	bool pt = stub_hwpt_available(NULL, why, sizeof(why)) > 0;
	double rate;

	l[D_PT] = (struct doctor_line){ "intel_pt", pt, "" };
	snprintf(l[D_PT].value, sizeof(l[D_PT].value), "%s",
		 pt ? "yes: the intel_pt PMU is there" : why);
	l[D_PARANOID].key = "perf_event_paranoid";
	doctor_paranoid(&l[D_PARANOID]);

	dregs = stub_probe_dregs();
	l[D_PTRACE].key = "ptrace";
	doctor_ptrace(&l[D_PTRACE], dregs);
	l[D_DREGS] = (struct doctor_line){ "debug_registers", dregs == STUB_PROBE_YES, "" };
	snprintf(l[D_DREGS].value, sizeof(l[D_DREGS].value), "%s",
		 dregs == STUB_PROBE_YES ?
		 "fire (a DR0 breakpoint and a DR1 watchpoint stopped a traced child)" :
		 dregs == STUB_PROBE_NO ?
		 "never fire here (a DR0 breakpoint and a DR1 watchpoint were set and "
		 "the child ran past both): serve takes hardware breakpoints and "
		 "watchpoints from the recorder; serve --no-record refuses them" :
		 "unknown (the probe could not trace a child)");
	if (dregs == STUB_PROBE_UNKNOWN)
		l[D_DREGS].ok = -1;

	cpuid = stub_probe_cpuid_step();
	l[D_CPUID] = (struct doctor_line){ "cpuid_single_step", cpuid == STUB_PROBE_YES, "" };
	snprintf(l[D_CPUID].value, sizeof(l[D_CPUID].value), "%s",
		 cpuid == STUB_PROBE_YES ? "the trap survives (a step over CPUID stops after it)" :
		 cpuid == STUB_PROBE_NO ?
		 "the trap is lost (a step over CPUID runs the next instruction too): "
		 "the recorder runs CPUID itself, and checks every step" :
		 "unknown (the probe could not trace a child)");
	if (cpuid == STUB_PROBE_UNKNOWN)
		l[D_CPUID].ok = -1;

	rate = stub_probe_step_rate(DOCTOR_STEPS);
	l[D_RATE] = (struct doctor_line){ "single_step_rate", rate > 0, "" };
	if (rate > 0)
		snprintf(l[D_RATE].value, sizeof(l[D_RATE].value),
			 "%.0f steps/s on one CPU (%.1f us a step)", rate, 1e6 / rate);
	else
		snprintf(l[D_RATE].value, sizeof(l[D_RATE].value), "could not be measured");

	l[D_VALGRIND].key = "valgrind";
	doctor_valgrind(&l[D_VALGRIND]);

	l[D_AUTO] = (struct doctor_line){ "record_auto", 1, "" };
	kind = doctor_auto_kind();
	if (kind == STUB_RECORDER_HW)
		snprintf(l[D_AUTO].value, sizeof(l[D_AUTO].value),
			 "hardware Intel PT: the program runs at nearly full speed");
	else if (kind == STUB_RECORDER_LIGHT)
		snprintf(l[D_AUTO].value, sizeof(l[D_AUTO].value),
			 "Valgrind, the program's inputs only (about Valgrind's own speed); "
			 "its history is rebuilt from them when first needed; no vector "
			 "registers; single steps for --attach");
	else if (kind == STUB_RECORDER_VG)
		snprintf(l[D_AUTO].value, sizeof(l[D_AUTO].value),
			 "Valgrind (tens of millions of instructions/s with registers and "
			 "memory; no vector registers); single steps for --attach");
	else if (rate > 0)
		snprintf(l[D_AUTO].value, sizeof(l[D_AUTO].value),
			 "software (single steps): at most %.0f instructions/s, about %.0f us "
			 "each, the program and the recorder on one CPU", rate, 1e6 / rate);
	else
		snprintf(l[D_AUTO].value, sizeof(l[D_AUTO].value),
			 "software (single steps); its speed could not be measured");

	/* serve records a live program by single steps whatever auto picks:
	 * what a breakpoint 10^8 instructions in (a Python start-up) costs. */
	l[D_SERVE] = (struct doctor_line){ "serve", 1, "" };
	if (rate > 0)
		snprintf(l[D_SERVE].value, sizeof(l[D_SERVE].value),
			 "records a live program by single steps: a breakpoint 10^8 instructions "
			 "in takes about %.0f min; --record on-request serves at full speed and "
			 "records from where the debugger asks (`record btrace`); %s--no-record "
			 "without reverse execution", 1e8 / rate / 60,
			 l[D_VALGRIND].ok == 1 ? "--record valgrind serves at Valgrind's speed and goes "
					    "back over the whole run; " : "");
	else
		snprintf(l[D_SERVE].value, sizeof(l[D_SERVE].value),
			 "records a live program by single steps (speed not measured); "
			 "--record on-request serves at full speed and records from where the "
			 "debugger asks; %s--no-record without reverse execution",
			 l[D_VALGRIND].ok == 1 ? "--record valgrind serves at Valgrind's speed and goes "
					    "back over the whole run; " : "");
}

static const char *doctor_mark(int ok)
{
	return ok > 0 ? "ok" : ok == 0 ? "NO" : "??";
}

void cli_doctor_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight doctor [--json]\n"
		"\n"
		"What this machine gives hindsight, one line each, measured here: Intel PT,\n"
		"perf_event_paranoid, ptrace, whether debug registers fire, whether a single\n"
		"step over CPUID keeps its trap, the single-step rate, Valgrind, and which\n"
		"recorder --record=auto uses. Takes about a second.\n"
		"\n"
		"  --json   one JSON object: {\"KEY\": {\"ok\": true|false|null, \"value\": \"...\"}, ...}\n");
}

int cli_doctor_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct doctor_line l[D_N];
	bool json = false;
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'j') {
			json = true;
		} else if (c == 'h') {
			cli_doctor_usage(stdout);
			return 0;
		} else {
			cli_doctor_usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "hindsight doctor: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	memset(l, 0, sizeof(l));
	doctor_collect(l);
	if (json) {
		json_t *o = json_object();
		char *text;

		for (int i = 0; i < D_N; i++)
			json_object_set_new(o, l[i].key,
					    json_pack("{s:o,s:s}", "ok",
						      l[i].ok < 0 ? json_null() : json_boolean(l[i].ok),
						      "value", l[i].value));
		text = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		if (text)
			printf("%s\n", text);
		free(text);
		json_decref(o);
		return text ? 0 : 1;
	}
	for (int i = 0; i < D_N; i++)
		printf("%-2s  %-20s %s\n", doctor_mark(l[i].ok), l[i].key, l[i].value);
	return 0;
}
