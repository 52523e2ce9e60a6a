/*
 * cli/cli_record.c: `hindsight record`.
 *
 *   hindsight record [-o DIR] [--record=auto|sw|pt|valgrind] [--psb-period N]
 *                    [--noretcomp] [--snapshot SIZE] [--aux-size SIZE]
 *                    -- PROG [ARGS...]
 *   hindsight record [OPTIONS] --attach PID
 *
 * Picks the recorder (hardware PT needs the intel_pt PMU; without it, auto
 * says so and records in software, pt fails; with it, auto also falls
 * back to software when the events cannot be opened, saying why), runs
 * the hardware recorder (stub/stub_hwpt_rec.h) or the software one
 * (stub/stub_rec.h), or, asked for, the Valgrind one (stub/stub_vgrec.h),
 * and prints where the bundle is and a one-line summary.
 * The exit status is the program's (128 + signal if it was killed), like
 * rr record. The hidden --ip-log FILE writes every stepped instruction for
 * the round-trip tests; the hidden --step-cpuid single-steps CPUID instead
 * of running it in the recorder (the tests of the step check); the hidden
 * --vg-verify FILE has the Valgrind tool write every instruction it
 * starts (the tests of the fast recorder). SIGTERM ends the recording (a started program is
 * killed, an attached one detached); SIGINT detaches an attached process
 * and is otherwise left to the program, which shares the terminal.
 */
#include "cli/cli_record.h"

#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/bundle.h"
#include "stub/stub_hwpt.h"
#include "stub/stub_hwpt_caps.h"
#include "stub/stub_hwpt_rec.h"
#include "stub/stub_rec.h"
#include "stub/stub_vgrec.h"

/* cli_record_pick's answers. */
enum { CLI_RECORD_SW, CLI_RECORD_FAIL, CLI_RECORD_HW, CLI_RECORD_VG };

struct record_args {
	const char *dir;
	const char *mode;          /* auto, sw, pt */
	long psb_period;
	bool psb_given;
	bool noretcomp;
	long attach_pid;
	const char *ip_log;
	const char *vg_verify;     /* --record=valgrind: the tool's own trace (tests) */
	bool step_cpuid;
	uint64_t snapshot;         /* keep about the newest this many bytes per thread */
	uint64_t aux_size;         /* hardware, full mode: AUX bytes per thread (0: default) */
	bool hw;                   /* cli_record_pick chose the hardware recorder */
	bool vg;                   /* ... or the Valgrind one */
	int hw_psb;                /* the psb_period term, -1: the default */
	char **argv;
};

static struct stub_rec *cli_record_active;
static struct stub_hwpt_rec *cli_record_hw_active;
static struct stub_vgrec *cli_record_vg_active;

void cli_record_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight record [OPTIONS] [--] PROG [ARGS...]\n"
		"       hindsight record [OPTIONS] --attach PID\n"
		"\n"
		"Run PROG (or follow the running process PID) and record every\n"
		"instruction each thread executes as an Intel PT trace, in a bundle\n"
		"directory that `hindsight replay`, GDB and LLDB read.\n"
		"\n"
		"Options:\n"
		"  -o, --output DIR     the bundle directory (default\n"
		"                       hindsight-PROG-PID in the current directory)\n"
		"  --record=MODE        auto (default): hardware Intel PT if this CPU\n"
		"                       has it, else Valgrind if installed (not with\n"
		"                       --attach), else sw; sw: software (ptrace\n"
		"                       single-step); pt: hardware only; valgrind:\n"
		"                       the fast software recorder (general registers\n"
		"                       and memory too; Valgrind's addresses; no --attach)\n"
		"  --psb-period N       bytes of trace between sync points (default %d;\n"
		"                       hardware: a power of two the CPU supports)\n"
		"  --noretcomp          no return compression\n"
		"  --snapshot SIZE      keep only about the newest SIZE bytes per thread\n"
		"                       (K, M, G suffixes): hardware, of trace; software\n"
		"                       and Valgrind, of trace and state log, as a ring\n"
		"                       while recording (about 2 x SIZE on disk)\n"
		"  --aux-size SIZE      hardware: the trace buffer per thread (default 4M)\n"
		"  --attach PID         record a running process until it ends or\n"
		"                       until Ctrl-C (then it is detached)\n"
		"  -h, --help           show this help\n"
		"\n"
		"The exit status is the program's, 128 + N if signal N killed it.\n"
		"See docs/record.md.\n", STUB_REC_PSB_PERIOD);
}

