/*
 * stub/recorders/stub_vgrec_insn.c: the Valgrind recorder's lower half
 * (stub/recorders/stub_vgrec_int.h): its threads and mappings, and each
 * thread's superblocks and state words turned into its PT stream and
 * state log.
 *
 * How a thread's instructions are known from superblocks: entering a
 * superblock means its instructions run one after the other until one of
 * them leaves it (a side exit, the end) or the thread is stopped (a
 * signal, a switch, the end: those records carry the address it stopped
 * before). Each thread keeps the superblock it is in ("open") and the last
 * instruction that ran ("pend"), whose successor is not known until the
 * next thing the thread does; that successor is what the PT packets of
 * the instruction need (stub_rec_thread_step). A rep string instruction
 * that Valgrind runs once per iteration is one instruction, as in PT.
 */
#include "stub/recorders/stub_vgrec_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_rec_code.h"
#include "stub/recorders/stub_rec_maps.h"
#include "stub/recorders/stub_sum.h"
#include "vgtool/hsrec_proto.h"

#define VGREC_WORKQ (16u << 20)    /* bytes of state words queued for the worker */

int vgrec_fail(struct stub_vgrec *r, int e, const char *fmt, ...)
{
	va_list ap;

	if (r->err && r->errsize && !r->err[0]) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errsize, fmt, ap);
		va_end(ap);
	}
	return e;
}

/* --- Threads, mappings ------------------------------------------------ */

struct vgrec_thread *vgrec_thread(struct stub_vgrec *r, int64_t tid)
{
	struct vgrec_thread *t, **v;
	char rel[64], path[PATH_MAX];
	int idx, e;

	if (r->cur && r->cur->tid == tid && !r->cur->gone)
		return r->cur;
	for (size_t i = 0; i < r->nth; i++)
		if (r->th[i]->tid == tid && !r->th[i]->gone)
			return r->th[i];
	v = realloc(r->th, (r->nth + 1) * sizeof(*v));
	if (!v)
		return NULL;
	r->th = v;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->tid = tid;
	snprintf(rel, sizeof(rel), "threads/%" PRId64 ".pt", tid);
	for (size_t i = 0; i < r->nth; i++)
		if (r->th[i]->tid == tid)  /* a tid used again: a new file */
			snprintf(rel, sizeof(rel), "threads/%" PRId64 ".%zu.pt", tid, r->nth);
	snprintf(path, sizeof(path), "%s/%s", r->opt.dir, rel);
	t->pt = replay_bundle_fcreate(path);
	if (!t->pt) {
		free(t);
		return NULL;
	}
	e = stub_rec_thread_init(&t->th, (pid_t)tid, t->pt, r->opt.psb_period, !r->opt.noretcomp,
				 r->clock);
	idx = e < 0 ? e : replay_bundle_add_thread(r->b, tid, rel);
	if (idx < 0) {
		stub_rec_thread_release(&t->th);
		fclose(t->pt);
		free(t);
		return NULL;
	}
	t->bundle_index = (size_t)idx;
	r->th[r->nth++] = t;
	/* The state log: started by the thread's first register dump; none
	 * for the history only (t->stf NULL: never started). */
	if (r->opt.history_only) {
		if (stub_rec_state_init(&t->st, (pid_t)tid, NULL) < 0 ||
		    stub_sum_start(r->b, idx, r->opt.dir, r->opt.snapshot, &t->th.pt.sum, NULL) < 0)
			return NULL;
		return t;
	}
	snprintf(rel + strlen(rel) - 3, 7, ".state");
	snprintf(path, sizeof(path), "%s/%s", r->opt.dir, rel);
	t->stf = replay_bundle_fcreate(path);
	if (!t->stf || stub_rec_state_init(&t->st, (pid_t)tid, t->stf) < 0 ||
	    replay_bundle_set_str(&r->b->threads[idx].state_file, rel) < 0 ||
	    stub_sum_start(r->b, idx, r->opt.dir, r->opt.snapshot, &t->th.pt.sum, &t->st.sum) < 0)
		return NULL;
	stub_rec_state_writer(&t->st, r->wr);
	return t;
}

/* Ends every executable mapping overlapping [start, end) at the current
 * time; what lies outside the range stays mapped (a new mapping from
 * now). 0 or -ENOMEM. */
