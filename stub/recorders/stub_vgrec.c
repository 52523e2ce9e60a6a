/*
 * stub/recorders/stub_vgrec.c: the fast recorder's side in hindsight (see
 * stub/recorders/stub_vgrec.h): Valgrind started with the tool, its stream
 * read, its control records (threads, maps, syscalls' writes, signals,
 * the end) taken; each thread's instructions go to stub_vgrec_insn.c
 * (stub/recorders/stub_vgrec_int.h), which turns them into its PT stream
 * and state log.
 */
#include "stub/recorders/stub_vgrec.h"
#include "stub/recorders/stub_vgrec_int.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <Zydis/Zydis.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_rec_code.h"
#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_rec_maps.h"
#include "stub/recorders/stub_rec_ring.h"
#include "stub/recorders/stub_rec_state.h"
#include "stub/recorders/stub_rec_thread.h"
#include "stub/recorders/stub_vglight.h"
#include "stub/recorders/stub_workq.h"
#include "stub/live/stub_spawn.h"
#include "vgtool/hsrec_proto.h"

#define VGREC_TOOL "hsrec"
#define VGREC_TOOL_FILE "hsrec-amd64-linux"
#define VGREC_IN (4u << 20)        /* stream bytes read at once, at most */
#define VGREC_PIPE (1u << 20)      /* the FIFO's size asked for */
#define VGREC_SAVE (1ull << 26)    /* instructions between saves of the bundle */
#define VGREC_SAVE_NS 1000000000ull /* ... and at most this long (a slow program) */

/* --- Finding the tool ------------------------------------------------- */

static bool vgrec_tool_in(const char *dir)
{
	char p[PATH_MAX];

	if (snprintf(p, sizeof(p), "%s/%s", dir, VGREC_TOOL_FILE) >= (int)sizeof(p))
		return false;
	if (access(p, X_OK) < 0)
		return false;
	snprintf(p, sizeof(p), "%s/vgpreload_core-amd64-linux.so", dir);
	return access(p, R_OK) == 0;
}


/* The valgrind executable, as execvp would find it, into @out. */
static int vgrec_valgrind(char *out, size_t size)
{
	return stub_spawn_resolve("valgrind", getenv("PATH"), out, size);
}

int stub_vgrec_available(char *dir, size_t dsize, char *why, size_t wsize)
{
	const char *env = getenv("HINDSIGHT_VGTOOL_DIR");
	char exe[PATH_MAX], *slash;
	ssize_t n;

	if (vgrec_valgrind(exe, sizeof(exe)) < 0) {
		snprintf(why, wsize, "valgrind is not installed (Debian: apt-get install valgrind)");
		return 0;
	}
	if (env && *env) {
		/* Absolute: Valgrind reads VALGRIND_LIB again at every exec,
		 * wherever the program has gone to. */
		if (vgrec_tool_in(env) && realpath(env, exe) && strlen(exe) < dsize) {
			snprintf(dir, dsize, "%s", exe);
			return 1;
		}
		snprintf(why, wsize, "HINDSIGHT_VGTOOL_DIR=%s holds no %s with Valgrind's files",
			 env, VGREC_TOOL_FILE);
		return 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		snprintf(why, wsize, "cannot find hindsight's own executable");
		return 0;
	}
	exe[n] = 0;
	slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	snprintf(dir, dsize, "%s/vgtool", exe);
	if (vgrec_tool_in(dir))
		return 1;
	snprintf(dir, dsize, "%s/../lib/hindsight/vgtool", exe);
	if (vgrec_tool_in(dir))
		return 1;
	snprintf(why, wsize, "hindsight's Valgrind tool is not built (%s/vgtool/%s: `make` "
		 "builds it when valgrind is installed)", exe, VGREC_TOOL_FILE);
	return 0;
}

/* --- Control records ----------------------------------------------------- */

/* The rotates that start Valgrind's special instruction sequences: the
 * tool sends one as 19 bytes only for the markers that transfer control. */
static const uint8_t vgrec_special[HSREC_SPECIAL_LEN] = HSREC_SPECIAL;

