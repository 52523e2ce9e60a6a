/*
 * stub/rectarget/stub_vg_target.c: a program served live under Valgrind's
 * light recorder, through Valgrind's gdbserver (stub/rectarget/stub_vg_target.h).
 */
#include "stub/rectarget/stub_vg_target.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol/rsp_client.h"
#include "protocol/rsp_hex.h"
#include "protocol/rsp_regs.h"
#include "protocol/rsp_signals.h"
#include "replay/decode/cursor.h"
#include "replay/model/bundle.h"
#include "replay/target/replay_monitor.h"
#include "replay/target/replay_target.h"
#include "stub/live/stub_info.h"
#include "stub/live/stub_procfs.h"
#include "stub/live/stub_spawn.h"
#include "stub/live/stub_svr4.h"
#include "stub/live/stub_vfile.h"
#include "stub/recorders/stub_vglight.h"
#include "stub/recorders/stub_vgrec.h"
#include "stub/rectarget/stub_rec_target.h"

#define VGT_TIMEOUT_MS 30000       /* for a reply to a request */
#define VGT_MEM_CHUNK 4096         /* bytes per 'm' (Valgrind's packets hold 16K) */
#define VGT_MAX_POINTS 256
#define VGT_POKE_CHUNK 1024        /* bytes per hindsight.poke (4 KiB of packet) */

/* Valgrind's amd64 `g` block: our registers up to orig_rax in our order,
 * then (with AVX) the upper halves of ymm0..15; no fs_base / gs_base. */
#define VGT_LAST_COMMON RSP_REG_ORIG_RAX

struct vgt_point {
	enum rsp_point_type type;
	uint64_t addr;
};

struct stub_vg_target {
	struct stub_vglight_run *run;
	pthread_t pump;
	bool pumping;
	pthread_mutex_t pump_lock; /* one pump at a time: the thread's, or a drain
				    * before going back */
	atomic_bool pump_quit;
	atomic_int pump_result;    /* 0 while running, 1 ended, < 0 an error */
	pid_t pid;                 /* Valgrind's, the program's */
	int pidfd;                 /* ... as a pidfd: signalled even once the pump
				    * thread reaped it, never another process */
	pid_t vgdb;
	int sock;                  /* our end of vgdb's stdin and stdout */
	struct rsp_client cl;
	char **argv;               /* the program's, for inputs.env */
	char dir[PATH_MAX];
	bool own_dir;
	/* Valgrind's and vgdb's FIFOs and shared memory (--vgdb-prefix): a
	 * directory of ours, removed at the end, also after a SIGKILL left
	 * them behind. */
	char vgdir[PATH_MAX];
	char prefix_opt[PATH_MAX + 32];
	bool avx;
	int64_t hg;                /* the thread Hg names now (0: none yet) */
	bool running, gone, detached;
	bool interrupted;          /* Ctrl-C asked since the resume */
	bool ran;                  /* resumed live once: there is a past */
	bool between;              /* the last stop came between two superblocks
				    * (Ctrl-C, a signal from outside) */
	bool rebuilt;              /* the kept directory holds a partial rebuild */
	/* A step, of step_tid (0: whichever Valgrind runs), and a range
	 * step, done as single steps (Valgrind has no vCont). */
	bool stepping, ranging;
	int64_t step_tid;
	uint64_t range_start, range_end;
	struct vgt_point points[VGT_MAX_POINTS];
	size_t npoints;
	/* The past: the run so far rebuilt up to where the program stands,
	 * by a rebuild that follows the log (started at the first visit,
	 * it waits at each stop for the run to go on: each visit after
	 * costs what ran since); stale once the program ran on live, until
	 * extended at the next visit. */
	int (*rebuild_follow)(const char *dir, int *fd, pid_t *pid);
	pid_t follow_pid;          /* the follower and its group (0: none) */
	int follow_fd;             /* where it tells each stop it came to */
	uint64_t follow_count, follow_pc;  /* ... the last it told */
	bool follow_told;
	/* The stop logged (HSIN_HERE) where the program stands, until it
	 * moves: a visit that failed is tried again from the same one. */
	bool here_logged;
	uint64_t here_count, here_pc;
	bool here_refused;         /* the tool said the past cannot end here */
	struct replay_target *past;
	bool past_stale;
	/* How the past was made ready (`monitor record-info` says it). */
	uint64_t opened, extended;
	bool last_extended;
	double last_ms;
	bool in_past;              /* the debugger stands in it, not at the present */
	bool past_pending;         /* past_stop is to be reported */
	struct rsp_stop past_stop;
	char past_why[256];        /* its message, when it has one of ours */
	int64_t last_tid;          /* the thread of the last stop */
	int64_t live_tid;          /* ... of the last live one (the present's) */
	uint64_t stop_pc;          /* its pc, when the stop reply has it */
	bool stop_pc_known;
	uint64_t step_pc;          /* step_tid's pc before its last step */
	/* A step whose stop came in another thread, the stepped one not done
	 * yet: the program goes on at full speed to the stepped thread's pc
	 * (vgt_chase), a breakpoint of ours there unless the debugger has
	 * one; chase_done: that thread waited in a syscall, and coming to
	 * the pc past it ends its step. */
	bool chasing, chase_bp, chase_done;
	uint64_t chase_pc;
	/* The present is the stop before the syscall that ends the program
	 * (live_tid's): as GDB's `record full` and the single-stepper stop
	 * there, so that the past can still be gone back over. The tool
	 * stopped the thread as it entered the call, before Valgrind acted on
	 * it (--hsrec-stop-at-end, `hindsight.why`): its pc is past the
	 * syscall instruction, and rcx and r11 are what the instruction set
	 * them to; the debugger sees the thread before the instruction, those
	 * two unknown. */
	bool at_end;
	char end_msg[512];
	char tool_comm[32];        /* the name Valgrind's process started with */
	/* Watchpoints: the live program's (Valgrind's gdbserver, the tool
	 * checking memory accesses for it), and the past's, which serves
	 * the write ones only (vgt_watch). */
	struct vgt_point watches[VGT_MAX_POINTS];
	int watch_len[VGT_MAX_POINTS];
	size_t nwatches;
	/* The threads made and not yet run where the program stands
	 * (vgt_born_load; asked again after each resume). */
	struct stub_vglight_born *born;
	size_t nborn;
	bool born_known;
};

static void *vgt_pump_main(void *arg)
{
	struct stub_vg_target *t = arg;
	int r = 0;

	while (r == 0 && !atomic_load(&t->pump_quit)) {
		/* The wait without the lock: a drain before going back
		 * takes it at once. */
		stub_vglight_wait(t->run, 50);
		pthread_mutex_lock(&t->pump_lock);
		r = stub_vglight_pump(t->run, 0);
		pthread_mutex_unlock(&t->pump_lock);
	}
	atomic_store(&t->pump_result, r);
	return NULL;
}

/* ---- requests -------------------------------------------------------------- */

/* A failed exchange ends the session: the peer is gone (-EPIPE), or a
 * reply that came late would be taken for the next request's. */
static int vgt_result(struct stub_vg_target *t, int e)
{
	if (e == -EPIPE || e == -ETIMEDOUT || e == -EBADMSG)
		t->gone = true;
	return e == -EPIPE ? -ESRCH : e;
}

