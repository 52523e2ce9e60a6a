/*
 * replay/decode/session.c: a recording opened with what its reader asks for
 * (see session.h). Each piece is set up by one small function, in the
 * order the pieces depend on each other: the bundle, the images and the
 * read-only data, the state log, the timeline over it, the symbols. The
 * two costly ones, the state log and the timeline's index of every
 * thread's trace, are made at once on two threads when both are asked for.
 */
#include "replay/decode/session.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/model/bundle.h"
#include "replay/decode/dwarf_symbols.h"
#include "replay/model/image.h"
#include "replay/model/rodata.h"
#include "replay/model/state.h"
#include "replay/model/sums.h"
#include "replay/decode/cursor.h"
#include "replay/decode/index.h"
#include "replay/decode/timeline.h"

static int out_of_memory(char *err, size_t errsize)
{
	snprintf(err, errsize, "out of memory");
	return -ENOMEM;
}

static int want_threads(struct replay_session *s, char *err, size_t errsize)
{
	if (s->b->nthreads)
		return 0;
	snprintf(err, errsize, "%s: the recording has no thread", s->path);
	return -ENOENT;
}

static int want_images(struct replay_session *s, char *err, size_t errsize)
{
	struct pt_image *unused;

	if (replay_image_new(s->b, &s->img) < 0)
		return out_of_memory(err, errsize);
	if (replay_image_at(s->img, s->b->end_time, &unused) < 0) {
		replay_image_free(s->img);
		s->img = NULL;
		return out_of_memory(err, errsize);
	}
	return 0;
}

static int want_rodata(struct replay_session *s, char *err, size_t errsize)
{
	return replay_rodata_new(s->b, &s->rodata) < 0 ? out_of_memory(err, errsize) : 0;
}

/* A state log its checksums cut before its first checkpoint cannot be
 * read at all (state.c: "not a state log"): said as damage. */
static void state_damaged(struct replay_session *s, char *err, size_t errsize)
{
	for (size_t i = 0; err && i < s->b->nthreads; i++) {
		const struct replay_thread *t = &s->b->threads[i];
		size_t n = t->state_file ? strlen(t->state_file) : 0;

		if (t->state_check.cut && n && !strncmp(err, t->state_file, n) && err[n] == ':') {
			snprintf(err, errsize, "%s is damaged at byte %" PRIu64 " (%s), before "
				 "anything in it can be read: the recording cannot be opened",
				 t->state_file, t->state_check.trust, t->state_check.why);
			return;
		}
	}
}

/* Only software recordings have state logs; without one, the past has rip
 * only. @lax: one that cannot be read is as none. */
static int want_state(struct replay_session *s, bool lax, char *err, size_t errsize)
{
	int r;

	out_of_memory(err, errsize);   /* what it says of an -ENOMEM */
	/* (Beside the cursors' thread, which reads the traces' fields of
	 * the same threads, never these nor the notes.) */
	if (!s->states_checked && replay_bundle_check_sums(s->b, NULL, REPLAY_SUMS_STATES) < 0)
		return -ENOMEM;
	s->states_checked = true;
	r = replay_state_open(s->b, &s->st, err, errsize);
	if (r == -EINVAL && !lax)
		state_damaged(s, err, errsize);
	if (r == -ENOENT || (r < 0 && lax)) {
		s->st = NULL;
		r = 0;
	}
	if (r == 0 && err && errsize)
		err[0] = 0;
	return r;
}

/* What a failed replay_timeline_new (@r < 0, of thread number @failed)
 * says; @r. */
static int timeline_error(struct replay_session *s, int r, size_t failed, char *err,
			  size_t errsize)
{
	if (r == -ENOMEM)
		return out_of_memory(err, errsize);
	snprintf(err, errsize, "%s: thread %lld: %s", s->path,
		 (long long)s->b->threads[failed].tid, strerror(-r));
	return r;
}

