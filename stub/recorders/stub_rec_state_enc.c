/*
 * stub/recorders/stub_rec_state_enc.c: the state log's records, built in
 * memory (varints, docs/bundle.md "State log") and written out one fwrite
 * per step; the log's life (init, flush, sync, end, release).
 *
 * General registers are compared with the copy as of the last record; the
 * XSAVE area is compared word by word and logged as runs of XOR. A MEM
 * record leaves out old bytes an earlier one of the same range gave. What
 * the known-value calls (stub_rec_state_known.c) hold back, a write being
 * grown, is written before any other record. The lowest of the writer's
 * files (stub_rec_state_int.h): it calls none of the others.
 */
#include "stub/recorders/stub_rec_state_int.h"

#include <elf.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include "stub/recorders/stub_sum.h"
#include "stub/recorders/stub_workq.h"

/* --- encoding ------------------------------------------------------------ */

int stub_rec_rec_grow(struct stub_rec_state *s, size_t more)
{
	uint8_t *nv;
	size_t cap;

	cap = s->caprec ? s->caprec : 4096;
	while (cap < s->nrec + more)
		cap *= 2;
	nv = realloc(s->rec, cap);
	if (!nv)
		return -ENOMEM;
	s->rec = nv;
	s->caprec = cap;
	return 0;
}


/* What the known-value calls hold back (a write being grown), written
 * before anything else. */
int stub_rec_known_flush(struct stub_rec_state *s)
{
	return s->kw_len ? stub_rec_kw_flush(s) : 0;
}

/* A TIME record: time minus index is now time - @index. */
void stub_rec_time_rec(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	s->base = time - index;
	stub_rec_tag(s, REPLAY_STATE_REC_TIME, index);
	stub_rec_put(s, s->base);
}


/* The same, after what known-value calls held back (older records). */
int stub_rec_begin(struct stub_rec_state *s, unsigned kind, uint64_t index,
		   uint64_t time, size_t more)
{
	int e = stub_rec_known_flush(s);

	return e < 0 ? e : stub_rec_begin_raw(s, kind, index, time, more);
}

/* --- the writer thread ---------------------------------------------------- */

/* A state log's batch of records handed over (@buf, freed by the writer),
 * or a block end of its checksums (@buf NULL: stub_sum_mark at @mark),
 * in the order the log's owner made them. */
struct stub_rec_wjob {
	struct stub_rec_state *s;
	uint8_t *buf;
	size_t n;
	uint64_t mark;
};

struct stub_rec_writer {
	struct stub_workq *q;
	/* Bytes handed over and not taken by the writer yet: an owner that finds more
	 * than STUB_REC_WRITER_MAX waits until all are (the disk slower than
	 * the records are built; a batch can be megabytes: one grown MEM
	 * record). */
	_Atomic size_t queued;
	/* The first error of a write (ENOSPC, ...): the writer goes on
	 * freeing what it is handed but writes nothing more, and the owners
	 * are told at their next hand-over or wait. */
	_Atomic int err;
};

static int stub_rec_wjob_run(void *ctx, const void *p, size_t len)
{
	struct stub_rec_writer *w = ctx;
	const struct stub_rec_wjob *j = p;

	(void)len;
	atomic_fetch_sub_explicit(&w->queued, j->n, memory_order_relaxed);
	if (atomic_load_explicit(&w->err, memory_order_relaxed) < 0) {
		free(j->buf);
		return 0;
	}
	if (!j->buf) {
		stub_sum_mark(j->s->sum, j->mark);
		return 0;
	}
	errno = 0;
	if (fwrite(j->buf, 1, j->n, j->s->out) != j->n)
		atomic_store(&w->err, errno ? -errno : -EIO);  /* ENOSPC said as such */
	else
		stub_sum_feed(j->s->sum, j->buf, j->n);
	free(j->buf);
	return 0;
}

#define STUB_REC_WRITER_MAX (64u << 20)