static int vgrec_block(struct stub_vgrec *r, const uint8_t *p, size_t len)
{
	uint32_t id, ninsn, nexit;
	const uint8_t *bytes;
	struct vgrec_block *blk;
	size_t need, nbytes = 0;

	if (len < 12)
		return vgrec_fail(r, -EPROTO, "a short superblock description");
	id = vgrec_u32(p);
	ninsn = vgrec_u32(p + 4);
	nexit = vgrec_u32(p + 8);
	need = 12 + (size_t)ninsn * 9 + (size_t)nexit * 12;
	if (need > len)
		return vgrec_fail(r, -EPROTO, "a short superblock description");
	for (uint32_t i = 0; i < ninsn; i++)
		nbytes += p[12 + i * 9 + 8];
	if (need + nbytes != len)
		return vgrec_fail(r, -EPROTO, "superblock %u: its bytes do not add up", id);
	/* The tool numbers them one after the other (a hostile id would
	 * have the table below grow without bound). */
	if (id != r->nblocks - r->id_base)
		return vgrec_fail(r, -EPROTO, "superblock %u described out of order (not %zu)",
				  id, r->nblocks - r->id_base);
	while (r->id_base + id >= r->capblocks) {
		size_t cap = r->capblocks ? r->capblocks * 2 : 4096;
		struct vgrec_block **v = realloc(r->blocks, cap * sizeof(*v));

		if (!v)
			return -ENOMEM;
		memset(v + r->capblocks, 0, (cap - r->capblocks) * sizeof(*v));
		r->blocks = v;
		r->capblocks = cap;
	}
	blk = calloc(1, sizeof(*blk));
	if (!blk)
		return -ENOMEM;
	blk->ninsn = ninsn;
	blk->nexit = nexit;
	blk->insn = calloc(ninsn ? ninsn : 1, sizeof(*blk->insn));
	blk->exit = calloc(nexit ? nexit : 1, sizeof(*blk->exit));
	blk->pos = calloc(ninsn ? ninsn : 1, sizeof(*blk->pos));
	r->blocks[r->id_base + id] = blk;
	if (r->id_base + id >= r->nblocks)
		r->nblocks = r->id_base + id + 1;
	if (!blk->insn || !blk->exit || !blk->pos)
		return -ENOMEM;
	if (ninsn > 0xFFFF)
		return vgrec_fail(r, -EPROTO, "superblock %u has %u instructions", id, ninsn);
	bytes = p + need;
	for (uint32_t i = 0; i < ninsn; i++) {
		uint64_t ip = vgrec_u64(p + 12 + i * 9);
		uint8_t l = p[12 + i * 9 + 8];

		if (l == 19 && !memcmp(bytes, vgrec_special, sizeof(vgrec_special)))
			return vgrec_fail(r, -EPROTO, "at %#" PRIx64 ", a special instruction "
					  "sequence of Valgrind's (valgrind.h) whose marker jumps "
					  "where its bytes do not say (a call without redirection, "
					  "or IR injection): not recorded", ip);
		if (stub_rec_insn_decode(&r->dec, bytes, l, ip, &blk->insn[i]) < 0 ||
		    blk->insn[i].len != l)
			return vgrec_fail(r, -EPROTO, "the instruction at %#" PRIx64 " does not "
					  "decode as %u bytes", ip, l);
		bytes += l;
	}
	for (uint32_t i = 1; i < ninsn; i++)
		blk->pos[i] = (uint16_t)(blk->pos[i - 1] + !(blk->insn[i - 1].rep &&
							   blk->insn[i].ip == blk->insn[i - 1].ip));
	while (blk->plain < ninsn && blk->insn[blk->plain].cls == STUB_REC_OTHER &&
	       !blk->insn[blk->plain].rep)
		blk->plain++;
	for (uint32_t i = 0; i < ninsn && !blk->code_due; i++)
		blk->code_due = !vgrec_mapped(r, blk->insn[i].ip) ||
				!vgrec_mapped(r, blk->insn[i].ip + blk->insn[i].len - 1);
	for (uint32_t k = 0; k < nexit; k++) {
		const uint8_t *x = p + 12 + (size_t)ninsn * 9 + (size_t)k * 12;

		blk->exit[k].idx = vgrec_u32(x);
		blk->exit[k].dst = vgrec_u64(x + 4);
		if (blk->exit[k].idx >= ninsn)
			return vgrec_fail(r, -EPROTO, "superblock %u: an exit after its end", id);
	}
	return 0;
}

/* A tool instance starts: the first, or the one in the image the process
 * exec'd. */
static int vgrec_hello(struct stub_vgrec *r, const uint8_t *p, size_t len)
{
	if (len < 8 || vgrec_u32(p) != HSREC_VERSION)
		return vgrec_fail(r, -EPROTO, "the Valgrind tool speaks another version (%u, "
				  "not %u): rebuild hindsight", len >= 4 ? vgrec_u32(p) : 0,
				  HSREC_VERSION);
	if (!r->hellos) {
		r->proc = vgrec_u32(p + 4);
		r->b->pid = (int)r->proc;
	}
	if (r->hellos++) {
		/* exec: a new address space, new superblock ids. */
		int e = vgrec_unmap(r, 0, UINT64_MAX);

		vgrec_forget_code(r, 0, UINT64_MAX);

		if (e >= 0)
			e = vgrec_state_wait(r);

		if (e < 0)
			return e;
		r->id_base = r->nblocks;
		r->entries = 0;
		for (size_t i = 0; i < r->nth; i++) {
			struct vgrec_thread *t = r->th[i];
			uint64_t index, time;

			if (t->gone || !t->st.started)
				continue;
			vgrec_pos(r, t, &index, &time);
			e = stub_rec_state_exec(&t->st, index, time);
			if (e < 0)
				return e;
		}
		for (size_t i = 0; i < r->nth; i++)
			if (r->th[i]->tid != r->proc && !r->th[i]->gone) {
				r->th[i]->open = NULL;
				r->th[i]->gone = true;
			}
	}
	return 0;
}

/* The rebuild stopped @t before @ip, @how (HSREC_DIV_*) of its open
 * superblock run. */
static int vgrec_diverged(struct stub_vgrec *r, struct vgrec_thread *t, uint32_t how,
			  uint64_t ip)
{
	if (how == HSREC_DIV_FIND || !t->open || !t->open->ninsn)
		return vgrec_stopped(r, t, ip, true);
	return vgrec_stop_at(r, t, how == HSREC_DIV_WHOLE ? t->open->ninsn : t->open->ninsn - 1,
			     ip);
}

static int vgrec_save(struct stub_vgrec *r);
static uint64_t vgrec_now_ns(void);

/* A rebuild's HSREC_HERE paused @t before instruction @n of its open
 * superblock, at @ip: kept, for a followed rebuild to go on in. */
