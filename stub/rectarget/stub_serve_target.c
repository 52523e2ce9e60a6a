/*
 * stub/rectarget/stub_serve_target.c: native until recording is asked for
 * (stub/rectarget/stub_serve_target.h). Every operation goes to the target
 * of the moment: the native one, then the recording one it handed the
 * process to.
 */
#include "stub/rectarget/stub_serve_target.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_target.h"
#include "stub/recorders/stub_rec.h"

/* A point the debugger inserted, inserted again into the recording
 * target when recording starts. */
struct sst_point {
	enum rsp_point_type type;
	uint64_t addr;
	int kind;
};

struct stub_serve_target {
	pid_t pid;
	struct stub_target *live;          /* until recording starts */
	struct stub_rec_target *rec;       /* from then on */
	struct stub_rec_target_options opt;
	void (*on_dir)(const char *dir);   /* told where recording started */
	char dir[4096];
	bool attached;                     /* attached to, not started: let go at the end */
	unsigned nrecordings;              /* started so far */
	unsigned forgotten;                /* breakpoint hits forgotten at the last start */
	char odir[4096];                   /* -o DIR, numbered after the first */
	struct sst_point *points;
	size_t npoints, cappoints;
	uint8_t pass[RSP_NSIG];
	bool pass_set;
	/* A reverse resume before recording started: it stops at once, at
	 * the start of an empty history, reported through @readyfd. */
	bool begin_pending;
	struct rsp_ptid begin_thread;
	int readyfd;                       /* an eventfd, readable while pending */
};

static struct rsp_target cur(struct stub_serve_target *t)
{
	return t->rec ? stub_rec_target_rsp(t->rec) : stub_target_rsp(t->live);
}

/* ---- recording started ---------------------------------------------------- */

/* The debugger's points and pass signals, into the target of the moment. */
static void points_again(struct stub_serve_target *t)
{
	struct rsp_target r = cur(t);

	for (size_t i = 0; i < t->npoints; i++)
		r.ops->insert_point(r.ctx, t->points[i].type, t->points[i].addr, t->points[i].kind);
	if (t->pass_set)
		r.ops->set_pass_signals(r.ctx, t->pass);
}

/* The process handed to a recording target at this stop: the debugger's
 * points and pass signals go with it. 0 or a negative errno (-EBUSY: a
 * thread has a signal or watchpoint stop not yet reported; the native
 * target keeps it). */
static int start_recording(struct stub_serve_target *t)
{
	struct stub_rec_target_options o = t->opt;
	struct stub_rec_target *rec;
	bool attached;
	pid_t pid;
	char err[512];
	int e;

	if (t->rec)
		return 0;
	if (!t->live || !stub_target_has_process(t->live))
		return -ESRCH;
	/* What can fail before the process changes hands: its directory,
	 * DIR for the first recording, DIR.2, DIR.3, ... for later ones. */
	if (o.dir && t->nrecordings) {
		snprintf(t->odir, sizeof(t->odir), "%s.%u", t->opt.dir, t->nrecordings + 1);
		o.dir = t->odir;
	}
	if (o.dir && (e = replay_bundle_mkdir(o.dir)) < 0)
		return e;
	pid = stub_target_pid(t->live);
	e = stub_target_hand_over(t->live, &attached);
	if (e < 0)
		return e;
	t->forgotten = (unsigned)e;
	o.adopt = true;
	o.spawned = !attached;
	t->attached = attached;
	e = stub_rec_target_new(NULL, pid, &o, &rec, err, sizeof(err));
	if (e < 0) {
		/* Nothing can serve it now: a program started for the debugger
		 * is killed, an attached one let go, rather than left stopped. */
		stub_rec_let_go(pid, attached);
		return e;
	}
	stub_target_free(t->live);
	t->live = NULL;
	t->rec = rec;
	t->nrecordings++;
	snprintf(t->dir, sizeof(t->dir), "%s", stub_rec_target_dir(rec));
	if (t->on_dir)
		t->on_dir(t->dir);
	points_again(t);
	return 0;
}

/* ---- recording stopped ---------------------------------------------------- */

/* The process handed back to a native target at this stop: the recording
 * ends (kept where it is, as a detach leaves it), the program goes on
 * natively, and a later `record btrace` starts a new one. 0 or a negative
 * errno (-EBUSY: the program runs, or a stop is to be reported). */
