/*
 * replay/decode/calls.c: instructions grouped into function segments.
 */
#include "replay/decode/calls.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/decode/decode.h"
#include "replay/decode/symbols.h"
#include "replay/model/fingerprint.h"

/* A PSB the decoder passed: the walk may still be before it. */
struct psb {
	uint64_t offset, index;
};

#define PSBS 16

struct walk {
	struct replay_calls *c;    /* the segments kept; the current one is last */
	uint64_t number;           /* the current segment's (0: none yet) */
	uint64_t keep;             /* segments before this one are not kept */
	uint64_t stop;             /* the walk ends where the one after it starts
				    * (0: at the end of the history) */
	/* The call depth: +1 after a call, -1 after a return (GDB's levels:
	 * a return with no call seen goes below the first level). */
	int64_t level, min;
	enum replay_insn_kind prev;
	bool fresh;                /* the next instruction starts a segment */
	struct replay_calls_marks *marks; /* marks to add, or NULL */
	struct psb psbs[PSBS];     /* the last PSBs passed */
	uint64_t npsbs;
};

static void on_psb(void *ctx, uint64_t offset, uint64_t index, uint64_t time)
{
	struct walk *w = ctx;

	(void)time;
	w->psbs[w->npsbs++ % PSBS] = (struct psb){ offset, index };
}

/* A mark for the segment starting at item @first. */
static int add_mark(struct walk *w, uint64_t first)
{
	struct replay_calls_marks *mk = w->marks;
	struct replay_calls_mark *m;
	const struct psb *best = NULL;

	if (mk->n == mk->cap) {
		size_t cap = mk->cap ? mk->cap * 2 : 256;

		m = realloc(mk->m, cap * sizeof(*m));
		if (!m)
			return -ENOMEM;
		mk->m = m;
		mk->cap = cap;
	}
	/* The decoder reports a PSB as it passes it, a block or so before
	 * the walk gets there. */
	for (uint64_t i = w->npsbs > PSBS ? w->npsbs - PSBS : 0; i < w->npsbs; i++) {
		const struct psb *p = &w->psbs[i % PSBS];

		if (p->index <= first && (!best || p->index > best->index))
			best = p;
	}
	mk->m[mk->n++] = (struct replay_calls_mark){
		.number = w->number, .first = first, .level = w->level,
		.psb_offset = best ? best->offset : UINT64_MAX, .psb_index = best ? best->index : 0,
	};
	return 0;
}

/* Starts segment w->number + 1 at item @index. 1 if the walk ends
 * instead (the segment is after w->stop), 0, or -ENOMEM. */
static int push_seg(struct walk *w, uint64_t index)
{
	struct replay_calls *c = w->c;
	struct replay_segment *s;

	if (w->stop && w->number == w->stop)
		return 1;
	if (w->number < w->keep)
		c->n = 0;          /* the one ending is not kept */
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;

		s = realloc(c->segs, cap * sizeof(*s));
		if (!s)
			return -ENOMEM;
		c->segs = s;
		c->cap = cap;
	}
	w->number++;
	if (w->number == 1 || w->level < w->min)
		w->min = w->level;
	if (w->marks && (w->number - 1) % w->marks->every == 0 && add_mark(w, index) < 0)
		return -ENOMEM;
	s = &c->segs[c->n++];
	memset(s, 0, sizeof(*s));
	s->level = (int)w->level;
	s->first = s->last = index;
	return 0;
}

static bool same_function(const struct replay_segment *s, const struct replay_symbol *sym)
{
	if (!s->function || !sym->function)
		return !s->function && !sym->function;
	return s->start == sym->start && !strcmp(s->function, sym->function);
}

/* Whether @it starts a new segment, and at which level. */
static int place(struct walk *w, const struct replay_symbol *sym)
{
	struct replay_segment *cur = w->c->n ? &w->c->segs[w->c->n - 1] : NULL;

	if (w->prev == REPLAY_INSN_CALL) {
		w->level++;
		return 1;
	}
	if (w->prev == REPLAY_INSN_RET) {
		w->level--;
		return 1;
	}
	return w->fresh || !cur || cur->gap || !same_function(cur, sym);
}

