/*
 * replay/frontend/frontend_report.h: what the commands that read a recording
 * without debugging it print, and how they open it: `hindsight history`
 * and `calls` (GDB's record instruction-history and
 * function-call-history, as text in replay/decode/history_format.h's layout or
 * one JSON object per line), `hindsight timeline` (replay/decode/spans.h: the
 * threads' spans of functions over time), `hindsight run`'s explanation
 * of a crash (replay/decode/explain.h, replay/frontend/frontend_origin.h), and where a
 * recording's images are looked for (--image-dir). It brings the words
 * of those listings with it: replay/decode/history_format.h (its options,
 * ranges and lines, with replay/decode/source.h's source file lines) and
 * replay/decode/spans.h (the timeline's spans and marks).
 *
 * A report opens the recording through replay/decode/session.h; its bundle is
 * read directly (replay/model/bundle.h). Listings go to the caller's stream;
 * errors are negative errnos with a one-line reason (without
 * "hindsight: ") in the caller's buffer. Nothing here prints to the
 * terminal.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_REPORT_H
#define HINDSIGHT_REPLAY_FRONTEND_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/decode/history_format.h"
#include "replay/decode/spans.h"

struct replay_calls_marks;
struct replay_cursor;
struct replay_session;

#define REPLAY_REPORT_IMAGE_DIRS_MAX 16

/* Images not where a recording says are also looked for in @dirs (by
 * build-id, then by name), for every recording opened after. @dirs must
 * outlive the lookups; at most REPLAY_REPORT_IMAGE_DIRS_MAX are used. */
void replay_report_image_dirs(const char *const *dirs, size_t n);

/* An opened recording, one of its threads and what was built over it. */
struct replay_report {
	struct replay_session *rs;
	const struct replay_bundle *b; /* the recording (rs's) */
	const char *dir;           /* as opened, for messages */
	size_t thread;             /* the thread listed (replay_report_thread) */
	uint64_t nitems;           /* its items (replay_report_index) */
	uint64_t ncalls;           /* its call segments (replay_report_calls) */
	struct replay_decoder *d;
	struct replay_index *idx;
	struct replay_calls_marks *marks; /* replay_report_calls's */
	bool marks_loaded;         /* ... read from the recording's kept file */
};

/* Opens the recording @dir (with its DWARF symbols when @symbols) into
 * *@out. 0, or replay_session_open's errors and reason. */
int replay_report_open(const char *dir, bool symbols, struct replay_report **out, char *err,
		       size_t errsize);
/* Frees @r and all it holds; NULL is allowed. */
void replay_report_free(struct replay_report *r);

/* Picks the thread to list: @tid when @have_tid, else the first, and
 * opens a decoder over it. 0, or -ENOENT (no threads, no such thread),
 * the decoder's errors (-EINVAL: an unsupported trace configuration). */
int replay_report_thread(struct replay_report *r, bool have_tid, int64_t tid, char *err,
			 size_t errsize);

/* Indexes the thread's items (r->nitems), calling @progress now and then.
 * 0 or the decoder's errors. */
int replay_report_index(struct replay_report *r, replay_progress_fn progress, void *ctx,
			char *err, size_t errsize);

/* Items @begin .. @end into @out: GDB's lines with @o's modifiers, or
 * (@json) one object per line. 0 or the decoder's errors. */
int replay_report_history(struct replay_report *r, const struct replay_history_opts *o,
			  uint64_t begin, uint64_t end, bool json, FILE *out, char *err,
			  size_t errsize);

/* Counts the thread's call segments (r->ncalls), calling @progress now
 * and then, and marks where every REPLAY_CALLS_MARK_EVERY-th starts: a
 * listing then decodes only its range (replay/decode/calls.h). 0,
 * -ENOMEM, -ECANCELED (from @progress). */
int replay_report_calls(struct replay_report *r, replay_progress_fn progress, void *ctx,
			char *err, size_t errsize);
/* Segments @begin .. @end (1-based) into @out, as replay_report_history.
 * 0, or the decoder's errors with the reason in @err. */
int replay_report_calls_print(struct replay_report *r, const struct replay_history_opts *o,
			      uint64_t begin, uint64_t end, bool json, FILE *out, char *err,
			      size_t errsize);

/* Sets up what a timeline reads: the symbols, and a software recording's
 * state log (it times instructions exactly). 0 or the symbols' errors. */
int replay_report_timeline_want(struct replay_report *r);
/* The threads' spans over time into *@sp, with @o's range, resolution
 * and progress (o->st and o->sym are set to the report's). 0, or
 * replay_spans_build's errors (-EINVAL: an unsupported trace
 * configuration). */
int replay_report_timeline(struct replay_report *r, struct replay_spans_opts *o,
			   struct replay_spans *sp);

/* `hindsight run`'s explanation of the recording @dir whose program
 * @signo killed, into @out: the fault, the registers it used, the stack,
 * the last lines, and with a state log where the bad address came from.
 * 0, or a negative errno with the reason in @err. */
int replay_report_explain(FILE *out, const char *dir, int signo, char *err, size_t errsize);

/* Whether cursor @c stands before the end of its history (its thread's
 * history ends without a known pc: it starts at the last known one), at
 * *@pos. */
bool replay_report_starts_early(struct replay_cursor *c, uint64_t *pos);

#endif
