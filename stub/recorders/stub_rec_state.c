/*
 * stub/recorders/stub_rec_state.c: the state log writer: records built in memory
 * (varints, docs/bundle.md "State log"), one fwrite per step.
 *
 * General registers are compared with the copy as of the last record; the
 * XSAVE area is read and compared only after instructions that may change
 * it (stub_rec_insn.fpw), syscalls and signal deliveries. Memory ranges
 * are read before the step (old bytes) and after it (new bytes), each
 * with one pread; a range that runs into unmapped memory is cut to its
 * readable pieces (a masked AVX-512 store near the end of a mapping writes
 * only those).
 */
#include "stub/recorders/stub_rec_state.h"

#include <cpuid.h>
#include <elf.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_maps.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_state_ops.h"
#include "stub/recorders/stub_rec_state_sys.h"

#define STUB_REC_PAGE 4096ull
#define STUB_REC_REDZONE 128
#define STUB_REC_FRAME 1024       /* rt_sigframe beyond the XSAVE area */

static struct stub_rec_xoff stub_rec_xoff;

static void stub_rec_check_again(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				 const struct user_regs_struct *regs, uint64_t index);

/* --- encoding ------------------------------------------------------------ */

static int stub_rec_rec_grow(struct stub_rec_state *s, size_t more)
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

/* Room for @more bytes of records (once per record: inline). */
static inline int stub_rec_rec_room(struct stub_rec_state *s, size_t more)
{
	return s->nrec + more <= s->caprec ? 0 : stub_rec_rec_grow(s, more);
}

/* Callers reserve room first (stub_rec_rec_room). */
static inline void stub_rec_put(struct stub_rec_state *s, uint64_t v)
{
	s->nrec += replay_state_put_varint(s->rec + s->nrec, v);
}

static inline void stub_rec_put_s(struct stub_rec_state *s, int64_t v)
{
	stub_rec_put(s, replay_state_zigzag(v));
}

/* memcpy, with the 8 bytes of most writes (a register's worth) copied
 * inline: these run once per write the program makes. */
static inline void stub_rec_copy(void *d, const void *p, size_t n)
{
	if (n == 8)
		memcpy(d, p, 8);
	else
		memcpy(d, p, n);
}

static inline void stub_rec_put_bytes(struct stub_rec_state *s, const void *p, size_t n)
{
	stub_rec_copy(s->rec + s->nrec, p, n);
	s->nrec += n;
}

static inline void stub_rec_tag(struct stub_rec_state *s, unsigned kind, uint64_t index)
{
	s->nrec += replay_state_put_tag(s->rec + s->nrec, kind, index - s->last_index);
	s->last_index = index;
	s->ended = false;              /* a record after an end: not the end */
}

static int stub_rec_kw_flush(struct stub_rec_state *s);

/* What the known-value calls hold back (a write being grown), written
 * before anything else. */
static int stub_rec_known_flush(struct stub_rec_state *s)
{
	return s->kw_len ? stub_rec_kw_flush(s) : 0;
}

/* A TIME record: time minus index is now time - @index. */
static void stub_rec_time_rec(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	s->base = time - index;
	stub_rec_tag(s, REPLAY_STATE_REC_TIME, index);
	stub_rec_put(s, s->base);
}

/* A record of @kind at @index, @time (a TIME record first if time minus
 * index changed), with room for @more bytes; what known-value calls held
 * back is not written first. Always inline: a Valgrind recording starts a
 * record here for nearly every instruction. */
static inline __attribute__((always_inline)) int stub_rec_begin_raw(struct stub_rec_state *s,
		unsigned kind, uint64_t index, uint64_t time, size_t more)
{
	int e = stub_rec_rec_room(s, more + 32);

	if (e < 0)
		return e;
	if (time - index != s->base)
		stub_rec_time_rec(s, index, time);
	if (kind != REPLAY_STATE_REC_TIME)
		stub_rec_tag(s, kind, index);
	return 0;
}

/* The same, after what known-value calls held back (older records). */
static int stub_rec_begin(struct stub_rec_state *s, unsigned kind, uint64_t index,
			  uint64_t time, size_t more)
{
	int e = stub_rec_known_flush(s);

	return e < 0 ? e : stub_rec_begin_raw(s, kind, index, time, more);
}

