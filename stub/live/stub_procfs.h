/*
 * stub/live/stub_procfs.h: what /proc tells about a process and its threads.
 *
 * Whole files (auxv, maps), the executable path, status fields, thread
 * names and cores, zombie state and the task list. Nothing here needs the
 * process to be traced.
 */
#ifndef HINDSIGHT_STUB_STUB_PROCFS_H
#define HINDSIGHT_STUB_STUB_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/target.h"

struct rsp_buf;

/* Appends the contents of /proc/@pid/@name to @out; 0 or a negative errno. */
int stub_procfs_read(pid_t pid, const char *name, struct rsp_buf *out);
/* Appends the target of /proc/@pid/exe; 0 or a negative errno. */
int stub_procfs_exe(pid_t pid, struct rsp_buf *out);
/* pid, ppid and ids from /proc/@pid/status; 0 or a negative errno. */
int stub_procfs_status(pid_t pid, struct rsp_process_info *out);
/* Name (from comm, "" if unknown) and core (field 39 of stat, -1 if
 * unknown) of thread @tid. */
void stub_procfs_thread(pid_t pid, pid_t tid, char *name, size_t size, int *core);
/* True if @tid's state is Z (an exited leader waiting for its threads). */
bool stub_procfs_is_zombie(pid_t pid, pid_t tid);
/* The signals pending for thread @tid alone (*@thread) and for its whole
 * process (*@shared), bit N-1 for signal N. 0 or -ESRCH. */
int stub_procfs_pending(pid_t pid, pid_t tid, uint64_t *thread, uint64_t *shared);
/* The thread ids of @pid into a malloc'ed array; its length, or a
 * negative errno (-ESRCH if there is no such process). */
int stub_procfs_tids(pid_t pid, pid_t **out);
/* Field 39 ("processor") of a stat line @line, -1 if absent. */
int stub_procfs_stat_core(const char *line);

#endif