static int vgt_call(struct stub_vg_target *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int vgt_call(struct stub_vg_target *t, const char *fmt, ...)
{
	char pkt[512];
	va_list ap;

	if (t->gone)
		return -ESRCH;
	va_start(ap, fmt);
	vsnprintf(pkt, sizeof(pkt), fmt, ap);
	va_end(ap);
	return vgt_result(t, rsp_client_call(&t->cl, pkt));
}

static const char *vgt_reply(const struct stub_vg_target *t)
{
	return (const char *)t->cl.reply.data;
}

static int vgt_select(struct stub_vg_target *t, int64_t tid)
{
	int e;

	if (tid <= 0 || tid == t->hg)
		return 0;
	if ((e = vgt_call(t, "Hg%" PRIx64, tid)) < 0)
		return e;
	if (rsp_client_is_error(&t->cl))
		return -ESRCH;
	t->hg = tid;
	return 0;
}

/* A monitor command (@len bytes of @text) to Valgrind's gdbserver, which
 * hands those it does not know to the tool: its console output is in
 * t->cl.console. */
static int vgt_qrcmd(struct stub_vg_target *t, const void *text, size_t len)
{
	struct rsp_buf pkt;
	int e;

	if (t->gone)
		return -ESRCH;
	rsp_buf_init(&pkt);
	if ((e = rsp_buf_puts(&pkt, "qRcmd,")) == 0 && (e = rsp_buf_put_hex(&pkt, text, len)) == 0 &&
	    (e = rsp_buf_putc(&pkt, 0)) == 0)
		e = vgt_result(t, rsp_client_call(&t->cl, (const char *)pkt.data));
	rsp_buf_release(&pkt);
	return e;
}

/* ---- threads, registers, memory ------------------------------------------- */

/* In the past, the replay target answers; at the present, Valgrind. */
static struct rsp_target vgt_past(struct stub_vg_target *t)
{
	return replay_target_rsp(t->past);
}

static unsigned vgt_features(void *ctx)
{
	struct stub_vg_target *t = ctx;

	return (t->avx ? RSP_TARGET_AVX : 0) | (t->rebuild_follow ? RSP_TARGET_REVERSE : 0) |
	       RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_SIGINFO |
	       RSP_TARGET_XFER_LIBRARIES |
	       RSP_TARGET_XFER_EXEC_FILE;
}

/* @tid's name, as the program natively has it: the kernel's (a name the
 * program gave it, prctl(PR_SET_NAME), which Valgrind passes on), or,
 * where it kept the one Valgrind's process started with (its tool's,
 * t->tool_comm), the program's own, as a thread inherits it natively.
 * And its core. */
static void vgt_thread_name(struct stub_vg_target *t, int64_t tid, struct rsp_thread_info *ti)
{
	const char *base;

	stub_procfs_thread(t->pid, (pid_t)tid, ti->name, sizeof(ti->name), &ti->core);
	if ((ti->name[0] && strcmp(ti->name, t->tool_comm)) || !t->argv || !t->argv[0])
		return;
	base = strrchr(t->argv[0], '/');
	snprintf(ti->name, sizeof(ti->name), "%.15s", base ? base + 1 : t->argv[0]);
}

/* The threads a clone made that have not run yet, where the program
 * stands (Valgrind's gdbserver lists a thread only once it has run: a
 * clone's child waits for its first turn until the thread that made it
 * gives it up), asked of the tool once per stop. A tool that does not
 * know the command names none. */
static void vgt_born_load(struct stub_vg_target *t)
{
	if (t->born_known)
		return;
	free(t->born);
	t->born = NULL;
	t->nborn = 0;
	if (vgt_qrcmd(t, "hindsight.born", 14) < 0)
		return;
	if (t->cl.console.len &&
	    stub_vglight_born_parse((const char *)t->cl.console.data, t->cl.console.len, t->avx,
				    &t->born, &t->nborn) < 0)
		return;
	t->born_known = true;
}

static const struct stub_vglight_born *vgt_born_find(struct stub_vg_target *t, int64_t tid)
{
	vgt_born_load(t);
	for (size_t i = 0; i < t->nborn; i++)
		if (t->born[i].tid == tid)
			return &t->born[i];
	return NULL;
}

static int vgt_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	struct stub_vg_target *t = ctx;
	int n = 0, e;

	if (t->in_past)
		return vgt_past(t).ops->threads(t->past, out, max);
	if (t->gone)
		return 0;
	for (const char *q = "qfThreadInfo";; q = "qsThreadInfo") {
		const char *r;

		if ((e = vgt_call(t, "%s", q)) < 0)
			return e;
		r = vgt_reply(t);
		if (r[0] != 'm')
			break;
		for (r++; *r;) {
			uint64_t tid;

			if (rsp_hex_u64(&r, r + strlen(r), &tid) < 0)
				break;
			if ((size_t)n < max) {
				out[n] = (struct rsp_thread_info){ { t->pid, (int64_t)tid }, "", -1 };
				vgt_thread_name(t, (int64_t)tid, &out[n]);
			}
			n++;
			if (*r == ',')
				r++;
		}
	}
	vgt_born_load(t);
	for (size_t i = 0; i < t->nborn; i++) {
		bool listed = false;

		for (int k = 0; k < n && (size_t)k < max; k++)
			listed |= out[k].ptid.tid == t->born[i].tid;
		if (listed)
			continue;
		if ((size_t)n < max) {
			out[n] = (struct rsp_thread_info){ { t->pid, t->born[i].tid }, "", -1 };
			vgt_thread_name(t, t->born[i].tid, &out[n]);
		}
		n++;
	}
	return n;
}

static int vgt_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct stub_vg_target *t = ctx;
	int e;

	if (t->in_past)
		return vgt_past(t).ops->thread_alive(t->past, thread);
	e = vgt_call(t, "T%" PRIx64, thread.tid);
	if (e < 0)
		return e;
	return !rsp_client_is_error(&t->cl) || vgt_born_find(t, thread.tid) ? 0 : -ESRCH;
}

static int vgt_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct stub_vg_target *t = ctx;
	const char *r;
	size_t len, at = 0;
	uint8_t *raw;
	int e;

	if (t->in_past)
		return vgt_past(t).ops->read_regs(t->past, thread, out);
	if ((e = vgt_select(t, thread.tid)) == -ESRCH) {
		const struct stub_vglight_born *b = vgt_born_find(t, thread.tid);

		if (b) {
			*out = b->regs;
			return 0;
		}
	}
	if (e < 0 || (e = vgt_call(t, "g")) < 0)
		return e;
	if (rsp_client_is_error(&t->cl))
		return -EIO;
	r = vgt_reply(t);
	len = strlen(r) / 2;
	raw = malloc(len + 1);
	if (!raw)
		return -ENOMEM;
	if (rsp_hex_decode(r, len * 2, raw) < 0) {
		free(raw);
		return -EBADMSG;
	}
	memset(out, 0, sizeof(*out));
	for (int reg = 0; reg <= VGT_LAST_COMMON && at + rsp_reg_descs[reg].size <= len; reg++) {
		rsp_regs_set_bytes(out, (enum rsp_reg)reg, raw + at);
		at += rsp_reg_descs[reg].size;
	}
	for (int i = 0; t->avx && i < 16 && at + 16 <= len; i++, at += 16)
		rsp_regs_set_bytes(out, (enum rsp_reg)(RSP_REG_YMM0H + i), raw + at);
	free(raw);
	if (t->at_end && thread.tid == t->live_tid && out->avail[RSP_REG_RIP]) {
		rsp_regs_set(out, RSP_REG_RIP, rsp_regs_get(out, RSP_REG_RIP) - 2);
		out->avail[RSP_REG_RCX] = false;
		out->avail[RSP_REG_R11] = false;
	}
	return 0;
}

static uint64_t vgt_pc(struct stub_vg_target *t, int64_t tid)
{
	struct rsp_regs regs;

	if (vgt_read_regs(t, (struct rsp_ptid){ t->pid, tid }, &regs) < 0)
		return 0;
	return rsp_regs_get(&regs, RSP_REG_RIP);
}

/* A register the debugger changed: the log cannot replay it (a rebuild
 * would run the program as if it had not been). */
static int vgt_write_regs(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in)
{
	(void)ctx;
	(void)thread;
	(void)in;
	return -EPERM;
}

/* The place the program stands, as the tool's hindsight.here and
 * hindsight.poke name it (the stop's kind): "", " between" or " syscall". */
static const char *vgt_place(const struct stub_vg_target *t)
{
	return t->at_end ? " syscall" : t->between ? " between" : "";
}

/* One write in the present, at most VGT_POKE_CHUNK bytes, made by the tool
 * (`hindsight.poke`), which logs it where the program stands. */
static int vgt_poke(struct stub_vg_target *t, uint64_t addr, const uint8_t *buf, size_t len)
{
	struct rsp_buf cmd;
	const char *c;
	int e;

	rsp_buf_init(&cmd);
	if ((e = rsp_buf_printf(&cmd, "hindsight.poke%s %" PRIx64 " ", vgt_place(t), addr)) < 0 ||
	    (e = rsp_buf_put_hex(&cmd, buf, len)) < 0 || (e = vgt_qrcmd(t, cmd.data, cmd.len)) < 0)
		goto out;
	c = t->cl.console.len ? (const char *)t->cl.console.data : "the tool did not answer";
	if (strncmp(c, "hindsight.poke ", 15)) {
		/* Not writable there (or code), or nowhere the rebuild could
		 * come to: GDB says it cannot access that memory. */
		fprintf(stderr, "hindsight serve: a write at %#" PRIx64 " refused: %.*s\n", addr,
			(int)strcspn(c, "\n"), c);
		e = -EIO;
	}
out:
	rsp_buf_release(&cmd);
	return e;
}

/* A write in the present is an input the program could not compute: the
 * tool makes it and logs it (HSIN_POKE) at the place the program stands,
 * so that a rebuild makes it there again and the past shows the value
 * before it. In the past, refused (the past's). */