int vgrec_unmap(struct stub_vgrec *r, uint64_t start, uint64_t end)
{
	for (size_t i = 0; i < r->nmaps;) {
		struct vgrec_map *m = &r->maps[i];
		struct replay_mapping old, piece;
		struct vgrec_map keep[2];
		size_t nkeep = 0;

		if (m->end <= start || m->start >= end) {
			i++;
			continue;
		}
		old = r->b->maps[m->index];
		r->b->maps[m->index].time_unmap = r->clock;
		if (m->start < start)
			keep[nkeep++] = (struct vgrec_map){ m->start, start, 0 };
		if (m->end > end)
			keep[nkeep++] = (struct vgrec_map){ end, m->end, 0 };
		*m = r->maps[--r->nmaps];
		for (size_t k = 0; k < nkeep; k++) {
			struct vgrec_map *v = realloc(r->maps, (r->nmaps + 1) * sizeof(*v));
			int idx;

			if (!v)
				return -ENOMEM;
			r->maps = v;
			piece = old;
			piece.time_map = r->clock;
			piece.time_unmap = REPLAY_TIME_NEVER;
			piece.start = keep[k].start;
			piece.size = keep[k].end - keep[k].start;
			piece.offset = old.offset + (keep[k].start - old.start);
			idx = replay_bundle_add_mapping(r->b, &piece);
			if (idx < 0)
				return idx;
			keep[k].index = (size_t)idx;
			r->maps[r->nmaps++] = keep[k];
		}
	}
	return 0;
}