static int vgrec_paused_inside(struct stub_vgrec *r, struct vgrec_thread *t, uint32_t n,
			       uint64_t ip)
{
	const struct vgrec_block *blk = t->open;

	if (!blk || n >= blk->ninsn || n < t->open_from || blk->insn[n].ip != ip)
		return vgrec_fail(r, -EPROTO, "the tool paused a thread before instruction %u "
				  "of a superblock that has no such one at %#" PRIx64, n, ip);
	r->here_t = t;
	r->here_blk = blk;
	r->here_n = n;
	return vgrec_stop_at(r, t, n, ip);
}

/* A followed rebuild came to where a debugger stopped the live run (its
 * superblock @count, the thread at @ip): the bundle is saved up to there,
 * each thread's next instruction to start at a PSB (a reader extends it
 * from there, at the cost of what comes after), and the caller told.
 * Then it goes on: the thread paused inside a superblock runs the rest
 * of it. */
static int vgrec_here(struct stub_vgrec *r, uint64_t count, uint64_t ip)
{
	int e;

	for (size_t i = 0; i < r->nth; i++)
		r->th[i]->th.pt.psb_asked = true;
	e = vgrec_save(r);
	if (e < 0)
		return vgrec_fail(r, e, "cannot save the bundle: %s", strerror(-e));
	/* Saved: not again (the periodic save) while its reader reads it;
	 * the rebuild goes on only once the live run does. */
	r->saved_clock = r->clock;
	r->saved_nth = r->nth;
	r->saved_ns = vgrec_now_ns();
	r->next_save = r->clock + VGREC_SAVE;
	if (r->opt.here && (e = r->opt.here(r->opt.here_ctx, count, ip)) < 0)
		return vgrec_fail(r, e, "the rebuild's reader is gone: %s", strerror(-e));
	if (r->here_t) {
		r->here_t->open = r->here_blk;
		r->here_t->open_from = r->here_n;
		r->here_t = NULL;
	}
	return 0;
}

static int vgrec_control(struct stub_vgrec *r, uint32_t kind, const uint8_t *p, size_t len)
{
	struct vgrec_thread *t;
	char name[4097];

	switch (kind) {
	case HSREC_HELLO:
		return vgrec_hello(r, p, len);
	case HSREC_BLOCK:
		return vgrec_block(r, p, len);
	case HSREC_SWITCH:
		if (len != 4)
			break;
		r->cur = vgrec_thread(r, (int32_t)vgrec_u32(p));
		return r->cur ? 0 : -ENOMEM;
	case HSREC_PAUSE:
	case HSREC_THREAD_EXIT:
	case HSREC_SIGNAL:
		if (len != (kind == HSREC_SIGNAL ? 16u : 12u) && !(kind == HSREC_PAUSE && len == 16))
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p));
		if (!t)
			return -ENOMEM;
		{
			/* Inside a superblock: a fault's signal, a thread's
			 * end and the process's (a fatal fault kills them
			 * there); a switch, a signal from outside: between
			 * two. */
			int sig = kind == HSREC_SIGNAL ? (int)vgrec_u32(p + 4) : 0;
			uint32_t how = kind == HSREC_PAUSE && len == 16 ? vgrec_u32(p + 12) : 0;
			bool inside = kind == HSREC_SIGNAL ?
				sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
				sig == SIGTRAP :
				kind == HSREC_THREAD_EXIT || len == 12 || how != 1;
			uint64_t ip = vgrec_u64(p + (kind == HSREC_SIGNAL ? 8 : 4));
			int e;

			if (how >= 2)
				e = vgrec_paused_inside(r, t, how - 2, ip);
			else
				e = vgrec_stopped(r, t, ip, inside);

			if (kind == HSREC_THREAD_EXIT) {
				t->gone = true;
				if (e >= 0)
					e = vgrec_state_wait(r);
				if (e >= 0)
					e = stub_rec_state_end(&t->st);
				if (r->cur == t)
					r->cur = NULL;
			}
			return e;
		}
	case HSREC_MAP:
		if (len < 28 || len > 28 + 4096)
			break;
		memcpy(name, p + 28, len - 28);
		name[len - 28] = 0;
		return vgrec_map(r, vgrec_u64(p), vgrec_u64(p + 8), vgrec_u64(p + 16),
				 vgrec_u32(p + 24), name);
	case HSREC_UNMAP:
		if (len != 16)
			break;
		vgrec_forget_code(r, vgrec_u64(p), vgrec_u64(p) + vgrec_u64(p + 8));
		return vgrec_unmap(r, vgrec_u64(p), vgrec_u64(p) + vgrec_u64(p + 8));
	case HSREC_SYSCALL:
		/* exec: the instruction that asks for it ends its superblock
		 * and runs; a failed exec goes on after it just the same. */
		if (len != 8)
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p + 4));
		if (!t)
			return -ENOMEM;
		if (t->open) {
			int e = vgrec_run(r, t, t->open, t->open->ninsn);

			t->open = NULL;
			return e;
		}
		return 0;
	case HSREC_GOON:
		/* The thread paused inside its superblock for a debugger's
		 * write (the MEMW before) runs the rest of it. */
		if (len != 4)
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p));
		if (!t)
			return -ENOMEM;
		if (r->here_t == t) {
			t->open = r->here_blk;
			t->open_from = r->here_n;
			r->here_t = NULL;
		}
		return 0;
	case HSREC_HERE:
		if (len != 0 && len != 16)
			break;
		if (r->opt.follow && len == 16)
			return vgrec_here(r, vgrec_u64(p), vgrec_u64(p + 8));
		/* The rebuild ends where the live run stands. */
		__attribute__((fallthrough));
	case HSREC_END:
		/* The end, or (a rebuild) where a debugger stopped the
		 * recorded run, which goes on: the threads were paused. */
		r->ended = true;
		return 0;
	case HSREC_KILLED:
		/* The rebuild came to where the recorded run ended between
		 * two superblocks (vgrec_killed_check says whether rightly). */
		if (len != 8)
			break;
		r->ended = r->killed = true;
		return 0;
	case HSREC_DIVERGED:
		/* The rebuild stopped: its history ends here, a gap says why. */
		if (len < 16)
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p));
		if (!t)
			return -ENOMEM;
		snprintf(name, sizeof(name), "the rebuild diverged from the recording: %.*s",
			 (int)(len - 16 < 4000 ? len - 16 : 4000), (const char *)p + 16);
		r->ended = r->diverged = true;
		{
			int e = vgrec_diverged(r, t, vgrec_u32(p + 4), vgrec_u64(p + 8));

			if (e >= 0 && replay_bundle_add_gap(r->b, t->tid, r->clock, "diverged",
							    name) < 0)
				e = -ENOMEM;
			return e;
		}
	case HSREC_DUMP:
		if (len != 4 + 8 * HSREC_NGP)
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p));
		return t ? vgrec_dump(r, t, p + 4) : -ENOMEM;
	case HSREC_MEMW:
		if (len < 12 || (len - 12) % 2)
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p));
		return t ? vgrec_memw(r, t, vgrec_u64(p + 4), p + 12, p + 12 + (len - 12) / 2,
				      (len - 12) / 2) : -ENOMEM;
	case HSREC_MEMU:
		if (len != 24)
			break;
		t = vgrec_thread(r, (int32_t)vgrec_u32(p));
		return t ? vgrec_memu(r, t, vgrec_u64(p + 4), vgrec_u64(p + 12),
				      vgrec_u32(p + 20)) : -ENOMEM;
	default:
		return 0;              /* a newer tool's record: skipped */
	}
	return vgrec_fail(r, -EPROTO, "a malformed record of kind %u from the tool", kind);
}