int stub_rec_writer_start(struct stub_rec_writer **out)
{
	struct stub_rec_writer *w = calloc(1, sizeof(*w));
	int e;

	*out = NULL;
	if (!w)
		return -ENOMEM;
	/* Batches of records (64 KiB or more, stub_rec_state_known.c) are
	 * handed over as pointers, four at a time: the ring holds about 400
	 * jobs; what they may hold is bounded by STUB_REC_WRITER_MAX. */
	e = stub_workq_start(&w->q, 1u << 14, 4 * (8 + sizeof(struct stub_rec_wjob)),
			     "hindsight-write", stub_rec_wjob_run, w);
	if (e < 0) {
		free(w);
		return e;
	}
	*out = w;
	return 0;
}

int stub_rec_writer_wait(struct stub_rec_writer *w)
{
	int e = w ? stub_workq_wait(w->q) : 0;

	return e < 0 ? e : w ? atomic_load(&w->err) : 0;
}

void stub_rec_writer_stop(struct stub_rec_writer *w)
{
	if (!w)
		return;
	stub_workq_stop(w->q);
	free(w);
}

void stub_rec_state_writer(struct stub_rec_state *s, struct stub_rec_writer *w)
{
	s->w = s->out ? w : NULL;
}

/* A job for @s's writer; room for it, or the writer's error. */
static struct stub_rec_wjob *stub_rec_wjob(struct stub_rec_state *s, int *e)
{
	struct stub_rec_wjob *j;

	*e = atomic_load_explicit(&s->w->err, memory_order_relaxed);
	if (*e < 0)
		return NULL;
	j = stub_workq_reserve(s->w->q, sizeof(*j));   /* always fits */
	j->s = s;
	return j;
}

/* A block of the checksums ends at byte @off of the log (stub_sum_mark),
 * by the writer if the log has one, in order with the bytes. */
static void stub_rec_sum_mark(struct stub_rec_state *s, uint64_t off)
{
	struct stub_rec_wjob *j;
	int e;

	if (!s->w) {
		stub_sum_mark(s->sum, off);
		return;
	}
	if (!s->sum || !(j = stub_rec_wjob(s, &e)))
		return;                /* the error comes with the next emit */
	j->buf = NULL;
	j->mark = off;
	stub_workq_put(s->w->q);
}

/* The records built are the writer's: a new buffer for the next ones. */
static int stub_rec_emit_writer(struct stub_rec_state *s)
{
	size_t cap = s->caprec > (1u << 20) ? 1u << 20 : s->caprec, queued;
	uint8_t *next = malloc(cap);
	struct stub_rec_wjob *j;
	int e;

	if (!next)
		return -ENOMEM;
	if (!(j = stub_rec_wjob(s, &e))) {
		free(next);
		return e;
	}
	j->buf = s->rec;
	j->n = s->nrec;
	/* Counted before the writer can see it (it subtracts once written). */
	queued = atomic_fetch_add_explicit(&s->w->queued, s->nrec, memory_order_relaxed) + s->nrec;
	e = stub_workq_put(s->w->q);
	if (e >= 0 && queued > STUB_REC_WRITER_MAX)
		e = stub_workq_wait(s->w->q);
	s->rec = next;
	s->caprec = cap;
	return e;
}

int stub_rec_emit(struct stub_rec_state *s)
{
	int e;

	if (!s->nrec)
		return 0;
	if (s->w) {
		e = stub_rec_emit_writer(s);
		if (e < 0)
			return e;
	} else {
		errno = 0;
		if (fwrite(s->rec, 1, s->nrec, s->out) != s->nrec)
			return errno ? -errno : -EIO;  /* ENOSPC said as such */
		stub_sum_feed(s->sum, s->rec, s->nrec);
	}
	s->bytes += s->nrec;
	s->nrec = 0;
	return 0;
}