int vgrec_map(struct stub_vgrec *r, uint64_t start, uint64_t len, uint64_t off,
		     uint32_t prot, const char *name)
{
	struct replay_mapping m = { .time_map = r->clock, .time_unmap = REPLAY_TIME_NEVER,
				    .start = start, .size = len, .offset = off };
	char uuid[128], rel[128];
	struct vgrec_map *v;
	int e = vgrec_unmap(r, start, start + len), idx;

	/* Code kept there ends where Valgrind lets go of its translations
	 * (it describes the code again if it runs again): memory no longer
	 * executable. (Made executable anew or still, the translations stay,
	 * and so does the code; other bytes that run there are a new
	 * version of their own.) */
	if (!(prot & 4))
		vgrec_forget_code(r, start, start + len);
	if (e < 0 || !(prot & 4))
		return e;
	if (!*name || (name[0] == '[' && strcmp(name, "[vdso]")))
		return 0;             /* if code runs there, vgrec_block says so */
	if (!strcmp(name, "[vdso]")) {
		/* The same in every process of this machine, Valgrind's
		 * client included: read through Valgrind's own memory. */
		char mem[64];
		int fd;

		if (r->feeding)
			return 0;     /* fed a stream (tests): no process to read it from */
		snprintf(mem, sizeof(mem), "/proc/%d/mem", (int)r->pid);
		fd = open(mem, O_RDONLY | O_CLOEXEC);
		e = fd < 0 ? -errno : stub_rec_dump_vdso(r->opt.dir, r->pid, fd, start, len, rel,
							 sizeof(rel));
		if (fd >= 0)
			close(fd);
		if (e < 0)
			return e;
		m.file = rel;
		m.system_path = "[vdso]";
		m.offset = 0;
	} else {
		m.file = m.system_path = (char *)name;
		if (stub_rec_build_id(name, uuid, sizeof(uuid)) == 0)
			m.uuid = uuid;
	}
	v = realloc(r->maps, (r->nmaps + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	r->maps = v;
	idx = replay_bundle_add_mapping(r->b, &m);
	if (idx < 0)
		return idx;
	r->maps[r->nmaps++] = (struct vgrec_map){ start, start + len, (size_t)idx };
	return 0;
}

static bool vgrec_imaged(void *r, uint64_t addr)
{
	return vgrec_mapped(r, addr);
}

/* The code of @blk, first entered by @t, kept from @time (stub_rec_code.h):
 * a PSB in each thread's trace before its next instruction where a version
 * of a page opened or ended, a gap (once) where the code could not be
 * kept. 0 or -errno. */
int vgrec_keep_code(struct stub_vgrec *r, struct vgrec_thread *t, struct vgrec_block *blk,
		    uint64_t time)
{
	blk->code_due = false;
	for (uint32_t i = 0; i < blk->ninsn; i++) {
		const struct stub_rec_insn *in = &blk->insn[i];
		int e = r->code ? stub_rec_code_seen(r->code, in->ip, in->bytes, in->len, time,
						     vgrec_imaged, r) : STUB_REC_CODE_LOST;

		if (e < 0)
			return vgrec_fail(r, e, "cannot keep the code the program made at %#" PRIx64
					  ": %s", in->ip, strerror(-e));
		if (e & STUB_REC_CODE_NEW)
			for (size_t k = 0; k < r->nth; k++)
				r->th[k]->th.pt.psb_asked = true;
		if ((e & STUB_REC_CODE_LOST) && !r->anon_reported) {
			r->anon_reported = true;
			if (replay_bundle_add_gap(r->b, t->tid, time, "image-missing",
						  "code ran in anonymous memory (generated code) "
						  "beyond the recording's room for it (256 MiB)") < 0)
				return -ENOMEM;
		}
	}
	return 0;
}

void vgrec_forget_code(struct stub_vgrec *r, uint64_t start, uint64_t end)
{
	if (r->code)
		stub_rec_code_forget(r->code, start, end, r->clock);
}

/* Whether @ip lies in a mapping of a file (the one found last first: a
 * superblock's instructions lie mostly in one). */
bool vgrec_mapped(struct stub_vgrec *r, uint64_t ip)
{
	const struct vgrec_map *m = r->last_map < r->nmaps ? &r->maps[r->last_map] : NULL;

	if (m && ip >= m->start && ip < m->end)
		return true;
	for (size_t i = 0; i < r->nmaps; i++)
		if (ip >= r->maps[i].start && ip < r->maps[i].end) {
			r->last_map = i;
			return true;
		}
	return false;
}

/* --- Instructions ------------------------------------------------------ */

static bool vgrec_direct(const struct stub_rec_insn *i)
{
	return i->cls == STUB_REC_JUMP || i->cls == STUB_REC_CALL || i->cls == STUB_REC_COND;
}

/* stub_rec_thread_step's result @e for @t: with --snapshot, a PSB it
 * wrote is a cut once the state log has a checkpoint there (vgrec_cut). */
static int vgrec_psb(const struct stub_vgrec *r, struct vgrec_thread *t, int e)
{
	if (e == 1 && r->opt.snapshot && t->st.started) {
		t->psb = true;
		t->psb_cut = (struct stub_rec_cut){ t->th.pt.last_psb, 0, t->th.ninsn, r->clock };
	}
	return e < 0 ? e : 0;
}

/* The checkpoint of the PSB @t wrote last (every record up to its
 * instruction written), and the cut. */
static int vgrec_cut(struct stub_vgrec *r, struct vgrec_thread *t)
{
	struct stub_rec_cut *c = &t->psb_cut;
	int e = stub_rec_state_known_ckpt(&t->st, c->index, c->time);

	t->psb = false;
	if (e < 0)
		return e;
	c->st_off = t->st.last_ckpt_off;
	return stub_rec_ring_cut_here(&t->ring, r->opt.snapshot, c, &t->th, &t->st, r->b);
}

/* The thread's pending instruction went to @ip. */
int vgrec_succ(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t ip)
{
	const struct stub_rec_insn *p = t->pend;
	uint64_t next;
	int e;

	if (!p)
		return 0;
	t->pend = NULL;
	if (p->rep && p->ip == ip)
		return 0;                  /* one more iteration: not done yet */
	next = p->ip + p->len;
	r->clock++;
	if (vgrec_direct(p) && ip != next && ip != p->target) {
		/* Valgrind redirected a direct branch (a function it
		 * replaces): the instruction as the CPU would have run it,
		 * then the thread leaves for where it went. */
		uint64_t to = p->cls == STUB_REC_COND ? next : p->target;

		e = vgrec_psb(r, t, stub_rec_thread_step(&t->th, p, to, r->clock));
		if (e >= 0)
			e = stub_rec_thread_interrupt(&t->th, to);
		return e < 0 ? e : 0;
	}
	return vgrec_psb(r, t, stub_rec_thread_step(&t->th, p, ip, r->clock));
}

/* The thread's pending instruction went to @ip, which runs now. */
static int vgrec_next(struct stub_vgrec *r, struct vgrec_thread *t, const struct stub_rec_insn *in)
{
	int e = vgrec_succ(r, t, in->ip);

	if (e >= 0 && !t->th.pt.enabled)
		e = stub_rec_thread_enter(&t->th, in->ip, r->clock);
	t->pend = in;
	return e;
}

/* The position the thread's next state record belongs to: after its
 * last instruction that ran (the pending one included), and its time. */
void vgrec_pos(const struct stub_vgrec *r, const struct vgrec_thread *t, uint64_t *index,
		      uint64_t *time)
{
	*index = t->th.ninsn + (t->pend ? 1 : 0);
	*time = *index + (r->clock - t->th.ninsn);
}

static uint64_t *vgrec_slot(struct user_regs_struct *regs, unsigned slot)
{
	return (uint64_t *)regs + slot;
}

/* The bytes that follow a state word of @kind with @arg (its operands),
 * or 0 for a word no tool writes. */
static size_t vgrec_st_size(unsigned kind, unsigned arg)
{
	switch (kind) {
	case HSREC_ST_REG:
		return 8;
	case HSREC_ST_STORE:
		return arg ? 8 + 2 * (size_t)arg : 0;
	case HSREC_ST_UNKNOWN:
		return 16;
	default:
		return 0;
	}
}

/* The open superblock's state words are applied or dropped. */
void vgrec_raw_done(struct stub_vgrec *r, struct vgrec_thread *t)
{
	t->raw_len = 0;
	t->raw_copied = false;
	if (r->raw_owner == t)
		r->raw_owner = NULL;
}

/* The state words @p (@len bytes) of instructions [from, n) of the
 * superblock that just ran, its instruction 0 being the thread's
 * instruction @idx0 at time @idx0 + @base (those before @from ran before
 * a stop inside it, and their words were applied then; the first to run
 * now is the thread's instruction @idx0 + pos[from]); those of later instructions did
 * not happen (a fault). vgrec_events checked each whole. Runs in the
 * worker (vgrec_state_apply): it touches only @t's state log and regs, and
 * with --snapshot (no worker) the cut. */
static int vgrec_apply(struct stub_vgrec *r, struct vgrec_thread *t, const struct vgrec_block *blk,
		       uint32_t from, uint32_t n, uint64_t idx0, uint64_t base, const uint8_t *p,
		       size_t len)
{
	const uint8_t *end = p + len;
	uint32_t regs = 0;             /* slots changed by the instruction at pos */
	uint32_t pos = UINT32_MAX;     /* among the block's distinct instructions */
	uint64_t index = 0;            /* idx0 + pos */
	int e = 0;

	if (!t->st.started)
		return 0;
	if (n)
		e = stub_rec_state_known_time(&t->st, idx0 + blk->pos[from],
					      idx0 + blk->pos[from] + base);
	while (p < end && e >= 0) {
		uint32_t w = vgrec_u32(p), insn = HSREC_ST_INSN(w), arg = HSREC_ST_ARG(w);
		unsigned kind = HSREC_ST_KIND(w);
		const uint8_t *q = p + 4;

		if (insn >= n)
			break;
		/* A rep instruction's unrolled copies are one instruction:
		 * its registers once, after all of its writes. */
		if (blk->pos[insn] != pos) {
			if (regs) {
				e = stub_rec_state_known_regs(&t->st, &t->regs, regs, index,
							      index + base);
				regs = 0;
			}
			pos = blk->pos[insn];
			index = idx0 + pos;
			if (e >= 0 && t->psb && index > t->psb_cut.index)
				e = vgrec_cut(r, t);
			if (e < 0)
				break;
		}
		if (kind == HSREC_ST_REG) {
			if (arg < HSREC_NGP) {
				memcpy(vgrec_slot(&t->regs, arg), q, 8);
				regs |= 1u << arg;
			}
			p = q + 8;
			continue;
		}
		p = q + vgrec_st_size(kind, arg);
		if (kind == HSREC_ST_STORE)
			e = stub_rec_state_known_mem(&t->st, vgrec_u64(q), arg, q + 8, q + 8 + arg,
						     index, index + base);
		else
			e = stub_rec_state_known_map(&t->st, vgrec_u64(q), vgrec_u64(q + 8),
						     STUB_REC_MAP_UNKNOWN, index, index + base);
	}
	if (e >= 0 && regs)
		e = stub_rec_state_known_regs(&t->st, &t->regs, regs, index, index + base);
	if (e >= 0 && t->psb)
		e = vgrec_cut(r, t);
	if (r->opt.snapshot && stub_rec_ring_want(&t->ring, r->opt.snapshot, t->st.bytes + t->st.nrec))
		t->th.pt.psb_asked = true;
	return e;
}

/* A superblock's state words for the worker: what vgrec_apply takes. */
struct vgrec_job {
	struct vgrec_thread *t;
	const struct vgrec_block *blk;
	uint64_t idx0, base;
	uint32_t from, n;
};

static int vgrec_job_run(void *ctx, const void *p, size_t len)
{
	const struct vgrec_job *j = p;

	return vgrec_apply(ctx, j->t, j->blk, j->from, j->n, j->idx0, j->base, (const uint8_t *)(j + 1),
			   len - sizeof(*j));
}

/* Every superblock's state words handed to the worker are in the logs:
 * before anything else touches a thread's state log or regs. 0 or the
 * error the worker met. */
int vgrec_state_wait(struct stub_vgrec *r)
{
	return r->stq ? stub_workq_wait(r->stq) : 0;
}

/* vgrec_apply on @t's open superblock's words, by the worker thread while
 * this one reads on (turning words into records is most of a recording's
 * work, and the tool leaves most of the other CPU free); here with
 * --snapshot (its cuts tie the trace to the log) or if the worker cannot
 * be had. The words are copied: the read buffer moves on. */
static int vgrec_state_apply(struct stub_vgrec *r, struct vgrec_thread *t,
			     const struct vgrec_block *blk, uint32_t from, uint32_t n, uint64_t idx0,
			     uint64_t base)
{
	const uint8_t *p = t->raw_copied ? t->raw : r->in + t->raw_off;
	size_t len = t->raw_len;
	struct vgrec_job *j = NULL;
	int e;

	if (!r->stq && !r->stq_failed && !r->opt.snapshot) {
		r->stq_failed = stub_workq_start(&r->stq, VGREC_WORKQ, 0, "hindsight-log",
						 vgrec_job_run, r) < 0;
		/* Without a writer the worker writes itself. */
		if (r->stq && stub_rec_writer_start(&r->wr) == 0)
			for (size_t i = 0; i < r->nth; i++)
				stub_rec_state_writer(&r->th[i]->st, r->wr);
	}
	if (!r->stq) {
		e = vgrec_apply(r, t, blk, from, n, idx0, base, p, len);
	} else if (n == 0) {
		e = 0;                 /* nothing ran: no record */
	} else if ((j = stub_workq_reserve(r->stq, sizeof(*j) + len))) {
		*j = (struct vgrec_job){ t, blk, idx0, base, from, n };
		memcpy(j + 1, p, len);
		e = stub_workq_put(r->stq);
	} else {
		e = stub_workq_wait(r->stq);
		if (e >= 0)
			e = vgrec_apply(r, t, blk, from, n, idx0, base, p, len);
	}
	vgrec_raw_done(r, t);
	return e;
}

/* Instructions [0, n) of @blk ran in @t. Inside a superblock each
 * instruction goes to the next one; the leading ones that are no branch
 * (blk->plain of them) write no packet, and so no PSB is due after them
 * (stub_swpt_boundary counts bytes): they are only counted. That is the
 * fast path of this recorder. Then the superblock's state words. */
int vgrec_run(struct stub_vgrec *r, struct vgrec_thread *t, const struct vgrec_block *blk,
		     uint32_t n)
{
	/* A stop inside the open superblock ran the ones before it. */
	uint32_t from = blk == t->open ? t->open_from : 0;
	uint64_t idx0, base;
	uint32_t bulk;
	int e;

	if (n <= from)
		return vgrec_state_apply(r, t, blk, 0, 0, 0, 0);
	e = vgrec_next(r, t, &blk->insn[from]);
	/* Instruction 0's index, as if it ran just before: its words'
	 * positions count from there. */
	idx0 = t->th.ninsn + 1 - blk->pos[from];
	base = r->clock - t->th.ninsn;
	bulk = from ? 0 : n - 1 < blk->plain ? n - 1 : blk->plain;
	if (bulk) {
		r->clock += bulk;
		t->th.ninsn += bulk;
		t->pend = &blk->insn[bulk];
	}
	for (uint32_t i = from + bulk + 1; i < n && e >= 0; i++)
		e = vgrec_next(r, t, &blk->insn[i]);
	if (e >= 0)
		e = vgrec_state_apply(r, t, blk, from, n, idx0, base);
	return e;
}

/* @n more bytes of @t's state words, copied. */
static int vgrec_raw_add(struct vgrec_thread *t, const uint8_t *p, size_t n)
{
	if (t->raw_len + n > t->raw_cap) {
		size_t cap = t->raw_cap ? t->raw_cap : 4096;
		uint8_t *nv;

		while (cap < t->raw_len + n)
			cap *= 2;
		nv = realloc(t->raw, cap);
		if (!nv)
			return -ENOMEM;
		t->raw = nv;
		t->raw_cap = cap;
	}
	memcpy(t->raw + t->raw_len, p, n);
	t->raw_len += n;
	return 0;
}

/* @t's state words still in the read buffer are copied out of it (the
 * buffer moves on, or another thread's words come). */
int vgrec_raw_copy(struct stub_vgrec *r, struct vgrec_thread *t)
{
	size_t n = t->raw_len;

	r->raw_owner = NULL;
	t->raw_len = 0;
	t->raw_copied = true;
	return vgrec_raw_add(t, r->in + t->raw_off, n);
}

/* The state words of the current thread's open superblock from r->in +
 * @at on, each with its operands after it: *@used is the bytes of those
 * all in (0: not even the first yet). The words stay where they are until
 * the superblock ends (vgrec_apply); they are copied only when the read
 * buffer must move on first. */
int vgrec_events(struct stub_vgrec *r, size_t at, size_t *used)
{
	struct vgrec_thread *t = r->cur;
	size_t i = at, n;
	int e = 0;

	*used = 0;
	if (!t || !t->open)
		return vgrec_fail(r, -EPROTO, "a state word outside a superblock");
	while (i + 4 <= r->nin) {
		uint32_t w = vgrec_u32(r->in + i);
		size_t need;

		if ((w & HSREC_ST_MASK) != HSREC_ST)
			break;
		need = vgrec_st_size(HSREC_ST_KIND(w), HSREC_ST_ARG(w));
		if (!need)
			return vgrec_fail(r, -EPROTO, "an unknown state word %#x from the tool", w);
		if (HSREC_ST_INSN(w) >= t->open->ninsn)
			return vgrec_fail(r, -EPROTO, "a state word of instruction %u of a "
					  "superblock of %u", HSREC_ST_INSN(w), t->open->ninsn);
		if (r->nin - i - 4 < need)
			break;
		i += 4 + need;
	}
	n = *used = i - at;
	if (!n)
		return 0;
	if (r->raw_owner && (r->raw_owner != t || t->raw_off + t->raw_len != at))
		e = vgrec_raw_copy(r, r->raw_owner);
	if (e < 0 || t->raw_copied)
		return e < 0 ? e : vgrec_raw_add(t, r->in + at, n);
	if (!t->raw_len)
		t->raw_off = at;
	t->raw_len += n;
	r->raw_owner = t;
	return 0;
}

/* Something outside @t's instructions (a syscall, Valgrind, a signal)
 * happens: the superblock it was in ran to its end (it ends with the
 * syscall; a signal's record came first). */
static int vgrec_settle(struct stub_vgrec *r, struct vgrec_thread *t)
{
	int e = 0;

	if (t->open) {
		e = vgrec_run(r, t, t->open, t->open->ninsn);
		t->open = NULL;
	}
	return e;
}

/* Every register of @t (a DUMP record): the log starts, or what changed
 * outside its instructions is logged. */
int vgrec_dump(struct stub_vgrec *r, struct vgrec_thread *t, const uint8_t *p)
{
	struct user_regs_struct regs;
	uint64_t index, time;
	int e = vgrec_settle(r, t);

	if (e >= 0)
		e = vgrec_state_wait(r);
	if (e < 0)
		return e;
	memcpy(&regs, p, sizeof(regs));
	vgrec_pos(r, t, &index, &time);
	t->regs = regs;
	if (!t->st.started && !t->stf)
		return 0;          /* the history only */
	if (!t->st.started)
		return stub_rec_state_known_start(&t->st, &regs, index, time);
	return stub_rec_state_known_regs(&t->st, &regs, ~0u, index, time);
}

/* Memory written outside the thread's instructions (MEMW), or changed
 * otherwise (MEMU). */
int vgrec_memw(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t addr,
		      const uint8_t *old, const uint8_t *now, uint64_t len)
{
	uint64_t index, time;
	int e = vgrec_settle(r, t);

	if (e >= 0)
		e = vgrec_state_wait(r);
	if (e < 0 || !t->st.started)
		return e;
	vgrec_pos(r, t, &index, &time);
	return stub_rec_state_known_mem(&t->st, addr, len, old, now, index, time);
}

int vgrec_memu(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t addr, uint64_t len,
		      uint32_t how)
{
	static const enum stub_rec_state_map kinds[] = { STUB_REC_MAP_UNKNOWN, STUB_REC_MAP_ZERO,
							 STUB_REC_MAP_GONE, STUB_REC_MAP_VOLATILE };
	uint64_t index, time;
	int e = vgrec_settle(r, t);

	if (e >= 0)
		e = vgrec_state_wait(r);
	if (e < 0 || !t->st.started)
		return e;
	vgrec_pos(r, t, &index, &time);
	return stub_rec_state_known_map(&t->st, addr, len, how < 4 ? kinds[how] :
					STUB_REC_MAP_UNKNOWN, index, time);
}

/* @t stopped before @ip, the first @n instructions of its open superblock
 * (if any) run. */
int vgrec_stop_at(struct stub_vgrec *r, struct vgrec_thread *t, uint32_t n, uint64_t ip)
{
	int e = 0;

	if (t->open)
		e = vgrec_run(r, t, t->open, n);
	t->open = NULL;
	if (e >= 0)
		e = vgrec_succ(r, t, ip);
	if (e >= 0)
		e = stub_rec_thread_interrupt(&t->th, ip);
	return e;
}

/* @t stopped before @ip. A fault stops it inside its open superblock:
 * that ran up to the last instruction at @ip (of the copies of a rep
 * string instruction VEX unrolled, those before it ran, and wrote).
 * Anything else (a switch, a signal from outside, the end) stops it
 * between superblocks: the open one ran whole, but for its last
 * instruction if that is at @ip (a syscall to make again, restarted).
 * The first instruction at @ip is no sign: VEX unrolls a small loop into
 * one superblock that ends where it starts. */
int vgrec_stopped(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t ip, bool fault)
{
	uint32_t n = t->open ? t->open->ninsn : 0;

	if (t->open && !fault) {
		if (n && t->open->insn[n - 1].ip == ip)
			n--;
	} else if (t->open) {
		for (uint32_t i = t->open->ninsn; i-- > 0;)
			if (t->open->insn[i].ip == ip) {
				n = i;
				break;
			}
	}
	return vgrec_stop_at(r, t, n, ip);
}

int vgrec_enter(struct stub_vgrec *r, uint32_t id)
{
	struct vgrec_thread *t = r->cur;
	const struct vgrec_block *blk;
	int e = 0;

	if (r->id_base + id >= r->nblocks || !r->blocks[r->id_base + id])
		return vgrec_fail(r, -EPROTO, "the tool entered superblock %u it never described", id);
	if (!t)
		return vgrec_fail(r, -EPROTO, "the tool ran a superblock in no thread");
	blk = r->blocks[r->id_base + id];
	r->entries++;
	if (t->open) {
		e = vgrec_run(r, t, t->open, t->open->ninsn);
		t->open = NULL;
	}
	/* Its code, if made by the program, from the time its first
	 * instruction runs at (after the one whose successor it is): the
	 * block before it may have run other bytes there (code that writes
	 * over itself), though it was described later. */
	if (e >= 0 && blk->code_due)
		e = vgrec_keep_code(r, t, r->blocks[r->id_base + id], r->clock + (t->pend ? 1 : 0));
	if (e >= 0 && blk->ninsn)
		e = vgrec_succ(r, t, blk->insn[0].ip);
	t->open = blk;
	t->open_from = 0;
	return e;
}

int vgrec_exit(struct stub_vgrec *r, uint32_t k)
{
	struct vgrec_thread *t = r->cur;
	const struct vgrec_block *blk = t ? t->open : NULL;
	const struct vgrec_exit *x;
	uint32_t n;
	int e;

	if (!blk || k >= blk->nexit)
		return vgrec_fail(r, -EPROTO, "the tool left a superblock through exit %u it "
				  "does not have", k);
	x = &blk->exit[k];
	n = x->dst == blk->insn[x->idx].ip ? x->idx : x->idx + 1;
	e = vgrec_run(r, t, blk, n);
	t->open = NULL;
	return e;
}
