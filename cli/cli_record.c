/*
 * cli/cli_record.c: `hindsight record`.
 *
 *   hindsight record [-o DIR] [--record=auto|sw|pt|valgrind|light] [--psb-period N]
 *                    [--noretcomp] [--snapshot SIZE] [--aux-size SIZE]
 *                    -- PROG [ARGS...]
 *   hindsight record [OPTIONS] --attach PID
 *
 * Asks stub/recorders/stub_recorder.h for the recorder --record names (hardware PT
 * needs the intel_pt PMU; without it, auto says so and records with
 * Valgrind or single steps, pt fails; with it, auto also falls back to
 * single steps when the events cannot be opened, saying why), runs it
 * without knowing which it is, and prints what it says, where the bundle
 * is and a one-line summary.
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
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_recorder.h"
#include "stub/recorders/stub_vglight.h"

struct record_args {
	const char *dir;
	const char *mode;          /* auto, sw, pt, valgrind */
	long psb_period;
	bool psb_given;
	bool noretcomp;
	long attach_pid;
	const char *ip_log;
	const char *vg_verify;     /* --record=valgrind: the tool's own trace (tests) */
	bool step_cpuid;
	uint64_t snapshot;         /* keep about the newest this many bytes per thread */
	uint64_t aux_size;         /* hardware, full mode: AUX bytes per thread (0: default) */
	bool rebuild;              /* `hindsight rebuild`: a light recording's bundle again */
	int rebuild_wstatus;       /* ... and how its recorded run ended */
	uint64_t rebuild_last;     /* ... only about its last this many superblocks */
	bool rebuild_history_only; /* ... its control flow only: no state log */
	int rebuild_here_fd;       /* ... > 0: following a live run's log, each
				    * stop told there (cli_rebuild_follow) */
	bool light_defer;          /* light: the rebuild left for later (record) */
	uint64_t rebuild_trail;    /* rebuild: trailing a light run still going, */
	int rebuild_trail_fd;      /* ... its end's wait status read here */
	struct cli_trail *trail;   /* light: a rebuild to trail the run (run) */
	char **argv;
};