/* Parses the complete records in r->in from r->scan; keeps the rest, and
 * the open superblock's state words unless they are many (then copied). */
static int vgrec_parse(struct stub_vgrec *r)
{
	size_t i = r->scan, keep;
	int e = 0;

	while (e >= 0 && i + 4 <= r->nin) {
		uint32_t w = vgrec_u32(r->in + i);

		if (!(w & HSREC_EXIT_BIT)) {
			e = vgrec_enter(r, w);
			i += 4;
		} else if ((w & HSREC_ST_MASK) == HSREC_ST) {
			size_t used;

			e = vgrec_events(r, i, &used);
			if (e >= 0 && !used)
				break;         /* the rest is not in yet */
			i += used;
		} else if ((w & HSREC_CTL) != HSREC_CTL) {
			if ((w & 0xFF000000u) != HSREC_EXIT_BIT)
				return vgrec_fail(r, -EPROTO, "an unknown word %#x in the stream", w);
			e = vgrec_exit(r, w & ~HSREC_EXIT_BIT);
			i += 4;
		} else {
			size_t len = HSREC_CTL_LEN(w);

			if (i + 4 + len > r->nin)
				break;
			e = vgrec_control(r, HSREC_CTL_KIND(w), r->in + i + 4, len);
			i += 4 + len;
		}
	}
	keep = i;
	if (r->raw_owner && e >= 0) {
		if (i - r->raw_owner->raw_off <= VGREC_IN / 4)
			keep = r->raw_owner->raw_off;
		else
			e = vgrec_raw_copy(r, r->raw_owner);
	}
	memmove(r->in, r->in + keep, r->nin - keep);
	r->nin -= keep;
	r->scan = i - keep;
	if (r->raw_owner)
		r->raw_owner->raw_off -= keep;
	return e;
}

/* --- The run --------------------------------------------------------------- */

static int vgrec_save(struct stub_vgrec *r)
{
	int e = vgrec_state_wait(r), ef = 0;

	if (e < 0)
		return e;
	for (size_t i = 0; i < r->nth; i++) {
		uint64_t index, time;

		/* What a syscall of the thread still writes comes at the
		 * position and time of vgrec_pos or later; everything before
		 * is in. */
		vgrec_pos(r, r->th[i], &index, &time);
		stub_swpt_flush(&r->th[i]->th.pt);
		stub_rec_state_sync(&r->th[i]->st, index, time ? time : 1);
		/* The writer's last batches too: an error there (a full disk)
		 * is the recording's, and the bundle not complete. */
		e = stub_rec_state_flush(&r->th[i]->st);
		if (e < 0 && ef == 0)
			ef = e;
		r->b->threads[r->th[i]->bundle_index].instructions =
			r->th[i]->th.ninsn - stub_rec_ring_dropped(&r->th[i]->ring);
	}
	r->b->end_time = r->clock;
	if (ef < 0)
		r->b->complete = false;
	e = replay_bundle_save(r->b, r->opt.dir);
	return ef < 0 ? ef : e;
}

static uint64_t vgrec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* What was just added to r->in is parsed, and the bundle saved if it is
 * time to. */
static int vgrec_take(struct stub_vgrec *r)
{
	int e = vgrec_parse(r);

	/* Saved often enough that a recorder killed with SIGKILL leaves a
	 * bundle of what it wrote: a new thread, 2^26 instructions, a second.
	 * A stream fed is saved at its end only: the files do not depend on
	 * how it was cut (nor on time). */
	if (e >= 0 && !r->feeding && (r->clock >= r->next_save || r->nth != r->saved_nth ||
				      vgrec_now_ns() - r->saved_ns >= VGREC_SAVE_NS)) {
		r->next_save = r->clock + VGREC_SAVE;
		r->saved_nth = r->nth;
		r->saved_ns = vgrec_now_ns();
		r->saved_clock = r->clock;
		e = vgrec_save(r);
		if (e >= 0 && r->opt.progress)
			r->opt.progress(r->opt.progress_ctx);
	}
	return e;
}