static int vgt_write_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct stub_vg_target *t = ctx;
	int e;

	if (t->in_past)
		return vgt_past(t).ops->write_mem(t->past, addr, buf, len);
	if (t->gone)
		return -ESRCH;
	if (!t->ran)
		/* Before the first instruction: no place a rebuild counts
		 * to (it starts there). */
		return -EPERM;
	for (size_t done = 0; done < len;) {
		size_t n = len - done < VGT_POKE_CHUNK ? len - done : VGT_POKE_CHUNK;

		if ((e = vgt_poke(t, addr + done, (const uint8_t *)buf + done, n)) < 0)
			return e;
		done += n;
		/* The past no longer ends as the program stands: the next
		 * visit logs the place again, after every write made there,
		 * and waits for the rebuild to come to it once more (a log
		 * that ends with a write ends at its place: the tool). */
		t->here_logged = false;
		t->follow_told = false;
		t->past_stale = t->past != NULL;
	}
	return 0;
}

/* The live program's memory (also the past's, where the past never
 * wrote: replay_target_set_present_mem). */
static int vgt_live_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct stub_vg_target *t = ctx;
	size_t done = 0;

	while (done < len) {
		size_t n = len - done < VGT_MEM_CHUNK ? len - done : VGT_MEM_CHUNK;
		const char *r;
		int e, got;

		if ((e = vgt_call(t, "m%" PRIx64 ",%zx", addr + done, n)) < 0)
			return done ? (int)done : e;
		r = vgt_reply(t);
		if (rsp_client_is_error(&t->cl) || !*r)
			return done ? (int)done : -EIO;
		got = rsp_hex_decode(r, strlen(r) & ~(size_t)1, (uint8_t *)buf + done);
		if (got <= 0)
			return done ? (int)done : -EIO;
		done += (size_t)got;
		if ((size_t)got < n)
			break;
	}
	return (int)done;
}

static int vgt_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct stub_vg_target *t = ctx;

	if (t->in_past)
		return vgt_past(t).ops->read_mem(t->past, addr, buf, len);
	return vgt_live_mem(t, addr, buf, len);
}

/* A point (Z0-Z4) inserted in or removed from the live program. */
static int vgt_point_live(struct stub_vg_target *t, bool insert, enum rsp_point_type type,
			  uint64_t addr, int kind)
{
	int e = vgt_call(t, "%c%d,%" PRIx64 ",%x", insert ? 'Z' : 'z', (int)type, addr, kind);
	const char *r = vgt_reply(t);

	if (e < 0)
		return e;
	if (!*r)
		return -EOPNOTSUPP;
	if (rsp_client_is_error(&t->cl))
		/* Valgrind watches only for a tool that checks memory
		 * accesses for it (the light mode's, hsrec_watch.c). */
		return type >= RSP_POINT_WRITE_WATCH ? -EOPNOTSUPP : -EINVAL;
	return 0;
}

static int vgt_point(struct stub_vg_target *t, bool insert, enum rsp_point_type type,
		     uint64_t addr, int kind)
{
	int e = vgt_point_live(t, insert, type, addr, kind);

	if (e < 0)
		return e;
	for (size_t i = 0; i < t->npoints; i++) {
		if (t->points[i].type == type && t->points[i].addr == addr) {
			if (!insert)
				t->points[i] = t->points[--t->npoints];
			return 0;
		}
	}
	if (insert && t->npoints < VGT_MAX_POINTS)
		t->points[t->npoints++] = (struct vgt_point){ type, addr };
	return 0;
}

/* A watchpoint (Z2-Z4): the live program's (the tool checks memory
 * accesses for Valgrind's gdbserver while any is set), and the past's
 * too, which serves write watchpoints only (it logs no reads: while a
 * read or access watchpoint is set, the past is not entered, saying
 * why). */
static int vgt_watch(struct stub_vg_target *t, bool insert, enum rsp_point_type type,
		     uint64_t addr, int kind)
{
	size_t i;
	int e;

	for (i = 0; i < t->nwatches; i++)
		if (t->watches[i].type == type && t->watches[i].addr == addr &&
		    t->watch_len[i] == kind)
			break;
	if (insert && i == t->nwatches && t->nwatches == VGT_MAX_POINTS)
		return -ENOSPC;
	e = vgt_point_live(t, insert, type, addr, kind);
	if (e < 0 && insert)
		return e;
	if (insert && i == t->nwatches) {
		t->watches[t->nwatches] = (struct vgt_point){ type, addr };
		t->watch_len[t->nwatches++] = kind;
	} else if (!insert && i < t->nwatches) {
		t->watches[i] = t->watches[t->nwatches - 1];
		t->watch_len[i] = t->watch_len[--t->nwatches];
	}
	if (!t->past || type != RSP_POINT_WRITE_WATCH)
		return 0;
	return insert ? vgt_past(t).ops->insert_point(t->past, type, addr, kind) :
			vgt_past(t).ops->remove_point(t->past, type, addr, kind);
}

/* A read or access watchpoint is set: the past cannot serve it. */
static bool vgt_reads_watched(const struct stub_vg_target *t)
{
	for (size_t i = 0; i < t->nwatches; i++)
		if (t->watches[i].type != RSP_POINT_WRITE_WATCH)
			return true;
	return false;
}

/* Breakpoints: the live program keeps them while the debugger is in the
 * past, and the past has them too. */
static int vgt_set_point(struct stub_vg_target *t, bool insert, enum rsp_point_type type,
			 uint64_t addr, int kind)
{
	int e;

	if (type >= RSP_POINT_WRITE_WATCH)
		return vgt_watch(t, insert, type, addr, kind);
	e = vgt_point(t, insert, type, addr, kind);
	if (t->past && (e == 0 || !insert))
		(insert ? vgt_past(t).ops->insert_point :
			  vgt_past(t).ops->remove_point)(t->past, type, addr, kind);
	return e;
}

static int vgt_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	return vgt_set_point(ctx, true, type, addr, kind);
}

static int vgt_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	return vgt_set_point(ctx, false, type, addr, kind);
}

/* ---- running -------------------------------------------------------------- */

/* SIGKILL to the program, through its pidfd: once the pump thread reaped
 * it, to nothing (its pid may be another process's by then). */
static void vgt_sigkill(struct stub_vg_target *t)
{
	if (t->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, t->pidfd, SIGKILL, NULL, 0);
}


static int vgt_send_resume(struct stub_vg_target *t, bool step, int64_t tid, int signo)
{
	char pkt[32];
	int e;

	if (step && tid > 0) {
		if ((e = vgt_call(t, "Hc%" PRIx64, tid)) < 0)
			return e;
		if (rsp_client_is_error(&t->cl))
			return -ESRCH;     /* (vgt_resume_live refuses a thread not run) */
	}
	if (signo > 0)
		snprintf(pkt, sizeof(pkt), "%c%02x", step ? 'S' : 'C', rsp_signal_to_gdb(signo));
	else
		snprintf(pkt, sizeof(pkt), "%c", step ? 's' : 'c');
	e = rsp_client_send(&t->cl, pkt);
	if (e < 0) {
		t->gone = true;
		return -ESRCH;
	}
	t->running = true;
	t->ran = true;
	t->interrupted = false;
	t->stepping = step;
	t->born_known = false;
	return 0;
}

static int vgt_refuse(struct stub_vg_target *t, enum rsp_stop_reason reason, const char *why);
static bool vgt_in_syscall(struct stub_vg_target *t, int64_t tid);
static int vgt_chase(struct stub_vg_target *t, uint64_t pc, bool done);