/* The recording SIGTERM (and, attached, SIGINT) ends. */
static struct stub_recorder *cli_record_active;

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
		"                       has it, else light if Valgrind is installed\n"
		"                       (valgrind with --snapshot, --psb-period or\n"
		"                       --noretcomp; sw with --attach), else sw;\n"
		"                       sw: software (ptrace single-step); pt: hardware\n"
		"                       only; valgrind: the fast software recorder\n"
		"                       (general registers and memory too; Valgrind's\n"
		"                       addresses; no --attach); light: Valgrind logging\n"
		"                       only the program's inputs, its history rebuilt\n"
		"                       from them when first needed (docs/record.md)\n"
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
		"See docs/record.md.\n", STUB_RECORDER_PSB_PERIOD);
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
	a->psb_period = STUB_RECORDER_PSB_PERIOD;
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
	    strcmp(a->mode, "valgrind") && strcmp(a->mode, "light")) {
		fprintf(stderr, "hindsight: --record wants auto, sw, pt, valgrind or light, not '%s'\n",
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

static void cli_record_on_signal(int sig)
{
	(void)sig;
	stub_recorder_stop(cli_record_active);
}

/* What the recorder says, as hindsight says things. */
static void cli_record_say(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "hindsight: %s\n", line);
}

/* The closing summary of a recording that ended as @e says (a full disk:
 * what ran is not what the recording holds). */
static void cli_record_summary(const struct stub_recorder_summary *sum, const char *dir, int e,
			       bool rebuilt)
{
	struct stub_rec_summary s = sum->s;
	double n;

	/* A rebuild: whoever started it named the recording. */
	if (!rebuilt)
		fprintf(stderr, "hindsight: recording in %s\n", dir);
	if (!sum->counted && !s.threads && !s.trace_bytes)
		return;            /* nothing made (a light run stopped: its inputs said) */
	if (!sum->counted) {
		fprintf(stderr, "hindsight: %s (%s), %zu thread%s, %zu gap%s, %llu bytes of "
			"trace\n", sum->name, s.snapshot ? "snapshot" : "full", s.threads,
			s.threads == 1 ? "" : "s", s.gaps, s.gaps == 1 ? "" : "s",
			(unsigned long long)s.trace_bytes);
		return;
	}
	n = s.instructions ? (double)s.instructions : 1.0;
	if (sum->no_state)
		fprintf(stderr, "hindsight: %llu instructions, %zu thread%s, %zu gap%s, %llu bytes "
			"of trace (%.3f B/insn): the history only, its registers and memory "
			"rebuilt when a command needs them\n", (unsigned long long)s.instructions,
			s.threads, s.threads == 1 ? "" : "s", s.gaps, s.gaps == 1 ? "" : "s",
			(unsigned long long)s.trace_bytes, (double)s.trace_bytes / n);
	else
		fprintf(stderr, "hindsight: %llu instructions, %zu thread%s, %zu gap%s, %llu bytes of trace "
		"(%.3f B/insn), %llu bytes of state (%.2f B/insn): %.2f bytes per instruction "
		"in all\n",
		(unsigned long long)s.instructions, s.threads, s.threads == 1 ? "" : "s",
		s.gaps, s.gaps == 1 ? "" : "s", (unsigned long long)s.trace_bytes,
		(double)s.trace_bytes / n, (unsigned long long)s.state_bytes,
		(double)s.state_bytes / n, (double)(s.trace_bytes + s.state_bytes) / n);
	if (e < 0 && stub_rec_unwritable(e))
		fprintf(stderr, "hindsight: those are what ran while recording: the disk filled "
			"before all of it was written, and %s holds what was (`hindsight replay "
			"%s` says how many instructions)\n", dir, dir);
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

/* The end of a recording: status and signal from the bundle. */
static void cli_record_ended(const struct replay_bundle *b, int e, struct cli_record_result *res)
{
	if (!b)
		return;                /* nothing recorded: status 1 */
	res->status = cli_record_status(b);
	res->recorded = true;
	res->signo = b->exit_kind && !strcmp(b->exit_kind, "signaled") ? b->exit_status : 0;
	if (e < 0 && !res->status)
		res->status = 1;
}

void cli_record_delete(const char *dir)
{
	stub_recorder_delete(dir);
}

/* A followed rebuild came to a stop of the live run: its superblock
 * count and ip, 16 bytes, to the serving process (@ctx: the fd). */
static int cli_rebuild_tell(void *ctx, uint64_t count, uint64_t ip)
{
	uint64_t m[2] = { count, ip };
	int fd = (int)(intptr_t)ctx;
	ssize_t w;

	if (fd <= 0)
		return 0;
	do
		w = write(fd, m, sizeof(m));
	while (w < 0 && errno == EINTR);
	return w == (ssize_t)sizeof(m) ? 0 : w < 0 ? -errno : -EIO;
}

static void cli_rebuild_trail_start(void *ctx, const char *dir);

/* The recorder for @a: 0, 1 (said why) if none can record as asked,
 * 2 (said why) for a command line that cannot work. */
static int cli_record_new(const struct record_args *a, struct stub_recorder **out)
{
	struct stub_recorder_options o = {
		.mode = a->mode, .dir = a->dir, .argv = a->attach_pid ? NULL : a->argv,
		.attach_pid = (pid_t)a->attach_pid, .psb_period = (uint32_t)a->psb_period,
		.psb_given = a->psb_given, .noretcomp = a->noretcomp, .snapshot = a->snapshot,
		.aux_size = a->aux_size, .ip_log = a->ip_log, .step_cpuid = a->step_cpuid,
		.vg_verify = a->vg_verify, .rebuild = a->rebuild,
		.rebuild_wstatus = a->rebuild_wstatus, .rebuild_last = a->rebuild_last,
		.rebuild_history_only = a->rebuild_history_only,
		.rebuild_follow = a->rebuild_here_fd > 0, .rebuild_here = cli_rebuild_tell,
		.rebuild_here_ctx = (void *)(intptr_t)a->rebuild_here_fd,
		.light_defer = a->light_defer, .say = cli_record_say,
		.rebuild_trail = a->rebuild_trail, .rebuild_trail_fd = a->rebuild_trail_fd,
		.light_started = a->trail ? cli_rebuild_trail_start : NULL,
		.light_started_ctx = a->trail,
	};
	int e = stub_recorder_new(out, &o);

	return e == -EINVAL ? 2 : e < 0 ? 1 : 0;
}

/* Records with @rec into its directory: the part `hindsight run` shares.
 * Prints what goes wrong; @summary prints the closing summary. */
static void cli_record_go(struct stub_recorder *rec, bool summary, struct cli_record_result *res)
{
	struct sigaction int0, term0;
	int e;

	memset(res, 0, sizeof(*res));
	res->status = 1;
	e = stub_recorder_start(rec);
	snprintf(res->dir, sizeof(res->dir), "%s", stub_recorder_dir(rec));
	if (e < 0)
		return;
	cli_record_active = rec;
	/* A started program gets Ctrl-C itself (same terminal), like under rr;
	 * an attached one is detached. */
	sigaction(SIGINT, NULL, &int0);
	sigaction(SIGTERM, NULL, &term0);
	signal(SIGINT, stub_recorder_attached(rec) ? cli_record_on_signal : SIG_IGN);
	signal(SIGTERM, cli_record_on_signal);
	e = stub_recorder_run(rec);
	cli_record_active = NULL;
	/* As they were: a rebuild after this one (`run`'s) starts the
	 * program again with SIGINT handled as the recorded run had it. */
	sigaction(SIGINT, &int0, NULL);
	sigaction(SIGTERM, &term0, NULL);
	if (e == STUB_RECORDER_NOTHING)
		return;
	if (stub_recorder_deferred(rec, &res->status)) {
		/* A light recording, its history rebuilt when first needed. */
		res->recorded = true;
		res->wstatus = res->status;
		res->signo = WIFSIGNALED(res->status) ? WTERMSIG(res->status) : 0;
		res->status = WIFSIGNALED(res->status) ? 128 + WTERMSIG(res->status) :
			      WEXITSTATUS(res->status);
		stub_recorder_epilogue(rec);
		return;
	}
	if (summary) {
		struct stub_recorder_summary s;

		stub_recorder_summary(rec, &s);
		cli_record_summary(&s, res->dir, e, stub_recorder_rebuilding(rec));
	}
	stub_recorder_epilogue(rec);
	cli_record_ended(stub_recorder_bundle(rec), e, res);
}

int cli_record_program(char **argv, const char *dir, uint64_t snapshot, const char *mode,
		       struct cli_trail *trail, struct cli_record_result *res)
{
	struct stub_recorder *rec;
	struct record_args a;

	memset(&a, 0, sizeof(a));
	memset(res, 0, sizeof(*res));
	res->status = 1;
	a.mode = mode;
	a.psb_period = STUB_RECORDER_PSB_PERIOD;
	a.dir = dir;
	a.snapshot = snapshot;
	a.argv = argv;
	a.light_defer = true;      /* rebuilt when needed: cli_rebuild_pending */
	a.trail = trail;
	if (trail) {
		trail->pid = 0;
		trail->fd = trail->out = -1;
		trail->argv = argv;
		sigaction(SIGINT, NULL, &trail->sigint);
	}
	if (cli_record_new(&a, &rec))
		return -1;
	cli_record_go(rec, false, res);
	stub_recorder_free(rec);
	return res->recorded ? 0 : -1;
}

int cli_record_main(int argc, char **argv)
{
	struct record_args a;
	struct cli_record_result res;
	struct stub_recorder *rec;
	int e;

	e = cli_record_parse(argc, argv, &a);
	if (e == 1) {
		cli_record_usage(stdout);
		return 0;
	}
	if (e)
		return e;
	/* `record` ends with the program; `run` needs the history at once. */
	a.light_defer = true;
	/* The single-stepper's own test options (--ip-log, --step-cpuid) keep
	 * auto on it too (stub_recorder_new). */
	e = cli_record_new(&a, &rec);
	if (e)
		return e;
	cli_record_go(rec, true, &res);
	stub_recorder_free(rec);
	return res.status;
}

void cli_rebuild_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight rebuild [--last N] DIR\n"
		"\n"
		"Rebuild the history and the state of a light recording (`record\n"
		"--record=light`) from the inputs it logged: the program runs again under\n"
		"Valgrind, in the working directory and environment it was recorded in,\n"
		"its syscalls completed from the log instead of the kernel. What the\n"
		"program does otherwise than when recorded (a file it maps changed since,\n"
		"an edited log) ends the history there, said as a \"diverged\" gap.\n"
		"The first command that needs the history rebuilds it once; this does it\n"
		"now, or again (docs/rebuild.md).\n"
		"\n"
		"  --last N   only a window: about the last N superblocks of the run (a\n"
		"             superblock is 5 to 15 instructions), the program run up to\n"
		"             there at the light recorder's speed; the history starts\n"
		"             there with the registers and the memory as they were then.\n"
		"             `run` rebuilds a crashed run so. A run that exec'd is\n"
		"             rebuilt whole.\n");
}

