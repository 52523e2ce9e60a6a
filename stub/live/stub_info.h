/*
 * stub/live/stub_info.h: what the live target tells about its process.
 *
 * The read-only queries of struct rsp_target_ops that go to /proc or to
 * memory rather than to ptrace's execution control: qXfer objects (auxv,
 * exec-file, siginfo, libraries-svr4), qShlibInfoAddr, qMemoryRegionInfo,
 * qProcessInfo and the thread list.
 */
#ifndef HINDSIGHT_STUB_STUB_INFO_H
#define HINDSIGHT_STUB_STUB_INFO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/target.h"

struct stub_proc;
struct rsp_buf;

/* The whole object into @out; 0, -EOPNOTSUPP for an unknown object, -ESRCH
 * without a process, or the error of the read. */
int stub_info_xfer(struct stub_proc *p, enum rsp_xfer_object obj, const char *annex,
		   struct rsp_buf *out);
/* The address of the DT_DEBUG value slot; 0 or -ENOENT (static). */
int stub_info_shlib_addr(struct stub_proc *p, uint64_t *addr);
int stub_info_region(struct stub_proc *p, uint64_t addr, struct rsp_region *out);
/* The same for process @pid's /proc maps (a process no stub_proc holds:
 * Valgrind's, whose maps are the program's beside Valgrind's own). */
int stub_info_region_of(pid_t pid, uint64_t addr, struct rsp_region *out);
int stub_info_process(struct stub_proc *p, struct rsp_process_info *out);
/* As rsp_target_ops.threads: the last stopped thread first, an exited
 * leader (zombie) left out. */
int stub_info_threads(struct stub_proc *p, struct rsp_thread_info *out, size_t max);

#endif
