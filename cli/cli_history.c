/*
 * cli/cli_history.c: `hindsight history` and `hindsight calls`.
 *
 * GDB's `record instruction-history` and `record function-call-history`
 * over a saved recording: the same range syntax (N / N,M / N,+K / N,-K,
 * plus N, and ,M), the same modifiers and the same line layout, so what
 * a GDB user knows carries over. `--json` writes one object per line for
 * tools. The index is built first (one pass counting blocks); a listing
 * then decodes only its window. Decoding that takes over a second says so
 * on stderr.
 */
#include "cli/cli_record.h"
#include "cli/cli_history.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/model/bundle.h"
#include "replay/frontend/frontend_report.h"

#define CLI_HISTORY_IMAGE_DIRS 16

struct hist_args {
	const char *dir;
	const char *image_dirs[CLI_HISTORY_IMAGE_DIRS];  /* --image-dir */
	size_t nimage_dirs;
	char range[128];
	bool json, have_tid;
	int64_t tid;
	uint64_t size;
	struct replay_history_opts o;  /* modifiers and --intel */
};

/* A report and how its decoding is going. */
struct session {
	struct replay_report *r;
	struct timespec t0;
	bool progress_shown;
	time_t last_progress;
};

void cli_history_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight history DIR [RANGE] [/m] [/s] [/r] [/f] [/p] [OPTIONS]\n"
		"\n"
		"Print the instructions a recording's thread executed, numbered from 1,\n"
		"like GDB's `record instruction-history`. RANGE:\n"
		"  (none)   the last 10 instructions\n"
		"  N        10 instructions from N\n"
		"  N,M      N to M, inclusive\n"
		"  N,+K     K instructions from N;   N,-K  K instructions up to N\n"
		"  N,       10 instructions from N;  ,M    10 instructions up to M\n"
		"Modifiers: /m or /s source lines, /r raw bytes, /f no function names,\n"
		"/p no position prefix. A gap in the trace prints as\n"
		"`[decode error (E): libipt's text]` and takes a number.\n"
		"\n"
		"Options:\n"
		"  --thread TID  the thread (default: the first one in the recording)\n"
		"  --size N      instructions for a RANGE without an end (default 10)\n"
		"  --intel       Intel syntax (default: AT&T, as GDB)\n"
		"  --image-dir DIR  also look for the recording's images here (by\n"
		"                build-id, then by name; repeatable)\n"
		"  --json        one JSON object per line: {\"index\",\"thread\",\"addr\",\n"
		"                \"function\",\"file\",\"line\",\"insn\"} or {\"index\",\"gap\",...}\n"
		"  -h, --help    show this help\n"
		"See docs/history.md.\n");
}

void cli_calls_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight calls DIR [RANGE] [/i] [/l] [/c] [OPTIONS]\n"
		"\n"
		"Print a recording's thread as function segments, numbered from 1, like\n"
		"GDB's `record function-call-history`: one line per run of instructions\n"
		"in one function; a call goes one level deeper, a return back up.\n"
		"RANGE is as for `hindsight history` (default: the last 10 segments).\n"
		"Modifiers: /i instruction numbers, /l source lines, /c indent by depth.\n"
		"\n"
		"Options:\n"
		"  --thread TID  the thread (default: the first one in the recording)\n"
		"  --size N      segments for a RANGE without an end (default 10)\n"
		"  --image-dir DIR  also look for the recording's images here (by\n"
		"                build-id, then by name; repeatable)\n"
		"  --json        one JSON object per line\n"
		"  -h, --help    show this help\n"
		"See docs/history.md.\n");
}

static int modifiers(const char *m, struct hist_args *a, bool calls)
{
	char bad = 0;

	if (replay_history_modifiers(m, calls, &a->o, &bad) < 0) {
		fprintf(stderr, "hindsight: invalid modifier: %c\n", bad);
		return -EINVAL;
	}
	return 0;
}

static void append_range(struct hist_args *a, const char *s)
{
	size_t len = strlen(a->range);

	snprintf(a->range + len, sizeof(a->range) - len, "%s", s);
}

/* 0 to run, 1 for --help (done), -1 for a usage error (message printed). */
static int parse_args(int argc, char **argv, struct hist_args *a, bool calls)
{
	a->size = 10;
	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "-h") || !strcmp(s, "--help")) {
			(calls ? cli_calls_usage : cli_history_usage)(stdout);
			return 1;
		} else if (!strcmp(s, "--json")) {
			a->json = true;
		} else if (!strcmp(s, "--intel") && !calls) {
			a->o.intel = true;
		} else if (!strcmp(s, "--image-dir")) {
			if (i + 1 >= argc || a->nimage_dirs == CLI_HISTORY_IMAGE_DIRS) {
				fprintf(stderr, "hindsight: --image-dir needs a directory (at most %d)\n",
					CLI_HISTORY_IMAGE_DIRS);
				return -1;
			}
			a->image_dirs[a->nimage_dirs++] = argv[++i];
		} else if (!strcmp(s, "--thread") || !strcmp(s, "--size")) {
			uint64_t v;

			if (i + 1 >= argc || replay_history_parse_u64(argv[i + 1], &v) < 0 || (s[2] == 's' && !v)) {
				fprintf(stderr, "hindsight: %s needs a positive number\n", s);
				return -1;
			}
			i++;
			if (s[2] == 's') {
				a->size = v;
			} else {
				a->tid = (int64_t)v;
				a->have_tid = true;
			}
		} else if (s[0] == '/' && s[1] && !s[strspn(s + 1, calls ? "ilc" : "msrfp") + 1]) {
			/* GDB's modifiers; any other word with a slash is a path. */
			if (modifiers(s, a, calls) < 0)
				return -1;
		} else if (s[0] == '-' && s[1] == '-') {
			fprintf(stderr, "hindsight: unknown option '%s'. Try 'hindsight %s --help'.\n", s,
				argv[0]);
			return -1;
		} else if (!a->dir) {
			a->dir = s;
		} else {
			append_range(a, s);
		}
	}
	if (!a->dir) {
		(calls ? cli_calls_usage : cli_history_usage)(stderr);
		return -1;
	}
	/* Images not where the recording says are looked for there too. */
	replay_report_image_dirs(a->image_dirs, a->nimage_dirs);
	return 0;
}