/* Rebuilds the light recording in @dir (absolute) in this process, which
 * takes the recorded run's working directory and environment, saying so
 * first when @say; its history only when @history_only. The exit status
 * `hindsight rebuild` gives. */
static int cli_rebuild_dir(const char *dir, uint64_t last, bool history_only, bool say,
			   int here_fd)
{
	struct stub_vglight_env env;
	struct cli_record_result res;
	struct stub_recorder *rec;
	struct record_args a;
	char err[512], verify[4096] = "", cwd[2048];
	const char *v = getenv("HINDSIGHT_REBUILD_VERIFY");

	/* A debugging aid, as record's --vg-verify: every instruction the
	 * rebuild starts, with its registers (read before the environment
	 * and the working directory become the recorded run's). */
	if (v && v[0] == '/')
		snprintf(verify, sizeof(verify), "%s", v);
	else if (v && getcwd(cwd, sizeof(cwd)))
		snprintf(verify, sizeof(verify), "%s/%s", cwd, v);
	if (stub_vglight_load_env(dir, &env, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s is no light recording (record --record=light): %s\n",
			dir, err);
		return 1;
	}
	if (stub_vglight_take_env(&env, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s: %s\n", dir, err);
		free(env.argv);    /* env.buf may be the environment already: kept */
		return 1;
	}
	/* (A window the recorder cannot make, it says so, and rebuilds whole.) */
	if (say && last)
		fprintf(stderr, "hindsight: rebuilding the history in %s: a window, its last %"
			PRIu64 " superblocks\n", dir, last);
	else if (say)
		fprintf(stderr, "hindsight: rebuilding the history in %s\n", dir);
	memset(&a, 0, sizeof(a));
	a.mode = "light";
	a.rebuild = true;
	a.rebuild_wstatus = env.wstatus;
	a.rebuild_last = last;
	a.rebuild_history_only = history_only;
	a.rebuild_here_fd = here_fd;
	a.vg_verify = verify[0] ? verify : NULL;
	a.psb_period = STUB_RECORDER_PSB_PERIOD;
	a.dir = dir;
	a.argv = env.argv;
	if (cli_record_new(&a, &rec)) {
		free(env.argv);
		return 1;
	}
	cli_record_go(rec, true, &res);
	stub_recorder_free(rec);
	/* The array only: its strings, and the environment's, are env.buf,
	 * which is the environment now (kept). A rebuild that did not end
	 * leaves its mark (stub_vglight_pending). */
	free(env.argv);
	return res.recorded && !stub_vglight_pending(dir) ? 0 : 1;
}

/* @fd's lock on the light recording @dir made @how (LOCK_EX to rebuild
 * it, which replaces its files; LOCK_SH to read it), waiting for it if it
 * must, saying so: a rebuild waits for the commands that read the files
 * it replaces, and a reader for a rebuild. 0, or -1 (@fd closed). */
static int cli_rebuild_relock(int fd, const char *dir, int how)
{
	if (flock(fd, how | LOCK_NB) == 0)
		return 0;
	if (errno == EWOULDBLOCK) {
		fprintf(stderr, "hindsight: %s: waiting for another hindsight that uses it\n", dir);
		while (flock(fd, how) < 0)
			if (errno != EINTR)
				break;
		if (flock(fd, how | LOCK_NB) == 0)
			return 0;
	}
	close(fd);
	return -1;
}

/* The light recording @dir locked @how (cli_rebuild_relock) through a
 * descriptor of its own: a `history` and a `replay` started together
 * take turns. The descriptor, or -1 where there is none to take (not a
 * light recording, a file system without locks: as before, unlocked). */
static int cli_rebuild_lock(const char *dir, int how)
{
	char path[4200];
	int fd;

	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_ENV, dir);
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	return fd < 0 || cli_rebuild_relock(fd, dir, how) < 0 ? -1 : fd;
}