/* XSAVE words of @now that differ from @was, as runs of XOR. */
static void stub_rec_put_xdiff(struct stub_rec_state *s, const uint8_t *was, const uint8_t *now)
{
	size_t words = s->xs_len / 8, nruns = 0, at, from = 0;
	uint64_t a, b;

	for (size_t w = 0; w < words; w++) {
		memcpy(&a, was + 8 * w, 8);
		memcpy(&b, now + 8 * w, 8);
		nruns += a != b && (w == 0 || memcmp(was + 8 * w - 8, now + 8 * w - 8, 8) == 0);
	}
	stub_rec_put(s, nruns);
	for (size_t w = 0; w < words; w = at) {
		size_t end;

		at = w + 1;
		if (!memcmp(was + 8 * w, now + 8 * w, 8))
			continue;
		for (end = w; end < words && memcmp(was + 8 * end, now + 8 * end, 8); end++)
			;
		stub_rec_put(s, w - from);
		stub_rec_put(s, end - w);
		for (size_t k = w; k < end; k++) {
			memcpy(&a, was + 8 * k, 8);
			memcpy(&b, now + 8 * k, 8);
			a ^= b;
			stub_rec_put_bytes(s, &a, 8);
		}
		from = at = end;
	}
}


/* --- reading the thread ---------------------------------------------- */

int stub_rec_xread(pid_t tid, uint8_t *buf, size_t *len)
{
	struct iovec iov = { buf, REPLAY_STATE_XMAX };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return -errno;
	*len = iov.iov_len;
	return 0;
}

/* --- writes whose old bytes the log already has ------------------------- */

#define STUB_REC_SEEN 1024         /* addresses remembered, direct-mapped */
#define STUB_REC_SEEN_MAX 16       /* bytes of a write remembered, at most */

struct stub_rec_seen {
	uint64_t addr;
	uint32_t gen;              /* valid while it is the log's seen_gen */
	uint8_t len;
	uint8_t bytes[STUB_REC_SEEN_MAX];
};

static struct stub_rec_seen *stub_rec_seen_at(const struct stub_rec_state *s, uint64_t addr)
{
	return &s->seen[(addr >> 3) & (STUB_REC_SEEN - 1)];
}

/* Whether a write of @old at @addr, @len bytes, may leave its old bytes
 * out: an earlier MEM record of the same range since the last checkpoint
 * or MAP record wrote them. */
static bool stub_rec_seen_same(const struct stub_rec_state *s, uint64_t addr, uint64_t len,
			       const uint8_t *old)
{
	const struct stub_rec_seen *e;

	if (!s->seen || len > STUB_REC_SEEN_MAX)
		return false;
	e = stub_rec_seen_at(s, addr);
	if (e->gen != s->seen_gen || e->addr != addr || e->len != len)
		return false;
	if (len == 8) {
		uint64_t a, b;

		memcpy(&a, e->bytes, 8);
		memcpy(&b, old, 8);
		return a == b;
	}
	return !memcmp(e->bytes, old, len);
}

/* A MEM record of @len new bytes @now at @addr is written. */
void stub_rec_seen_note(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			const uint8_t *now)
{
	struct stub_rec_seen *e;

	if (len > STUB_REC_SEEN_MAX)
		return;
	if (!s->seen && !(s->seen = calloc(STUB_REC_SEEN, sizeof(*s->seen))))
		return;                /* no memory: every record has its old bytes */
	e = stub_rec_seen_at(s, addr);
	e->addr = addr;
	e->gen = s->seen_gen;
	e->len = (uint8_t)len;
	stub_rec_copy(e->bytes, now, len);
}

/* A MEM record's range and old bytes (left out if the log has them);
 * the caller writes the @len new bytes after it, then stub_rec_seen_note. */
void stub_rec_put_mem(struct stub_rec_state *s, uint64_t addr, uint64_t len,
		      const uint8_t *old)
{
	bool same = stub_rec_seen_same(s, addr, len, old);

	stub_rec_put_s(s, (int64_t)(addr - s->mem_end));
	stub_rec_put(s, len << 1 | (same ? REPLAY_STATE_MEM_SAME : 0));
	if (!same)
		stub_rec_put_bytes(s, old, len);
}

/* --- records ---------------------------------------------------------- */