/* Reads what the FIFO has: 1 if something was read, 0 if nothing, or a
 * negative errno. */
static int vgrec_read(struct stub_vgrec *r)
{
	ssize_t n = read(r->fifo_r, r->in + r->nin, VGREC_IN - r->nin);
	int e;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0)
		return 0;
	r->nin += (size_t)n;
	e = vgrec_take(r);
	return e < 0 ? e : 1;
}

static void vgrec_exit_status(struct stub_vgrec *r, int st)
{
	if (WIFEXITED(st)) {
		replay_bundle_set_str(&r->b->exit_kind, "exited");
		r->b->exit_status = WEXITSTATUS(st);
	} else if (WIFSIGNALED(st)) {
		replay_bundle_set_str(&r->b->exit_kind, "signaled");
		r->b->exit_status = WTERMSIG(st);
	}
}

/* The recording cannot be written (a full disk): the program goes on
 * under Valgrind to its end, its stream read and dropped; *@st gets its
 * status. A stop request (SIGTERM) still kills it. */
static void vgrec_go_on_unrecorded(struct stub_vgrec *r, int *st)
{
	struct pollfd pfd = { .fd = r->fifo_r, .events = POLLIN };
	char *buf = (char *)r->in;   /* what is in it is lost already */

	for (;;) {
		pid_t w;

		if (r->stop)
			kill(r->pid, SIGKILL);
		if (poll(&pfd, 1, 100) < 0 && errno != EINTR)
			return;
		while (read(r->fifo_r, buf, VGREC_IN) > 0)
			;
		w = waitpid(r->pid, st, WNOHANG);
		if (w == r->pid || (w < 0 && errno != EINTR))
			break;
	}
	r->nin = 0;
	r->reaped = true;
}

/* The stream's end is checked (whole records, a tool that started and
 * ended) after a run that went as @e says: @e, or the failure. */
static int vgrec_end_checks(struct stub_vgrec *r, int e)
{
	if (e >= 0 && r->nin > r->scan)
		e = vgrec_fail(r, -EPROTO, "the stream ends inside a record (%zu bytes left)",
			       r->nin - r->scan);
	if (e >= 0 && !r->hellos && !r->stop)
		e = vgrec_fail(r, -ENOEXEC, "Valgrind did not start the program (its message, "
			       "if any, is above)");
	if (e >= 0 && !r->ended && !r->stop)
		e = vgrec_fail(r, -EPROTO, "Valgrind ended without the tool's last record "
			       "(it was killed)");
	return e;
}

/* The program is gone: every thread's trace ends, the state logs end, the
 * bundle is saved (complete if @e, how the run went, is no failure). @e,
 * or the failure to save. */
static int vgrec_finish(struct stub_vgrec *r, int e)
{
	int ew = vgrec_state_wait(r);

	if (e >= 0)
		e = ew;
	/* Threads still in a superblock (a kill): they ran to where we know,
	 * no further. The open superblock's first instruction is where the
	 * thread went, and may not have run (the pending instruction, if
	 * any, went there); without an open superblock where the pending
	 * instruction went is not known, so it is not counted. The trace
	 * ends there (FUP + TIP.PGD): a decoder stops where the count does,
	 * not at the next branch. */
	for (size_t i = 0; i < r->nth; i++) {
		struct vgrec_thread *t = r->th[i];
		const struct stub_rec_insn *p = t->pend;
		uint64_t at = t->open ? t->open->insn[0].ip : p ? p->ip : 0;

		if (p && t->open && (vgrec_succ(r, t, at) < 0 || (p->rep && p->ip == at)))
			at = p->ip;        /* one more iteration of it, or not stepped */
		t->open = NULL;
		vgrec_raw_done(r, t);
		t->pend = NULL;
		if (t->th.pt.enabled && at)
			stub_rec_thread_interrupt(&t->th, at);
		else if (t->th.pt.enabled)
			stub_swpt_disable(&t->th.pt);
	}
	if (r->err && e < 0 && !r->err[0])
		snprintf(r->err, r->errsize, "%s", strerror(-e));
	r->b->complete = e >= 0 && !r->stop && !r->diverged;
	if (!r->b->exit_kind)
		replay_bundle_set_str(&r->b->exit_kind, "running");
	for (size_t i = 0; i < r->nth; i++)     /* the recording ends here */
		stub_rec_state_end(&r->th[i]->st);
	{
		int e2 = vgrec_save(r);

		/* --snapshot: each thread's files rewritten from its last cut. */
		for (size_t i = 0; i < r->nth && r->opt.snapshot && e2 >= 0; i++)
			e2 = stub_rec_ring_end(&r->th[i]->ring, r->b, r->opt.dir,
					       r->th[i]->bundle_index, &r->th[i]->th, &r->th[i]->st);
		if (r->opt.snapshot && e2 >= 0)
			e2 = vgrec_save(r);
		if (e >= 0 && e2 < 0) {
			e = e2;
			if (r->err)
				snprintf(r->err, r->errsize, "cannot save the bundle: %s",
					 strerror(-e2));
		}
	}
	return e;
}

/* A rebuild that trailed the light run: how that run ended, which its
 * recorder sends once it knows. 0, or a negative errno (said). */