static int cli_record_number(const char *s, long min, long max, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 10);
	return (errno || end == s || *end || *out < min || *out > max) ? -1 : 0;
}

/* A byte count with an optional K, M or G (powers of 1024), from 4K to 1G. */
int cli_record_size(const char *s, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int shift = 0;

	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (1ull << 30) >> shift)
		return -1;
	*out = (uint64_t)v << shift;
	return *out >= 4096 ? 0 : -1;
}

/* 0, 1 for --help, or 2 (after a message) for a bad command line. */
static int cli_record_parse(int argc, char **argv, struct record_args *a)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "record", required_argument, NULL, 'r' },
		{ "psb-period", required_argument, NULL, 'p' },
		{ "noretcomp", no_argument, NULL, 'n' },
		{ "attach", required_argument, NULL, 'a' },
		{ "ip-log", required_argument, NULL, 'l' },
		{ "step-cpuid", no_argument, NULL, 'C' },
		{ "vg-verify", required_argument, NULL, 'V' },
		{ "snapshot", required_argument, NULL, 's' },
		{ "aux-size", required_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->mode = "auto";
	a->psb_period = STUB_REC_PSB_PERIOD;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->dir = optarg; break;
		case 'r': a->mode = optarg; break;
		case 'n': a->noretcomp = true; break;
		case 'l': a->ip_log = optarg; break;
		case 'C': a->step_cpuid = true; break;
		case 'V': a->vg_verify = optarg; break;
		case 'h': return 1;
		case 'p':
			if (cli_record_number(optarg, 64, 1L << 30, &a->psb_period) < 0) {
				fprintf(stderr, "hindsight: --psb-period wants a number of bytes from 64 to 2^30, not '%s'\n", optarg);
				return 2;
			}
			a->psb_given = true;
			break;
		case 's':
		case 'x':
			if (cli_record_size(optarg, c == 's' ? &a->snapshot : &a->aux_size) < 0) {
				fprintf(stderr, "hindsight: --%s wants a size from 4K to 1G (a number of bytes, or with K, M, G), not '%s'\n",
					c == 's' ? "snapshot" : "aux-size", optarg);
				return 2;
			}
			break;
		case 'a':
			if (cli_record_number(optarg, 1, 1L << 22, &a->attach_pid) < 0) {
				fprintf(stderr, "hindsight: --attach wants a process id, not '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			fprintf(stderr, "Try 'hindsight record --help'.\n");
			return 2;
		}
	}
	if (strcmp(a->mode, "auto") && strcmp(a->mode, "sw") && strcmp(a->mode, "pt") &&
	    strcmp(a->mode, "valgrind")) {
		fprintf(stderr, "hindsight: --record wants auto, sw, pt or valgrind, not '%s'\n",
			a->mode);
		return 2;
	}
	a->argv = argv + optind;
	if (!a->attach_pid == !a->argv[0]) {
		fprintf(stderr, "hindsight: record wants a program to run or --attach PID (not both)\n"
			"Try 'hindsight record --help'.\n");
		return 2;
	}
	return 0;
}

/* Hardware or software PT: CLI_RECORD_HW, CLI_RECORD_VG, CLI_RECORD_SW,
 * or CLI_RECORD_FAIL after a message for --record=pt. The reason Intel PT
 * cannot be used comes from stub_hwpt_available (no PMU: an AMD CPU, or a
 * VM that does not expose it). auto: Intel PT, else Valgrind where it is
 * installed, unless @no_vg says why not (--attach), else single steps; it
 * says which and why. */
