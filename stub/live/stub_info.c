/*
 * stub/live/stub_info.c: qXfer objects, shared library and region queries.
 */
#include "stub/live/stub_info.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/ptrace.h>

#include "protocol/rsp_buf.h"
#include "stub/live/stub_maps.h"
#include "stub/live/stub_procfs.h"
#include "stub/live/stub_proc.h"
#include "stub/live/stub_svr4.h"

/* The svr4 reader callback: memory with our breakpoints hidden. */
static int stub_info_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct stub_proc *p = ctx;
	int r = stub_mem_read(&p->mem, addr, buf, len);

	if (r > 0)
		stub_break_hide(&p->breaks, addr, buf, (size_t)r);
	return r;
}

int stub_info_shlib_addr(struct stub_proc *p, uint64_t *addr)
{
	struct stub_svr4_reader rd = { stub_info_read, p };
	struct rsp_buf auxv;
	int r;

	if (!p->alive)
		return -ESRCH;
	rsp_buf_init(&auxv);
	r = stub_procfs_read(p->pid, "auxv", &auxv);
	if (r == 0)
		r = stub_svr4_debug_slot(&rd, auxv.data, auxv.len, addr);
	rsp_buf_release(&auxv);
	return r;
}

static int stub_info_svr4(struct stub_proc *p, struct rsp_buf *out)
{
	struct stub_svr4_reader rd = { stub_info_read, p };
	uint64_t slot, r_debug = 0;

	if (stub_info_shlib_addr(p, &slot) == 0 &&
	    stub_info_read(p, slot, &r_debug, sizeof(r_debug)) != (int)sizeof(r_debug))
		r_debug = 0;
	return stub_svr4_xml(&rd, r_debug, out);
}

static int stub_info_siginfo(struct stub_proc *p, struct rsp_buf *out)
{
	siginfo_t si;

	if (ptrace(PTRACE_GETSIGINFO, p->last_tid, NULL, &si) < 0)
		return -errno;
	return rsp_buf_append(out, &si, sizeof(si));
}

/* exec-file: the annex is a pid in hex, or "" for ours. */
static int stub_info_exec_file(struct stub_proc *p, const char *annex, struct rsp_buf *out)
{
	pid_t pid = p->pid;

	if (annex && *annex) {
		char *end;
		unsigned long v = strtoul(annex, &end, 16);

		if (*end || v == 0 || v > INT32_MAX)
			return -EINVAL;
		pid = (pid_t)v;
	}
	return stub_procfs_exe(pid, out);
}

int stub_info_xfer(struct stub_proc *p, enum rsp_xfer_object obj, const char *annex,
		   struct rsp_buf *out)
{
	if (!p->alive)
		return -ESRCH;
	switch (obj) {
	case RSP_XFER_AUXV: return stub_procfs_read(p->pid, "auxv", out);
	case RSP_XFER_EXEC_FILE: return stub_info_exec_file(p, annex, out);
	case RSP_XFER_LIBRARIES_SVR4: return stub_info_svr4(p, out);
	case RSP_XFER_SIGINFO: return stub_info_siginfo(p, out);
	}
	return -EOPNOTSUPP;
}

int stub_info_region_of(pid_t pid, uint64_t addr, struct rsp_region *out)
{
	struct rsp_buf maps;
	int r;

	rsp_buf_init(&maps);
	r = stub_procfs_read(pid, "maps", &maps);
	if (r == 0)
		r = stub_maps_region(rsp_buf_str(&maps), addr, out);
	rsp_buf_release(&maps);
	return r;
}

int stub_info_region(struct stub_proc *p, uint64_t addr, struct rsp_region *out)
{
	if (!p->alive)
		return -ESRCH;
	return stub_info_region_of(p->pid, addr, out);
}

int stub_info_process(struct stub_proc *p, struct rsp_process_info *out)
{
	int r;

	if (!p->alive)
		return -ESRCH;
	r = stub_procfs_status(p->pid, out);
	out->attached = p->attached;
	return r;
}

static void stub_info_thread(struct stub_proc *p, pid_t tid, struct rsp_thread_info *out)
{
	out->ptid.pid = p->pid;
	out->ptid.tid = tid;
	stub_procfs_thread(p->pid, tid, out->name, sizeof(out->name), &out->core);
}

int stub_info_threads(struct stub_proc *p, struct rsp_thread_info *out, size_t max)
{
	size_t n = 0;
	struct stub_thread *last;
	int total = 0;

	if (!p->alive)
		return 0;
	last = stub_thread_find(&p->threads, p->last_tid);
	if (last && !last->zombie && n < max)
		stub_info_thread(p, p->last_tid, &out[n++]);
	for (size_t i = 0; i < p->threads.n; i++) {
		const struct stub_thread *t = &p->threads.v[i];

		if (t->zombie)
			continue;
		total++;
		if (t != last && n < max)
			stub_info_thread(p, t->tid, &out[n++]);
	}
	return total;
}