static int vgrec_trail_wstatus(struct stub_vgrec *r)
{
	int st;
	ssize_t n;

	do
		n = read(r->opt.trail_wstatus_fd, &st, sizeof(st));
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(st))
		return vgrec_fail(r, n < 0 ? -errno : -EPIPE, "the recorded run's end never came "
				  "(its recorder stopped)");
	r->opt.inputs_wstatus = st;
	return 0;
}

/* A rebuild that stopped where the recorded run ended between two
 * superblocks (HSREC_KILLED): right if a signal from outside killed that
 * run. If it died of a fault's signal, the rebuild would have met the
 * fault itself first; if it exited, its exit's syscall would have come
 * first: either way the rebuild has gone otherwise, and a gap says so.
 * 0, or -ENOMEM. */
static int vgrec_killed_check(struct stub_vgrec *r)
{
	int st = r->opt.inputs_wstatus, sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL ||
		     sig == SIGTRAP;
	char text[256];

	if (!r->killed || r->diverged || (sig && !fault))
		return 0;
	r->diverged = true;
	if (sig)
		snprintf(text, sizeof(text), "the rebuild diverged from the recording: the recorded "
			 "run died of %s here, which the rebuild did not meet (unless a process "
			 "sent it)", strsignal(sig));
	else
		snprintf(text, sizeof(text), "the rebuild diverged from the recording: the recorded "
			 "run ended here with no syscall to end it, which a signal from outside "
			 "would explain, but it %s", WIFEXITED(st) ? "exited" : "is not known to "
			 "have been killed");
	return replay_bundle_add_gap(r->b, r->cur ? r->cur->tid : r->nth ? r->th[0]->tid : 0,
				     r->clock, "diverged",
				     text) < 0 ? -ENOMEM : 0;
}

int stub_vgrec_run(struct stub_vgrec *r, char *err, size_t errsize)
{
	struct pollfd pfd = { .fd = r->fifo_r, .events = POLLIN };
	bool dead = false;
	char vglog[PATH_MAX + 32];
	int st = 0, e = 0;

	r->err = err;
	r->errsize = errsize;
	if (err && errsize)
		err[0] = 0;
	while (e >= 0) {
		pid_t w;

		if (r->stop && !dead)
			kill(r->pid, SIGKILL);
		if (poll(&pfd, 1, dead ? 0 : 100) < 0 && errno != EINTR) {
			e = -errno;
			break;
		}
		e = vgrec_read(r);
		if (e != 0)
			continue;
		if (dead)
			break;             /* drained */
		/* Nothing came for a while (the program waits in a syscall):
		 * what came before is saved, not left for the next second that
		 * brings data. */
		if (r->clock != r->saved_clock) {
			r->saved_clock = r->clock;
			r->saved_ns = vgrec_now_ns();
			e = vgrec_save(r);
			if (e < 0)
				break;
		}
		w = waitpid(r->pid, &st, WNOHANG);
		if (w == r->pid)
			dead = true;
		else if (w < 0 && errno != EINTR)
			e = -errno;
	}
	e = vgrec_end_checks(r, e);
	if (!dead && e < 0 && stub_rec_unwritable(e) && !r->stop) {
		vgrec_go_on_unrecorded(r, &st);
		dead = true;
	}
	if (!dead) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, &st, 0);
	}
	r->reaped = true;
	snprintf(vglog, sizeof(vglog), "%s/" STUB_VGREC_LOG, r->absdir);
	st = stub_vgtool_wstatus(vglog, st);
	if (r->opt.inputs && r->opt.trail && e >= 0)
		e = vgrec_trail_wstatus(r);
	if (r->opt.inputs && e >= 0)
		e = vgrec_killed_check(r);
	vgrec_exit_status(r, r->opt.inputs ? r->opt.inputs_wstatus : st);
	return vgrec_finish(r, e);
}

/* --- Start -------------------------------------------------------------------- */

static int vgrec_bundle_init(struct stub_vgrec *r, char *const argv[])
{
	struct replay_bundle *b = r->b;
	int e = replay_bundle_set_str(&b->recorder, "valgrind");

	if (e >= 0)
		e = replay_bundle_set_str(&b->start, r->opt.window_from || r->opt.trail ? "window" :
					  "exec");
	if (e >= 0)
		e = replay_bundle_set_str(&b->dir, r->opt.dir);
	if (e >= 0 && !(r->code = stub_rec_code_new(b, r->opt.dir)))
		e = -ENOMEM;
	if (e >= 0)
		e = replay_bundle_set_argv(b, argv);
	/* As the software recorder's: a model libipt knows, no errata that
	 * matter for these packets (docs/record.md). */
	snprintf(b->cpu.vendor, sizeof(b->cpu.vendor), "GenuineIntel");
	b->cpu.family = 6;
	b->cpu.model = 0x9c;
	b->pid = r->pid;
	b->psb_period = r->opt.psb_period;
	b->ret_compression = !r->opt.noretcomp;
	b->complete = false;
	return e;
}

/* The child: Valgrind with the tool, told where to write and which
 * process to record; a rebuild (@feed: where its input log comes from,
 * and @o's rebuild options) runs with no standard streams: its syscalls
 * are not made, and Valgrind says what it has to say in its log. Never
 * returns. */