int stub_rec_checkpoint(struct stub_rec_state *s, const struct user_regs_struct *regs,
			uint64_t index, uint64_t time)
{
	static const uint8_t zero[REPLAY_STATE_XMAX];
	int e = stub_rec_known_flush(s);

	if (e >= 0)
		e = stub_rec_rec_room(s, 32 + 10 * REPLAY_STATE_NGP + 2 * s->xs_len);
	if (e < 0)
		return e;
	/* Blocks end before and after it: where a ring cuts, and a
	 * checkpoint kept whole when what follows is damaged. */
	stub_rec_sum_mark(s, s->last_ckpt_off = s->bytes + s->nrec);
	s->ckpt_next = false;
	stub_rec_tag(s, REPLAY_STATE_REC_CKPT, index);
	s->base = time - index;
	stub_rec_put(s, index);
	stub_rec_put(s, s->base);
	for (unsigned i = 0; i < REPLAY_STATE_NGP; i++)
		stub_rec_put(s, stub_rec_slot(regs, i));
	stub_rec_put_xdiff(s, zero, s->xs);
	stub_rec_sum_mark(s, s->bytes + s->nrec);
	s->regs = *regs;
	s->last_ckpt = index;
	s->mem_end = 0;
	s->seen_gen++;             /* a reader may start here */
	return 0;
}

int stub_rec_regs(struct stub_rec_state *s, const struct user_regs_struct *regs,
		  uint64_t index, uint64_t time)
{
	uint64_t mask = 0;
	int e;

	for (unsigned i = 0; i < REPLAY_STATE_NSLOTS; i++)
		if (stub_rec_slot(regs, replay_state_slots[i]) != stub_rec_slot(&s->regs, replay_state_slots[i]))
			mask |= 1ull << i;
	if (!mask)
		return 0;
	e = stub_rec_begin(s, REPLAY_STATE_REC_REGS, index, time, 8 + 10 * REPLAY_STATE_NSLOTS);
	if (e < 0)
		return e;
	stub_rec_put_regs(s, regs, mask);
	s->regs = *regs;           /* rip too, which is never logged */
	return 0;
}

/* Reads the XSAVE area and logs what changed. */
int stub_rec_xstate(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	size_t len = 0;
	uint8_t *t;
	int e = stub_rec_xread(s->tid, s->xs_new, &len);

	if (e < 0)
		return e == -ESRCH ? 0 : e;
	if (len != s->xs_len || !memcmp(s->xs, s->xs_new, len))
		return 0;
	e = stub_rec_begin(s, REPLAY_STATE_REC_XSTATE, index, time, 2 * s->xs_len + 16);
	if (e < 0)
		return e;
	stub_rec_put_xdiff(s, s->xs, s->xs_new);
	t = s->xs;
	s->xs = s->xs_new;
	s->xs_new = t;
	return 0;
}

int stub_rec_map(struct stub_rec_state *s, uint64_t addr, uint64_t len, unsigned kind,
		 uint64_t index, uint64_t time)
{
	int e = stub_rec_begin(s, REPLAY_STATE_REC_MAP, index, time, 32);

	if (e < 0)
		return e;
	stub_rec_put_s(s, (int64_t)(addr - s->mem_end));
	stub_rec_put(s, len);
	s->rec[s->nrec++] = (uint8_t)kind;
	s->mem_end = addr + len;
	s->seen_gen++;
	return 0;
}

/* --- the log ---------------------------------------------------------- */

/* The REGS mask position of each user_regs_struct slot (rip: none). */
int8_t stub_rec_pos[REPLAY_STATE_NGP];
static bool stub_rec_pos_done;

static void stub_rec_pos_init(void)
{
	if (stub_rec_pos_done)
		return;
	stub_rec_pos_done = true;
	memset(stub_rec_pos, -1, sizeof(stub_rec_pos));
	for (unsigned i = 0; i < REPLAY_STATE_NSLOTS; i++)
		stub_rec_pos[replay_state_slots[i]] = (int8_t)i;
}