static int add_insn(struct walk *w, const struct replay_item *it, const struct replay_symbolizer *sz)
{
	struct replay_symbol sym = { 0 };
	struct replay_segment *s;
	int rc;

	if (sz && sz->lookup(sz->ctx, it->insn.ip, &sym) < 0)
		memset(&sym, 0, sizeof(sym));
	if (place(w, &sym)) {
		rc = push_seg(w, it->index);
		if (rc)
			return rc;
		s = &w->c->segs[w->c->n - 1];
		s->function = sym.function;
		s->start = sym.start;
		s->file = sym.file;
	}
	s = &w->c->segs[w->c->n - 1];
	s->last = it->index;
	if (sym.line && (!s->file || (sym.file && !strcmp(sym.file, s->file)))) {
		if (!s->file)
			s->file = sym.file;
		if (!s->line_min || sym.line < s->line_min)
			s->line_min = sym.line;
		if (sym.line > s->line_max)
			s->line_max = sym.line;
	}
	w->prev = it->insn.size ? it->insn.kind : REPLAY_INSN_OTHER;
	w->fresh = false;
	return 0;
}

static int add_gap(struct walk *w, const struct replay_item *it)
{
	struct replay_segment *s;
	int rc = push_seg(w, it->index);

	if (rc)
		return rc;
	s = &w->c->segs[w->c->n - 1];
	s->gap = true;
	s->error = it->error;
	s->text = it->text;
	w->prev = REPLAY_INSN_OTHER;
	w->fresh = true;
	return 0;
}

/* Walks @d to the end, or to where segment w->stop ends. 0 or an error. */
static int walk(struct walk *w, struct replay_decoder *d, const struct replay_symbolizer *sym,
		replay_progress_fn progress, void *ctx)
{
	struct replay_item it;
	uint64_t n = 0;
	int rc;

	while ((rc = replay_decoder_next(d, &it)) > 0) {
		rc = it.kind == REPLAY_ITEM_GAP ? add_gap(w, &it) : add_insn(w, &it, sym);
		if (rc)
			return rc < 0 ? rc : 0;
		if (progress && !(++n & 0xffff) && progress(ctx, n))
			return -ECANCELED;
	}
	return rc;
}

static void lower_levels(struct replay_calls *c, int64_t min)
{
	for (size_t i = 0; i < c->n; i++)
		c->segs[i].level -= (int)min;
}

int replay_calls_build(struct replay_calls *c, struct replay_decoder *d,
		       const struct replay_symbolizer *sym, replay_progress_fn progress, void *ctx)
{
	struct walk w = { .c = c, .fresh = true, .keep = 1 };
	int rc = walk(&w, d, sym, progress, ctx);

	lower_levels(c, w.min);
	return rc < 0 ? rc : 0;
}

int replay_calls_marks_build(struct replay_calls_marks *mk, struct replay_decoder *d,
			     const struct replay_symbolizer *sym, replay_progress_fn progress,
			     void *ctx)
{
	struct replay_calls one = { 0 };
	struct walk w = { .c = &one, .fresh = true, .keep = UINT64_MAX, .marks = mk };
	int rc;

	if (!mk->every)
		mk->every = REPLAY_CALLS_MARK_EVERY;
	rc = replay_decoder_on_psb(d, on_psb, &w);
	if (rc == 0)
		rc = walk(&w, d, sym, progress, ctx);
	replay_decoder_on_psb(d, NULL, NULL);
	mk->nsegs = w.number;
	mk->min_level = w.min;
	replay_calls_release(&one);
	return rc < 0 ? rc : 0;
}

void replay_calls_marks_release(struct replay_calls_marks *mk)
{
	free(mk->m);
	*mk = (struct replay_calls_marks){ 0 };
}

int replay_calls_range(struct replay_calls *c, const struct replay_calls_marks *mk,
		       struct replay_decoder *d, const struct replay_symbolizer *sym,
		       uint64_t begin, uint64_t end)
{
	size_t lo = 0, hi = mk->n;
	const struct replay_calls_mark *m;
	struct walk w;
	int rc;

	if (begin < 1 || begin > end || end > mk->nsegs || !mk->n || mk->m[0].number != 1)
		return -ENOENT;
	/* The last mark at or before @begin. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (mk->m[mid].number <= begin)
			lo = mid;
		else
			hi = mid;
	}
	m = &mk->m[lo];
	rc = m->psb_offset == UINT64_MAX ? replay_decoder_rewind(d) :
					   replay_decoder_seek(d, m->psb_offset, m->psb_index);
	if (rc == 0)
		rc = replay_decoder_skip_to(d, m->first);
	/* From the mark's first item, which starts a segment at its level. */
	w = (struct walk){ .c = c, .fresh = true, .number = m->number - 1, .level = m->level,
			   .keep = begin, .stop = end };
	if (rc == 0)
		rc = walk(&w, d, sym, NULL, NULL);
	if (rc == 0 && (w.number < end || c->n != end - begin + 1))
		rc = -ENOENT;
	lower_levels(c, mk->min_level);
	return rc < 0 ? rc : 0;
}