static void vgrec_child(const char *valgrind, const char *tooldir, const char *dir,
			const char *fifo, const char *verify, const char *feed,
			const struct stub_vgrec_options *o, char *const argv[])
{
	char ver[PATH_MAX + 32], log[PATH_MAX + 32], in[96], win[64], trail[64];
	char tlog[PATH_MAX + 32], keep[PATH_MAX + 32];
	struct stub_vgtool_cmd c = { valgrind, tooldir, log, fifo, { NULL } };
	size_t n = 0;

	snprintf(log, sizeof(log), "%s/" STUB_VGREC_LOG, dir);
	if (verify) {
		snprintf(ver, sizeof(ver), "--hsrec-verify=%s", verify);
		c.extra[n++] = ver;
		c.extra[n++] = "--hsrec-verify-regs=yes";
	}
	if (feed) {
		int null = open("/dev/null", O_RDWR);

		snprintf(in, sizeof(in), "--hsrec-in=%s", feed);
		snprintf(keep, sizeof(keep), "--hsrec-keep=%s/" STUB_VGLIGHT_KEEP, dir);
		c.extra[n++] = "--hsrec-mode=rebuild";
		c.extra[n++] = in;
		c.extra[n++] = keep;
		if (o->window_from) {
			snprintf(win, sizeof(win), "--hsrec-from=%" PRIu64, o->window_from);
			c.extra[n++] = win;
		}
		if (o->trail) {
			snprintf(trail, sizeof(trail), "--hsrec-trail=%" PRIu64, o->trail);
			snprintf(tlog, sizeof(tlog), "--hsrec-trail-log=%s", o->inputs);
			c.extra[n++] = trail;
			c.extra[n++] = tlog;
		}
		if (o->history_only)
			c.extra[n++] = "--hsrec-state=no";
		if (o->follow)
			c.extra[n++] = "--hsrec-follow=yes";
		if (o->follow || o->trail) {
			/* It is killed at the end of the session (or of a run
			 * that did not crash): no FIFOs of Valgrind's gdbserver
			 * to leave behind. */
			c.extra[n++] = "--vgdb=no";
		}
		if (o->trail)
			prctl(PR_SET_PDEATHSIG, SIGKILL);  /* it waits for a log no
							    * one writes any more */
		for (int fd = 0; fd < 3 && null >= 0; fd++)
			dup2(null, fd);
		if (null > 2)
			close(null);   /* the program's descriptors are its own */
		if (o->inputs_sigint)
			sigaction(SIGINT, o->inputs_sigint, NULL);
	}
	c.extra[n] = NULL;
	stub_vgtool_exec(&c, argv);
}

/* A recorder into opt->dir (created, with threads/) in *@out, yet to
 * start: 0, or a negative errno with the reason in @err. */