static int stub_rec_emit(struct stub_rec_state *s)
{
	if (!s->nrec)
		return 0;
	errno = 0;
	if (fwrite(s->rec, 1, s->nrec, s->out) != s->nrec)
		return errno ? -errno : -EIO;  /* ENOSPC said as such */
	stub_sum_feed(s->sum, s->rec, s->nrec);
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

static int stub_rec_xread(pid_t tid, uint8_t *buf, size_t *len)
{
	struct iovec iov = { buf, REPLAY_STATE_XMAX };

	if (ptrace(PTRACE_GETREGSET, tid, (void *)NT_X86_XSTATE, &iov) < 0)
		return -errno;
	*len = iov.iov_len;
	return 0;
}

static uint64_t stub_rec_slot(const struct user_regs_struct *r, unsigned slot)
{
	uint64_t v;

	memcpy(&v, (const uint8_t *)r + 8 * slot, 8);
	return v;
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
static void stub_rec_seen_note(struct stub_rec_state *s, uint64_t addr, uint64_t len,
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
static void stub_rec_put_mem(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     const uint8_t *old)
{
	bool same = stub_rec_seen_same(s, addr, len, old);

	stub_rec_put_s(s, (int64_t)(addr - s->mem_end));
	stub_rec_put(s, len << 1 | (same ? REPLAY_STATE_MEM_SAME : 0));
	if (!same)
		stub_rec_put_bytes(s, old, len);
}

/* --- records ---------------------------------------------------------- */

static int stub_rec_checkpoint(struct stub_rec_state *s, const struct user_regs_struct *regs,
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
	stub_sum_mark(s->sum, s->last_ckpt_off = s->bytes + s->nrec);
	s->ckpt_next = false;
	stub_rec_tag(s, REPLAY_STATE_REC_CKPT, index);
	s->base = time - index;
	stub_rec_put(s, index);
	stub_rec_put(s, s->base);
	for (unsigned i = 0; i < REPLAY_STATE_NGP; i++)
		stub_rec_put(s, stub_rec_slot(regs, i));
	stub_rec_put_xdiff(s, zero, s->xs);
	stub_sum_mark(s->sum, s->bytes + s->nrec);
	s->regs = *regs;
	s->last_ckpt = index;
	s->mem_end = 0;
	s->seen_gen++;             /* a reader may start here */
	return 0;
}

/* A REGS record's body: @mask (positions in replay_state_slots) and the
 * differences of those slots of @regs from the log's; they become the
 * log's. */
static inline void stub_rec_put_regs(struct stub_rec_state *s,
				     const struct user_regs_struct *regs, uint64_t mask)
{
	stub_rec_put(s, mask);
	for (uint64_t m = mask; m; m &= m - 1) {
		unsigned slot = replay_state_slots[__builtin_ctzll(m)];
		uint64_t now = stub_rec_slot(regs, slot);

		stub_rec_put_s(s, (int64_t)(now - stub_rec_slot(&s->regs, slot)));
		memcpy((uint8_t *)&s->regs + 8 * slot, &now, 8);
	}
}

static int stub_rec_regs(struct stub_rec_state *s, const struct user_regs_struct *regs,
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
static int stub_rec_xstate(struct stub_rec_state *s, uint64_t index, uint64_t time)
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

static int stub_rec_map(struct stub_rec_state *s, uint64_t addr, uint64_t len, unsigned kind,
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

/* --- pending writes ------------------------------------------------- */

void stub_rec_state_drop(struct stub_rec_state *s)
{
	s->nrg = 0;
	s->npend = 0;
	s->pend_valid = false;
	s->pend_syscall = false;
}

static int stub_rec_pend_room(struct stub_rec_state *s, uint64_t len)
{
	uint8_t *nv;
	size_t cap;

	if (s->nrg == s->caprg) {
		struct stub_rec_state_range *rv;

		s->caprg = s->caprg ? 2 * s->caprg : 64;
		rv = realloc(s->rg, s->caprg * sizeof(*rv));
		if (!rv)
			return -ENOMEM;
		s->rg = rv;
	}
	if (s->npend + len <= s->cappend)
		return 0;
	cap = s->cappend ? s->cappend : 65536;
	while (cap < s->npend + len)
		cap *= 2;
	nv = realloc(s->pend, cap);
	if (!nv)
		return -ENOMEM;
	s->pend = nv;
	s->cappend = cap;
	return 0;
}

/* The old bytes of [@addr, +@len): its readable pieces become ranges. */
static int stub_rec_pend_add(struct stub_rec_state *s, int fd, uint64_t addr, uint64_t len)
{
	uint64_t end = addr + len;

	while (addr < end) {
		uint64_t want = end - addr;
		ssize_t n;
		int e = stub_rec_pend_room(s, want);

		if (e < 0)
			return e;
		n = pread(fd, s->pend + s->npend, want, (off_t)addr);
		if (n <= 0) {
			addr = (addr | (STUB_REC_PAGE - 1)) + 1;   /* the next page */
			continue;
		}
		s->rg[s->nrg++] = (struct stub_rec_state_range){ addr, (uint64_t)n, s->npend };
		s->npend += (size_t)n;
		addr += (uint64_t)n;
	}
	return 0;
}

static int stub_rec_gap(struct stub_rec_state_proc *p, pid_t tid, uint64_t time, const char *text)
{
	int e = replay_bundle_add_gap(p->b, tid, time, "state-unknown", text);

	return e < 0 ? e : 0;
}

/* Logs every pending range with its bytes now; one that cannot be read
 * any more is logged as unknown instead. */
static int stub_rec_pend_log(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			     uint64_t index, uint64_t time)
{
	for (size_t i = 0; i < s->nrg; i++) {
		const struct stub_rec_state_range *g = &s->rg[i];
		size_t at = s->nrec;
		uint64_t li = s->last_index, base = s->base, me = s->mem_end;
		int e = stub_rec_begin(s, REPLAY_STATE_REC_MEM, index, time, 32 + 2 * g->len);

		if (e < 0)
			return e;
		stub_rec_put_mem(s, g->addr, g->len, s->pend + g->old);
		if (pread(*p->mem_fd, s->rec + s->nrec, g->len, (off_t)g->addr) != (ssize_t)g->len) {
			s->nrec = at;
			s->last_index = li;
			s->base = base;
			s->mem_end = me;
			e = stub_rec_map(s, g->addr, g->len, STUB_REC_MAP_UNKNOWN, index, time);
			if (e < 0)
				return e;
			continue;
		}
		stub_rec_seen_note(s, g->addr, g->len, s->rec + s->nrec);
		s->nrec += g->len;
		s->mem_end = g->addr + g->len;
		s->last_write = g->addr;
	}
	stub_rec_state_drop(s);
	return 0;
}

/* --- the process ------------------------------------------------------- */

int stub_rec_state_proc_init(struct stub_rec_state_proc *p, const int *mem_fd,
			     struct replay_bundle *b, FILE *check, uint64_t every)
{
	unsigned a, bx, c, d;

	memset(p, 0, sizeof(*p));
	p->mem_fd = mem_fd;
	p->b = b;
	p->check = check;
	p->check_every = every;
	if (ZYAN_FAILED(ZydisDecoderInit(&p->dec, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	p->xsave_size = 4096;
	if (__get_cpuid_count(0xd, 0, &a, &bx, &c, &d) && bx)
		p->xsave_size = bx;
	stub_rec_xoff = (struct stub_rec_xoff){ 576, 1152, 1664 };
	if (__get_cpuid_count(0xd, 2, &a, &bx, &c, &d) && a)
		stub_rec_xoff.ymm = bx;
	if (__get_cpuid_count(0xd, 6, &a, &bx, &c, &d) && a)
		stub_rec_xoff.zmm_hi256 = bx;
	if (__get_cpuid_count(0xd, 7, &a, &bx, &c, &d) && a)
		stub_rec_xoff.hi16_zmm = bx;
	return 0;
}

/* --- the thread ------------------------------------------------------ */

static void stub_rec_pos_init(void);

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
static int stub_rec_head(struct stub_rec_state *s, const struct user_regs_struct *regs,
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

/* The header and the first checkpoint. */
static int stub_rec_start(struct stub_rec_state *s, const struct user_regs_struct *regs,
			  uint64_t index, uint64_t time)
{
	int e = stub_rec_xread(s->tid, s->xs, &s->xs_len);

	if (e < 0)
		return e;
	return stub_rec_head(s, regs, index, time);
}

int stub_rec_state_initial_stack(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				 uint64_t rsp, uint64_t index, uint64_t time)
{
	struct rsp_region reg;
	struct rsp_buf maps;
	uint64_t end, from;
	uint8_t *buf;
	ssize_t n;
	int e;

	rsp_buf_init(&maps);
	e = stub_procfs_read(s->tid, "maps", &maps);
	if (e == 0)
		e = stub_maps_region(rsp_buf_str(&maps), rsp, &reg);
	rsp_buf_release(&maps);
	if (e < 0 || !reg.mapped)
		return 0;
	end = reg.start + reg.size;
	/* The whole mapping, below @rsp too: at an exec that is zeros the
	 * program will write its frames over, and a debugger reads around
	 * the stack pointer in whole lines (LLDB: 512 bytes) that a frame's
	 * unwritten padding would otherwise leave unknown. */
	from = reg.start;
	if (end - from > STUB_REC_STATE_STACK)
		from = end - STUB_REC_STATE_STACK;
	buf = malloc(end - from);
	if (!buf)
		return -ENOMEM;
	n = pread(*p->mem_fd, buf, end - from, (off_t)from);
	e = n > 0 ? stub_rec_state_known_mem(s, from, (uint64_t)n, buf, buf, index, time) : 0;
	free(buf);
	return e < 0 ? e : 0;
}

int stub_rec_state_ready(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			 const struct user_regs_struct *regs, uint64_t index, uint64_t time)
{
	int e;

	if (!s->started)
		return stub_rec_start(s, regs, index, time);
	if (!memcmp(regs, &s->regs, sizeof(*regs)))
		return 0;
	e = stub_rec_regs(s, regs, index, time);
	if (e >= 0)
		e = stub_rec_xstate(s, index, time);
	if (e >= 0 && s->nrec)
		stub_rec_check_again(s, p, regs, index);
	return e < 0 ? e : stub_rec_emit(s);
}

int stub_rec_state_before(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			  const struct stub_rec_insn *insn,
			  const struct user_regs_struct *regs, uint64_t index)
{
	struct stub_rec_span sp[STUB_REC_SPANS];
	int n;

	if (!insn->memw)
		return 0;
	if (s->pend_valid && insn->rep && s->pend_ip == insn->ip && s->pend_index == index)
		return 0;                  /* the next iteration of a rep */
	stub_rec_state_drop(s);
	n = stub_rec_state_ops(&p->dec, insn, regs, s->xs, s->xs_len, &stub_rec_xoff,
			       p->xsave_size, ZYDIS_OPERAND_ACTION_MASK_WRITE, sp, STUB_REC_SPANS);
	if (n < 0)
		return n == -E2BIG || n == -EINVAL ? 0 : n;
	for (int i = 0; i < n; i++) {
		int e = sp[i].len > STUB_REC_STATE_BIG ? 0 :
			stub_rec_pend_add(s, *p->mem_fd, sp[i].addr, sp[i].len);

		if (e < 0)
			return e;
	}
	s->pend_valid = true;
	s->pend_ip = insn->ip;
	s->pend_index = index;
	return 0;
}

int stub_rec_state_syscall(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			   long nr, const struct user_regs_struct *regs, uint64_t index,
			   uint64_t time)
{
	struct stub_rec_span sp[STUB_REC_SPANS];
	char text[96];
	int n;

	stub_rec_state_drop(s);
	s->nvol = 0;
	s->sc_nr = nr;
	s->sc_args[0] = regs->rdi;
	s->sc_args[1] = regs->rsi;
	s->sc_args[2] = regs->rdx;
	s->sc_args[3] = regs->r10;
	s->sc_args[4] = regs->r8;
	s->sc_args[5] = regs->r9;
	s->sc_rsp = regs->rsp;
	s->pend_syscall = true;
	s->pend_valid = true;
	s->pend_index = index;
	if (nr == SYS_sigaltstack && regs->rdi) {
		uint64_t ss[3];

		if (pread(*p->mem_fd, ss, sizeof(ss), (off_t)regs->rdi) == (ssize_t)sizeof(ss)) {
			s->alt_sp = (ss[1] & 2) ? 0 : ss[0];       /* SS_DISABLE */
			s->alt_size = (ss[1] & 2) ? 0 : ss[2];
		}
	}
	n = stub_rec_state_sys(nr, s->sc_args, *p->mem_fd, sp, STUB_REC_SPANS);
	if (n < 0) {
		snprintf(text, sizeof(text), "syscall %ld may write memory", nr);
		return stub_rec_gap(p, s->tid, time, text);
	}
	for (int i = 0; i < n; i++) {
		int e = 0;

		if (sp[i].kind == STUB_REC_SPAN_VOLATILE &&
		    s->nvol < sizeof(s->vol) / sizeof(s->vol[0])) {
			s->vol[s->nvol][0] = sp[i].addr;
			s->vol[s->nvol++][1] = sp[i].len;
		}
		if (sp[i].len > STUB_REC_STATE_BIG || sp[i].kind == STUB_REC_SPAN_VOLATILE)
			continue;
		e = stub_rec_pend_add(s, *p->mem_fd, sp[i].addr, sp[i].len);
		if (e < 0)
			return e;
	}
	return 0;
}

static uint64_t stub_rec_page_up(uint64_t a)
{
	return (a + STUB_REC_PAGE - 1) & ~(STUB_REC_PAGE - 1);
}

/* Mapping changes of the syscall that returned @ret. */
static int stub_rec_sys_maps(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			     int64_t ret, uint64_t index, uint64_t time)
{
	const uint64_t *a = s->sc_args;
	uint64_t r = (uint64_t)ret;
	int e = 0;

	if (ret < 0 && ret > -4096)
		return 0;
	switch (s->sc_nr) {
	case SYS_mmap:
		if ((a[3] & MAP_SHARED) && (a[2] & PROT_WRITE)) {
			e = stub_rec_map(s, r, stub_rec_page_up(a[1]), STUB_REC_MAP_VOLATILE,
					 index, time);
			return e < 0 ? e : stub_rec_gap(p, s->tid, time,
				"a writable shared mapping: other processes may write it");
		}
		return stub_rec_map(s, r, stub_rec_page_up(a[1]),
				    (a[3] & MAP_ANONYMOUS) ? STUB_REC_MAP_ZERO : STUB_REC_MAP_UNKNOWN,
				    index, time);
	case SYS_munmap:
		return stub_rec_map(s, a[0], stub_rec_page_up(a[1]), STUB_REC_MAP_GONE, index, time);
	case SYS_mremap:
		e = stub_rec_map(s, a[0], stub_rec_page_up(a[1]), STUB_REC_MAP_GONE, index, time);
		return e < 0 ? e : stub_rec_map(s, r, stub_rec_page_up(a[2]),
						STUB_REC_MAP_UNKNOWN, index, time);
	case SYS_madvise:                  /* DONTNEED, FREE, REMOVE: contents go */
		if (a[2] == 4 || a[2] == 8 || a[2] == 9)
			return stub_rec_map(s, a[0], stub_rec_page_up(a[1]), STUB_REC_MAP_UNKNOWN,
					    index, time);
		return 0;
	case SYS_brk:
		if (p->brk && stub_rec_page_up(r) > stub_rec_page_up(p->brk))
			e = stub_rec_map(s, stub_rec_page_up(p->brk),
					 stub_rec_page_up(r) - stub_rec_page_up(p->brk),
					 STUB_REC_MAP_ZERO, index, time);
		else if (p->brk && stub_rec_page_up(r) < stub_rec_page_up(p->brk))
			e = stub_rec_map(s, stub_rec_page_up(r),
					 stub_rec_page_up(p->brk) - stub_rec_page_up(r),
					 STUB_REC_MAP_GONE, index, time);
		p->brk = r;
		return e;
	case SYS_shmat: case SYS_shmdt:
		return stub_rec_gap(p, s->tid, time, "System V shared memory: state unknown");
	default:
		return 0;
	}
}

/* The pending syscall ranges: trimmed to what it returned, volatile
 * ranges as such, mapping changes. */
static int stub_rec_sys_done(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			     int64_t ret, uint64_t index, uint64_t time)
{
	struct stub_rec_span sp[STUB_REC_SPANS];
	int n = stub_rec_state_sys(s->sc_nr, s->sc_args, -1, sp, STUB_REC_SPANS), e;

	/* Volatile ranges as found at entry: some come from memory the
	 * syscall's arguments point to (clone3's child_tid), which the table
	 * cannot read again here. */
	for (size_t i = 0; i < s->nvol; i++) {
		e = stub_rec_map(s, s->vol[i][0], s->vol[i][1], STUB_REC_MAP_VOLATILE, index, time);
		if (e < 0)
			return e;
	}
	s->nvol = 0;
	/* A vfork child ran on this thread's memory, and on its stack below
	 * rsp, while the thread waited: what it wrote there is unknown. */
	if (ret > 0 && (s->sc_nr == SYS_vfork ||
			(s->sc_nr == SYS_clone && (s->sc_args[0] & CLONE_VFORK)))) {
		e = stub_rec_map(s, s->sc_rsp - STUB_REC_VFORK_STACK, STUB_REC_VFORK_STACK,
				 STUB_REC_MAP_UNKNOWN, index, time);
		if (e < 0)
			return e;
	}
	/* Trims apply to the table's plain entries (never to pointer reads,
	 * which fail with fd -1 and so give no span). */
	for (int i = 0; i < n; i++) {
		uint64_t keep = ret > 0 ? (uint64_t)ret * sp[i].trim : 0;

		if (sp[i].kind == STUB_REC_SPAN_VOLATILE || !sp[i].trim)
			continue;
		for (size_t k = 0; k < s->nrg; k++) {
			struct stub_rec_state_range *g = &s->rg[k];
			uint64_t cut = sp[i].addr + (keep < sp[i].len ? keep : sp[i].len);

			if (g->addr >= sp[i].addr && g->addr < sp[i].addr + sp[i].len)
				g->len = g->addr >= cut ? 0 : (g->addr + g->len > cut ? cut - g->addr : g->len);
		}
	}
	e = stub_rec_sys_maps(s, p, ret, index, time);
	return e;
}

static void stub_rec_compact(struct stub_rec_state *s)
{
	size_t k = 0;

	for (size_t i = 0; i < s->nrg; i++)
		if (s->rg[i].len)
			s->rg[k++] = s->rg[i];
	s->nrg = k;
}

int stub_rec_state_insn(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			const struct stub_rec_insn *insn,
			const struct user_regs_struct *regs, uint64_t index, uint64_t time)
{
	bool sys = insn->cls == STUB_REC_KERNEL;
	int e = p->check ? stub_rec_state_check_end(s, p) : 0;

	/* The time of every instruction must be known: a TIME record as soon
	 * as it moves (another thread ran), even with nothing else to log. */
	if (e >= 0 && time - index != s->base)
		e = stub_rec_begin(s, REPLAY_STATE_REC_TIME, index, time, 0);
	if (e >= 0)
		e = stub_rec_regs(s, regs, index, time);

	if (e >= 0 && (insn->fpw || sys))
		e = stub_rec_xstate(s, index, time);
	if (e >= 0 && sys && s->pend_syscall) {
		e = stub_rec_sys_done(s, p, (int64_t)regs->rax, index, time);
		stub_rec_compact(s);
	}
	if (e >= 0 && s->pend_valid)
		e = stub_rec_pend_log(s, p, index, time);
	if (e >= 0 && (s->ckpt_next || index - s->last_ckpt >= STUB_REC_STATE_CKPT))
		e = stub_rec_checkpoint(s, regs, index, time);
	return e < 0 ? e : stub_rec_emit(s);
}

int stub_rec_state_exec(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	int e;

	stub_rec_state_drop(s);
	e = stub_rec_map(s, 0, 0, STUB_REC_MAP_ALL, index, time);
	return e < 0 ? e : stub_rec_emit(s);
}

int stub_rec_state_lost(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			uint64_t index, uint64_t time, const char *text)
{
	int e = stub_rec_map(s, 0, 0, STUB_REC_MAP_ALL, index, time);

	if (e >= 0)
		e = stub_rec_emit(s);
	return e < 0 ? e : stub_rec_gap(p, s->tid, time, text);
}

/* --- signals -------------------------------------------------------- */

int stub_rec_state_signal_before(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				 const struct user_regs_struct *regs, uint64_t index)
{
	uint64_t frame = s->xs_len + STUB_REC_FRAME + STUB_REC_REDZONE;
	int e;

	(void)index;
	/* A rep string instruction interrupted half-way wrote some of its
	 * range: that is logged first, by stub_rec_state_signal_after. */
	if (!s->pend_valid || s->pend_syscall)
		stub_rec_state_drop(s);
	e = stub_rec_pend_add(s, *p->mem_fd, regs->rsp - frame, frame);
	if (e >= 0 && s->alt_size) {
		uint64_t top = s->alt_sp + s->alt_size;
		uint64_t lo = top - (frame < s->alt_size ? frame : s->alt_size);

		e = stub_rec_pend_add(s, *p->mem_fd, lo, top - lo);
	}
	s->pend_valid = true;
	s->pend_syscall = false;
	return e;
}

int stub_rec_state_signal_after(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				const struct user_regs_struct *regs, uint64_t index,
				uint64_t time)
{
	bool covered = false;
	uint64_t bytes = s->bytes;
	int e;

	for (size_t i = 0; i < s->nrg; i++)
		covered |= regs->rsp >= s->rg[i].addr && regs->rsp < s->rg[i].addr + s->rg[i].len;
	e = stub_rec_pend_log(s, p, index, time);
	/* The handler's registers and the XSAVE area the kernel set up for
	 * it, here rather than at the next step: the thread may not get one. */
	if (e >= 0)
		e = stub_rec_regs(s, regs, index, time);
	if (e >= 0)
		e = stub_rec_xstate(s, index, time);
	if (e >= 0)
		e = stub_rec_emit(s);
	if (e >= 0 && s->bytes != bytes)
		stub_rec_check_again(s, p, regs, index);
	if (e >= 0 && !covered)
		e = stub_rec_gap(p, s->tid, time, "signal frame outside the saved stack areas");
	return e;
}

int stub_rec_state_poke_before(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			       uint64_t addr, uint64_t len)
{
	stub_rec_state_drop(s);
	/* Before the first checkpoint the bytes are simply the start state. */
	if (!s->started)
		return 0;
	s->pend_valid = true;
	s->pend_syscall = false;
	return stub_rec_pend_add(s, *p->mem_fd, addr, len);
}

int stub_rec_state_poke_after(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			      uint64_t index, uint64_t time)
{
	int e;

	if (!s->pend_valid)
		return 0;
	e = stub_rec_pend_log(s, p, index, time);
	return e < 0 ? e : stub_rec_emit(s);
}

/* --- values given by the recorder (stub/recorders/stub_vgrec.c) ----------------- */

int stub_rec_state_known_start(struct stub_rec_state *s, const struct user_regs_struct *regs,
			       uint64_t index, uint64_t time)
{
	s->xs_len = 0;             /* no XSAVE area: x87 / SSE / AVX unknown */
	return stub_rec_head(s, regs, index, time);
}

/* Records are written out in batches of this many bytes (and at
 * stub_rec_state_flush): these calls come once per instruction or more. */
#define STUB_REC_KNOWN_BATCH (1u << 16)

static int stub_rec_known_emit(struct stub_rec_state *s)
{
	return s->nrec >= STUB_REC_KNOWN_BATCH ? stub_rec_emit(s) : 0;
}

int stub_rec_state_known_time(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	int e = 0;

	if (time - index != s->base)
		e = stub_rec_begin(s, REPLAY_STATE_REC_TIME, index, time, 0);
	return e < 0 ? e : stub_rec_known_emit(s);
}

/* The REGS mask position of each user_regs_struct slot (rip: none). */
static int8_t stub_rec_pos[REPLAY_STATE_NGP];
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

/* Registers are written at once, one REGS record per call: the recorder
 * reports an instruction's registers once, after its writes (a rep string
 * instruction's iterations, which VEX unrolls, together). */
int stub_rec_state_known_regs(struct stub_rec_state *s, const struct user_regs_struct *regs,
			      uint32_t slots, uint64_t index, uint64_t time)
{
	const uint64_t *now = (const uint64_t *)regs, *was = (const uint64_t *)&s->regs;
	uint64_t mask = 0;
	int e = s->kw_len ? stub_rec_kw_flush(s) : 0;

	if (e < 0)
		return e;
	slots &= (1u << REPLAY_STATE_NGP) - 1;    /* stub_rec_pos: set at init */
	for (uint32_t m = slots; m; m &= m - 1) {
		unsigned slot = (unsigned)__builtin_ctz(m);

		if (stub_rec_pos[slot] >= 0 && now[slot] != was[slot])
			mask |= 1ull << stub_rec_pos[slot];
	}
	if (mask) {
		e = stub_rec_begin_raw(s, REPLAY_STATE_REC_REGS, index, time,
				       8 + 10 * REPLAY_STATE_NSLOTS);
		if (e < 0)
			return e;
		stub_rec_put_regs(s, regs, mask);
	} else if (time - index != s->base) {
		e = stub_rec_begin_raw(s, REPLAY_STATE_REC_TIME, index, time, 0);
	}
	/* Slots never named keep the log's values. */
	if (e >= 0 && index - s->last_ckpt >= STUB_REC_STATE_CKPT)
		e = stub_rec_checkpoint(s, &s->regs, index, time);
	return e < 0 ? e : stub_rec_known_emit(s);
}

int stub_rec_state_known_ckpt(struct stub_rec_state *s, uint64_t index, uint64_t time)
{
	int e = stub_rec_checkpoint(s, &s->regs, index, time);

	return e < 0 ? e : stub_rec_known_emit(s);
}

/* The write being grown, as one MEM record. */
static int stub_rec_kw_flush(struct stub_rec_state *s)
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

#define STUB_REC_KW_MAX (1u << 20)  /* bytes of one joined write, at most */

int stub_rec_state_known_mem(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     const void *old, const void *now, uint64_t index, uint64_t time)
{
	int e = 0;

	/* What is held back is of one instruction; another's first. */
	if (s->kw_len && !(index == s->kw_index && time == s->kw_time &&
			   addr == s->kw_addr + s->kw_len && s->kw_len + len <= STUB_REC_KW_MAX))
		e = stub_rec_known_flush(s);
	if (e < 0)
		return e;
	if (!s->kw_len) {
		s->kw_addr = addr;
		s->kw_index = index;
		s->kw_time = time;
	}
	if (s->kw_len + len > s->kw_cap) {
		size_t cap = s->kw_cap ? s->kw_cap : 256;
		uint8_t *o, *n;

		while (cap < s->kw_len + len)
			cap *= 2;
		o = realloc(s->kw_old, cap);
		if (o)
			s->kw_old = o;
		n = o ? realloc(s->kw_new, cap) : NULL;
		if (n)
			s->kw_new = n;
		if (!o || !n)
			return -ENOMEM;
		s->kw_cap = cap;
	}
	stub_rec_copy(s->kw_old + s->kw_len, old, len);
	stub_rec_copy(s->kw_new + s->kw_len, now, len);
	s->kw_len += len;
	return stub_rec_known_emit(s);
}

int stub_rec_state_known_map(struct stub_rec_state *s, uint64_t addr, uint64_t len,
			     enum stub_rec_state_map kind, uint64_t index, uint64_t time)
{
	int e = stub_rec_map(s, addr, len, kind, index, time);

	return e < 0 ? e : stub_rec_known_emit(s);
}

/* --- the --state-check dump ----------------------------------------- */

struct stub_rec_state_sample {
	uint32_t tid;
	uint64_t index, time;
	struct user_regs_struct regs;
	uint32_t xl;
	uint64_t page[2];
	uint32_t plen[2];
	uint8_t bytes[2][STUB_REC_PAGE];
	uint8_t xs[REPLAY_STATE_XMAX];
};

static void stub_rec_check_page(struct stub_rec_state_sample *c, int k, int fd, uint64_t addr)
{
	c->page[k] = addr & ~(STUB_REC_PAGE - 1);
	c->plen[k] = STUB_REC_PAGE;
	if (pread(fd, c->bytes[k], STUB_REC_PAGE, (off_t)c->page[k]) != (ssize_t)STUB_REC_PAGE)
		c->plen[k] = 0;
}

/* Takes the sample of position @index + 1 now; false if the thread
 * cannot be read. */
static bool stub_rec_check_take(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				const struct user_regs_struct *regs, uint64_t index, uint64_t time)
{
	struct stub_rec_state_sample *c = s->chk;
	size_t len = 0;

	/* Read afresh, not the log's copy: a missed change must show. */
	if (stub_rec_xread(s->tid, c->xs, &len) < 0)
		return false;
	c->tid = (uint32_t)s->tid;
	c->index = index;
	c->time = time;
	c->regs = *regs;
	c->xl = (uint32_t)len;
	stub_rec_check_page(c, 0, *p->mem_fd, regs->rsp);
	stub_rec_check_page(c, 1, *p->mem_fd, s->last_write);
	return true;
}

int stub_rec_state_check_end(struct stub_rec_state *s, struct stub_rec_state_proc *p)
{
	const struct stub_rec_state_sample *c = s->chk;

	if (!s->chk_pending)
		return 0;
	s->chk_pending = false;
	fwrite("HSCK", 1, 4, p->check);
	fwrite(&c->tid, 4, 1, p->check);
	fwrite(&c->index, 8, 1, p->check);
	fwrite(&c->time, 8, 1, p->check);
	fwrite(&c->regs, sizeof(c->regs), 1, p->check);
	fwrite(&c->xl, 4, 1, p->check);
	fwrite(c->xs, 1, c->xl, p->check);
	for (int k = 0; k < 2; k++) {
		fwrite(&c->page[k], 8, 1, p->check);
		fwrite(&c->plen[k], 4, 1, p->check);
		fwrite(c->bytes[k], 1, c->plen[k], p->check);
	}
	return ferror(p->check) ? -EIO : 0;
}

/* Something was logged at @index after the instruction: the held sample
 * of position @index + 1 is taken again, with the registers now and the
 * log's time of that position. */
static void stub_rec_check_again(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				 const struct user_regs_struct *regs, uint64_t index)
{
	if (s->chk_pending && s->chk->index == index)
		s->chk_pending = stub_rec_check_take(s, p, regs, index, index + s->base);
}

int stub_rec_state_check(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			 const struct user_regs_struct *regs, uint64_t index, uint64_t time)
{
	int e;

	if (!p->check || !p->check_every || time % p->check_every)
		return 0;
	e = stub_rec_state_check_end(s, p);
	if (e < 0)
		return e;
	if (!s->chk && !(s->chk = malloc(sizeof(*s->chk))))
		return -ENOMEM;
	s->chk_pending = stub_rec_check_take(s, p, regs, index, time);
	return 0;
}
