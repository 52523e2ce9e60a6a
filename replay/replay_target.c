/*
 * replay/replay_target.c: the operations of protocol/target.h over a
 * recording (see replay_target.h for what is served).
 *
 * At open, each thread's history is indexed once to find its last
 * instruction: the thread's pc is the one after it. Memory reads go to the
 * image of the mappings valid at the end of the recording.
 */
#include "replay/replay_target.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/bundle.h"
#include "replay/auxv.h"
#include "replay/cursor.h"
#include "replay/dwarf_symbols.h"
#include "replay/image.h"
#include "replay/rodata.h"
#include "replay/state.h"
#include "replay/svr4.h"
#include "replay/replay_monitor.h"

struct replay_target_thread {
	int64_t tid;
	struct replay_cursor *cur;
	bool btrace_on;
	bool btrace_read;          /* a NEW read was answered already */
};

/* A breakpoint GDB inserted: kept here, never written anywhere. */
struct replay_target_point {
	uint64_t addr;
	enum rsp_point_type type;
};

struct replay_target {
	struct replay_bundle *b;
	struct replay_image *img;
	struct replay_state *state;  /* past registers and memory; NULL without
				      * a state log (hardware or imported) */
	struct replay_rodata *rodata; /* read-only data of the recorded files */
	struct replay_target_thread *threads;
	size_t nthreads;
	size_t current;            /* the thread of the last stop */
	struct replay_target_point *points;
	size_t npoints, cappoints;
	uint64_t *addrs;           /* sorted breakpoint addresses for a resume */
	struct replay_dwarf_symbols *syms; /* for monitor history / calls, on first use */
	struct replay_symbolizer symbolizer;
	struct rsp_stop stop;      /* what wait() reports after a resume */
	bool gone;                 /* killed / detached: no process any more */
};

static struct replay_target_thread *find_thread(struct replay_target *t, int64_t tid)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == tid)
			return &t->threads[i];
	return NULL;
}

int replay_target_open(const char *dir, struct replay_target **out, char *err, size_t errsize)
{
	struct replay_target *t = calloc(1, sizeof(*t));
	struct pt_image *unused;
	int r;

	if (!t)
		return -ENOMEM;
	r = replay_bundle_load(dir, &t->b, err, errsize);
	if (r)
		goto fail;
	r = -ENOMEM;
	snprintf(err, errsize, "out of memory");
	t->threads = calloc(t->b->nthreads ? t->b->nthreads : 1, sizeof(*t->threads));
	if (!t->threads || replay_image_new(t->b, &t->img) < 0 ||
	    replay_image_at(t->img, t->b->end_time, &unused) < 0)
		goto fail;
	if (replay_rodata_new(t->b, &t->rodata))
		goto fail;
	/* Only software recordings have state logs; without one, the past
	 * has rip only. A log that is there but unreadable is an error. */
	r = replay_state_open(t->b, &t->state, err, errsize);
	if (r == -ENOENT) {
		t->state = NULL;
	} else if (r) {
		goto fail;
	}
	t->nthreads = t->b->nthreads;
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].tid = t->b->threads[i].tid;
		r = replay_cursor_new(t->b, i, NULL, NULL, &t->threads[i].cur);
		if (r) {
			snprintf(err, errsize, "%s: thread %lld: %s", dir,
				 (long long)t->threads[i].tid, strerror(-r));
			goto fail;
		}
	}
	*out = t;
	return 0;
fail:
	replay_target_free(t);
	return r;
}

void replay_target_free(struct replay_target *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nthreads; i++)
		replay_cursor_free(t->threads[i].cur);
	replay_dwarf_symbols_free(t->syms);
	replay_state_free(t->state);
	replay_rodata_free(t->rodata);
	replay_image_free(t->img);
	replay_bundle_free(t->b);
	free(t->threads);
	free(t->points);
	free(t->addrs);
	free(t);
}

struct rsp_target replay_target_rsp(struct replay_target *t)
{
	return (struct rsp_target){ &replay_target_ops, t };
}

int64_t replay_target_pid(const struct replay_target *t)
{
	return t->b->pid;
}