int replay_session_check_count(struct replay_session *s, size_t i, uint64_t n)
{
	const struct replay_thread *t = &s->b->threads[i];
	char note[512];

	if (!s->b->complete || !t->instructions || n == t->instructions)
		return 0;
	snprintf(note, sizeof(note), "thread %" PRId64 ": its trace decodes %" PRIu64
		 " instructions where trace.json claims %" PRIu64 ": the recording is damaged "
		 "(%s); what decodes is shown, and its end is not the program's", t->tid, n,
		 t->instructions, n < t->instructions ? "its trace cut short?" : "its trace altered?");
	return replay_bundle_add_note(s->b, note) < 0 ? -ENOMEM : 0;
}

/* replay_session_check_count for every thread's index. */
static int check_counts(struct replay_session *s)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < s->b->nthreads; i++)
		r = replay_session_check_count(s, i, replay_cursor_index(
						       replay_timeline_cursor(s->tl, i))->ninsns);
	return r;
}

static int want_timeline(struct replay_session *s, char *err, size_t errsize)
{
	size_t failed = 0;
	int r = replay_timeline_new(s->b, s->st, &s->tl, &failed);

	if (r == 0 && check_counts(s) < 0)
		return out_of_memory(err, errsize);
	return r < 0 ? timeline_error(s, r, failed, err, errsize) : r;
}

/* ---- the state log and the timeline at once ----------------------------- */

/* @fn(@arg) run on a thread of its own from task_start to task_join, with
 * every signal blocked there (they stay the caller's). When no thread can
 * be made it runs in task_join instead. */
struct task {
	void *(*fn)(void *);
	void *arg;
	pthread_t thread;
	bool started;
};