void replay_calls_release(struct replay_calls *c)
{
	free(c->segs);
	*c = (struct replay_calls){ 0 };
}

/* ---- kept on disk ----------------------------------------------------- */

struct marks_head {
	char magic[8];             /* MARKS_MAGIC */
	uint64_t key;              /* the caller's: what they were built over */
	uint64_t sum;              /* of the rest of the head and the marks */
	uint64_t every, nsegs, n;
	int64_t min_level;
};

#define MARKS_MAGIC "HSCALLS1"

static uint64_t marks_sum(const struct marks_head *h, const struct replay_calls_mark *m)
{
	uint64_t s = replay_fingerprint(REPLAY_FINGERPRINT_START, &h->every, sizeof(*h) - offsetof(struct marks_head, every));

	return replay_fingerprint(s, m, h->n * sizeof(*m));
}

int replay_calls_marks_save(const struct replay_calls_marks *mk, uint64_t key, const char *path)
{
	struct marks_head h = { .key = key, .every = mk->every, .nsegs = mk->nsegs, .n = mk->n,
				.min_level = mk->min_level };
	char tmp[4200];
	FILE *f;
	int fd, rc = 0;

	memcpy(h.magic, MARKS_MAGIC, sizeof(h.magic));
	h.sum = marks_sum(&h, mk->m);
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	/* Private, as the recording's own files are. */
	unlink(tmp);               /* one a killed listing left */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (fwrite(&h, sizeof(h), 1, f) != 1 || (mk->n && fwrite(mk->m, sizeof(*mk->m), mk->n, f) != mk->n))
		rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

/* Whether @mk's marks are ones replay_calls_marks_build could give. */
static bool marks_sane(const struct replay_calls_marks *mk)
{
	if (!mk->every || mk->n != (mk->nsegs + mk->every - 1) / mk->every)
		return false;
	for (size_t i = 0; i < mk->n; i++) {
		const struct replay_calls_mark *m = &mk->m[i];

		if (m->number != 1 + i * mk->every || m->level < mk->min_level ||
		    (i && m->first <= mk->m[i - 1].first) ||
		    (m->psb_offset != UINT64_MAX && m->psb_index > m->first))
			return false;
	}
	return true;
}

int replay_calls_marks_load(struct replay_calls_marks *mk, uint64_t key, const char *path)
{
	struct marks_head h;
	struct stat st;
	FILE *f;
	int fd, rc = 0;

	/* A regular file only (never a FIFO to block on, nor a link). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
	if (!f) {
		close(fd);
		return -EINVAL;
	}
	if (fread(&h, sizeof(h), 1, f) != 1 || memcmp(h.magic, MARKS_MAGIC, sizeof(h.magic)))
		rc = -EINVAL;
	else if (h.key != key)
		rc = -ENOENT;
	/* Its size first: a damaged count never makes a big allocation. */
	else if (h.n > h.nsegs || h.n > (uint64_t)st.st_size / sizeof(*mk->m) ||
		 (uint64_t)st.st_size != sizeof(h) + h.n * sizeof(*mk->m))
		rc = -EINVAL;
	if (rc == 0) {
		*mk = (struct replay_calls_marks){ .every = h.every, .nsegs = h.nsegs,
						   .min_level = h.min_level, .n = h.n, .cap = h.n };
		mk->m = malloc(h.n ? h.n * sizeof(*mk->m) : 1);
		if (!mk->m)
			rc = -ENOMEM;
		else if ((h.n && fread(mk->m, sizeof(*mk->m), h.n, f) != h.n) || fgetc(f) != EOF ||
			 marks_sum(&h, mk->m) != h.sum || !marks_sane(mk))
			rc = -EINVAL;
	}
	fclose(f);
	if (rc < 0 && rc != -ENOENT)
		replay_calls_marks_release(mk);
	return rc;
}