static int cli_record_pick(const char *mode, const char *no_vg)
{
	char why[256];

	if (!strcmp(mode, "sw"))
		return CLI_RECORD_SW;
	if (!strcmp(mode, "valgrind")) {
		char dir[4096];

		if (stub_vgrec_available(dir, sizeof(dir), why, sizeof(why)))
			return CLI_RECORD_VG;
		fprintf(stderr, "hindsight: cannot record with Valgrind: %s; --record=sw "
			"single-steps instead\n", why);
		return CLI_RECORD_FAIL;
	}
	if (stub_hwpt_available(NULL, why, sizeof(why)) > 0)
		return CLI_RECORD_HW;
	if (!strcmp(mode, "pt")) {
		fprintf(stderr, "hindsight: %s\n", why);
		return CLI_RECORD_FAIL;
	}
	if (!no_vg) {
		char dir[4096], vwhy[256];

		if (stub_vgrec_available(dir, sizeof(dir), vwhy, sizeof(vwhy))) {
			fprintf(stderr, "hindsight: %s; recording with Valgrind (hundreds of times "
				"faster than single steps; no vector registers, Valgrind's "
				"addresses; --record=sw single-steps natively)\n", why);
			return CLI_RECORD_VG;
		}
		fprintf(stderr, "hindsight: %s, and %s; recording in software (single "
			"steps)\n", why, vwhy);
		return CLI_RECORD_SW;
	}
	fprintf(stderr, "hindsight: %s; recording in software (single steps: %s)\n", why,
		no_vg);
	return CLI_RECORD_SW;
}

/* --psb-period N in bytes as the hardware's psb_period term (2^(n+11)
 * bytes); -1 without the option. 0, or -1 after a message. */
static int cli_record_hw_psb(const struct record_args *a, int *out)
{
	int n = 0;

	*out = -1;
	if (!a->psb_given)
		return 0;
	while (n < 20 && (2048L << n) < a->psb_period)
		n++;
	if ((2048L << n) != a->psb_period) {
		fprintf(stderr, "hindsight: hardware Intel PT's --psb-period is a power of two "
			"from 2048 bytes, not %ld\n", a->psb_period);
		return -1;
	}
	*out = n;
	return 0;
}

static void cli_record_on_signal(int sig)
{
	(void)sig;
	if (cli_record_active)
		stub_rec_stop(cli_record_active);
	if (cli_record_hw_active)
		stub_hwpt_rec_stop(cli_record_hw_active);
	if (cli_record_vg_active)
		stub_vgrec_stop(cli_record_vg_active);
}

static void cli_record_summary(const struct stub_rec_summary *sum, const char *dir)
{
	struct stub_rec_summary s = *sum;

	fprintf(stderr, "hindsight: recording in %s\n", dir);
	fprintf(stderr, "hindsight: %llu instructions, %zu thread%s, %zu gap%s, %llu bytes of trace "
		"(%.3f B/insn), %llu bytes of state\n",
		(unsigned long long)s.instructions, s.threads, s.threads == 1 ? "" : "s",
		s.gaps, s.gaps == 1 ? "" : "s", (unsigned long long)s.trace_bytes,
		s.instructions ? (double)s.trace_bytes / (double)s.instructions : 0.0,
		(unsigned long long)s.state_bytes);
	if (s.snapshot)
		fprintf(stderr, "hindsight: --snapshot kept the newest %llu instructions (%llu "
			"bytes of trace and state)\n", (unsigned long long)s.kept_instructions,
			(unsigned long long)s.kept_bytes);
	if (s.lost_traps)
		fprintf(stderr, "hindsight: warning: %llu single step%s ran more than one "
			"instruction (a lost trap: this machine misbehaves, see `hindsight "
			"doctor`); the recording has a \"state-unknown\" gap at each\n",
			(unsigned long long)s.lost_traps, s.lost_traps == 1 ? "" : "s");
}

/* The exit status `hindsight record` passes on. */
static int cli_record_status(const struct replay_bundle *b)
{
	if (!b->exit_kind || !strcmp(b->exit_kind, "detached") || !strcmp(b->exit_kind, "running"))
		return 0;
	if (!strcmp(b->exit_kind, "signaled"))
		return 128 + b->exit_status;
	return b->exit_status;
}

/* The command name of @pid (for the default directory), "attach" if
 * unknown. */
static const char *cli_record_comm(pid_t pid)
{
	static char comm[64];
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)pid);
	f = fopen(path, "re");
	if (!f || !fgets(comm, sizeof(comm), f) || !comm[0] || comm[0] == '\n')
		snprintf(comm, sizeof(comm), "attach");
	if (f)
		fclose(f);
	comm[strcspn(comm, "\n/")] = 0;
	return comm;
}