struct replay_cursor *replay_target_cursor(struct replay_target *t, int64_t tid)
{
	struct replay_target_thread *th = find_thread(t, tid);

	return th ? th->cur : NULL;
}

static unsigned rt_features(void *ctx)
{
	struct replay_target *t = ctx;

	/* With a state log every register of the past is known, AVX included. */
	return RSP_TARGET_BTRACE_PT | RSP_TARGET_XFER_EXEC_FILE | RSP_TARGET_XFER_AUXV |
	       RSP_TARGET_XFER_LIBRARIES | RSP_TARGET_REVERSE | (t->state ? RSP_TARGET_AVX : 0);
}

static int rt_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	struct replay_target *t = ctx;

	if (t->gone)
		return 0;
	for (size_t i = 0; i < t->nthreads && i < max; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ptid = (struct rsp_ptid){ t->b->pid, t->threads[i].tid };
		out[i].core = -1;
	}
	return (int)t->nthreads;
}

static int rt_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct replay_target *t = ctx;

	return !t->gone && find_thread(t, thread.tid) ? 0 : -ESRCH;
}

/* ---- the past --------------------------------------------------------- */

int replay_target_past_regs(struct replay_target *t, int64_t tid, uint64_t position,
			    struct rsp_regs *regs)
{
	/* Positions count as the state log's indices do: before item N. */
	if (!t->state)
		return -ENODATA;
	return replay_state_regs_at(t->state, tid, position, regs);
}

/* Bytes that never change: code from the image, read-only file data. */
static int static_read(struct replay_target *t, uint64_t addr, uint8_t *buf, size_t len)
{
	int got = replay_image_read(t->img, 0, addr, buf, len);

	return got > 0 ? got : replay_rodata_read(t->rodata, addr, buf, len);
}

int replay_target_past_mem(struct replay_target *t, int64_t tid, uint64_t position,
			   uint64_t addr, void *buf, size_t len)
{
	uint8_t known[4096], *p = buf;
	uint64_t time;
	size_t n = 0;

	if (!t->state || replay_state_time_at(t->state, tid, position, &time))
		return -ENODATA;
	if (len > sizeof(known))
		len = sizeof(known);
	replay_state_read_mem(t->state, time, addr, buf, len, known);
	/* Runs of bytes the log does not know (never written while recording)
	 * come from the files: code, then read-only data. What is known from
	 * the start of the range is what can be answered. */
	while (n < len) {
		size_t run = 0;
		int got;

		if (known[n]) {
			n++;
			continue;
		}
		while (n + run < len && !known[n + run])
			run++;
		got = static_read(t, addr + n, p + n, run);
		if (got <= 0)
			break;
		n += (size_t)got;
	}
	return n ? (int)n : -ENODATA;
}

static int rt_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = find_thread(t, thread.tid);
	uint64_t pc;
	int rc;

	if (!th || t->gone)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	rc = replay_target_past_regs(t, th->tid, replay_cursor_position(th->cur), out);
	if (rc < 0 && rc != -ENODATA)
		return rc;
	/* rip always comes from the history itself. */
	if (replay_cursor_pc(th->cur, &pc) == 0)
		rsp_regs_set(out, RSP_REG_RIP, pc);
	else
		out->avail[RSP_REG_RIP] = false;
	return 0;
}

static int rt_refuse_regs(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in)
{
	(void)ctx;
	(void)thread;
	(void)in;
	return -EROFS;
}

static int rt_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = &t->threads[t->current < t->nthreads ? t->current : 0];
	int n = t->nthreads ? replay_target_past_mem(t, th->tid, replay_cursor_position(th->cur),
						     addr, buf, len) : -ENODATA;

	if (n > 0)
		return n;
	n = static_read(t, addr, buf, len);
	return n > 0 ? n : -EIO;
}

static int rt_refuse_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	(void)ctx;
	(void)addr;
	(void)buf;
	(void)len;
	return -EROFS;
}

/* ---- breakpoints ------------------------------------------------------ */