static int stop_recording(struct stub_serve_target *t)
{
	const struct stub_rec_handed *h;
	struct stub_proc_adoptee *v;
	struct stub_target *live = NULL;
	size_t n;
	int e, saved;

	if (!t->rec)
		return 0;
	saved = stub_rec_target_hand_back(t->rec, &h, &n);
	if (saved == -EBUSY || (saved < 0 && !n))
		return saved;
	v = calloc(n ? n : 1, sizeof(*v));
	for (size_t i = 0; v && i < n; i++)
		v[i] = (struct stub_proc_adoptee){ h[i].tid, h[i].sig,
			!h[i].quiet && !(t->pass_set && h[i].sig < RSP_NSIG && t->pass[h[i].sig]) };
	e = v ? stub_target_adopt(t->pid, v, n, !t->attached, &live) : -ENOMEM;
	free(v);
	if (e < 0) {
		/* Nothing can serve it now: let it go as a failed start does;
		 * the recording target, ended, answers that it is gone. */
		stub_rec_let_go(t->pid, t->attached);
		return e;
	}
	stub_rec_target_free(t->rec);
	t->rec = NULL;
	t->live = live;
	points_again(t);
	return saved;
}

/* ---- the operations -------------------------------------------------------- */

static unsigned sst_features(void *ctx)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	/* Reverse execution and branch tracing from the start: GDB asks once,
	 * when it connects, and they become true when it asks for them. */
	return r.ops->features(r.ctx) | RSP_TARGET_REVERSE | RSP_TARGET_BTRACE_PT |
	       RSP_TARGET_BTRACE_BTS;
}

static int sst_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	struct rsp_target r = cur(ctx);

	return r.ops->threads(r.ctx, out, max);
}

static int sst_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct rsp_target r = cur(ctx);

	return r.ops->thread_alive(r.ctx, thread);
}

static int sst_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct rsp_target r = cur(ctx);

	return r.ops->read_regs(r.ctx, thread, out);
}

static int sst_write_regs(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in)
{
	struct rsp_target r = cur(ctx);

	return r.ops->write_regs(r.ctx, thread, in);
}

static int sst_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct rsp_target r = cur(ctx);

	return r.ops->read_mem(r.ctx, addr, buf, len);
}

static int sst_write_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct rsp_target r = cur(ctx);

	return r.ops->write_mem(r.ctx, addr, buf, len);
}

static struct sst_point *point_find(struct stub_serve_target *t, enum rsp_point_type type,
				    uint64_t addr, int kind)
{
	for (size_t i = 0; i < t->npoints; i++)
		if (t->points[i].type == type && t->points[i].addr == addr &&
		    t->points[i].kind == kind)
			return &t->points[i];
	return NULL;
}

static int sst_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);
	int e = r.ops->insert_point(r.ctx, type, addr, kind);

	if (e < 0 || point_find(t, type, addr, kind))
		return e;
	if (t->npoints == t->cappoints) {
		size_t cap = t->cappoints ? 2 * t->cappoints : 16;
		struct sst_point *nv = realloc(t->points, cap * sizeof(*nv));

		if (!nv) {
			r.ops->remove_point(r.ctx, type, addr, kind);
			return -ENOMEM;
		}
		t->points = nv;
		t->cappoints = cap;
	}
	t->points[t->npoints++] = (struct sst_point){ type, addr, kind };
	return 0;
}

static int sst_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);
	struct sst_point *p = point_find(t, type, addr, kind);

	if (p)
		*p = t->points[--t->npoints];
	return r.ops->remove_point(r.ctx, type, addr, kind);
}

static bool reverse(const struct rsp_resume *actions, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (actions[i].kind == RSP_RESUME_REVERSE_STEP ||
		    actions[i].kind == RSP_RESUME_REVERSE_CONTINUE)
			return true;
	return false;
}

static int sst_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	if (!t->rec && reverse(actions, n)) {
		uint64_t one = 1;

		/* Nothing recorded yet: the history is empty, and it begins here. */
		for (size_t i = 0; i < n; i++)
			if (actions[i].kind == RSP_RESUME_REVERSE_STEP ||
			    actions[i].kind == RSP_RESUME_REVERSE_CONTINUE)
				t->begin_thread = actions[i].thread;
		if (write(t->readyfd, &one, sizeof(one)) != sizeof(one))
			return -errno;
		t->begin_pending = true;
		return 0;
	}
	return r.ops->resume(r.ctx, actions, n);
}

