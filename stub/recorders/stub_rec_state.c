/*
 * stub/recorders/stub_rec_state.c: the state log of a thread the software
 * recorder steps with ptrace (stub/recorders/stub_rec_state.h is the door
 * of the whole writer; stub_rec_state_int.h says how its files lie).
 *
 * General registers come from the caller; the XSAVE area is read and
 * compared only after instructions that may change it
 * (stub_rec_insn.fpw), syscalls and signal deliveries. Memory ranges are
 * read before the step (old bytes) and after it (new bytes), each with
 * one pread; a range that runs into unmapped memory is cut to its
 * readable pieces (a masked AVX-512 store near the end of a mapping
 * writes only those). The top of the writer's files: it calls the
 * records (stub_rec_state_enc.c), the --state-check dump and, for the
 * initial stack, stub_rec_state_known_mem; none of them calls it.
 */
#include "stub/recorders/stub_rec_state.h"

#include <cpuid.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_maps.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_state_int.h"
#include "stub/recorders/stub_rec_state_ops.h"
#include "stub/recorders/stub_rec_state_sys.h"

#define STUB_REC_REDZONE 128
#define STUB_REC_FRAME 1024       /* rt_sigframe beyond the XSAVE area */

static struct stub_rec_xoff stub_rec_xoff;

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