static int vgt_resume_live(struct stub_vg_target *t, const struct rsp_resume *actions, size_t n)
{
	const struct rsp_resume *step = NULL, *sig = NULL;
	bool any = false;

	if (t->gone)
		return -ESRCH;
	for (size_t i = 0; i < n; i++) {
		const struct rsp_resume *a = &actions[i];

		if (a->kind == RSP_RESUME_STEP || a->kind == RSP_RESUME_RANGE)
			step = a;
		if (a->kind != RSP_RESUME_STOP)
			any = true;
		if (a->kind != RSP_RESUME_STOP && a->signo > 0 && !sig)
			sig = a;
	}
	if (!any)
		return 0;
	if (step && step->thread.tid > 0 && vgt_born_find(t, step->thread.tid)) {
		/* Valgrind runs a thread a clone made first when the one
		 * that made it gives up its turn: no step of it before. */
		snprintf(t->past_why, sizeof(t->past_why), "hindsight: thread %" PRId64 " has not "
			 "run yet: under Valgrind it runs first when the thread that made it gives "
			 "up its turn, and cannot be stepped before; step that thread, or continue\n",
			 step->thread.tid);
		fprintf(stderr, "hindsight serve: %s", t->past_why + 11);
		t->last_tid = step->thread.tid;
		return vgt_refuse(t, RSP_REASON_NONE, t->past_why);
	}
	/* The program moves on: the past rebuilt so far no longer ends
	 * where it stands (it is extended at the next visit). */
	t->past_stale = t->past != NULL;
	t->in_past = false;
	t->at_end = false;
	t->here_logged = false;
	t->follow_told = false;    /* its stops now are the next visit's */
	t->ranging = step && step->kind == RSP_RESUME_RANGE;
	if (t->ranging) {
		t->range_start = step->range_start;
		t->range_end = step->range_end;
	}
	t->step_tid = step && step->thread.tid > 0 ? step->thread.tid : 0;
	if (t->step_tid)
		t->step_pc = vgt_pc(t, t->step_tid);   /* (vgt_wait) */
	if (step && t->step_tid && !step->signo && vgt_in_syscall(t, t->step_tid))
		/* It waits in a syscall, its pc past it: its step ends as the
		 * call returns there (a step would run one more instruction:
		 * Valgrind passes the pc a step names once). */
		return vgt_chase(t, t->step_pc, true);
	if (step)
		return vgt_send_resume(t, true, step->thread.tid, step->signo);
	if (sig)
		/* Valgrind delivers a C's signal to the thread it stopped in. */
		return vgt_send_resume(t, false, sig->thread.tid, sig->signo);
	return vgt_send_resume(t, false, 0, 0);
}

/* Where the program stands, logged by the tool (HSIN_HERE) and flushed
 * into the pipe, its superblock count and pc in *@count and *@pc: 0, or
 * a negative errno, said why. */
static int vgt_here(struct stub_vg_target *t, uint64_t *count, uint64_t *pc)
{
	unsigned long long c_count, c_pc;
	char cmd[64];
	const char *c;
	int e;

	if (t->gone)
		return -ESRCH;
	if (t->here_logged) {
		*count = t->here_count;
		*pc = t->here_pc;
		return 0;
	}
	snprintf(cmd, sizeof(cmd), "hindsight.here%s", vgt_place(t));
	if ((e = vgt_qrcmd(t, cmd, strlen(cmd))) < 0)
		return e;
	c = (const char *)t->cl.console.data;
	if (!c || sscanf(c, "hindsight.here %llu %llx", &c_count, &c_pc) != 2) {
		const char *why = c && !strncmp(c, "hindsight.here: ", 16) ? c + 16 :
				  "the tool did not answer";

		snprintf(t->past_why, sizeof(t->past_why), "hindsight: cannot go back from here: "
			 "%.*s; go back from a stop in the program's own code (a breakpoint, a step)\n",
			 (int)strcspn(why, "\n"), why);
		fprintf(stderr, "hindsight serve: %s", t->past_why + 11);
		t->here_refused = true;
		return -EAGAIN;
	}
	*count = t->here_count = c_count;
	*pc = t->here_pc = c_pc;
	t->here_logged = true;
	return 0;
}

/* The follower is gone (or sent away): reaped, its group killed. Its exit
 * status, or -1. */
static int vgt_follow_end(struct stub_vg_target *t)
{
	int st = -1;

	if (t->follow_pid <= 0)
		return -1;
	kill(-t->follow_pid, SIGKILL);
	kill(t->follow_pid, SIGKILL);  /* were its group not made */
	while (waitpid(t->follow_pid, &st, 0) < 0 && errno == EINTR)
		;
	close(t->follow_fd);
	t->follow_pid = 0;
	t->follow_fd = -1;
	t->follow_told = false;
	return st;
}

/* The follower came to the stop at @count, @pc (the stops it tells
 * before are earlier visits' a new follower passes again, and those of
 * visits that failed after logging theirs). 0; 1 when it ended first,
 * having saved what it rebuilt (a divergence: the past ends there, its
 * gap says why); or a negative errno. */