static int sst_event_fd(void *ctx)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	return t->begin_pending ? t->readyfd : r.ops->event_fd(r.ctx);
}

static int sst_wait(void *ctx, struct rsp_stop *out, bool block)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	if (t->begin_pending) {
		uint64_t v;

		t->begin_pending = false;
		if (read(t->readyfd, &v, sizeof(v)) < 0)
			return -errno;
		*out = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL, .thread = t->begin_thread,
					  .signo = SIGTRAP, .reason = RSP_REASON_REPLAY_BEGIN };
		if (out->thread.tid <= 0)
			out->thread = (struct rsp_ptid){ t->pid, t->pid };
		return 1;
	}
	return r.ops->wait(r.ctx, out, block);
}

static int sst_interrupt(void *ctx)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	/* A stop at the start of an empty history is already there. */
	return t->begin_pending ? 0 : r.ops->interrupt(r.ctx);
}

static int sst_kill(void *ctx)
{
	struct rsp_target r = cur(ctx);

	return r.ops->kill(r.ctx);
}

static int sst_detach(void *ctx)
{
	struct rsp_target r = cur(ctx);

	return r.ops->detach(r.ctx);
}

static int sst_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
			 struct rsp_buf *out)
{
	struct rsp_target r = cur(ctx);

	return r.ops->xfer_read(r.ctx, obj, annex, out);
}

static int sst_process_info(void *ctx, struct rsp_process_info *out)
{
	struct rsp_target r = cur(ctx);

	return r.ops->process_info(r.ctx, out);
}

static int sst_shlib_info_addr(void *ctx, uint64_t *addr)
{
	struct rsp_target r = cur(ctx);

	return r.ops->shlib_info_addr(r.ctx, addr);
}

static int sst_memory_region(void *ctx, uint64_t addr, struct rsp_region *out)
{
	struct rsp_target r = cur(ctx);

	return r.ops->memory_region(r.ctx, addr, out);
}

static int sst_set_pass_signals(void *ctx, const uint8_t pass[RSP_NSIG])
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	memcpy(t->pass, pass, sizeof(t->pass));
	t->pass_set = true;
	return r.ops->set_pass_signals(r.ctx, pass);
}

static int sst_btrace_enable(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format format,
			     uint64_t size)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r;
	int e = start_recording(t);

	if (e < 0)
		return e;
	r = cur(t);
	return r.ops->btrace_enable(r.ctx, thread, format, size);
}

/* GDB's `record stop` turns branch tracing off thread by thread: after
 * the last one the program goes on natively. */
static int sst_btrace_disable(void *ctx, struct rsp_ptid thread)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);
	int e;

	if (!t->rec)
		return -ENOENT;
	e = r.ops->btrace_disable(r.ctx, thread);
	if (e < 0 || stub_rec_target_btraced(t->rec))
		return e;
	e = stop_recording(t);
	return t->rec ? e : 0;
}

static int sst_btrace_conf(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format *format,
			   uint64_t *size)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	return t->rec ? r.ops->btrace_conf(r.ctx, thread, format, size) : -ENOENT;
}

static int sst_btrace_read(void *ctx, struct rsp_ptid thread, enum rsp_btrace_read kind,
			   struct rsp_btrace_data *out)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r = cur(t);

	return t->rec ? r.ops->btrace_read(r.ctx, thread, kind, out) : -ENOENT;
}

static int sst_vfile_open(void *ctx, int64_t fs_pid, const char *path, bool any)
{
	struct rsp_target r = cur(ctx);

	return r.ops->vfile_open(r.ctx, fs_pid, path, any);
}

static int sst_vfile_readlink(void *ctx, int64_t fs_pid, const char *path, bool any, char *buf,
			      size_t size)
{
	struct rsp_target r = cur(ctx);

	return r.ops->vfile_readlink(r.ctx, fs_pid, path, any, buf, size);
}