static int cli_record_start(const struct record_args *a, pid_t *pid)
{
	int e;

	if (a->attach_pid) {
		*pid = (pid_t)a->attach_pid;
		e = stub_rec_attach(*pid);
		if (e < 0)
			fprintf(stderr, "hindsight: cannot attach to process %ld: %s\n",
				a->attach_pid, strerror(-e));
		return e;
	}
	e = stub_rec_spawn(a->argv, pid);
	if (e < 0)
		fprintf(stderr, "hindsight: cannot start %s: %s\n", a->argv[0], strerror(-e));
	return e;
}

/* The end of a recording: status and signal from the bundle. */
/* The disk filled up: the recorder let the program go on unrecorded. A
 * started one is still this process's child: waited for, so `record`
 * ends with it as it would have. */
static void cli_record_unwritable(const struct record_args *a, pid_t pid, int e, const char *dir)
{
	int st;

	fprintf(stderr, "hindsight: recording stopped: %s; %s keeps what was written before "
		"(its end is a gap)\n", strerror(-e), dir);
	if (a->attach_pid) {
		fprintf(stderr, "hindsight: process %d detached; it goes on unrecorded\n", (int)pid);
		return;
	}
	fprintf(stderr, "hindsight: the program (pid %d) goes on unrecorded; waiting for it\n",
		(int)pid);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return;
	if (WIFEXITED(st))
		fprintf(stderr, "hindsight: the program exited with status %d\n", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		fprintf(stderr, "hindsight: the program was killed by %s\n", strsignal(WTERMSIG(st)));
}

static void cli_record_ended(const struct replay_bundle *b, int e, struct cli_record_result *res)
{
	res->status = cli_record_status(b);
	res->recorded = true;
	res->signo = b->exit_kind && !strcmp(b->exit_kind, "signaled") ? b->exit_status : 0;
	if (e < 0 && !res->status)
		res->status = 1;
}

static void cli_record_hw_summary(const struct record_args *a, const struct stub_hwpt_rec *r,
				  const char *dir)
{
	struct stub_hwpt_rec_summary s;

	stub_hwpt_rec_get_summary(r, &s);
	fprintf(stderr, "hindsight: recording in %s\n", dir);
	fprintf(stderr, "hindsight: hardware Intel PT (%s), %zu thread%s, %zu gap%s, %llu bytes "
		"of trace\n", a->snapshot ? "snapshot" : "full", s.threads,
		s.threads == 1 ? "" : "s", s.gaps, s.gaps == 1 ? "" : "s",
		(unsigned long long)s.trace_bytes);
}

/* The hardware recorder on @pid (stopped). 1 if it could not start and
 * --record=auto lets the software recorder take over (after a message),
 * else 0 with @res filled. */
static int cli_record_hardware(const struct record_args *a, pid_t pid, bool summary,
			       struct cli_record_result *res)
{
	struct stub_hwpt_rec_options o = { .dir = res->dir, .full = !a->snapshot,
					   .aux_size = a->snapshot ? a->snapshot : a->aux_size,
					   .opts = STUB_HWPT_OPTS_DEFAULT };
	struct stub_hwpt_rec *r = NULL;
	char why[512] = "";
	int e;

	o.opts.noretcomp = a->noretcomp;
	o.opts.psb_period = a->hw_psb;
	e = stub_hwpt_rec_new(&r, &o, pid, a->attach_pid ? NULL : a->argv, a->attach_pid != 0,
			      why, sizeof(why));
	if (e < 0) {
		stub_hwpt_rec_free(r);
		if (!strcmp(a->mode, "auto")) {
			fprintf(stderr, "hindsight: %s; recording in software\n", why);
			return 1;
		}
		fprintf(stderr, "hindsight: cannot record with Intel PT: %s\n", why);
		kill(pid, a->attach_pid ? 0 : SIGKILL);
		return 0;
	}
	cli_record_hw_active = r;
	signal(SIGINT, a->attach_pid ? cli_record_on_signal : SIG_IGN);
	signal(SIGTERM, cli_record_on_signal);
	e = stub_hwpt_rec_run(r, why, sizeof(why));
	cli_record_hw_active = NULL;
	if (e < 0)
		fprintf(stderr, "hindsight: recording stopped early: %s (the bundle in %s is "
			"incomplete)\n", why, res->dir);
	if (summary)
		cli_record_hw_summary(a, r, res->dir);
	cli_record_ended(stub_hwpt_rec_bundle(r), e, res);
	stub_hwpt_rec_free(r);
	return 0;
}

static int cli_record_unlink(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)ftw;
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Deletes what the recorder wrote into @dir (its manifest, threads/ and
 * images/), then @dir if nothing else is in it. */
void cli_record_delete(const char *dir)
{
	static const char *const subdirs[] = { "threads", "images" };
	char path[PATH_MAX + 32];

	for (size_t i = 0; i < sizeof(subdirs) / sizeof(subdirs[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, subdirs[i]);
		if (access(path, F_OK) == 0)
			nftw(path, cli_record_unlink, 16, FTW_DEPTH | FTW_PHYS);
	}
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGREC_LOG);
	unlink(path);
	rmdir(dir);
}

/* Points at Valgrind's messages when it wrote any, and says what to do
 * when Valgrind could not run an instruction of the program (VEX has no
 * AVX-512, for one): the program died of SIGILL that a native run would
 * not have. */
static void cli_record_vg_log(const char *dir)
{
	char p[4200], line[512];
	struct stat sb;
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, STUB_VGREC_LOG);
	if (stat(p, &sb) != 0 || sb.st_size == 0)
		return;
	fprintf(stderr, "hindsight: Valgrind's messages are in %s\n", p);
	f = fopen(p, "re");
	while (f && fgets(line, sizeof(line), f)) {
		const char *at = strstr(line, "Illegal opcode at address ");

		if (!at)
			continue;
		fprintf(stderr, "hindsight: Valgrind cannot run the instruction at %.*s (an "
			"instruction set it does not emulate, such as AVX-512): the program "
			"died of SIGILL under it; --record=sw records it natively\n",
			(int)strcspn(at + 26, "\n"), at + 26);
		break;
	}
	if (f)
		fclose(f);
}