static int rt_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct replay_target *t = ctx;

	(void)kind;
	if (type != RSP_POINT_SW_BREAK && type != RSP_POINT_HW_BREAK)
		return -EOPNOTSUPP; /* watchpoints: with the state log */
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].addr == addr && t->points[i].type == type)
			return 0;
	if (t->npoints == t->cappoints) {
		size_t cap = t->cappoints ? t->cappoints * 2 : 16;
		struct replay_target_point *p = realloc(t->points, cap * sizeof(*p));
		uint64_t *a = realloc(t->addrs, cap * sizeof(*a));

		if (p)
			t->points = p;
		if (a)
			t->addrs = a;
		if (!p || !a)
			return -ENOMEM;
		t->cappoints = cap;
	}
	t->points[t->npoints++] = (struct replay_target_point){ addr, type };
	return 0;
}

static int rt_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct replay_target *t = ctx;

	(void)kind;
	if (type != RSP_POINT_SW_BREAK && type != RSP_POINT_HW_BREAK)
		return -EOPNOTSUPP;
	for (size_t i = 0; i < t->npoints; i++) {
		if (t->points[i].addr == addr && t->points[i].type == type) {
			t->points[i] = t->points[--t->npoints];
			break;
		}
	}
	return 0;
}

static struct replay_cursor_breaks breaks_of(struct replay_target *t)
{
	struct replay_cursor_breaks bps = { t->addrs, 0 };

	for (size_t i = 0; i < t->npoints; i++)
		t->addrs[i] = t->points[i].addr;
	bps.n = t->npoints ? replay_cursor_breaks_sort(t->addrs, t->npoints) : 0;
	return bps;
}

/* swbreak or hwbreak, as GDB inserted the breakpoint at @pc. */
static enum rsp_stop_reason break_reason(const struct replay_target *t, uint64_t pc)
{
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].addr == pc && t->points[i].type == RSP_POINT_SW_BREAK)
			return RSP_REASON_SWBREAK;
	return RSP_REASON_HWBREAK;
}

/* ---- resuming --------------------------------------------------------- */

/* The thread a resume moves: the one a step, range step or reverse action
 * names, else the current thread if it is resumed, else the first. */
static size_t resumed_thread(struct replay_target *t, const struct rsp_resume *actions, size_t n)
{
	const struct rsp_resume *pick = NULL;
	struct replay_target_thread *th;

	for (size_t i = 0; i < n && !pick; i++)
		if (actions[i].kind != RSP_RESUME_CONTINUE && actions[i].kind != RSP_RESUME_STOP)
			pick = &actions[i];
	for (size_t i = 0; i < n && !pick; i++)
		if (t->current < t->nthreads && actions[i].thread.tid == t->threads[t->current].tid &&
		    actions[i].kind != RSP_RESUME_STOP)
			pick = &actions[i];
	for (size_t i = 0; i < n && !pick; i++)
		if (actions[i].kind != RSP_RESUME_STOP)
			pick = &actions[i];
	th = pick ? find_thread(t, pick->thread.tid) : NULL;
	return th ? (size_t)(th - t->threads) : t->current;
}

static enum rsp_stop_reason stop_reason(struct replay_target *t, struct replay_cursor *cur, int r)
{
	uint64_t pc;

	switch (r) {
	case REPLAY_CURSOR_BREAK:
		return replay_cursor_pc(cur, &pc) == 0 ? break_reason(t, pc) : RSP_REASON_SWBREAK;
	case REPLAY_CURSOR_BEGIN:
		return RSP_REASON_REPLAY_BEGIN;
	case REPLAY_CURSOR_END:
		return RSP_REASON_REPLAY_END;
	case REPLAY_CURSOR_GAP:
		return RSP_REASON_NONE;
	default:
		return RSP_REASON_STEP;
	}
}

/* Moves @cur as @act says; a stop kind of cursor.h or < 0. */
static int move(struct replay_target *t, struct replay_cursor *cur, const struct rsp_resume *act)
{
	struct replay_cursor_breaks bps = breaks_of(t);

	switch (act->kind) {
	case RSP_RESUME_REVERSE_STEP:
		return replay_cursor_step(cur, REPLAY_BACKWARD);
	case RSP_RESUME_REVERSE_CONTINUE:
		return replay_cursor_continue(cur, REPLAY_BACKWARD, &bps);
	case RSP_RESUME_STEP:
		return replay_cursor_step(cur, REPLAY_FORWARD);
	case RSP_RESUME_RANGE:
		return replay_cursor_range_step(cur, act->range_start, act->range_end, &bps);
	case RSP_RESUME_CONTINUE:
		return replay_cursor_continue(cur, REPLAY_FORWARD, &bps);
	case RSP_RESUME_STOP:
		break;
	}
	return REPLAY_CURSOR_STEP;
}

