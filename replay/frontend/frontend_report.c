/*
 * replay/frontend/frontend_report.c: history, calls, timeline and run's
 * explanation over a recording opened for reading (see
 * frontend_report.h).
 */
#include "replay/frontend/frontend_report.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "replay/model/fingerprint.h"
#include "replay/model/kept.h"
#include "replay/decode/calls.h"
#include "replay/decode/dwarf_symbols.h"
#include "replay/decode/cursor.h"
#include "replay/decode/explain.h"
#include "replay/frontend/frontend_origin.h"
#include "replay/model/image_find.h"
#include "replay/decode/index.h"
#include "replay/decode/insn.h"
#include "replay/decode/session.h"

_Static_assert(REPLAY_REPORT_IMAGE_DIRS_MAX == REPLAY_IMAGE_DIRS_MAX, "image_find's limit");

void replay_report_image_dirs(const char *const *dirs, size_t n)
{
	replay_image_set_dirs(dirs, n);
}

int replay_report_open(const char *dir, bool symbols, struct replay_report **out, char *err,
		       size_t errsize)
{
	struct replay_report *r = calloc(1, sizeof(*r));
	int rc;

	*out = NULL;
	if (!r) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	/* Functions, files and lines from DWARF (dwarf/ falls back to ELF
	 * symbols and name@plt where there is no debug info); no state log. */
	rc = replay_session_open(dir, symbols ? REPLAY_SESSION_SYMBOLS : 0, &r->rs, err, errsize);
	if (rc < 0) {
		free(r);
		return rc;
	}
	r->b = r->rs->b;
	r->dir = dir;
	*out = r;
	return 0;
}

void replay_report_free(struct replay_report *r)
{
	if (!r)
		return;
	if (r->marks)
		replay_calls_marks_release(r->marks);
	free(r->marks);
	if (r->idx)
		replay_index_release(r->idx);
	free(r->idx);
	replay_decoder_free(r->d);
	replay_session_free(r->rs);
	free(r);
}

static const char *decoder_error(int rc)
{
	return rc == -EINVAL ? "the trace's configuration is not supported (unknown cpu?)"
			     : strerror(-rc);
}

int replay_report_thread(struct replay_report *r, bool have_tid, int64_t tid, char *err,
			 size_t errsize)
{
	int rc;

	r->thread = 0;
	if (!r->b->nthreads) {
		snprintf(err, errsize, "%s: the recording has no threads", r->dir);
		return -ENOENT;
	}
	for (size_t i = 0; have_tid && i <= r->b->nthreads; i++) {
		if (i == r->b->nthreads) {
			snprintf(err, errsize, "%s: no thread %" PRId64 " in the recording", r->dir,
				 tid);
			return -ENOENT;
		}
		if (r->b->threads[i].tid == tid) {
			r->thread = i;
			break;
		}
	}
	rc = replay_decoder_new(r->b, r->thread, &r->d);
	if (rc < 0)
		snprintf(err, errsize, "%s: thread %" PRId64 ": %s", r->dir,
			 r->b->threads[r->thread].tid, decoder_error(rc));
	return rc < 0 ? rc : 0;
}

int replay_report_index(struct replay_report *r, replay_progress_fn progress, void *ctx,
			char *err, size_t errsize)
{
	int rc;

	r->idx = calloc(1, sizeof(*r->idx));
	rc = r->idx ? replay_index_build(r->idx, r->b, r->thread, progress, ctx) : -ENOMEM;
	if (rc < 0) {
		snprintf(err, errsize, "%s: %s", r->dir, decoder_error(rc));
		return rc;
	}
	r->nitems = r->idx->nitems;
	rc = replay_session_check_count(r->rs, r->thread, r->idx->ninsns);
	if (rc < 0)
		snprintf(err, errsize, "out of memory");
	return rc;
}

/* ---- JSON ------------------------------------------------------------- */

static void json_line(FILE *out, json_t *o)
{
	char *text = o ? json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;

	if (text)
		fprintf(out, "%s\n", text);
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

		for (size_t i = 0; a && i < sym->ninlined; i++) {
			const char *name = sym->inlined[i] ? sym->inlined[i] : "??";

			json_array_append_new(a, json_string(name));
		}
		if (a)
			json_object_set_new(o, "inlined", a);
	}
}

static void print_json_item(const struct replay_report *r, const struct replay_history_opts *ho,
			    const struct replay_item *it, FILE *out)
{
	json_t *o = json_object();
	struct replay_symbol sym;
	char text[256];

	if (!o)
		return;
	json_object_set_new(o, "index", json_integer((json_int_t)it->index));
	json_object_set_new(o, "thread", json_integer(r->b->threads[r->thread].tid));
	if (it->kind == REPLAY_ITEM_GAP) {
		json_object_set_new(o, "gap", json_string(it->text));
		json_object_set_new(o, "error", json_integer(it->error));
		if (it->has_addr)
			json_object_set_new(o, "addr", json_hex(it->addr));
		json_line(out, o);
		return;
	}
	json_object_set_new(o, "addr", json_hex(it->insn.ip));
	replay_symbolizer_at(&r->rs->sym, it->time);
	if (r->rs->sym.lookup(r->rs->sym.ctx, it->insn.ip, &sym) == 0)
		add_symbol(o, &sym);
	if (it->insn.size &&
	    replay_insn_format(&it->insn, it->bits,
			       ho->intel ? REPLAY_SYNTAX_INTEL : REPLAY_SYNTAX_ATT, text,
			       sizeof(text)) == 0)
		json_object_set_new(o, "insn", json_string(text));
	json_line(out, o);
}