/* The Valgrind recorder: it starts the program itself. */
static void cli_record_valgrind(const struct record_args *a, bool summary,
				struct cli_record_result *res)
{
	struct stub_vgrec_options o = { .dir = res->dir, .psb_period = (uint32_t)a->psb_period,
					.noretcomp = a->noretcomp, .verify = a->vg_verify,
					.snapshot = a->snapshot };
	struct stub_vgrec *r = NULL;
	char why[512] = "";
	int e;

	e = stub_vgrec_new(&r, &o, a->argv, why, sizeof(why));
	if (e < 0) {
		fprintf(stderr, "hindsight: cannot record with Valgrind: %s\n", why);
		stub_vgrec_free(r);
		return;
	}
	cli_record_vg_active = r;
	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, cli_record_on_signal);
	e = stub_vgrec_run(r, why, sizeof(why));
	cli_record_vg_active = NULL;
	if (e == -ENOEXEC) {
		/* Nothing ran: no recording, as when the program cannot start. */
		fprintf(stderr, "hindsight: cannot start %s under Valgrind\n", a->argv[0]);
		cli_record_delete(res->dir);
		stub_vgrec_free(r);
		return;
	}
	if (e < 0 && stub_rec_unwritable(e))
		fprintf(stderr, "hindsight: recording stopped: %s; %s keeps what was written before "
			"(its end is a gap); the program went on unrecorded, under Valgrind, to its "
			"end\n", strerror(-e), res->dir);
	else if (e < 0)
		fprintf(stderr, "hindsight: recording stopped early: %s (the bundle in %s is "
			"incomplete)\n", why, res->dir);
	if (summary) {
		struct stub_rec_summary s;

		stub_vgrec_get_summary(r, &s);
		cli_record_summary(&s, res->dir);
	}
	cli_record_vg_log(res->dir);
	cli_record_ended(stub_vgrec_bundle(r), e, res);
	stub_vgrec_free(r);
}

/* Records @a (after the recorder was picked) into @res->dir: the part
 * `hindsight run` shares. Prints what goes wrong; @summary prints the
 * closing summary. */