static int rt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct replay_target *t = ctx;
	const struct rsp_resume *act = NULL;
	struct replay_target_thread *th;
	size_t i;
	int r;

	if (t->gone || n == 0 || !t->nthreads)
		return -ESRCH;
	i = resumed_thread(t, actions, n);
	th = &t->threads[i];
	for (size_t k = 0; k < n && !act; k++)
		if (actions[k].thread.tid == th->tid)
			act = &actions[k];
	r = act ? move(t, th->cur, act) : REPLAY_CURSOR_STEP;
	if (r < 0)
		return r;
	t->current = i;
	memset(&t->stop, 0, sizeof(t->stop));
	t->stop.kind = RSP_STOP_SIGNAL;
	t->stop.thread = (struct rsp_ptid){ t->b->pid, th->tid };
	t->stop.signo = act && act->kind != RSP_RESUME_STOP ? SIGTRAP : 0;
	t->stop.reason = stop_reason(t, th->cur, r);
	return 0;
}

static int rt_event_fd(void *ctx)
{
	(void)ctx;
	return -1;
}

static int rt_wait(void *ctx, struct rsp_stop *out, bool block)
{
	struct replay_target *t = ctx;

	(void)block;
	*out = t->stop;
	return 1;
}

static int rt_interrupt(void *ctx)
{
	(void)ctx;
	return 0;
}

static int rt_end(void *ctx)
{
	struct replay_target *t = ctx;

	t->gone = true;
	return 0;
}

/* The program's path: the mapping whose file has argv[0]'s name. */
static const char *exec_path(const struct replay_bundle *b)
{
	const char *name = b->argv && b->argv[0] ? strrchr(b->argv[0], '/') : NULL;

	name = name ? name + 1 : (b->argv ? b->argv[0] : NULL);
	for (size_t i = 0; name && i < b->nmaps; i++) {
		const char *p = b->maps[i].system_path, *base = p ? strrchr(p, '/') : NULL;

		if (base && !strcmp(base + 1, name))
			return p;
	}
	return b->argv ? b->argv[0] : NULL;
}

static int rt_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			struct rsp_buf *out)
{
	struct replay_target *t = ctx;
	const char *path;

	(void)annex;
	if (obj == RSP_XFER_AUXV)
		return replay_auxv_build(t->b, exec_path(t->b), out);
	if (obj == RSP_XFER_LIBRARIES_SVR4)
		return replay_svr4_build(t->b, exec_path(t->b), t->b->end_time, out);
	if (obj != RSP_XFER_EXEC_FILE)
		return -EOPNOTSUPP;
	path = exec_path(t->b);
	return path ? rsp_buf_puts(out, path) : -ENOENT;
}

static int rt_process_info(void *ctx, struct rsp_process_info *out)
{
	struct replay_target *t = ctx;

	memset(out, 0, sizeof(*out));
	out->pid = t->b->pid;
	out->attached = true; /* GDB detaches, never kills, a recording */
	return 0;
}

static struct replay_target_thread *btrace_thread(struct replay_target *t, struct rsp_ptid thread)
{
	return t->gone ? NULL : find_thread(t, thread.tid);
}

static int rt_btrace_enable(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format format,
			    uint64_t size)
{
	struct replay_target_thread *th = btrace_thread(ctx, thread);

	(void)size;
	if (!th)
		return -ESRCH;
	if (format != RSP_BTRACE_PT)
		return -EOPNOTSUPP;
	if (th->btrace_on)
		return -EALREADY;
	th->btrace_on = true;
	th->btrace_read = false;
	return 0;
}

static int rt_btrace_disable(void *ctx, struct rsp_ptid thread)
{
	struct replay_target_thread *th = btrace_thread(ctx, thread);

	if (!th || !th->btrace_on)
		return -ENOENT;
	th->btrace_on = false;
	return 0;
}