static int vgt_follow_wait(struct stub_vg_target *t, uint64_t count, uint64_t pc)
{
	if (t->follow_told && t->follow_count == count && t->follow_pc == pc)
		return 0;          /* came there before a visit that failed */
	for (;;) {
		uint64_t m[2];
		size_t got = 0;
		int st;

		while (got < sizeof(m)) {
			ssize_t n = read(t->follow_fd, (char *)m + got, sizeof(m) - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		if (got == sizeof(m)) {
			t->follow_told = true;
			t->follow_count = m[0];
			t->follow_pc = m[1];
			if (m[0] == count && m[1] == pc)
				return 0;
			continue;
		}
		st = vgt_follow_end(t);
		return st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : -EIO;
	}
}

/* The run so far rebuilt up to where it stands, and opened as the past
 * (or the past open extended by what ran since); the debugger stands at
 * its end, the present. */
static int vgt_open_past(struct stub_vg_target *t)
{
	char log[PATH_MAX + 32], err[512];
	struct replay_target *past;
	struct timespec start, end;
	uint64_t count, pc;
	int e, lost;

	if (t->past && !t->past_stale)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &start);
	t->here_refused = false;
	if (!t->rebuild_follow)
		return -EOPNOTSUPP;
	if ((e = vgt_here(t, &count, &pc)) < 0)
		return e;
	/* The tool flushed the log up to there into the pipe before it
	 * answered: one drain moves it all to the file. */
	pthread_mutex_lock(&t->pump_lock);
	e = stub_vglight_pump(t->run, 0);
	lost = stub_vglight_lost(t->run);
	pthread_mutex_unlock(&t->pump_lock);
	if (e < 0)
		return e;
	if (lost) {
		/* The log was cut (a full disk): no rebuild comes here. */
		snprintf(t->past_why, sizeof(t->past_why), "hindsight: cannot go back from here: "
			 "the log could not be written (%s) and ends before it\n", strerror(lost));
		fprintf(stderr, "hindsight serve: %s", t->past_why + 11);
		t->here_refused = true;
		return -EIO;
	}
	if (t->follow_pid <= 0) {
		/* A new rebuild writes the recording from its start. */
		replay_target_free(t->past);
		t->past = NULL;
		/* Still running: its end is where it stands. */
		if ((e = stub_vglight_save_env(t->dir, t->argv, W_STOPCODE(SIGSTOP))) < 0)
			return e;
		snprintf(log, sizeof(log), "%s/trace.json", t->dir);
		unlink(log);       /* rebuilt, not taken as done */
		fprintf(stderr, "hindsight serve: going back: rebuilding the run so far\n");
		t->rebuilt = true;
		if ((e = t->rebuild_follow(t->dir, &t->follow_fd, &t->follow_pid)) < 0)
			return e;
	} else {
		fprintf(stderr, "hindsight serve: going back: rebuilding what ran since\n");
	}
	if ((e = vgt_follow_wait(t, count, pc)) < 0)
		return e;
	/* The past open grows by what was rebuilt since; else (the
	 * rebuild ended early: a divergence) it is opened again. */
	t->last_extended = t->past != NULL;
	if (t->past && (e == 1 || replay_target_extend(t->past, err, sizeof(err)) < 0)) {
		if (e == 0)
			fprintf(stderr, "hindsight serve: the past is opened again: %s\n", err);
		replay_target_free(t->past);
		t->past = NULL;
		t->last_extended = false;
	}
	if (!t->past) {
		e = replay_target_open(t->dir, &past, err, sizeof(err));
		if (e < 0) {
			fprintf(stderr, "hindsight serve: cannot open the past: %s\n", err);
			return e;
		}
		t->past = past;
		replay_target_set_present_mem(past, vgt_live_mem, t);
		for (size_t i = 0; i < t->npoints; i++)
			vgt_past(t).ops->insert_point(past, t->points[i].type, t->points[i].addr,
						      1);
		for (size_t i = 0; i < t->nwatches; i++)
			if (t->watches[i].type == RSP_POINT_WRITE_WATCH)
				vgt_past(t).ops->insert_point(past, t->watches[i].type,
							      t->watches[i].addr, t->watch_len[i]);
	}
	t->past_stale = false;
	t->in_past = false;
	*(t->last_extended ? &t->extended : &t->opened) += 1;
	clock_gettime(CLOCK_MONOTONIC, &end);
	t->last_ms = (double)(end.tv_sec - start.tv_sec) * 1e3 +
		     (double)(end.tv_nsec - start.tv_nsec) / 1e6;
	return 0;
}

/* The debugger stays where it is, told why (@reason: the edge of the
 * past it reports). */
static int vgt_refuse(struct stub_vg_target *t, enum rsp_stop_reason reason, const char *why)
{
	t->past_stop = (struct rsp_stop){
		.kind = RSP_STOP_SIGNAL, .thread = { t->pid, t->last_tid }, .signo = SIGTRAP,
		.reason = reason, .message = why };
	t->past_pending = true;
	return 0;
}

static bool vgt_at_point(const struct stub_vg_target *t, uint64_t pc, enum rsp_point_type *type)
{
	for (size_t i = 0; i < t->npoints; i++) {
		if (t->points[i].addr == pc && t->points[i].type <= RSP_POINT_HW_BREAK) {
			*type = t->points[i].type;
			return true;
		}
	}
	return false;
}

/* Whether the thread the present stopped in (live_tid: Valgrind's own,
 * which it would resume over a breakpoint at its pc) is moved by
 * @actions from before its end (also from before its start, when the
 * debugger went back to before it was made): then a continue or range
 * step that replays up to the present arrives at its live pc. The
 * actions name the threads of the past at that time (one per thread): a
 * thread made later is not among them, and moves with the others. */
static bool vgt_moves_to_present(struct stub_vg_target *t, const struct rsp_resume *actions,
				 size_t n)
{
	bool moved = false, moved_other = false, named = false;

	for (size_t i = 0; i < n; i++) {
		bool live = actions[i].thread.tid <= 0 || actions[i].thread.tid == t->live_tid;
		bool moves = actions[i].kind != RSP_RESUME_STOP;

		if (actions[i].kind == RSP_RESUME_STEP)
			return false;  /* (GDB's step over a breakpoint, among others) */
		named |= live;
		moved |= live && moves;
		moved_other |= moves;
	}
	return (named ? moved : moved_other) &&
	       replay_target_thread_before_end(t->past, t->live_tid);
}

/* The thread the present stopped in, arrived there (vgt_moves_to_present)
 * where a breakpoint is at its live pc: that is the breakpoint's hit,
 * reported as such into @stop; true if so. The debugger, which saw the
 * thread elsewhere, did not step over it, and Valgrind, resumed at the
 * breakpoint's address, would run past it. (Another thread at a
 * breakpoint's address has not run the instruction there: Valgrind stops
 * it there when it does.) */
static bool vgt_break_at_present(struct stub_vg_target *t, struct rsp_stop *stop)
{
	enum rsp_point_type type;

	if (!vgt_at_point(t, vgt_pc(t, t->live_tid), &type))
		return false;
	*stop = (struct rsp_stop){
		.kind = RSP_STOP_SIGNAL, .thread = { t->pid, t->live_tid }, .signo = SIGTRAP,
		.reason = type == RSP_POINT_SW_BREAK ? RSP_REASON_SWBREAK : RSP_REASON_HWBREAK };
	return true;
}

/* The stop before the syscall that ends the program, into @stop. */
static void vgt_end_stop(struct stub_vg_target *t, struct rsp_stop *stop)
{
	*stop = (struct rsp_stop){
		.kind = RSP_STOP_SIGNAL, .thread = { t->pid, t->live_tid }, .signo = 0,
		.message = t->end_msg };
}

/* A resume served by the past: back, or forward up to the present,
 * where the live program goes on. */
static int vgt_resume_past(struct stub_vg_target *t, const struct rsp_resume *actions, size_t n)
{
	bool arrives = vgt_moves_to_present(t, actions, n);
	int e = replay_target_resume_past(t->past, actions, n, t->last_tid, &t->past_stop);

	if (e == 1) {
		t->in_past = false;
		if (arrives && t->at_end) {
			/* The present is the stop before the end: there again. */
			vgt_end_stop(t, &t->past_stop);
			t->past_pending = true;
			return 0;
		}
		if (arrives && vgt_break_at_present(t, &t->past_stop)) {
			t->past_pending = true;
			return 0;
		}
		return vgt_resume_live(t, actions, n);
	}
	if (e < 0)
		return e;
	t->in_past = !replay_target_at_end(t->past);
	t->past_pending = true;
	return 0;
}

static int vgt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct stub_vg_target *t = ctx;
	bool reverse = false;
	int e = 0;

	for (size_t i = 0; i < n; i++)
		reverse |= actions[i].kind == RSP_RESUME_REVERSE_STEP ||
			   actions[i].kind == RSP_RESUME_REVERSE_CONTINUE;
	if (!reverse && !t->in_past)
		return vgt_resume_live(t, actions, n);
	if (!t->ran)
		/* Before the first instruction: the history is empty. */
		return vgt_refuse(t, RSP_REASON_REPLAY_BEGIN, NULL);
	if (vgt_reads_watched(t))
		/* The past has no reads: it would run past them unwatched. */
		return vgt_refuse(t, reverse ? RSP_REASON_REPLAY_BEGIN : RSP_REASON_REPLAY_END,
				  "hindsight: read and access watchpoints are served only live under "
				  "Valgrind: the past logs no reads (delete them to move in the past)\n");
	if (!t->in_past && (e = vgt_open_past(t)) < 0 && t->here_refused)
		/* Nowhere a rebuild could stop (every thread waits in a
		 * syscall; the log was cut before): the debugger stays where
		 * it is, told why. */
		return vgt_refuse(t, RSP_REASON_REPLAY_BEGIN, t->past_why);
	if (e < 0)
		return e;
	return vgt_resume_past(t, actions, n);
}

static int vgt_event_fd(void *ctx)
{
	struct stub_vg_target *t = ctx;

	return t->past_pending ? -1 : t->sock;
}

/* A stop reply ("T05thread:1f;", "S0b", "W00", "X09") into @out. */
static int vgt_parse_stop(struct stub_vg_target *t, const char *r, struct rsp_stop *out)
{
	uint64_t v = 0;
	const char *p = r + 1, *end = r + strlen(r);

	*out = (struct rsp_stop){ .thread = { t->pid, t->pid } };
	t->stop_pc_known = false;
	if ((r[0] != 'T' && r[0] != 'S' && r[0] != 'W' && r[0] != 'X') ||
	    rsp_hex_u64(&p, p + 2 < end ? p + 2 : end, &v) < 0)
		return -EBADMSG;
	if (r[0] == 'W' || r[0] == 'X') {
		t->gone = true;
		out->kind = r[0] == 'W' ? RSP_STOP_EXITED : RSP_STOP_TERMINATED;
		out->status = (int)v;
		out->signo = r[0] == 'X' ? rsp_signal_from_gdb((int)v) : 0;
		if (r[0] == 'X' && out->signo <= 0)
			out->signo = SIGKILL;
		return 0;
	}
	out->kind = RSP_STOP_SIGNAL;
	out->signo = rsp_signal_from_gdb((int)v);
	if (out->signo <= 0)
		out->signo = SIGTRAP;   /* a number GDB's table has no host signal for */
	out->thread.tid = t->hg > 0 ? t->hg : t->pid;
	while (r[0] == 'T' && p < end) {
		const char *colon = strchr(p, ':'), *semi = strchr(p, ';');
		uint64_t x;
		const char *q;

		if (!colon || !semi || colon > semi)
			break;
		q = colon + 1;
		if (!strncmp(p, "thread:", 7) && rsp_hex_u64(&q, semi, &x) == 0)
			out->thread.tid = (int64_t)x;
		else if (!strncmp(p, "10:", 3) && semi - q == 16 &&
			 rsp_hex_decode(q, 16, (uint8_t *)&t->stop_pc) == 8)
			t->stop_pc_known = true;   /* rip, expedited (little-endian) */
		else if ((!strncmp(p, "watch:", 6) || !strncmp(p, "rwatch:", 7) ||
			  !strncmp(p, "awatch:", 7)) && rsp_hex_u64(&q, semi, &x) == 0) {
			out->reason = p[0] == 'w' ? RSP_REASON_WATCH :
				      p[0] == 'r' ? RSP_REASON_RWATCH : RSP_REASON_AWATCH;
			out->watch_addr = x;
		}
		p = semi + 1;
	}
	return 0;
}

/* Whether the trap stop of @tid is the tool's stop before the syscall
 * that ends the program (`hindsight.why`, asked at every trap stop the
 * debugger is told of: a breakpoint may sit after the syscall, a step may
 * come from a watchpoint's stop or another thread's): then it is the
 * end's stop, into @out. */
static bool vgt_at_the_end(struct stub_vg_target *t, int64_t tid, struct rsp_stop *out)
{
	const char *c;

	if (vgt_qrcmd(t, "hindsight.why", 13) < 0 || !t->cl.console.len)
		return false;
	c = (const char *)t->cl.console.data;
	if (strncmp(c, "hindsight.why exit", 18))
		return false;
	t->at_end = true;
	t->between = false;
	t->live_tid = tid;
	stub_rec_target_end_msg(t->end_msg, sizeof(t->end_msg), c[18] == '\n');
	vgt_end_stop(t, out);
	return true;
}