/* The light recording this command reads, locked shared until it ends
 * (cli_rebuild_lock), or -1. */
static int cli_reading_lock = -1;

int cli_rebuild_main(int argc, char **argv)
{
	char dir[4096], *end;
	uint64_t last = 0;
	int lk, rc;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		cli_rebuild_usage(stdout);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "--last")) {
		errno = 0;
		last = strtoull(argv[2], &end, 10);
		if (errno || !last || *end || argv[2][0] == '-') {
			fprintf(stderr, "hindsight: --last needs a number of superblocks above 0, "
				"not %s\n", argv[2]);
			return 2;
		}
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		cli_rebuild_usage(stderr);
		return 2;
	}
	if (!realpath(argv[1], dir)) {
		fprintf(stderr, "hindsight: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	lk = cli_rebuild_lock(dir, LOCK_EX);
	rc = cli_rebuild_dir(dir, last, false, true, -1);
	if (lk >= 0)
		close(lk);
	return rc;
}

/* A window's bundle (`rebuild --last`, `run`) is what the commands use
 * too, saying so: a question about the crash costs what it asks. */
static void cli_rebuild_say_window(const char *dir)
{
	char path[4200], line[256] = "";
	FILE *f;

	snprintf(path, sizeof(path), "%s/" STUB_VGLIGHT_WINDOW, dir);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f))
		line[strcspn(line, "\n")] = 0;
	fclose(f);
	fprintf(stderr, "hindsight: %s holds a window of its run's history only (%s); `hindsight "
		"rebuild %s` rebuilds the whole\n", dir, line, dir);
}