/* The thread's PT file, whole. */
static int pt_file(struct replay_target *t, struct rsp_ptid thread, char *path, size_t size)
{
	for (size_t i = 0; i < t->nthreads; i++)
		if (t->threads[i].tid == thread.tid)
			return replay_bundle_path(t->b, t->b->threads[i].pt_file, path, size);
	return -ESRCH;
}

static int rt_btrace_conf(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format *format,
			  uint64_t *size)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = btrace_thread(t, thread);
	char path[4096];
	struct stat st;

	if (!th || !th->btrace_on)
		return -ENOENT;
	*format = RSP_BTRACE_PT;
	*size = 0;
	if (pt_file(t, thread, path, sizeof(path)) == 0 && stat(path, &st) == 0)
		*size = (uint64_t)st.st_size;
	return 0;
}

static int read_all(const char *path, struct rsp_buf *out)
{
	uint8_t buf[65536];
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	while (!err && (n = read(fd, buf, sizeof(buf))) > 0)
		err = rsp_buf_append(out, buf, (size_t)n);
	if (!err && n < 0)
		err = -errno;
	close(fd);
	return err;
}

static int rt_btrace_read(void *ctx, struct rsp_ptid thread, enum rsp_btrace_read kind,
			  struct rsp_btrace_data *out)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = btrace_thread(t, thread);
	char path[4096];
	int err;

	if (!th || !th->btrace_on)
		return -ENOENT;
	if (kind == RSP_BTRACE_READ_DELTA)
		return -EOPNOTSUPP;
	/* A recording never grows: `new` has something only the first time. */
	if (kind == RSP_BTRACE_READ_NEW && th->btrace_read)
		return 1;
	err = pt_file(t, thread, path, sizeof(path));
	if (!err)
		err = read_all(path, out->raw);
	if (err)
		return err;
	th->btrace_read = true;
	out->format = RSP_BTRACE_PT;
	snprintf(out->cpu_vendor, sizeof(out->cpu_vendor), "%s", t->b->cpu.vendor);
	out->cpu_family = t->b->cpu.family;
	out->cpu_model = t->b->cpu.model;
	out->cpu_stepping = t->b->cpu.stepping;
	return 0;
}

/* ---- monitor commands ------------------------------------------------ */

static int rt_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	struct replay_target *t = ctx;
	struct replay_cursor **cursors;
	struct replay_monitor_ctx m;
	int rc;

	if (!t->syms) {
		if (replay_dwarf_symbols_new(t->b, &t->syms) < 0)
			return -ENOMEM;
		t->symbolizer.lookup = replay_dwarf_symbols_lookup;
		t->symbolizer.ctx = t->syms;
	}
	cursors = calloc(t->nthreads ? t->nthreads : 1, sizeof(*cursors));
	if (!cursors)
		return -ENOMEM;
	for (size_t i = 0; i < t->nthreads; i++)
		cursors[i] = t->threads[i].cur;
	m = (struct replay_monitor_ctx){ t->b, cursors, t->current, &t->symbolizer };
	rc = replay_monitor_run(&m, cmd, out);
	free(cursors);
	return rc;
}

const struct rsp_target_ops replay_target_ops = {
	.features = rt_features,
	.threads = rt_threads,
	.thread_alive = rt_thread_alive,
	.read_regs = rt_read_regs,
	.write_regs = rt_refuse_regs,
	.read_mem = rt_read_mem,
	.write_mem = rt_refuse_mem,
	.insert_point = rt_insert_point,
	.remove_point = rt_remove_point,
	.resume = rt_resume,
	.event_fd = rt_event_fd,
	.wait = rt_wait,
	.interrupt = rt_interrupt,
	.kill = rt_end,
	.detach = rt_end,
	.xfer_read = rt_xfer_read,
	.process_info = rt_process_info,
	.btrace_enable = rt_btrace_enable,
	.btrace_disable = rt_btrace_disable,
	.btrace_conf = rt_btrace_conf,
	.btrace_read = rt_btrace_read,
	.monitor = rt_monitor,
};
