/*
 * stub/live/stub_target.c: the live target's operations table and public API.
 *
 * Glue only: each operation checks its arguments and calls into
 * stub/live/stub_proc.h (execution control), stub/live/stub_regs.h, stub/live/stub_mem.h
 * with stub/live/stub_break.h (memory, Z0), stub/live/stub_dreg.h with stub/live/stub_hw.h
 * (Z1-Z4) or stub/live/stub_info.h (queries).
 */
#include "stub/live/stub_target.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stub/live/stub_hw.h"
#include "stub/live/stub_info.h"
#include "stub/live/stub_probe.h"
#include "stub/live/stub_proc.h"
#include "stub/live/stub_regs.h"
#include "stub/live/stub_vfile.h"

struct stub_target {
	struct stub_proc proc;
};

static struct stub_proc *stub_target_proc(void *ctx)
{
	return &((struct stub_target *)ctx)->proc;
}

static unsigned stub_target_features(void *ctx)
{
	unsigned xfer = RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_LIBRARIES |
			RSP_TARGET_XFER_SIGINFO | RSP_TARGET_XFER_EXEC_FILE;

	return xfer | (stub_target_proc(ctx)->avx ? RSP_TARGET_AVX : 0);
}

static int stub_target_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	return stub_info_threads(stub_target_proc(ctx), out, max);
}

static int stub_target_thread_alive(void *ctx, struct rsp_ptid thread)
{
	struct stub_thread *t = stub_proc_thread(stub_target_proc(ctx), thread.tid);

	return t && !t->zombie ? 0 : -ESRCH;
}

static int stub_target_read_regs(void *ctx, struct rsp_ptid thread, struct rsp_regs *out)
{
	struct stub_proc *p = stub_target_proc(ctx);
	struct stub_thread *t = stub_proc_thread(p, thread.tid);

	if (!t)
		return -ESRCH;
	return stub_regs_read(t->tid, p->avx, out);
}

static int stub_target_write_regs(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in)
{
	struct stub_proc *p = stub_target_proc(ctx);
	struct stub_thread *t = stub_proc_thread(p, thread.tid);

	if (!t)
		return -ESRCH;
	return stub_regs_write(t->tid, p->avx, in);
}

static int stub_target_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct stub_proc *p = stub_target_proc(ctx);
	int r;

	if (!p->alive)
		return -ESRCH;
	r = stub_mem_read(&p->mem, addr, buf, len);
	if (r > 0)
		stub_break_hide(&p->breaks, addr, buf, (size_t)r);
	return r;
}

static int stub_target_write_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	struct stub_proc *p = stub_target_proc(ctx);

	if (!p->alive)
		return -ESRCH;
	return stub_break_write(&p->breaks, &p->mem, addr, buf, len);
}

/* Inserts or removes a Z1-Z4 point and writes it into every thread; on a
 * refusal by the kernel the previous set is put back. */
static int stub_target_hw_point(struct stub_proc *p, bool insert,
				enum rsp_point_type type, uint64_t addr, int kind)
{
	struct stub_dreg_set old = p->dregs;
	uint64_t len = type == RSP_POINT_HW_BREAK ? 1 : (uint64_t)kind;
	int r;

	if (kind <= 0)
		return -EINVAL;
	if (insert)
		r = stub_dreg_insert(&p->dregs, type, addr, len);
	else
		r = stub_dreg_remove(&p->dregs, type, addr, len);
	if (r < 0 || memcmp(&old, &p->dregs, sizeof(old)) == 0)
		return r;
	r = stub_proc_apply_dregs(p);
	if (r < 0) {
		p->dregs = old;
		stub_proc_apply_dregs(p);
	}
	return r;
}

static int stub_target_point(void *ctx, bool insert, enum rsp_point_type type,
			     uint64_t addr, int kind)
{
	struct stub_proc *p = stub_target_proc(ctx);

	if (!p->alive)
		return -ESRCH;
	if (type == RSP_POINT_SW_BREAK)
		return insert ? stub_break_insert(&p->breaks, &p->mem, addr)
			      : stub_break_remove(&p->breaks, &p->mem, addr);
	/* Debug registers that were never seen to fire (some virtual
	 * machines accept them and stay silent): refused, so that the
	 * debugger says so instead of waiting for a hit that never comes. */
	if (insert && stub_probe_dregs() != STUB_PROBE_YES)
		return -EOPNOTSUPP;
	return stub_target_hw_point(p, insert, type, addr, kind);
}

static int stub_target_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	return stub_target_point(ctx, true, type, addr, kind);
}

static int stub_target_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	return stub_target_point(ctx, false, type, addr, kind);
}

static int stub_target_resume(void *ctx, const struct rsp_resume *actions, size_t n)
{
	return stub_proc_resume(stub_target_proc(ctx), actions, n);
}

static int stub_target_event_fd(void *ctx)
{
	return stub_target_proc(ctx)->sigfd;
}

static int stub_target_wait(void *ctx, struct rsp_stop *out, bool block)
{
	return stub_proc_wait(stub_target_proc(ctx), out, block);
}

static int stub_target_interrupt(void *ctx)
{
	return stub_proc_interrupt(stub_target_proc(ctx));
}

