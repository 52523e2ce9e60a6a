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
#include "cli/cli_history.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/bundle.h"
#include "replay/calls.h"
#include "replay/decode.h"
#include "replay/index.h"
#include "replay/history_format.h"
#include "replay/image_find.h"
#include "replay/insn.h"
#include "replay/session.h"
#include "replay/symbols.h"

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

/* Everything a listing needs, opened from the bundle. */
struct session {
	struct replay_session *rs;  /* the recording, with its symbols */
	struct replay_bundle *b;    /* rs's */
	size_t thread;
	struct replay_decoder *d;
	struct replay_index idx;
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
	replay_image_set_dirs(a->image_dirs, a->nimage_dirs);
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
	replay_index_release(&s->idx);
	replay_decoder_free(s->d);
	replay_session_free(s->rs);
}

static int pick_thread(struct session *s, const struct hist_args *a)
{
	s->thread = 0;
	if (!s->b->nthreads) {
		fprintf(stderr, "hindsight: %s: the recording has no threads\n", a->dir);
		return -1;
	}
	if (!a->have_tid)
		return 0;
	for (size_t i = 0; i < s->b->nthreads; i++) {
		if (s->b->threads[i].tid == a->tid) {
			s->thread = i;
			return 0;
		}
	}
	fprintf(stderr, "hindsight: %s: no thread %" PRId64 " in the recording\n", a->dir, a->tid);
	return -1;
}

static const char *decoder_error(int rc)
{
	return rc == -EINVAL ? "the trace's configuration is not supported (unknown cpu?)"
			     : strerror(-rc);
}

/* Loads the bundle, the symbols and a decoder. 0, or -1 with the reason
 * printed. */
static int session_open(struct session *s, const struct hist_args *a)
{
	char err[512];
	int rc;

	memset(s, 0, sizeof(*s));
	clock_gettime(CLOCK_MONOTONIC, &s->t0);
	/* Functions, files and lines from DWARF (dwarf/ falls back to ELF
	 * symbols and name@plt where there is no debug info); no state log. */
	rc = replay_session_open(a->dir, REPLAY_SESSION_SYMBOLS, &s->rs, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s\n", err);
		return -1;
	}
	s->b = s->rs->b;
	cli_say_notes(s->b);
	if (pick_thread(s, a) < 0)
		return -1;
	rc = replay_decoder_new(s->b, s->thread, &s->d);
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s: thread %" PRId64 ": %s\n", a->dir,
			s->b->threads[s->thread].tid, decoder_error(rc));
		return -1;
	}
	return 0;
}

/* ---- history --------------------------------------------------------- */

static void json_line(json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	if (text)
		printf("%s\n", text);
	free(text);
	json_decref(o);
}

static json_t *json_hex(uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%" PRIx64, v);
	return json_string(buf);
}

static void add_symbol(json_t *o, const struct replay_symbol *sym)
{
	if (sym->function)
		json_object_set_new(o, "function", json_string(sym->function));
	if (sym->file)
		json_object_set_new(o, "file", json_string(sym->file));
	if (sym->line)
		json_object_set_new(o, "line", json_integer(sym->line));
	if (sym->ninlined) {
		json_t *a = json_array();

		for (size_t i = 0; a && i < sym->ninlined; i++)
			json_array_append_new(a, json_string(sym->inlined[i] ? sym->inlined[i] : "??"));
		if (a)
			json_object_set_new(o, "inlined", a);
	}
}

static void print_json_item(const struct session *s, const struct hist_args *a,
			    const struct replay_item *it)
{
	json_t *o = json_object();
	struct replay_symbol sym;
	char text[256];

	if (!o)
		return;
	json_object_set_new(o, "index", json_integer((json_int_t)it->index));
	json_object_set_new(o, "thread", json_integer(s->b->threads[s->thread].tid));
	if (it->kind == REPLAY_ITEM_GAP) {
		json_object_set_new(o, "gap", json_string(it->text));
		json_object_set_new(o, "error", json_integer(it->error));
		if (it->has_addr)
			json_object_set_new(o, "addr", json_hex(it->addr));
		json_line(o);
		return;
	}
	json_object_set_new(o, "addr", json_hex(it->insn.ip));
	if (s->rs->sym.lookup(s->rs->sym.ctx, it->insn.ip, &sym) == 0)
		add_symbol(o, &sym);
	if (it->insn.size &&
	    replay_insn_format(&it->insn, it->bits, a->o.intel ? REPLAY_SYNTAX_INTEL : REPLAY_SYNTAX_ATT,
			       text, sizeof(text)) == 0)
		json_object_set_new(o, "insn", json_string(text));
	json_line(o);
}