int stub_rec_state_init(struct stub_rec_state *s, pid_t tid, FILE *out)
{
	memset(s, 0, sizeof(*s));
	s->tid = tid;
	s->out = out;
	s->seen_gen = 1;
	stub_rec_pos_init();
	s->xs = calloc(1, REPLAY_STATE_XMAX);
	s->xs_new = calloc(1, REPLAY_STATE_XMAX);
	if (!s->xs || !s->xs_new)
		return -ENOMEM;
	return 0;
}

void stub_rec_state_release(struct stub_rec_state *s)
{
	free(s->xs);
	free(s->xs_new);
	free(s->rg);
	free(s->pend);
	free(s->rec);
	free(s->chk);
	free(s->kw_old);
	free(s->kw_new);
	free(s->seen);
	stub_sum_close(s->sum);
	memset(s, 0, sizeof(*s));
}

int stub_rec_state_flush(struct stub_rec_state *s)
{
	int e = stub_rec_known_flush(s);

	if (e >= 0)
		e = stub_rec_emit(s);
	if (e >= 0)
		e = stub_rec_writer_wait(s->w);    /* every batch written */
	errno = 0;
	if (e >= 0 && s->out && fflush(s->out) != 0)
		e = errno ? -errno : -EIO;
	return e < 0 ? e : stub_sum_flush(s->sum);
}

static int stub_rec_sync_rec(struct stub_rec_state *s, uint64_t index, uint64_t until)
{
	int e = s->started && !s->ended ? stub_rec_known_flush(s) : 0;

	if (e < 0 || !s->started || s->ended)
		return e;
	if (until == 0)                /* the end: after whatever was held back */
		index = s->last_index;
	if (index < s->last_index)
		return 0;
	e = stub_rec_rec_room(s, 32);
	if (e < 0)
		return e;
	/* At the last record's index, with how far ahead it reaches: a record
	 * may still come at an index below @index (a signal delivered after
	 * the thread's last instruction is logged at it), and indices in the
	 * log never go back. */
	stub_rec_tag(s, REPLAY_STATE_REC_SYNC, s->last_index);
	stub_rec_put(s, index - s->last_index);
	stub_rec_put(s, until);
	s->ended = until == 0;
	return 0;
}

int stub_rec_state_sync(struct stub_rec_state *s, uint64_t index, uint64_t until)
{
	return until ? stub_rec_sync_rec(s, index, until) : -EINVAL;
}

int stub_rec_state_end(struct stub_rec_state *s)
{
	return stub_rec_sync_rec(s, 0, 0);
}

/* The header (s->xs_len known) and the first checkpoint, written out. */
int stub_rec_head(struct stub_rec_state *s, const struct user_regs_struct *regs,
		  uint64_t index, uint64_t time)
{
	int e = stub_rec_rec_room(s, 64);

	if (e < 0)
		return e;
	stub_rec_put_bytes(s, REPLAY_STATE_MAGIC, REPLAY_STATE_MAGIC_LEN);
	stub_rec_put(s, (uint64_t)s->tid);
	stub_rec_put(s, s->xs_len);
	stub_rec_put(s, REPLAY_STATE_NGP);
	s->header_len = s->nrec;
	s->last_index = index;
	e = stub_rec_checkpoint(s, regs, index, time);
	s->started = true;
	return e < 0 ? e : stub_rec_emit(s);
}


/* The write being grown, as one MEM record. */
int stub_rec_kw_flush(struct stub_rec_state *s)
{
	uint64_t len = s->kw_len;
	int e;

	s->kw_len = 0;
	e = stub_rec_begin_raw(s, REPLAY_STATE_REC_MEM, s->kw_index, s->kw_time, 32 + 2 * len);
	if (e < 0)
		return e;
	stub_rec_put_mem(s, s->kw_addr, len, s->kw_old);
	stub_rec_put_bytes(s, s->kw_new, len);
	stub_rec_seen_note(s, s->kw_addr, len, s->kw_new);
	s->mem_end = s->kw_addr + len;
	s->last_write = s->kw_addr;
	return 0;
}
