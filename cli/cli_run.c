/*
 * cli/cli_run.c: `hindsight run`.
 *
 *   hindsight run [-o DIR] [--record=auto|sw|valgrind|light] [--snapshot SIZE] [--keep]
 *                 [--] PROG [ARGS...]
 *
 * Runs PROG under the recorder --record names, record's auto by default:
 * Valgrind's light recorder where it is installed, which costs no rebuild
 * unless the program crashes (the record path of cli/cli_record.c, through
 * stub/recorders/stub_recorder.h), with no debugger. When a signal kills it, the
 * recording is kept and an explanation of how it got there goes to stderr
 * (replay/decode/explain.h: the faulting instruction and line, the registers it
 * uses, the call stack unwound there, the last lines executed),
 * then the commands that open the recording. When it exits, the recording
 * is deleted unless --keep. The exit status is the program's (128 +
 * signal if killed); 1 if it cannot be started, 2 for a bad command line.
 */
#include "cli/cli_run.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli_record.h"
#include "replay/frontend/frontend_report.h"
#include "stub/recorders/stub_vgrec.h"

struct run_args {
	const char *dir;
	bool keep;
	const char *mode;          /* --record: auto, sw, valgrind or light */
	uint64_t snapshot;
	char **argv;
};

void cli_run_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight run [-o DIR] [--record=auto|sw|valgrind|light] [--snapshot SIZE]\n"
		"                     [--keep]\n"
		"                     [--] PROG [ARGS...]\n"
		"\n"
		"Run PROG under a recorder, with no debugger. If a signal\n"
		"kills it (SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL, ...), keep the\n"
		"recording and explain how it got there: the faulting instruction and\n"
		"its source line, the registers it uses, the call stack and the last\n"
		"lines executed, and the commands that open the recording. If it\n"
		"exits, delete the recording (unless --keep).\n"
		"\n"
		"Options:\n"
		"  -o, --output DIR     the recording (default hindsight-PROG-PID)\n"
		"  -k, --keep           keep the recording when the program exits\n"
		"  --record=MODE        auto (default): light where Valgrind is installed\n"
		"                       (valgrind with --snapshot), else sw;\n"
		"                       light: Valgrind logging the program's inputs only,\n"
		"                       its history rebuilt from them if it crashed;\n"
		"                       valgrind: every effect as it runs (but vector\n"
		"                       registers); sw: single steps, every register and\n"
		"                       written byte, natively\n"
		"  --snapshot SIZE      keep only about the newest SIZE bytes of trace and\n"
		"                       state per thread (K, M, G suffixes), as a ring\n"
		"  -h, --help           show this help\n"
		"\n"
		"The exit status is the program's, 128 + N if signal N killed it.\n"
		"See docs/run.md.\n");
}

/* 0, 1 for --help, 2 (after a message) for a bad command line. */
static int cli_run_parse(int argc, char **argv, struct run_args *a)
{
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "keep", no_argument, NULL, 'k' },
		{ "snapshot", required_argument, NULL, 's' },
		{ "record", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(a, 0, sizeof(*a));
	a->mode = "auto";
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:kh", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->dir = optarg; break;
		case 'k': a->keep = true; break;
		case 'r':
			if (strcmp(optarg, "auto") && strcmp(optarg, "sw") &&
			    strcmp(optarg, "valgrind") && strcmp(optarg, "light")) {
				fprintf(stderr, "hindsight: run's --record wants auto, sw, valgrind "
					"or light, not '%s'\n", optarg);
				return 2;
			}
			a->mode = optarg;
			break;
		case 's':
			if (cli_record_size(optarg, &a->snapshot) < 0) {
				fprintf(stderr, "hindsight: bad --snapshot size '%s' (4K .. 1G)\n",
					optarg);
				return 2;
			}
			break;
		case 'h': return 1;
		default:
			fprintf(stderr, "Try 'hindsight run --help'.\n");
			return 2;
		}
	}
	a->argv = argv + optind;
	if (!a->argv[0]) {
		fprintf(stderr, "hindsight: run wants a program to run\n"
			"Try 'hindsight run --help'.\n");
		return 2;
	}
	return 0;
}