int cli_rebuild_follow(const char *dir, int *fd, pid_t *pid)
{
	int p[2];
	pid_t c;

	if (pipe2(p, O_CLOEXEC) < 0)
		return -errno;
	fflush(NULL);
	c = fork();
	if (c < 0) {
		int e = -errno;

		close(p[0]);
		close(p[1]);
		return e;
	}
	if (c == 0) {
		/* Its own group, Valgrind in it too: killed as one at the
		 * end; and with this process, if that goes first. It
		 * rebuilds while the program runs on live (as far as the log
		 * goes): that program, which the user waits for, comes
		 * first. */
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		/* (Its signal dispositions stay as they are: the program it
		 * runs again inherits them, and must see the live run's.) */
		if (nice(10) < 0)
			errno = 0;         /* as it was: only slower to go back */
		close(p[0]);
		_exit(cli_rebuild_dir(dir, 0, false, false, p[1]));
	}
	setpgid(c, c);
	close(p[1]);
	*fd = p[0];
	*pid = c;
	return 0;
}

/* The exclusive lock @lk (or -1) made the shared one this command reads
 * under until it ends (not at once: a rebuild waiting for the lock may
 * come first, and this command then reads what it made). */
static void cli_rebuild_read(int lk)
{
	while (lk >= 0 && flock(lk, LOCK_SH) < 0) {
		if (errno != EINTR) {
			close(lk);
			return;
		}
	}
	if (lk >= 0)
		cli_reading_lock = lk;
}

static void cli_rebuild_say(const char *dir, uint64_t last, bool more, bool state);

/* The rebuild a command needs before it opens @path: none, the history
 * only (@state false), the whole (@state), or its last @last superblocks;
 * the recording then locked shared until the command ends. @said: what
 * is rebuilt was said already (a trailing rebuild's that was not made). */