static void print_json_segment(const struct replay_report *r, uint64_t number,
			       const struct replay_segment *g, FILE *out)
{
	json_t *o = json_object();

	if (!o)
		return;
	json_object_set_new(o, "index", json_integer((json_int_t)number));
	json_object_set_new(o, "thread", json_integer(r->b->threads[r->thread].tid));
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
	json_line(out, o);
}

/* ---- listings --------------------------------------------------------- */

int replay_report_history(struct replay_report *r, const struct replay_history_opts *o,
			  uint64_t begin, uint64_t end, bool json, FILE *out, char *err,
			  size_t errsize)
{
	struct replay_history_src last = { 0 };
	struct replay_item it;
	int rc;

	rc = replay_index_seek(r->idx, r->d, begin);
	while (rc == 0 && (rc = replay_decoder_next(r->d, &it)) == 1 && it.index <= end) {
		rc = 0;
		if (json) {
			print_json_item(r, o, &it, out);
		} else if (it.kind == REPLAY_ITEM_GAP) {
			fprintf(out, "%" PRIu64 "\t", it.index);
			replay_history_print_gap(out, it.error, it.text);
		} else {
			replay_history_print_insn(out, &r->rs->sym, o, &it, false, &last);
		}
	}
	replay_history_src_release(&last);
	if (rc < 0) {
		snprintf(err, errsize, "%s: %s", r->dir, strerror(-rc));
		return rc;
	}
	return 0;
}

/* What the marks of the thread depend on: what its trace's decoding
 * does (replay_kept_key_trace: this program and its libraries, the
 * manifest, the trace and its checksums, every mapping) and the files
 * the symbols come from. */
static uint64_t marks_key(const struct replay_report *r)
{
	uint64_t h = replay_fingerprint(REPLAY_FINGERPRINT_START, "calls-marks-2", 14);

	h = replay_kept_key_trace(r->b, r->thread, h);
	return replay_dwarf_symbols_fingerprint(r->rs->ds, h, r->b);
}

/* Where the thread's marks are kept and under which key (computed once:
 * it reads /proc/self/maps and stats every file the recording names), or
 * false when they are not kept. */
static bool marks_where(const struct replay_report *r, char *path, size_t size, uint64_t *key)
{
	if (!r->rs->ds || !replay_kept_path(r->b, r->b->threads[r->thread].pt_file, ".calls",
					    path, size))
		return false;
	*key = marks_key(r);
	return true;
}

/* The marks walked anew, kept at @path under @key when @keep (where it
 * cannot be written, a read-only recording, the next listing walks again). */
static int marks_build(struct replay_report *r, bool keep, const char *path, uint64_t key,
		       replay_progress_fn progress, void *ctx)
{
	int rc;

	replay_calls_marks_release(r->marks);
	rc = replay_decoder_rewind(r->d);
	if (rc == 0)
		rc = replay_calls_marks_build(r->marks, r->d, &r->rs->sym, progress, ctx);
	if (rc == 0 && keep)
		replay_calls_marks_save(r->marks, key, path);
	return rc;
}

int replay_report_calls(struct replay_report *r, replay_progress_fn progress, void *ctx,
			char *err, size_t errsize)
{
	char path[4200];
	uint64_t key = 0;
	bool keep = marks_where(r, path, sizeof(path), &key);
	int rc;

	r->marks = calloc(1, sizeof(*r->marks));
	if (!r->marks) {
		snprintf(err, errsize, "out of memory");
		return -ENOMEM;
	}
	/* Kept by an earlier listing: the walk is not made again. A file
	 * for another key, or a damaged one, is made again. */
	rc = keep ? replay_calls_marks_load(r->marks, key, path) : -ENOENT;
	r->marks_loaded = rc == 0;
	if (rc < 0)
		rc = marks_build(r, keep, path, key, progress, ctx);
	if (rc < 0) {
		snprintf(err, errsize, "%s: %s", r->dir, strerror(-rc));
		return rc;
	}
	r->ncalls = r->marks->nsegs;
	return 0;
}

/* Segments are listed this many at a time: a listing of the whole of a
 * long history never holds more. */
#define CALLS_AT_ONCE 65536