static void cli_record_go(const struct record_args *a, bool summary, struct cli_record_result *res)
{
	struct stub_rec_options o;
	struct stub_rec *r = NULL;
	pid_t pid;
	int e;

	memset(res, 0, sizeof(*res));
	res->status = 1;
	if (a->vg) {
		if (a->dir)
			snprintf(res->dir, sizeof(res->dir), "%s", a->dir);
		else
			snprintf(res->dir, sizeof(res->dir), "hindsight-%s-%d",
				 basename(a->argv[0]), (int)getpid());
		cli_record_valgrind(a, summary, res);
		return;
	}
	if (cli_record_start(a, &pid) < 0)
		return;
	if (a->dir)
		snprintf(res->dir, sizeof(res->dir), "%s", a->dir);
	else
		snprintf(res->dir, sizeof(res->dir), "hindsight-%s-%d",
			 a->argv[0] ? basename(a->argv[0]) : cli_record_comm(pid), (int)pid);
	if (a->hw && !cli_record_hardware(a, pid, summary, res))
		return;
	memset(&o, 0, sizeof(o));
	o.dir = res->dir;
	o.psb_period = (uint32_t)a->psb_period;
	o.noretcomp = a->noretcomp;
	o.ip_log = a->ip_log;
	o.step_cpuid = a->step_cpuid;
	o.snapshot = a->snapshot;
	e = stub_rec_new(&r, &o, pid, a->attach_pid ? NULL : a->argv, a->attach_pid != 0);
	if (e < 0) {
		fprintf(stderr, "hindsight: cannot record into %s: %s\n", res->dir, strerror(-e));
		kill(pid, a->attach_pid ? 0 : SIGKILL);
		stub_rec_free(r);
		return;
	}
	cli_record_active = r;
	/* A started program gets Ctrl-C itself (same terminal), like under rr;
	 * an attached one is detached. */
	signal(SIGINT, a->attach_pid ? cli_record_on_signal : SIG_IGN);
	signal(SIGTERM, cli_record_on_signal);
	e = stub_rec_run(r);
	cli_record_active = NULL;
	if (e < 0 && stub_rec_unwritable(e))
		cli_record_unwritable(a, pid, e, res->dir);
	else if (e < 0)
		fprintf(stderr, "hindsight: recording stopped early: %s (the bundle in %s is incomplete)\n",
			strerror(-e), res->dir);
	if (summary) {
		struct stub_rec_summary s;

		stub_rec_get_summary(r, &s);
		cli_record_summary(&s, res->dir);
	}
	cli_record_ended(stub_rec_bundle(r), e, res);
	stub_rec_free(r);
}


int cli_record_program(char **argv, const char *dir, uint64_t snapshot, bool valgrind,
		       struct cli_record_result *res)
{
	struct record_args a;

	memset(&a, 0, sizeof(a));
	a.mode = valgrind ? "valgrind" : "sw";
	a.vg = valgrind;
	if (valgrind && cli_record_pick(a.mode, NULL) == CLI_RECORD_FAIL) {
		memset(res, 0, sizeof(*res));
		res->status = 1;
		return -1;
	}
	a.psb_period = STUB_REC_PSB_PERIOD;
	a.dir = dir;
	a.snapshot = snapshot;
	a.argv = argv;
	cli_record_go(&a, false, res);
	return res->recorded ? 0 : -1;
}

int cli_record_main(int argc, char **argv)
{
	struct record_args a;
	struct cli_record_result res;
	int e;

	e = cli_record_parse(argc, argv, &a);
	if (e == 1) {
		cli_record_usage(stdout);
		return 0;
	}
	if (e)
		return e;
	/* The single-stepper's own test options (--ip-log, --step-cpuid) keep
	 * auto on it too. */
	e = cli_record_pick(a.mode, a.attach_pid ? "Valgrind cannot attach" :
			    a.ip_log || a.step_cpuid ? "--ip-log and --step-cpuid are for "
			    "single steps" : NULL);
	if (e == CLI_RECORD_FAIL)
		return 1;
	a.hw = e == CLI_RECORD_HW;
	a.vg = e == CLI_RECORD_VG;
	if (a.vg && a.attach_pid) {
		fprintf(stderr, "hindsight: Valgrind cannot attach to a running process; "
			"--record=sw can\n");
		return 2;
	}
	if (a.hw && cli_record_hw_psb(&a, &a.hw_psb) < 0)
		return 2;
	cli_record_go(&a, true, &res);
	return res.status;
}