/* GDB's range syntax over items 1..@total: [*begin, *end]. 0, or -1 with
 * GDB's message printed. */
static int resolve_range(const char *r, uint64_t size, uint64_t total, uint64_t *begin,
			 uint64_t *end)
{
	char msg[160];

	if (replay_history_range(r, size, total, total, begin, end, msg, sizeof(msg)) < 0) {
		fprintf(stderr, "%s\n", msg);
		return -1;
	}
	return 0;
}

static double elapsed(const struct session *s)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)(t.tv_sec - s->t0.tv_sec) + (double)(t.tv_nsec - s->t0.tv_nsec) / 1e9;
}

/* A progress line on stderr once a second, after the first second. */
static int progress(void *ctx, uint64_t items)
{
	struct session *s = ctx;
	double t = elapsed(s);

	if (t >= 1.0 && (time_t)t != s->last_progress) {
		s->last_progress = (time_t)t;
		s->progress_shown = true;
		fprintf(stderr, "decoding: %" PRIu64 " instructions...\n", items);
	}
	return 0;
}

static void session_close(struct session *s)
{
	replay_report_free(s->r);
}

/* Opens the recording with its symbols and a decoder over the thread. 0,
 * or -1 with the reason printed. */
static int session_open(struct session *s, const struct hist_args *a)
{
	char err[512];

	memset(s, 0, sizeof(*s));
	if (cli_rebuild_pending_history(a->dir) < 0)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	if (replay_report_open(a->dir, true, &s->r, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		return -1;
	}
	if (replay_report_thread(s->r, a->have_tid, a->tid, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		return -1;
	}
	return 0;
}

/* ---- history --------------------------------------------------------- */

static int build_index(struct session *s)
{
	char err[512];

	if (replay_report_index(s->r, progress, s, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		return -1;
	}
	if (s->progress_shown)
		fprintf(stderr, "decoding: %" PRIu64 " instructions, done\n", s->r->nitems);
	cli_say_notes(s->r->b);  /* with what the index found (a damaged trace) */
	return 0;
}

static int list_items(struct session *s, const struct hist_args *a, uint64_t begin, uint64_t end)
{
	char err[512];

	if (replay_report_history(s->r, &a->o, begin, end, a->json, stdout, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		return -1;
	}
	return 0;
}

void cli_say_notes(const struct replay_bundle *b)
{
	for (size_t i = 0; i < b->nnotes; i++)
		fprintf(stderr, "hindsight: warning: %s\n", b->notes[i]);
	/* A light recording's rebuild that stopped: its gap says why. */
	for (size_t i = 0; i < b->ngaps; i++)
		if (!strcmp(b->gaps[i].kind, "diverged")) {
			fprintf(stderr, "hindsight: warning: %s: the history ends there\n",
				b->gaps[i].text);
			return;
		}
	/* A recorder killed, a full disk, a program let go on unrecorded: the
	 * manifest saved last says so, and its history stops short. */
	if (!b->complete)
		fprintf(stderr, "hindsight: warning: the recording did not finish (its recorder "
			"was killed, its disk filled, or the program went on unrecorded): its "
			"history ends where the recorder stopped writing, not where the program "
			"did\n");
}

int cli_history_main(int argc, char **argv)
{
	struct hist_args a = { 0 };
	struct session s;
	uint64_t begin, end;
	int rc = parse_args(argc, argv, &a, false);

	if (rc)
		return rc > 0 ? 0 : 2;
	if (session_open(&s, &a) < 0 || build_index(&s) < 0 ||
	    resolve_range(a.range, a.size, s.r->nitems, &begin, &end) < 0 ||
	    list_items(&s, &a, begin, end) < 0) {
		session_close(&s);
		return 1;
	}
	session_close(&s);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- calls ----------------------------------------------------------- */

int cli_calls_main(int argc, char **argv)
{
	struct hist_args a = { 0 };
	struct session s;
	uint64_t begin, end;
	char err[512];
	int rc = parse_args(argc, argv, &a, true);

	if (rc)
		return rc > 0 ? 0 : 2;
	if (session_open(&s, &a) < 0)
		goto fail;
	cli_say_notes(s.r->b);
	if (replay_report_calls(s.r, progress, &s, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		goto fail;
	}
	if (s.progress_shown)
		fprintf(stderr, "decoding: done\n");
	if (resolve_range(a.range, a.size, s.r->ncalls, &begin, &end) < 0)
		goto fail;
	if (replay_report_calls_print(s.r, &a.o, begin, end, a.json, stdout, err, sizeof(err)) < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		goto fail;
	}
	session_close(&s);
	return fflush(stdout) == 0 ? 0 : 1;
fail:
	session_close(&s);
	return 1;
}