static int stub_target_kill(void *ctx)
{
	return stub_proc_kill(stub_target_proc(ctx));
}

static int stub_target_detach(void *ctx)
{
	return stub_proc_detach(stub_target_proc(ctx));
}

static int stub_target_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex,
				 struct rsp_buf *out)
{
	return stub_info_xfer(stub_target_proc(ctx), obj, annex, out);
}

static int stub_target_process_info(void *ctx, struct rsp_process_info *out)
{
	return stub_info_process(stub_target_proc(ctx), out);
}

static int stub_target_shlib_info_addr(void *ctx, uint64_t *addr)
{
	return stub_info_shlib_addr(stub_target_proc(ctx), addr);
}

static int stub_target_memory_region(void *ctx, uint64_t addr, struct rsp_region *out)
{
	return stub_info_region(stub_target_proc(ctx), addr, out);
}

static int stub_target_set_pass_signals(void *ctx, const uint8_t pass[RSP_NSIG])
{
	memcpy(stub_target_proc(ctx)->pass, pass, RSP_NSIG);
	return 0;
}

static int stub_target_vfile_open(void *ctx, int64_t fs_pid, const char *path, bool any)
{
	struct stub_proc *p = stub_target_proc(ctx);

	return p->alive || any ? stub_vfile_open(p->pid, fs_pid, path, any) : -EACCES;
}

static int stub_target_vfile_readlink(void *ctx, int64_t fs_pid, const char *path, bool any,
				      char *buf, size_t size)
{
	struct stub_proc *p = stub_target_proc(ctx);

	return p->alive || any ? stub_vfile_readlink(p->pid, fs_pid, path, any, buf, size)
			       : -EACCES;
}

static int stub_target_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	(void)ctx;
	(void)cmd;
	(void)out;
	return -ENOENT;
}

const struct rsp_target_ops stub_target_ops = {
	.features = stub_target_features,
	.threads = stub_target_threads,
	.thread_alive = stub_target_thread_alive,
	.read_regs = stub_target_read_regs,
	.write_regs = stub_target_write_regs,
	.read_mem = stub_target_read_mem,
	.write_mem = stub_target_write_mem,
	.insert_point = stub_target_insert_point,
	.remove_point = stub_target_remove_point,
	.resume = stub_target_resume,
	.event_fd = stub_target_event_fd,
	.wait = stub_target_wait,
	.interrupt = stub_target_interrupt,
	.kill = stub_target_kill,
	.detach = stub_target_detach,
	.xfer_read = stub_target_xfer_read,
	.process_info = stub_target_process_info,
	.shlib_info_addr = stub_target_shlib_info_addr,
	.memory_region = stub_target_memory_region,
	.set_pass_signals = stub_target_set_pass_signals,
	.vfile_open = stub_target_vfile_open,
	.vfile_readlink = stub_target_vfile_readlink,
	.monitor = stub_target_monitor,
};

/* Allocates a target, runs @start on it, frees it on failure. */
static int stub_target_new(struct stub_target **out, int (*start)(struct stub_proc *, const void *),
			   const void *arg)
{
	struct stub_target *t = calloc(1, sizeof(*t));
	int r;

	*out = NULL;
	if (!t)
		return -ENOMEM;
	r = start(&t->proc, arg);
	if (r < 0) {
		stub_proc_release(&t->proc);
		free(t);
		return r;
	}
	*out = t;
	return 0;
}

static int stub_target_start_spawn(struct stub_proc *p, const void *arg)
{
	return stub_proc_spawn(p, (char *const *)arg);
}

static int stub_target_start_attach(struct stub_proc *p, const void *arg)
{
	return stub_proc_attach(p, *(const pid_t *)arg);
}

int stub_target_spawn(char *const argv[], struct stub_target **out)
{
	return stub_target_new(out, stub_target_start_spawn, argv);
}

int stub_target_attach(pid_t pid, struct stub_target **out)
{
	return stub_target_new(out, stub_target_start_attach, &pid);
}

pid_t stub_target_pid(const struct stub_target *t)
{
	return t->proc.pid;
}

struct stub_target_adopt_arg {
	pid_t pid;
	const struct stub_proc_adoptee *v;
	size_t n;
	bool spawned;
};

static int stub_target_start_adopt(struct stub_proc *p, const void *arg)
{
	const struct stub_target_adopt_arg *a = arg;

	return stub_proc_adopt(p, a->pid, a->v, a->n, a->spawned);
}

int stub_target_adopt(pid_t pid, const struct stub_proc_adoptee *v, size_t n, bool spawned,
		      struct stub_target **out)
{
	struct stub_target_adopt_arg a = { pid, v, n, spawned };

	return stub_target_new(out, stub_target_start_adopt, &a);
}

int stub_target_hand_over(struct stub_target *t, bool *attached)
{
	*attached = t->proc.attached;
	return stub_proc_hand_over(&t->proc);
}

bool stub_target_has_process(const struct stub_target *t)
{
	return t->proc.alive;
}

struct rsp_target stub_target_rsp(struct stub_target *t)
{
	return (struct rsp_target){ &stub_target_ops, t };
}

void stub_target_free(struct stub_target *t)
{
	if (!t)
		return;
	stub_proc_release(&t->proc);
	free(t);
}