static int build_index(struct session *s, const struct hist_args *a)
{
	int rc = replay_index_build(&s->idx, s->b, s->thread, progress, s);

	if (rc < 0) {
		fprintf(stderr, "hindsight: %s: %s\n", a->dir, decoder_error(rc));
		return -1;
	}
	if (s->progress_shown)
		fprintf(stderr, "decoding: %" PRIu64 " instructions, done\n", s->idx.nitems);
	return 0;
}

static int list_items(struct session *s, const struct hist_args *a, uint64_t begin, uint64_t end)
{
	struct replay_history_src last = { 0 };
	struct replay_item it;
	int rc;

	rc = replay_index_seek(&s->idx, s->d, begin);
	while (rc == 0 && (rc = replay_decoder_next(s->d, &it)) == 1 && it.index <= end) {
		rc = 0;
		if (a->json)
			print_json_item(s, a, &it);
		else if (it.kind == REPLAY_ITEM_GAP)
			printf("%" PRIu64 "\t", it.index), replay_history_print_gap(stdout, it.error, it.text);
		else
			replay_history_print_insn(stdout, &s->rs->sym, &a->o, &it, false, &last);
	}
	replay_history_src_release(&last);
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s: %s\n", a->dir, strerror(-rc));
		return -1;
	}
	return 0;
}

void cli_say_notes(const struct replay_bundle *b)
{
	for (size_t i = 0; i < b->nnotes; i++)
		fprintf(stderr, "hindsight: warning: %s\n", b->notes[i]);
}

int cli_history_main(int argc, char **argv)
{
	struct hist_args a = { 0 };
	struct session s;
	uint64_t begin, end;
	int rc = parse_args(argc, argv, &a, false);

	if (rc)
		return rc > 0 ? 0 : 2;
	if (session_open(&s, &a) < 0 || build_index(&s, &a) < 0 ||
	    resolve_range(a.range, a.size, s.idx.nitems, &begin, &end) < 0 ||
	    list_items(&s, &a, begin, end) < 0) {
		session_close(&s);
		return 1;
	}
	session_close(&s);
	return fflush(stdout) == 0 ? 0 : 1;
}

/* ---- calls ----------------------------------------------------------- */

static void print_json_segment(const struct session *s, uint64_t number, const struct replay_segment *g)
{
	json_t *o = json_object();

	if (!o)
		return;
	json_object_set_new(o, "index", json_integer((json_int_t)number));
	json_object_set_new(o, "thread", json_integer(s->b->threads[s->thread].tid));
	if (g->gap) {
		json_object_set_new(o, "gap", json_string(g->text));
		json_object_set_new(o, "error", json_integer(g->error));
	} else {
		if (g->function)
			json_object_set_new(o, "function", json_string(g->function));
		json_object_set_new(o, "level", json_integer(g->level));
		if (g->file)
			json_object_set_new(o, "file", json_string(g->file));
		if (g->line_min) {
			json_object_set_new(o, "line_min", json_integer(g->line_min));
			json_object_set_new(o, "line_max", json_integer(g->line_max));
		}
	}
	json_object_set_new(o, "first", json_integer((json_int_t)g->first));
	json_object_set_new(o, "last", json_integer((json_int_t)g->last));
	json_line(o);
}

int cli_calls_main(int argc, char **argv)
{
	struct replay_calls calls = { 0 };
	struct hist_args a = { 0 };
	struct session s;
	uint64_t begin, end;
	int rc = parse_args(argc, argv, &a, true);

	if (rc)
		return rc > 0 ? 0 : 2;
	if (session_open(&s, &a) < 0)
		goto fail;
	rc = replay_calls_build(&calls, s.d, &s.rs->sym, progress, &s);
	if (rc < 0) {
		fprintf(stderr, "hindsight: %s: %s\n", a.dir, strerror(-rc));
		goto fail;
	}
	if (s.progress_shown)
		fprintf(stderr, "decoding: done\n");
	if (resolve_range(a.range, a.size, calls.n, &begin, &end) < 0)
		goto fail;
	for (uint64_t i = begin; i <= end; i++) {
		if (a.json)
			print_json_segment(&s, i, &calls.segs[i - 1]);
		else
			replay_history_print_segment(stdout, &a.o, i, &calls.segs[i - 1]);
	}
	replay_calls_release(&calls);
	session_close(&s);
	return fflush(stdout) == 0 ? 0 : 1;
fail:
	replay_calls_release(&calls);
	session_close(&s);
	return 1;
}