/* Whether @tid is inside a syscall (one that waits, while another thread
 * has the turn): its pc is past the instruction, which it has not ended. */
static bool vgt_in_syscall(struct stub_vg_target *t, int64_t tid)
{
	char cmd[48];

	snprintf(cmd, sizeof(cmd), "hindsight.insys %" PRId64, tid);
	return vgt_qrcmd(t, cmd, strlen(cmd)) == 0 && t->cl.console.len &&
	       !strncmp((const char *)t->cl.console.data, "hindsight.insys 1", 17);
}

/* A step of t->step_tid, not done, whose stop came in another thread
 * (Valgrind steps whichever thread runs next): the program goes on at full
 * speed until the stepped thread comes to @pc, the pc it stands at (before
 * its instruction, or past the syscall it waits in: @done), stopped there
 * by a breakpoint of ours unless the debugger has one. Stepping the others
 * one instruction at a time took minutes where one ran long. */
static int vgt_chase(struct stub_vg_target *t, uint64_t pc, bool done)
{
	enum rsp_point_type type;
	int e;

	t->chasing = true;
	t->chase_pc = pc;
	t->chase_done = done;
	t->chase_bp = !vgt_at_point(t, pc, &type);
	if (t->chase_bp && (e = vgt_point_live(t, true, RSP_POINT_SW_BREAK, pc, 1)) < 0) {
		t->chasing = t->chase_bp = false;
		return e;
	}
	e = vgt_send_resume(t, false, 0, 0);
	t->stepping = true;        /* (what the stop is said to be) */
	return e;
}

/* The chase is over (its stop came): our breakpoint goes. */
static void vgt_chase_end(struct stub_vg_target *t)
{
	if (t->chase_bp)
		vgt_point_live(t, false, RSP_POINT_SW_BREAK, t->chase_pc, 1);
	t->chasing = t->chase_bp = false;
}

static int vgt_wait(void *ctx, struct rsp_stop *out, bool block)
{
	struct stub_vg_target *t = ctx;

	if (t->past_pending) {
		*out = t->past_stop;
		t->past_pending = false;
		t->last_tid = out->thread.tid;
		return 1;
	}
	for (;;) {
		enum rsp_point_type type;
		bool in_range, chased, at_ours;
		uint64_t pc;
		int r;

		if (!t->running)
			return -EINVAL;
		int saved = t->cl.timeout_ms;

		t->cl.timeout_ms = -1;
		r = rsp_client_poll(&t->cl, block);
		t->cl.timeout_ms = saved;
		if (r == -EPIPE) {
			/* vgdb is gone with Valgrind: the program ended
			 * without saying how (killed); or Valgrind let go of
			 * its debugger while the program runs on (an exec
			 * does that): then it is killed, saying why. */
			static const char why[] =
				"hindsight: Valgrind's gdbserver let go of the program while it "
				"ran on (it execs: Valgrind drops its debugger there, and this "
				"session does not follow it): the program is killed, its inputs "
				"kept up to there\n";
			struct pollfd pfd = { .fd = t->pidfd, .events = POLLIN };
			/* (A killed Valgrind closes vgdb's FIFOs a moment
			 * before it is gone.) */
			bool let_go = t->pidfd >= 0 && poll(&pfd, 1, 200) == 0;

			if (let_go) {
				fprintf(stderr, "hindsight serve: %s", why + 11);
				vgt_sigkill(t);
			}
			t->gone = true;
			t->running = false;
			*out = (struct rsp_stop){ .kind = RSP_STOP_TERMINATED,
						  .thread = { t->pid, t->pid }, .signo = SIGKILL,
						  .message = let_go ? why : NULL };
			return 1;
		}
		if (r <= 0)
			return r;
		t->running = false;
		if ((r = vgt_parse_stop(t, vgt_reply(t), out)) < 0) {
			t->gone = true;
			return r;
		}
		/* Valgrind takes a Ctrl-C and a signal from outside between
		 * two superblocks; a fault, a breakpoint or a step inside one. */
		t->between = out->kind == RSP_STOP_SIGNAL && out->signo != SIGTRAP &&
			     out->signo != SIGSEGV && out->signo != SIGBUS &&
			     out->signo != SIGFPE && out->signo != SIGILL;
		t->hg = 0;         /* Valgrind's general thread follows the stop */
		t->last_tid = t->live_tid = out->thread.tid;
		chased = t->chasing;
		at_ours = false;
		if (chased) {
			bool trap = out->kind == RSP_STOP_SIGNAL && out->signo == SIGTRAP &&
				    !out->reason;

			pc = trap ? (t->stop_pc_known ? t->stop_pc : vgt_pc(t, out->thread.tid)) : 0;
			/* A stop at our breakpoint is inside a superblock, also
			 * the one a Ctrl-C sent meanwhile is told as. */
			at_ours = trap && pc == t->chase_pc && t->chase_bp;
			trap = trap && !t->interrupted;
			if (trap && at_ours && out->thread.tid != t->step_tid) {
				/* Another thread at our breakpoint: on, unless it
				 * is the tool's stop before the end, past a
				 * syscall instruction at the same pc. */
				if (vgt_at_the_end(t, out->thread.tid, out)) {
					vgt_chase_end(t);
					return 1;
				}
				if ((r = vgt_send_resume(t, false, 0, 0)) < 0)
					return r;
				t->stepping = true;
				continue;
			}
			vgt_chase_end(t);
			if (trap && pc == t->chase_pc && out->thread.tid == t->step_tid &&
			    !t->chase_done) {
				/* It has the turn, before its instruction: the
				 * step goes on from there. */
				t->step_pc = pc;
				if ((r = vgt_send_resume(t, true, t->step_tid, 0)) < 0)
					return r;
				continue;
			}
		}
		if (out->kind != RSP_STOP_SIGNAL || out->signo != SIGTRAP || out->reason)
			return 1;
		pc = t->stop_pc_known ? t->stop_pc : vgt_pc(t, out->thread.tid);
		if (t->stepping && t->step_tid && out->thread.tid != t->step_tid &&
		    !t->interrupted && !vgt_at_point(t, pc, &type)) {
			/* Valgrind steps whichever thread runs next, stopping
			 * before each instruction: this one got the turn (a
			 * thread a clone made, one whose wait ended, or the
			 * step's thread waits in a syscall) and has run nothing
			 * yet. Unless it is the tool's stop before the end, the
			 * step's thread's own stop is the step's: where that
			 * thread ended its instruction, now; else once it has,
			 * the program going on at full speed until then (GDB's
			 * scheduler-locking cannot hold under Valgrind, which
			 * runs one thread at a time and chooses which). */
			uint64_t xpc;
			bool waits;

			if (vgt_at_the_end(t, out->thread.tid, out))
				return 1;
			xpc = vgt_pc(t, t->step_tid);
			if (!xpc && vgt_thread_alive(t, (struct rsp_ptid){ t->pid, t->step_tid }) < 0) {
				/* The stepped thread is gone (its own exit):
				 * the others go on, as under gdbserver, to
				 * whatever stops them next. */
				if ((r = vgt_send_resume(t, false, 0, 0)) < 0)
					return r;
				continue;
			}
			waits = xpc && vgt_in_syscall(t, t->step_tid);
			if (xpc && (xpc == t->step_pc || waits)) {
				if ((r = vgt_chase(t, xpc, waits)) < 0)
					return r;
				continue;
			}
			if (xpc) {
				out->thread.tid = t->last_tid = t->live_tid = t->step_tid;
				t->stop_pc_known = false;
				pc = xpc;
			}
		}
		in_range = t->ranging && out->thread.tid == t->step_tid && pc >= t->range_start &&
			   pc < t->range_end && !t->interrupted;
		/* Inside a range step, only a step over a 2-byte instruction
		 * (a syscall's size) can have come to the end. */
		if ((!in_range || pc == t->step_pc + 2) && vgt_at_the_end(t, out->thread.tid, out))
			return 1;
		if (vgt_at_point(t, pc, &type)) {
			out->reason = type == RSP_POINT_SW_BREAK ? RSP_REASON_SWBREAK :
								   RSP_REASON_HWBREAK;
			return 1;
		}
		if (in_range) {
			t->step_pc = pc;
			if ((r = vgt_send_resume(t, true, t->step_tid, 0)) < 0)
				return r;
			continue;
		}
		if (t->stepping)
			out->reason = RSP_REASON_STEP;
		if (t->interrupted) {
			/* Valgrind reports the stop vgdb forced as a trap;
			 * gdbserver reports a Ctrl-C as SIGINT. */
			out->signo = SIGINT;
			out->reason = RSP_REASON_NONE;
			t->between = !t->stepping || (chased && !at_ours);
		}
		return 1;
	}
}