/* The recorder for --record=auto: record's choice but hardware PT, whose
 * recordings have no state log to show the crash's registers from: the
 * light recorder where Valgrind and the tool are here (the full one for
 * --snapshot), else single steps, said. */
static const char *cli_run_auto(uint64_t snapshot)
{
	char dir[4096], why[256];

	if (stub_vgrec_available(dir, sizeof(dir), why, sizeof(why)))
		return snapshot ? "valgrind" : "light";
	fprintf(stderr, "hindsight: %s; recording in software (single steps)\n", why);
	return "sw";
}

/* The explanation of a recording whose program @signo killed. 0, or -1
 * after a message. */
static int cli_run_explain(const char *dir, int signo)
{
	char err[512];
	int rc = replay_report_explain(stderr, dir, signo, err, sizeof(err));

	if (rc < 0)
		fprintf(stderr, "hindsight: cannot explain the crash from %s: %s\n", dir, err);
	return rc < 0 ? -1 : 0;
}

/* A light recording of a crash is rebuilt for its explanation only as a
 * window of the run's last this many superblocks (5 to 10 instructions
 * each: a second or two of the full instrumentation), the rest run at the
 * light recorder's speed: the crash, its registers, its stack, and the
 * history of its last two million instructions or so. */
#define CLI_RUN_WINDOW 250000ull

static void cli_run_open_hint(const char *dir, const char *prog)
{
	fprintf(stderr,
		"\nThe recording is in %s. To look at it:\n"
		"  hindsight history %s /s            # the last instructions, with source\n"
		"  hindsight timeline %s -o %s.html   # every thread's calls, in a browser\n"
		"  hindsight serve --replay %s :2345\n"
		"  gdb -ex 'target remote :2345' %s   # then bt, reverse-step, reverse-continue\n",
		dir, dir, dir, dir, dir, prog);
}

int cli_run_main(int argc, char **argv)
{
	struct cli_trail trail = { .last = CLI_RUN_WINDOW, .fd = -1, .out = -1 };
	const char *trail_env;
	struct cli_record_result res;
	struct run_args a;
	int e = cli_run_parse(argc, argv, &a);

	if (e == 1) {
		cli_run_usage(stdout);
		return 0;
	}
	if (e)
		return e;
	if (!strcmp(a.mode, "auto"))
		a.mode = cli_run_auto(a.snapshot);
	/* A light run's window is rebuilt beside it as it goes, in case
	 * it crashes (HINDSIGHT_RUN_TRAIL=0: after it, as before: tests and
	 * make bench compare them). */
	trail_env = getenv("HINDSIGHT_RUN_TRAIL");
	if (cli_record_program(a.argv, a.dir, a.snapshot, a.mode,
			       trail_env && !strcmp(trail_env, "0") ? NULL : &trail, &res) < 0) {
		cli_rebuild_trail_end(&trail, res.dir, 0, false);
		return res.status;
	}
	if (res.signo) {
		fflush(stdout);
		if (cli_rebuild_trail_end(&trail, res.dir, res.wstatus, true) < 0)
			return res.status;
		cli_run_explain(res.dir, res.signo);
		cli_run_open_hint(res.dir, a.argv[0]);
		return res.status;
	}
	cli_rebuild_trail_end(&trail, res.dir, 0, false);
	if (a.keep) {
		fprintf(stderr, "hindsight: %s exited with status %d; the recording is in %s\n",
			a.argv[0], res.status, res.dir);
	} else {
		cli_record_delete(res.dir);
		fprintf(stderr, "hindsight: %s exited with status %d; recording deleted "
			"(--keep keeps it)\n", a.argv[0], res.status);
	}
	return res.status;
}
