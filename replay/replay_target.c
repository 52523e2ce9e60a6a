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
#include "replay/decode.h"
#include "replay/image.h"
#include "replay/index.h"

struct replay_target_thread {
	int64_t tid;
	bool have_pc;
	uint64_t pc;
	bool btrace_on;
	bool btrace_read;          /* a NEW read was answered already */
};

struct replay_target {
	struct replay_bundle *b;
	struct replay_image *img;
	struct replay_target_thread *threads;
	size_t nthreads;
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

/* The pc after the last instruction of thread @i: what "now" is. */
static int find_pc(struct replay_target *t, size_t i)
{
	struct replay_index idx = { 0 };
	struct replay_decoder *d = NULL;
	struct replay_item it;
	int err = replay_index_build(&idx, t->b, i, NULL, NULL);

	if (!err)
		err = replay_decoder_new(t->b, i, &d);
	if (!err && idx.nitems > 0 && replay_index_seek(&idx, d, idx.nitems) == 0 &&
	    replay_decoder_next(d, &it) == 1 && it.kind == REPLAY_ITEM_INSN && it.insn.size) {
		t->threads[i].pc = it.insn.ip + it.insn.size;
		t->threads[i].have_pc = true;
	}
	replay_decoder_free(d);
	replay_index_release(&idx);
	return err;
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
	t->nthreads = t->b->nthreads;
	for (size_t i = 0; i < t->nthreads; i++) {
		t->threads[i].tid = t->b->threads[i].tid;
		r = find_pc(t, i);
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
	replay_image_free(t->img);
	replay_bundle_free(t->b);
	free(t->threads);
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

static unsigned rt_features(void *ctx)
{
	(void)ctx;
	return RSP_TARGET_BTRACE_PT | RSP_TARGET_XFER_EXEC_FILE;
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

static int rt_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct replay_target *t = ctx;
	struct replay_target_thread *th = find_thread(t, thread.tid);

	if (!th || t->gone)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	if (th->have_pc)
		rsp_regs_set(out, RSP_REG_RIP, th->pc);
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
	int n = replay_image_read(t->img, 0, addr, buf, len);

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

/* Breakpoints are taken (GDB inserts them around every resume) but the
 * history cannot reach them yet: resuming ends at the end of history. */
static int rt_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	(void)ctx;
	(void)addr;
	(void)kind;
	return type == RSP_POINT_SW_BREAK || type == RSP_POINT_HW_BREAK ? 0 : -EOPNOTSUPP;
}

static int rt_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	struct replay_target *t = ctx;

	if (t->gone || n == 0)
		return -ESRCH;
	if (actions[0].kind == RSP_RESUME_REVERSE_STEP ||
	    actions[0].kind == RSP_RESUME_REVERSE_CONTINUE)
		return -EOPNOTSUPP;
	memset(&t->stop, 0, sizeof(t->stop));
	t->stop.kind = RSP_STOP_SIGNAL;
	t->stop.thread = actions[0].thread;
	t->stop.signo = SIGTRAP;
	t->stop.reason = RSP_REASON_REPLAY_END;
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

const struct rsp_target_ops replay_target_ops = {
	.features = rt_features,
	.threads = rt_threads,
	.thread_alive = rt_thread_alive,
	.read_regs = rt_read_regs,
	.write_regs = rt_refuse_regs,
	.read_mem = rt_read_mem,
	.write_mem = rt_refuse_mem,
	.insert_point = rt_point,
	.remove_point = rt_point,
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
};