static int cli_rebuild_needed(const char *path, uint64_t last, bool state, bool said)
{
	char dir[4096], log[4200];
	struct stub_vglight_scan scan;
	bool more;
	int st, lk, rc;
	pid_t pid;

	if (!realpath(path, dir))
		return 0;
	/* Read shared; to rebuild, exclusive (after the readers), and
	 * looked at again then: another may have rebuilt it meanwhile. */
	lk = cli_reading_lock >= 0 ? -1 : cli_rebuild_lock(dir, LOCK_SH);
	for (int pass = 0;; pass++) {
		/* The history rebuilt before, alone: the rest now. */
		more = state && stub_vglight_history_only(dir);
		if (!more && !stub_vglight_pending(dir)) {
			cli_rebuild_read(lk);
			cli_rebuild_say_window(dir);
			return 0;
		}
		if (pass || lk < 0)
			break;
		if (cli_rebuild_relock(lk, dir, LOCK_EX) < 0) {
			lk = -1;   /* (closed) */
			break;
		}
	}
	/* A window only of a longer run, of one image (stub_recorder.c, lt_window). */
	snprintf(log, sizeof(log), "%s/" STUB_VGLIGHT_LOG, dir);
	if (last && (stub_vglight_scan(log, &scan) < 0 || !stub_vglight_window_fits(&scan, last)))
		last = 0;
	if (!said)
		cli_rebuild_say(dir, last, more, state);
	fflush(NULL);
	/* In a child: the rebuild takes the recorded run's working
	 * directory and environment. */
	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "hindsight: cannot rebuild %s: %s\n", dir, strerror(errno));
		rc = -1;
	} else if (pid == 0) {
		_exit(cli_rebuild_dir(dir, last, !state, false, -1));
	} else {
		while ((rc = (int)waitpid(pid, &st, 0)) < 0 && errno == EINTR)
			;
		rc = rc >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
	}
	/* (The child's copy of the lock went with it: close-on-exec, exit.) */
	cli_rebuild_read(lk);
	return rc;
}

/* What is rebuilt now, said: the last @last superblocks (0: the whole),
 * the state too where the history alone was rebuilt before (@more), the
 * history alone (!@state). */
static void cli_rebuild_say(const char *dir, uint64_t last, bool more, bool state)
{
	if (last)
		fprintf(stderr, "hindsight: %s holds a light recording's %s: rebuilding the "
			"last %" PRIu64 " superblocks of its history, with registers and memory, "
			"from its inputs (`hindsight rebuild` rebuilds the whole)\n", dir,
			more ? "history only" : "inputs", last);
	else if (more)
		fprintf(stderr, "hindsight: %s holds a light recording's history only: rebuilding "
			"its registers and memory too, from its inputs (once)\n", dir);
	else if (!state)
		fprintf(stderr, "hindsight: %s holds a light recording's inputs: rebuilding its "
			"history from them (once; the registers and memory when a command needs "
			"them)\n", dir);
	else
		fprintf(stderr, "hindsight: %s holds a light recording's inputs: rebuilding its "
			"history from them (once; `hindsight rebuild` does it again)\n", dir);
}

int cli_rebuild_pending(const char *path)
{
	return cli_rebuild_needed(path, 0, true, false);
}

int cli_rebuild_pending_history(const char *path)
{
	return cli_rebuild_needed(path, 0, false, false);
}

int cli_rebuild_pending_last(const char *path, uint64_t last)
{
	return cli_rebuild_needed(path, last, true, false);
}

/* --- A window rebuilt beside the light run (`run`) ---------------------- */

/* In the child cli_rebuild_trail_start makes: the light recording in @dir
 * (absolute), whose run is still going, rebuilt as a window of its last
 * @last superblocks, trailing it; the run's end read from @fd. The
 * working directory and environment are the run's own (it was started
 * from this process a moment ago). The exit status `hindsight rebuild`
 * gives. */
static int cli_rebuild_trailing(const char *dir, char **argv, uint64_t last, int fd)
{
	struct cli_record_result res;
	struct stub_recorder *rec;
	struct record_args a;

	memset(&a, 0, sizeof(a));
	a.mode = "light";
	a.rebuild = true;
	a.rebuild_trail = last;
	a.rebuild_trail_fd = fd;
	a.psb_period = STUB_RECORDER_PSB_PERIOD;
	a.dir = dir;
	a.argv = argv;
	if (cli_record_new(&a, &rec))
		return 1;
	cli_record_go(rec, true, &res);
	stub_recorder_free(rec);
	return res.recorded && !stub_vglight_pending(dir) ? 0 : 1;
}