static int sst_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	struct stub_serve_target *t = ctx;
	struct rsp_target r;
	int e;

	if (!strcmp(cmd, "record start")) {
		if (t->rec)
			return rsp_buf_printf(out, "Already recording, in %s.\n", t->dir);
		e = start_recording(t);
		if (e == -EBUSY)
			return rsp_buf_puts(out, "Cannot start recording here: a thread has a signal "
					    "or watchpoint stop not reported yet. Continue or "
					    "step once, then ask again.\n");
		if (e < 0)
			return rsp_buf_printf(out, "Cannot start recording: %s.\n", strerror(-e));
		if (t->forgotten)
			return rsp_buf_printf(out, "Recording from here, by single steps, in %s. "
					      "%u breakpoint hit(s) of other threads not reported "
					      "yet are met again as they run.\n", t->dir,
					      t->forgotten);
		return rsp_buf_printf(out, "Recording from here, by single steps, in %s.\n",
				      t->dir);
	}
	if (!strcmp(cmd, "record stop")) {
		if (!t->rec)
			return rsp_buf_puts(out, "Not recording.\n");
		e = stop_recording(t);
		if (t->rec && e == -EBUSY)
			return rsp_buf_puts(out, "Cannot stop recording here: go forward to the "
					    "present first (recording stops where the program "
					    "is), or the main thread has exited before the "
					    "others.\n");
		if (t->rec)
			return rsp_buf_printf(out, "Cannot stop recording: %s.\n", strerror(-e));
		if (e < 0)
			return rsp_buf_printf(out, "Recording stopped; the program goes on natively. "
					      "The recording in %s could not be saved whole: %s.\n",
					      t->dir, strerror(-e));
		if (!t->opt.dir)
			return rsp_buf_puts(out, "Recording stopped; the program goes on natively. "
					    "The recording was temporary and is gone (serve with "
					    "-o DIR to keep it).\n");
		return rsp_buf_printf(out, "Recording stopped; the program goes on natively. "
				      "What was recorded is in %s.\n", t->dir);
	}
	r = cur(t);
	return r.ops->monitor(r.ctx, cmd, out);
}

static const struct rsp_target_ops sst_ops = {
	.features = sst_features,
	.threads = sst_threads,
	.thread_alive = sst_thread_alive,
	.read_regs = sst_read_regs,
	.write_regs = sst_write_regs,
	.read_mem = sst_read_mem,
	.write_mem = sst_write_mem,
	.insert_point = sst_insert_point,
	.remove_point = sst_remove_point,
	.resume = sst_resume,
	.event_fd = sst_event_fd,
	.wait = sst_wait,
	.interrupt = sst_interrupt,
	.kill = sst_kill,
	.detach = sst_detach,
	.xfer_read = sst_xfer_read,
	.process_info = sst_process_info,
	.shlib_info_addr = sst_shlib_info_addr,
	.memory_region = sst_memory_region,
	.set_pass_signals = sst_set_pass_signals,
	.btrace_enable = sst_btrace_enable,
	.btrace_disable = sst_btrace_disable,
	.btrace_conf = sst_btrace_conf,
	.btrace_read = sst_btrace_read,
	.vfile_open = sst_vfile_open,
	.vfile_readlink = sst_vfile_readlink,
	.monitor = sst_monitor,
};

/* ---- lifetime ------------------------------------------------------------- */

int stub_serve_target_new(struct stub_target *live, const struct stub_rec_target_options *opt,
			  void (*on_dir)(const char *dir), struct stub_serve_target **out)
{
	struct stub_serve_target *t = calloc(1, sizeof(*t));

	*out = NULL;
	if (!t) {
		stub_target_free(live);
		return -ENOMEM;
	}
	t->readyfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (t->readyfd < 0) {
		free(t);
		stub_target_free(live);
		return -ENOMEM;
	}
	t->live = live;
	t->pid = stub_target_pid(live);
	t->opt = *opt;
	t->on_dir = on_dir;
	*out = t;
	return 0;
}

void stub_serve_target_free(struct stub_serve_target *t)
{
	if (!t)
		return;
	stub_target_free(t->live);
	stub_rec_target_free(t->rec);
	close(t->readyfd);
	free(t->points);
	free(t);
}

struct rsp_target stub_serve_target_rsp(struct stub_serve_target *t)
{
	return (struct rsp_target){ &sst_ops, t };
}

pid_t stub_serve_target_pid(const struct stub_serve_target *t)
{
	return t->pid;
}

bool stub_serve_target_recording(const struct stub_serve_target *t)
{
	return t->rec != NULL;
}

const char *stub_serve_target_dir(const struct stub_serve_target *t)
{
	return t->rec ? t->dir : NULL;
}