static int vgt_interrupt(void *ctx)
{
	struct stub_vg_target *t = ctx;

	if (!t->running)
		return 0;
	t->interrupted = true;
	return rsp_client_interrupt(&t->cl);
}

static int vgt_kill(void *ctx)
{
	struct stub_vg_target *t = ctx;

	if (!t->gone)
		vgt_sigkill(t);
	t->gone = true;
	return 0;
}

static int vgt_detach(void *ctx)
{
	struct stub_vg_target *t = ctx;
	int e;

	if (t->gone)
		return 0;
	/* The log ends where the debugger let go (a rebuild stops there, the
	 * program "still running"), and the tool stops logging: the program
	 * runs on under Valgrind, unrecorded, and nothing here waits for it. */
	if (t->ran) {
		uint64_t count, pc;

		vgt_here(t, &count, &pc);
	}
	vgt_qrcmd(t, "hindsight.stop", 14);
	for (size_t i = t->npoints; i-- > 0;)
		vgt_point(t, false, t->points[i].type, t->points[i].addr, 1);
	for (size_t i = 0; i < t->nwatches; i++)   /* the tool checks no more accesses */
		vgt_point_live(t, false, t->watches[i].type, t->watches[i].addr, t->watch_len[i]);
	if ((e = vgt_call(t, "D")) < 0)
		return e;
	t->detached = true;
	t->gone = true;
	return 0;
}

/* ---- what the debugger reads besides ---------------------------------------- */

static int vgt_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			 struct rsp_buf *out);

/* The address of the executable's DT_DEBUG value, from the program's own
 * auxv (Valgrind's; /proc's is Valgrind's own). */
static int vgt_debug_slot(struct stub_vg_target *t, uint64_t *slot)
{
	struct stub_svr4_reader rd = { vgt_live_mem, t };
	struct rsp_buf auxv;
	int e;

	rsp_buf_init(&auxv);
	e = vgt_xfer_read(t, RSP_XFER_AUXV, "", &auxv);
	if (e == 0)
		e = stub_svr4_debug_slot(&rd, auxv.data, auxv.len, slot);
	rsp_buf_release(&auxv);
	return e;
}

static int vgt_shlib_info_addr(void *ctx, uint64_t *addr)
{
	return vgt_debug_slot(ctx, addr);
}

/* The dynamic linker's list, walked in the program's memory. */
static int vgt_libraries(struct stub_vg_target *t, struct rsp_buf *out)
{
	struct stub_svr4_reader rd = { vgt_live_mem, t };
	uint64_t slot, r_debug = 0;
	int e = vgt_debug_slot(t, &slot);

	if (e == 0 && vgt_live_mem(t, slot, &r_debug, sizeof(r_debug)) != sizeof(r_debug))
		r_debug = 0;
	if (e < 0 && e != -ENOENT)
		return e;
	return stub_svr4_xml(&rd, e < 0 ? 0 : r_debug, out);
}

static int vgt_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			 struct rsp_buf *out)
{
	struct stub_vg_target *t = ctx;
	const char *name = obj == RSP_XFER_AUXV ? "auxv" :
			   obj == RSP_XFER_SIGINFO ? "siginfo" :
			   obj == RSP_XFER_EXEC_FILE ? "exec-file" : NULL;

	if (t->in_past && vgt_past(t).ops->xfer_read)
		return vgt_past(t).ops->xfer_read(t->past, obj, annex, out);
	if (obj == RSP_XFER_LIBRARIES_SVR4)
		return vgt_libraries(t, out);
	if (!name)
		return -EOPNOTSUPP;
	for (size_t off = 0;;) {
		const struct rsp_buf *r = &t->cl.reply;
		int e = vgt_call(t, "qXfer:%s:read:%s:%zx,%x", name, annex ? annex : "", off,
				 VGT_MEM_CHUNK);

		if (e < 0)
			return e;
		if (r->len == 0 || (r->data[0] != 'm' && r->data[0] != 'l'))
			return -EIO;
		if ((e = rsp_buf_append(out, r->data + 1, r->len - 1)) < 0)
			return e;
		off += r->len - 1;
		if (r->data[0] == 'l')
			return 0;
	}
}

static int vgt_process_info(void *ctx, struct rsp_process_info *out)
{
	struct stub_vg_target *t = ctx;

	*out = (struct rsp_process_info){ .pid = t->pid, .ppid = getpid(), .uid = getuid(),
					  .gid = getgid(), .euid = geteuid(), .egid = getegid() };
	return 0;
}

/* The program's mappings are Valgrind's process's (beside Valgrind's own). */
static int vgt_memory_region(void *ctx, uint64_t addr, struct rsp_region *out)
{
	struct stub_vg_target *t = ctx;

	if (t->in_past)
		return vgt_past(t).ops->memory_region(t->past, addr, out);
	if (t->gone)
		return -ESRCH;
	return stub_info_region_of(t->pid, addr, out);
}

static int vgt_vfile_open(void *ctx, int64_t fs_pid, const char *path, bool any)
{
	struct stub_vg_target *t = ctx;

	return stub_vfile_open(t->pid, fs_pid, path, any);
}

static int vgt_vfile_readlink(void *ctx, int64_t fs_pid, const char *path, bool any, char *buf,
			      size_t size)
{
	struct stub_vg_target *t = ctx;

	return stub_vfile_readlink(t->pid, fs_pid, path, any, buf, size);
}

static int vgt_set_pass_signals(void *ctx, const uint8_t pass[RSP_NSIG])
{
	struct stub_vg_target *t = ctx;
	char pkt[512];
	size_t n = (size_t)snprintf(pkt, sizeof(pkt), "QPassSignals:");

	for (int s = 1; s < RSP_NSIG && n + 4 < sizeof(pkt); s++)
		if (pass[s])
			n += (size_t)snprintf(pkt + n, sizeof(pkt) - n, "%s%x",
					      pkt[n - 1] == ':' ? "" : ";", rsp_signal_to_gdb(s));
	return vgt_call(t, "%s", pkt) < 0 ? -EIO : 0;
}

/* The recording's commands: the past answers them, at the present too
 * (rebuilt up to there first, as a reverse command does). */
static int vgt_monitor_past(struct stub_vg_target *t, const char *cmd, struct rsp_buf *out)
{
	int e;

	if (!t->ran)
		return rsp_buf_puts(out, "hindsight: nothing is recorded yet: the program has not "
				    "run\n") < 0 ? -ENOMEM : 0;
	if (!t->in_past && (e = vgt_open_past(t)) < 0)
		return t->here_refused ? (rsp_buf_puts(out, t->past_why) < 0 ? -ENOMEM : 0) : e;
	e = vgt_past(t).ops->monitor(t->past, cmd, out);
	if (e >= 0 && !strcmp(cmd, "record-info"))
		rsp_buf_printf(out, "past: opened %" PRIu64 " times, extended %" PRIu64 " times; "
			       "the last %s in %.3f ms (rebuilt up to the present, under Valgrind)\n",
			       t->opened, t->extended, t->last_extended ? "extended" : "opened",
			       t->last_ms);
	/* `goto` may have moved a cursor into the past (or back). */
	t->in_past = !replay_target_at_end(t->past);
	return e;
}

/* The recording's commands go to the past; everything else to Valgrind's
 * gdbserver (its v.* commands). */
static int vgt_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	struct stub_vg_target *t = ctx;
	int e;

	if (t->gone)
		return -ESRCH;
	if (replay_monitor_is_command(cmd))
		return vgt_monitor_past(t, cmd, out);
	if ((e = vgt_qrcmd(t, cmd, strlen(cmd))) < 0)
		return e;
	if (t->cl.console.len)
		rsp_buf_append(out, t->cl.console.data, t->cl.console.len);
	return rsp_client_is_error(&t->cl) ? -EINVAL : 0;
}

static const struct rsp_target_ops vgt_ops = {
	.features = vgt_features,
	.threads = vgt_threads,
	.thread_alive = vgt_thread_alive,
	.read_regs = vgt_read_regs,
	.write_regs = vgt_write_regs,
	.read_mem = vgt_read_mem,
	.write_mem = vgt_write_mem,
	.insert_point = vgt_insert_point,
	.remove_point = vgt_remove_point,
	.resume = vgt_resume,
	.event_fd = vgt_event_fd,
	.wait = vgt_wait,
	.interrupt = vgt_interrupt,
	.kill = vgt_kill,
	.detach = vgt_detach,
	.xfer_read = vgt_xfer_read,
	.process_info = vgt_process_info,
	.shlib_info_addr = vgt_shlib_info_addr,
	.memory_region = vgt_memory_region,
	.set_pass_signals = vgt_set_pass_signals,
	.vfile_open = vgt_vfile_open,
	.vfile_readlink = vgt_vfile_readlink,
	.monitor = vgt_monitor,
};