/* The light run of @ctx (a struct cli_trail) has started into @dir: the
 * rebuild that trails it starts, in its own process group (killed with
 * this process). Where it cannot, nothing starts: `run` rebuilds the
 * window after the run, as before. */
static void cli_rebuild_trail_start(void *ctx, const char *dir)
{
	struct cli_trail *t = ctx;
	pid_t parent = getpid(), c;
	char abs[4096];
	int p[2], out;

	if (!realpath(dir, abs))
		return;
	/* What it says is said after the run, if its window is the one
	 * shown: not in the middle of the program's output, and never to a
	 * terminal it is in the background of. */
	out = memfd_create("hindsight-trail", MFD_CLOEXEC);
	if (out < 0)
		return;
	if (pipe2(p, O_CLOEXEC) < 0) {
		close(out);
		return;
	}
	fflush(NULL);
	c = fork();
	if (c < 0) {
		close(p[0]);
		close(p[1]);
		close(out);
		return;
	}
	if (c == 0) {
		setpgid(0, 0);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);          /* it died before that was set */
		close(p[1]);
		dup2(out, STDOUT_FILENO);
		dup2(out, STDERR_FILENO);
		/* The program runs again as it ran: SIGINT handled as the
		 * light run's program had it (this process ignores it now). */
		sigaction(SIGINT, &t->sigint, NULL);
		signal(SIGTERM, SIG_DFL);
		_exit(cli_rebuild_trailing(abs, t->argv, t->last, p[0]));
	}
	setpgid(c, c);
	close(p[0]);
	t->pid = c;
	t->fd = p[1];
	t->out = out;
}

/* What the trailing rebuild said (@fd: its output, a memfd), said now. */
static void cli_rebuild_trail_said(int fd)
{
	char buf[4096];
	ssize_t n;
	off_t at = 0;

	fflush(stderr);
	while ((n = pread(fd, buf, sizeof(buf), at)) > 0) {
		if (write(STDERR_FILENO, buf, (size_t)n) != n)
			break;
		at += n;
	}
}

int cli_rebuild_trail_end(struct cli_trail *t, const char *path, int wstatus, bool want)
{
	struct stub_vglight_scan scan;
	char dir[4096], log[4200];
	bool made = false, said = false, reaped = false;
	int st = 0, lk;

	if (t->pid > 0 && want && realpath(path, dir) &&
	    snprintf(log, sizeof(log), "%s/" STUB_VGLIGHT_LOG, dir) < (int)sizeof(log) &&
	    stub_vglight_scan(log, &scan) == 0 && stub_vglight_window_fits(&scan, t->last)) {
		struct sigaction ign = { .sa_handler = SIG_IGN }, pipe0;
		ssize_t w;

		cli_rebuild_say(dir, t->last, false, true);
		said = true;
		fflush(NULL);
		/* (Gone already, it is EPIPE here, and the rebuild is made
		 * after all, below.) */
		sigaction(SIGPIPE, &ign, &pipe0);
		w = write(t->fd, &wstatus, sizeof(wstatus));
		sigaction(SIGPIPE, &pipe0, NULL);
		if (w == (ssize_t)sizeof(wstatus)) {
			pid_t got;

			while ((got = waitpid(t->pid, &st, 0)) < 0 && errno == EINTR)
				;
			reaped = got == t->pid;
			made = reaped && WIFEXITED(st) && WEXITSTATUS(st) == 0;
		}
	}
	if (made)
		cli_rebuild_trail_said(t->out);
	if (t->pid > 0) {
		/* Its group: its Valgrind too, should it have outlived it. */
		kill(-t->pid, SIGKILL);
		if (!reaped)
			while (waitpid(t->pid, &st, 0) < 0 && errno == EINTR)
				;
		t->pid = 0;
	}
	if (t->fd >= 0)
		close(t->fd);
	if (t->out >= 0)
		close(t->out);
	t->fd = t->out = -1;
	if (!want)
		return 0;
	if (!made)
		return cli_rebuild_needed(path, t->last, true, said);
	/* Read from now on, as after any rebuild. */
	lk = cli_rebuild_lock(dir, LOCK_SH);
	cli_rebuild_read(lk);
	return 0;
}