int replay_report_calls_print(struct replay_report *r, const struct replay_history_opts *o,
			      uint64_t begin, uint64_t end, bool json, FILE *out, char *err,
			      size_t errsize)
{
	struct replay_calls c = { 0 };
	int rc = 0;

	for (uint64_t from = begin; rc == 0 && from <= end; from += CALLS_AT_ONCE) {
		uint64_t to = end - from < CALLS_AT_ONCE ? end : from + CALLS_AT_ONCE - 1;

		c.n = 0;
		rc = replay_calls_range(&c, r->marks, r->d, &r->rs->sym, from, to);
		/* Kept marks that do not fit the history (what they depend on
		 * changed in a way the key does not see): made again, once. A
		 * listing already under way stops rather than mix the two. */
		if (rc == -ENOENT && r->marks_loaded && from == begin) {
			char path[4200];
			uint64_t key = 0;
			bool keep = marks_where(r, path, sizeof(path), &key);

			r->marks_loaded = false;
			rc = marks_build(r, keep, path, key, NULL, NULL);
			if (rc == 0 && r->marks->nsegs != r->ncalls)
				rc = -ENOENT;
			if (rc == 0)
				rc = replay_calls_range(&c, r->marks, r->d, &r->rs->sym, from, to);
		}
		for (uint64_t i = from; rc == 0 && i <= to; i++) {
			if (json)
				print_json_segment(r, i, &c.segs[i - from], out);
			else
				replay_history_print_segment(out, o, i, &c.segs[i - from]);
		}
	}
	replay_calls_release(&c);
	if (rc < 0)
		snprintf(err, errsize, "%s: %s", r->dir,
			 rc == -ENOENT ? "the history changed while it was listed" : strerror(-rc));
	return rc;
}

int replay_report_timeline_want(struct replay_report *r)
{
	char err[512];

	/* A software recording's state log times every instruction exactly. */
	if (replay_spans_clock_of(r->b) == REPLAY_CLOCK_INSNS)
		replay_session_want(r->rs, REPLAY_SESSION_STATE_LAX, err, sizeof(err));
	return replay_session_want(r->rs, REPLAY_SESSION_SYMBOLS, err, sizeof(err));
}

int replay_report_timeline(struct replay_report *r, struct replay_spans_opts *o,
			   struct replay_spans *sp)
{
	o->st = r->rs->st;
	o->sym = &r->rs->sym;
	return replay_spans_build(sp, r->b, o);
}

/* ---- run's explanation ------------------------------------------------ */

/* The explanation of thread @thread of @s, with @c over it, into @out. */
static int explain_thread(FILE *out, struct replay_session *s, size_t thread,
			  struct replay_cursor *c, int signo)
{
	struct replay_explain *e = malloc(sizeof(*e));
	int rc;

	if (!e)
		return -ENOMEM;
	rc = replay_explain_build(s->b, thread, c, s->img, s->st, &s->sym, replay_session_cfi, s,
				  e);
	if (rc == 0)
		replay_explain_print(out, e, signo);
	free(e);
	return rc;
}

/* A light recording whose rebuild stopped before the end (docs/record.md,
 * "The light recorder"): the crash is not in its history, so nothing of
 * it is shown as the crash's; true if so, said on @out. */
static bool explain_diverged(FILE *out, const struct replay_bundle *b, int signo)
{
	const char *abbrev = sigabbrev_np(signo);

	for (size_t i = 0; i < b->ngaps; i++) {
		if (strcmp(b->gaps[i].kind, "diverged"))
			continue;
		fprintf(out, "\nProgram terminated with signal SIG%s, %s.\n"
			"The crash is not in the history: %s: the history ends there, before "
			"it (`run --record=valgrind` records such a run whole as it runs).\n",
			abbrev ? abbrev : "?", strsignal(signo), b->gaps[i].text);
		return true;
	}
	return false;
}

int replay_report_explain(FILE *out, const char *dir, int signo, char *err, size_t errsize)
{
	struct replay_session *s = NULL;
	struct replay_cursor *c = NULL;
	size_t thread;
	int rc;

	err[0] = 0;
	/* A state log that cannot be read leaves no registers: the rest
	 * still works. */
	rc = replay_session_open(dir, REPLAY_SESSION_STATE_LAX, &s, err, errsize);
	if (rc == 0 && !s->b->nthreads) {
		rc = -ENOENT;
		snprintf(err, errsize, "no thread was recorded");
	}
	if (rc == 0 && explain_diverged(out, s->b, signo)) {
		replay_session_free(s);
		return 0;
	}
	if (rc == 0)
		rc = replay_session_want(s, REPLAY_SESSION_IMAGES, err, errsize);
	if (rc == 0) {
		thread = replay_explain_thread(s->b, s->st);
		rc = replay_cursor_new(s->b, thread, NULL, NULL, &c);
		if (rc == 0)
			rc = replay_session_want(s, REPLAY_SESSION_SYMBOLS, err, errsize);
		if (rc == 0)
			rc = explain_thread(out, s, thread, c, signo);
		if (rc == 0 && s->st)
			replay_frontend_origin_explain(out, dir);
		if (rc < 0 && !err[0])
			snprintf(err, errsize, "%s", strerror(-rc));
	}
	replay_cursor_free(c);
	replay_session_free(s);
	return rc;
}

bool replay_report_starts_early(struct replay_cursor *c, uint64_t *pos)
{
	*pos = replay_cursor_position(c);
	return *pos != replay_cursor_size(c) + 1;
}