/* ---- start and end ------------------------------------------------------------ */

/* vgdb --pid=PID, its stdin and stdout our socket's other end. */
static int vgt_start_vgdb(struct stub_vg_target *t, bool debug, char *err, size_t errsize)
{
	char vgdb[PATH_MAX], pidopt[32];
	int sv[2];

	if (stub_spawn_resolve("vgdb", getenv("PATH"), vgdb, sizeof(vgdb)) < 0) {
		snprintf(err, errsize, "cannot find vgdb (Valgrind's gdbserver relay) in PATH");
		return -ENOENT;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0) {
		snprintf(err, errsize, "cannot make a socket: %s", strerror(errno));
		return -errno;
	}
	snprintf(pidopt, sizeof(pidopt), "--pid=%d", (int)t->pid);
	t->vgdb = fork();
	if (t->vgdb < 0) {
		int e = -errno;

		close(sv[0]);
		close(sv[1]);
		snprintf(err, errsize, "cannot start vgdb: %s", strerror(-e));
		return e;
	}
	if (t->vgdb == 0) {
		int null = open("/dev/null", O_RDWR | O_CLOEXEC);

		dup2(sv[1], 0);
		dup2(sv[1], 1);
		if (!debug && null >= 0)
			dup2(null, 2);
		execl(vgdb, "vgdb", pidopt, t->prefix_opt, "--wait=60", (char *)NULL);
		_exit(127);
	}
	close(sv[1]);
	t->sock = sv[0];
	fcntl(t->sock, F_SETFL, fcntl(t->sock, F_GETFL) | O_NONBLOCK);
	return rsp_client_init(&t->cl, t->sock, t->sock, VGT_TIMEOUT_MS);
}

static char **vgt_copy_argv(char *const argv[])
{
	size_t n = 0;
	char **v;

	while (argv[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		if (!(v[i] = strdup(argv[i])))
			return v;  /* cut short: inputs.env then says less */
	return v;
}

int stub_vg_target_new(char *const argv[], const struct stub_vg_target_options *opt,
		       struct stub_vg_target **out, char *err, size_t errsize)
{
	char tooldir[PATH_MAX], valgrind[PATH_MAX], why[256] = "";
	struct stub_vg_target *t = calloc(1, sizeof(*t));
	struct stub_vglight_how how = { .valgrind = valgrind, .tooldir = tooldir,
					.core_opts = { "--vgdb=full", "--vgdb-error=0",
							       "--hsrec-watchable=yes", NULL,
							       "--hsrec-stop-at-end=yes", NULL } };
	struct rsp_regs regs;
	int e;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	t->sock = -1;
	t->vgdb = -1;
	t->pidfd = -1;
	pthread_mutex_init(&t->pump_lock, NULL);
	if (!stub_vgrec_available(tooldir, sizeof(tooldir), why, sizeof(why)) ||
	    stub_spawn_resolve("valgrind", getenv("PATH"), valgrind, sizeof(valgrind)) < 0) {
		snprintf(err, errsize, "cannot record with Valgrind: %s",
			 *why ? why : "valgrind is not in PATH");
		free(t);
		return -ENOENT;
	}
	t->rebuild_follow = opt->rebuild_follow;
	t->follow_fd = -1;
	if (opt->dir) {
		snprintf(t->dir, sizeof(t->dir), "%s", opt->dir);
	} else {
		const char *tmp = getenv("TMPDIR");

		snprintf(t->dir, sizeof(t->dir), "%s/hindsight-serve.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(t->dir)) {
			e = -errno;
			snprintf(err, errsize, "cannot make a directory for the recording: %s",
				 strerror(-e));
			free(t);
			return e;
		}
		t->own_dir = true;
	}
	how.dir = t->dir;
	{
		const char *tmp = getenv("TMPDIR");

		snprintf(t->vgdir, sizeof(t->vgdir), "%s/hindsight-vgdb.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(t->vgdir)) {
			e = -errno;
			t->vgdir[0] = 0;
			snprintf(err, errsize, "cannot make a directory for vgdb: %s", strerror(-e));
			goto fail;
		}
		snprintf(t->prefix_opt, sizeof(t->prefix_opt), "--vgdb-prefix=%s/vgdb", t->vgdir);
		how.core_opts[3] = t->prefix_opt;
	}
	t->argv = vgt_copy_argv(argv);
	if (!t->argv) {
		e = -ENOMEM;
		goto fail;
	}
	if ((e = stub_vglight_start(&how, argv, &t->run, err, errsize)) < 0)
		goto fail;
	t->pid = stub_vglight_pid(t->run);
	t->pidfd = (int)syscall(SYS_pidfd_open, t->pid, 0);
	{
		char abs[PATH_MAX];

		/* The rebuild runs in the recorded run's working directory. */
		if (realpath(t->dir, abs))
			snprintf(t->dir, sizeof(t->dir), "%s", abs);
	}
	if ((e = pthread_create(&t->pump, NULL, vgt_pump_main, t)) != 0) {
		e = -e;
		snprintf(err, errsize, "cannot start a thread: %s", strerror(-e));
		goto fail;
	}
	t->pumping = true;
	if ((e = vgt_start_vgdb(t, opt->debug, err, errsize)) < 0)
		goto fail;
	/* The first stop: Valgrind waits before the program's first
	 * instruction (--vgdb-error=0). */
	if ((e = rsp_client_call(&t->cl, "QStartNoAckMode")) == 0 &&
	    !strcmp(vgt_reply(t), "OK"))
		t->cl.noack = true;
	if (e == 0)
		e = rsp_client_call(&t->cl, "?");
	if (e < 0) {
		snprintf(err, errsize, "Valgrind's gdbserver did not answer (see %s/%s): %s",
			 t->dir, STUB_VGLIGHT_VGLOG, strerror(-e));
		goto fail;
	}
	t->last_tid = t->live_tid = t->pid;
	/* Before the program's first instruction: Valgrind's tool's name. */
	stub_procfs_thread(t->pid, t->pid, t->tool_comm, sizeof(t->tool_comm), &(int){ 0 });
	t->avx = true;
	if (vgt_read_regs(t, (struct rsp_ptid){ t->pid, t->pid }, &regs) < 0 ||
	    !regs.avail[RSP_REG_YMM0H])
		t->avx = false;
	*out = t;
	return 0;
fail:
	stub_vg_target_free(t);
	return e;
}

void stub_vg_target_free(struct stub_vg_target *t)
{
	char err[256], path[PATH_MAX + 32];
	uint64_t bytes;
	int wstatus;

	if (!t)
		return;
	vgt_follow_end(t);         /* before the partial rebuild is marked so */
	replay_target_free(t->past);
	if (t->run && !t->detached)
		vgt_sigkill(t);
	if (t->detached)
		atomic_store(&t->pump_quit, true);   /* it runs on: not waited for */
	if (t->pumping)
		pthread_join(t->pump, NULL);
	if (t->run && stub_vglight_finish(t->run, t->argv, t->detached, &wstatus, &bytes, err,
					  sizeof(err)) < 0 && !t->own_dir)
		fprintf(stderr, "hindsight: %s\n", err);
	if (t->rebuilt && !t->own_dir) {
		/* The past rebuilt while serving ends where the debugger went
		 * back from: the next command rebuilds the whole. */
		snprintf(path, sizeof(path), "%s/trace.json", t->dir);
		unlink(path);
	}
	if (t->sock >= 0) {
		rsp_client_release(&t->cl);
		close(t->sock);
	}
	if (t->vgdb > 0) {
		kill(t->vgdb, SIGTERM);
		waitpid(t->vgdb, NULL, 0);
	}
	if (t->pidfd >= 0)
		close(t->pidfd);
	if (t->own_dir)
		replay_bundle_remove_tree(t->dir);
	/* A program let go of still opens its FIFOs there (Valgrind ends
	 * itself without them); it removes them as it ends, and the empty
	 * directory stays. */
	if (t->vgdir[0] && !t->detached)
		replay_bundle_remove_tree(t->vgdir);
	for (size_t i = 0; t->argv && t->argv[i]; i++)
		free(t->argv[i]);
	free(t->argv);
	free(t->born);
	pthread_mutex_destroy(&t->pump_lock);
	free(t);
}

struct rsp_target stub_vg_target_rsp(struct stub_vg_target *t)
{
	return (struct rsp_target){ &vgt_ops, t };
}

pid_t stub_vg_target_pid(const struct stub_vg_target *t)
{
	return t->pid;
}

const char *stub_vg_target_dir(const struct stub_vg_target *t)
{
	return t->dir;
}