static int vgrec_setup(struct stub_vgrec **out, const struct stub_vgrec_options *opt, char *err,
		       size_t errsize)
{
	struct stub_vgrec *r = calloc(1, sizeof(*r));
	const char *worker;
	char path[PATH_MAX];
	int e;

	*out = r;
	if (!r)
		return -ENOMEM;
	r->opt = *opt;
	if (!r->opt.psb_period)
		r->opt.psb_period = STUB_REC_PSB_PERIOD;
	r->fifo_r = r->fifo_w = -1;
	r->pid = -1;
	r->next_save = VGREC_SAVE;
	/* HINDSIGHT_VGREC_WORKER=0: no worker thread (to measure it, and
	 * tests compare the logs it writes with this thread's). */
	worker = getenv("HINDSIGHT_VGREC_WORKER");
	r->stq_failed = worker && !strcmp(worker, "0");
	r->in = malloc(VGREC_IN);
	if (!r->in)
		return -ENOMEM;
	if (ZYAN_FAILED(ZydisDecoderInit(&r->dec, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	if ((e = replay_bundle_mkdir(opt->dir)) < 0) {
		snprintf(err, errsize, "cannot create %s: %s", opt->dir, strerror(-e));
		return e;
	}
	snprintf(path, sizeof(path), "%s/threads", opt->dir);
	if ((e = replay_bundle_mkdir(path)) < 0) {
		snprintf(err, errsize, "cannot create %s: %s", path, strerror(-e));
		return e;
	}
	return replay_bundle_new(&r->b);
}

int stub_vgrec_new(struct stub_vgrec **out, const struct stub_vgrec_options *opt,
		   char *const argv[], char *err, size_t errsize)
{
	char tooldir[PATH_MAX], why[512], valgrind[PATH_MAX], log[PATH_MAX + 32];
	struct stub_vgrec *r;
	int e, fds[2];

	if (!stub_vgrec_available(tooldir, sizeof(tooldir), why, sizeof(why)) ||
	    vgrec_valgrind(valgrind, sizeof(valgrind)) < 0) {
		*out = NULL;
		snprintf(err, errsize, "%s", why);
		return -ENOENT;
	}
	e = vgrec_setup(out, opt, err, errsize);
	r = *out;
	if (e < 0)
		return e;
	if (opt->verify) {
		int fd = open(opt->verify, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd < 0) {
			e = -errno;
			snprintf(err, errsize, "cannot create %s: %s", opt->verify, strerror(errno));
			return e;
		}
		close(fd);
	}
	/* Every path Valgrind and the tool are handed is absolute: none may
	 * depend on where the program has changed directory to. */
	if (!realpath(opt->dir, r->absdir) ||
	    (opt->verify && !realpath(opt->verify, r->absverify))) {
		e = -errno;
		snprintf(err, errsize, "cannot resolve %s: %s", opt->dir, strerror(errno));
		return e;
	}
	/* Valgrind's log, made here so that it is the owner's alone too
	 * (Valgrind truncates it, keeping its mode). */
	snprintf(log, sizeof(log), "%s/" STUB_VGREC_LOG, r->absdir);
	if ((e = replay_bundle_create(log)) < 0) {
		snprintf(err, errsize, "cannot create %s: %s", log, strerror(-e));
		return e;
	}
	close(e);
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) < 0) {
		e = -errno;
		snprintf(err, errsize, "cannot make a pipe: %s", strerror(errno));
		return e;
	}
	r->fifo_r = fds[0];
	r->fifo_w = fds[1];
	snprintf(r->fifo, sizeof(r->fifo), "/proc/%d/fd/%d", (int)getpid(), r->fifo_w);
	fcntl(r->fifo_r, F_SETPIPE_SZ, VGREC_PIPE);
	if (opt->inputs &&
	    (e = stub_vglight_feed_start(&r->feed, opt->inputs, opt->follow || opt->trail,
					 r->feed_path, sizeof(r->feed_path), err, errsize)) < 0)
		return e;
	r->pid = fork();
	if (r->pid < 0) {
		e = -errno;
		snprintf(err, errsize, "cannot start Valgrind: %s", strerror(errno));
		return e;
	}
	if (r->pid == 0)
		vgrec_child(valgrind, tooldir, r->absdir, r->fifo,
			    opt->verify ? r->absverify : NULL, opt->inputs ? r->feed_path : NULL,
			    opt, argv);
	e = vgrec_bundle_init(r, argv);
	if (e >= 0)
		e = replay_bundle_save(r->b, opt->dir);
	if (e < 0)
		snprintf(err, errsize, "cannot save the bundle in %s: %s", opt->dir, strerror(-e));
	return e;
}

int stub_vgrec_feed_new(struct stub_vgrec **out, const struct stub_vgrec_options *opt,
			char *err, size_t errsize)
{
	static char *const argv[] = { NULL };
	int e = vgrec_setup(out, opt, err, errsize);

	if (e < 0)
		return e;
	(*out)->feeding = true;
	(*out)->err = err;
	(*out)->errsize = errsize;
	if (err && errsize)
		err[0] = 0;
	e = vgrec_bundle_init(*out, argv);
	if (e >= 0)
		e = replay_bundle_save((*out)->b, opt->dir);
	if (e < 0)
		snprintf(err, errsize, "cannot save the bundle in %s: %s", opt->dir, strerror(-e));
	return e;
}

int stub_vgrec_feed(struct stub_vgrec *r, const uint8_t *p, size_t n)
{
	/* As much as a read could bring at a time (the buffer's room). */
	while (n && r->feed_e >= 0) {
		size_t k = VGREC_IN - r->nin < n ? VGREC_IN - r->nin : n;

		if (!k)
			return r->feed_e = vgrec_fail(r, -EPROTO, "the stream parser is stuck");
		memcpy(r->in + r->nin, p, k);
		r->nin += k;
		p += k;
		n -= k;
		r->feed_e = vgrec_take(r);
	}
	return r->feed_e;
}

int stub_vgrec_feed_end(struct stub_vgrec *r, int wstatus)
{
	int e = vgrec_end_checks(r, r->feed_e);

	vgrec_exit_status(r, wstatus);
	r->feed_e = vgrec_finish(r, e);
	return r->feed_e;
}

void stub_vgrec_stop(struct stub_vgrec *r)
{
	r->stop = 1;
}

const struct replay_bundle *stub_vgrec_bundle(const struct stub_vgrec *r)
{
	return r->b;
}

void stub_vgrec_get_summary(const struct stub_vgrec *r, struct stub_rec_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->instructions = r->clock;
	s->threads = r->nth;
	s->gaps = r->b ? r->b->ngaps : 0;
	for (size_t i = 0; i < r->nth; i++) {
		s->trace_bytes += stub_swpt_offset(&r->th[i]->th.pt);
		s->state_bytes += r->th[i]->st.bytes;
		s->kept_instructions += r->th[i]->th.ninsn - stub_rec_ring_dropped(&r->th[i]->ring);
		s->kept_bytes += stub_rec_ring_kept(&r->th[i]->ring, stub_swpt_offset(&r->th[i]->th.pt),
						    r->th[i]->st.bytes);
	}
	s->snapshot = r->opt.snapshot != 0;
}

void stub_vgrec_progress(const struct stub_vgrec *r, uint64_t *blocks, unsigned *image)
{
	*blocks = r->entries;
	*image = r->hellos;
}

void stub_vgrec_free(struct stub_vgrec *r)
{
	if (!r)
		return;
	if (r->pid > 0 && !r->reaped) {
		kill(r->pid, SIGKILL);
		waitpid(r->pid, NULL, 0);
	}
	stub_workq_stop(r->stq);       /* before the logs it writes go */
	stub_rec_writer_stop(r->wr);   /* ... and then what it wrote */
	stub_vglight_feed_stop(r->feed);
	for (size_t i = 0; i < r->nth; i++) {
		stub_rec_thread_release(&r->th[i]->th);
		fclose(r->th[i]->pt);
		stub_rec_state_release(&r->th[i]->st);
		if (r->th[i]->stf)
			fclose(r->th[i]->stf);
		free(r->th[i]->raw);
		stub_rec_ring_release(&r->th[i]->ring);
		free(r->th[i]);
	}
	free(r->th);
	for (size_t i = 0; i < r->nblocks; i++) {
		if (!r->blocks[i])
			continue;
		free(r->blocks[i]->insn);
		free(r->blocks[i]->exit);
		free(r->blocks[i]->pos);
		free(r->blocks[i]);
	}
	free(r->blocks);
	free(r->maps);
	stub_rec_code_free(r->code);
	free(r->in);
	if (r->fifo_r >= 0)
		close(r->fifo_r);
	if (r->fifo_w >= 0)
		close(r->fifo_w);
	replay_bundle_free(r->b);
	free(r);
}