static void task_start(struct task *t, void *(*fn)(void *), void *arg)
{
	sigset_t all, old;

	*t = (struct task){ .fn = fn, .arg = arg };
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	t->started = pthread_create(&t->thread, NULL, fn, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void task_join(struct task *t)
{
	if (t->started)
		pthread_join(t->thread, NULL);
	else
		t->fn(t->arg);
}

/* A timeline made with no state (its cursors: the index of every thread's
 * trace), as replay_timeline_new says it. */
struct cursors_job {
	const struct replay_bundle *b;
	struct replay_timeline *tl;
	size_t failed;
	int r;
};

static void *make_cursors(void *arg)
{
	struct cursors_job *j = arg;

	j->r = replay_timeline_new(j->b, NULL, &j->tl, &j->failed);
	return NULL;
}

/* The state log (@state_bit: STATE or STATE_LAX) and the timeline over
 * it, the two costly pieces, at once: the cursors, which need no state,
 * are made on a second thread while this one opens the state log; the
 * timeline gets its clock once both are there. The errors, and what is
 * set up after one, are those of want_state then want_timeline. */
static int want_state_timeline(struct replay_session *s, unsigned state_bit, char *err,
			       size_t errsize)
{
	struct cursors_job job = { .b = s->b };
	struct task t;
	int r;

	task_start(&t, make_cursors, &job);
	r = want_state(s, state_bit == REPLAY_SESSION_STATE_LAX, err, errsize);
	task_join(&t);
	if (r) {
		replay_timeline_free(job.tl);
		return r;
	}
	s->have |= state_bit;
	if (job.r)
		return job.r < 0 ? timeline_error(s, job.r, job.failed, err, errsize) : job.r;
	replay_timeline_set_state(job.tl, s->st);
	s->tl = job.tl;
	s->have |= REPLAY_SESSION_TIMELINE;
	return check_counts(s) < 0 ? out_of_memory(err, errsize) : 0;
}

static int want_symbols(struct replay_session *s, char *err, size_t errsize)
{
	if (replay_dwarf_symbols_new(s->b, &s->ds) < 0)
		return out_of_memory(err, errsize);
	s->sym = (struct replay_symbolizer){ replay_dwarf_symbols_lookup, s->ds, replay_dwarf_symbols_at };
	return 0;
}

/* Sets up piece @bit if @want asks for it and @s lacks it. */
static int want_one(struct replay_session *s, unsigned want, unsigned bit, char *err,
		    size_t errsize)
{
	int r;

	if (!(want & bit) || (s->have & bit))
		return 0;
	switch (bit) {
	case REPLAY_SESSION_THREADS:
		r = want_threads(s, err, errsize);
		break;
	case REPLAY_SESSION_IMAGES:
		r = want_images(s, err, errsize);
		break;
	case REPLAY_SESSION_RODATA:
		r = want_rodata(s, err, errsize);
		break;
	case REPLAY_SESSION_STATE:
	case REPLAY_SESSION_STATE_LAX:
		/* one state log, however it was asked for */
		if (s->have & (REPLAY_SESSION_STATE | REPLAY_SESSION_STATE_LAX))
			return 0;
		if ((want & REPLAY_SESSION_TIMELINE) && !(s->have & REPLAY_SESSION_TIMELINE))
			return want_state_timeline(s, bit, err, errsize);
		r = want_state(s, bit == REPLAY_SESSION_STATE_LAX, err, errsize);
		break;
	case REPLAY_SESSION_TIMELINE:
		r = want_timeline(s, err, errsize);
		break;
	default:
		r = want_symbols(s, err, errsize);
		break;
	}
	if (r == 0)
		s->have |= bit;
	return r;
}

int replay_session_want(struct replay_session *s, unsigned want, char *err, size_t errsize)
{
	static const unsigned order[] = {
		REPLAY_SESSION_THREADS, REPLAY_SESSION_IMAGES, REPLAY_SESSION_RODATA,
		REPLAY_SESSION_STATE, REPLAY_SESSION_STATE_LAX, REPLAY_SESSION_TIMELINE,
		REPLAY_SESSION_SYMBOLS,
	};
	int r = 0;

	/* The timeline's clock is the state log's. */
	if ((want & REPLAY_SESSION_TIMELINE) && !(want & REPLAY_SESSION_STATE_LAX))
		want |= REPLAY_SESSION_STATE;
	if (want & REPLAY_SESSION_STATE)
		want &= ~REPLAY_SESSION_STATE_LAX;
	for (size_t i = 0; r == 0 && i < sizeof(order) / sizeof(order[0]); i++)
		r = want_one(s, want, order[i], err, errsize);
	return r;
}

int replay_session_open(const char *path, unsigned want, struct replay_session **out,
			char *err, size_t errsize)
{
	struct replay_session *s = calloc(1, sizeof(*s));
	int r;

	*out = NULL;
	if (err && errsize)
		err[0] = 0;
	if (!s || !(s->path = strdup(path))) {
		free(s);
		return out_of_memory(err, errsize);
	}
	r = replay_bundle_load(path, &s->b, err, errsize);
	if (r == 0 && replay_bundle_check_sums(s->b, NULL, REPLAY_SUMS_TRACES) < 0)
		r = out_of_memory(err, errsize);
	if (r == 0)
		r = replay_session_want(s, want, err, errsize);
	if (r < 0) {
		replay_session_free(s);
		return r;
	}
	*out = s;
	return 0;
}

/* ---- extending ----------------------------------------------------------- */

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* Whether mapping @n of the grown recording is @o of the old one, as far
 * as any time up to @end (the old end) can tell. */
static bool same_map(const struct replay_mapping *o, const struct replay_mapping *n, uint64_t end)
{
	return o->time_map == n->time_map && o->start == n->start && o->size == n->size &&
	       o->offset == n->offset && same_str(o->file, n->file) &&
	       (o->time_unmap == n->time_unmap ||
		(o->time_unmap == REPLAY_TIME_NEVER && n->time_unmap > end));
}

/* Whether @n is @o grown: the same process on the same cpu, @o's threads
 * (same traces and logs) first, @o's mappings first and unchanged before
 * @o's end. */
static bool grown(const struct replay_bundle *o, const struct replay_bundle *n)
{
	if (o->pid != n->pid || strcmp(o->cpu.vendor, n->cpu.vendor) ||
	    o->cpu.family != n->cpu.family || o->cpu.model != n->cpu.model ||
	    o->cpu.stepping != n->cpu.stepping ||
	    o->nthreads > n->nthreads || o->nmaps > n->nmaps || o->nmem || n->nmem ||
	    o->mtc_freq != n->mtc_freq || o->nom_freq != n->nom_freq || n->end_time < o->end_time)
		return false;
	for (size_t i = 0; i < o->nthreads; i++) {
		const struct replay_thread *a = &o->threads[i], *b = &n->threads[i];

		if (a->tid != b->tid || !a->pt_file || !same_str(a->pt_file, b->pt_file) ||
		    !same_str(a->state_file, b->state_file) || a->nsegs || b->nsegs)
			return false;
	}
	for (size_t i = 0; i < o->nmaps; i++)
		if (!same_map(&o->maps[i], &n->maps[i], o->end_time))
			return false;
	return true;
}

/* What depends on the bundle and costs little (its files, not its
 * history): set up again over the new one; the symbols on next use. */
static int redo_small(struct replay_session *s, char *err, size_t errsize)
{
	int r = 0;

	replay_image_free(s->img);
	s->img = NULL;
	replay_rodata_free(s->rodata);
	s->rodata = NULL;
	replay_dwarf_symbols_free(s->ds);
	s->ds = NULL;
	s->sym = (struct replay_symbolizer){ 0 };
	if (s->have & REPLAY_SESSION_IMAGES)
		r = want_images(s, err, errsize);
	if (r == 0 && (s->have & REPLAY_SESSION_RODATA))
		r = want_rodata(s, err, errsize);
	s->have &= ~REPLAY_SESSION_SYMBOLS;
	return r;
}

int replay_session_extend(struct replay_session *s, char *err, size_t errsize)
{
	struct replay_bundle *nb, *old = s->b;
	size_t failed = 0;
	int r;

	if (err && errsize)
		err[0] = 0;
	r = replay_bundle_load(s->path, &nb, err, errsize);
	if (r < 0)
		return r;
	if (!grown(old, nb) || (!s->st && (s->have & REPLAY_SESSION_TIMELINE))) {
		replay_bundle_free(nb);
		snprintf(err, errsize, "%s: not the recording grown", s->path);
		return -ESTALE;
	}
	if (replay_bundle_check_sums(nb, old, REPLAY_SUMS_TRACES |
				     (s->states_checked ? REPLAY_SUMS_STATES : 0)) < 0) {
		replay_bundle_free(nb);
		return out_of_memory(err, errsize);
	}
	s->b = nb;
	r = s->st ? replay_state_extend(s->st, nb) : 0;
	if (r == 0 && s->tl)
		r = replay_timeline_extend(s->tl, nb, s->st, &failed);
	if (r == 0)
		r = redo_small(s, err, errsize);
	/* After a failure what was not extended still points into the old
	 * bundle: it goes with the session. */
	if (r < 0)
		s->retired = old;
	else
		replay_bundle_free(old);
	if (r < 0 && err && errsize && !err[0])
		snprintf(err, errsize, "%s: thread %zu: %s", s->path, failed, strerror(-r));
	return r;
}

int replay_session_cfi(void *session, uint64_t pc, struct dw_cfi_row *out)
{
	struct replay_session *s = session;

	return s->ds ? replay_dwarf_symbols_cfi(s->ds, pc, out) : -ENOENT;
}

void replay_session_free(struct replay_session *s)
{
	if (!s)
		return;
	replay_timeline_free(s->tl);
	replay_dwarf_symbols_free(s->ds);
	replay_state_free(s->st);
	replay_rodata_free(s->rodata);
	replay_image_free(s->img);
	replay_bundle_free(s->b);
	replay_bundle_free(s->retired);
	free(s->path);
	free(s);
}
