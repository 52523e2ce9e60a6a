/*
 * stub/recorders/stub_hwpt_rec.h: the hardware recorder's loop: a process run at
 * full speed under ptrace while the CPU's Intel PT records every thread.
 *
 * The process is stopped when handed over (stub_rec_spawn: at its exec,
 * before ld.so; stub_rec_attach: every thread). stub_hwpt_rec_new opens
 * an intel_pt event per thread (stub/recorders/stub_hwpt.h), takes the executable
 * mappings of /proc/PID/maps as the mappings "from the start" (time 0; the
 * vDSO copied into the bundle, which later "[vdso]" MMAP2 records map) and
 * saves a first bundle. stub_hwpt_rec_run resumes every thread with
 * PTRACE_CONT and then waits in poll(2) on a signalfd of SIGCHLD, the
 * events' fds (readable at their watermarks) and a timer; after each wake
 * it collects the ptrace reports (decided by stub/recorders/stub_hwpt_plan.h: new
 * threads traced before they run, signals passed on, fork children
 * detached), drains the rings (full mode: the AUX data to threads/TID.pt;
 * both: the DATA records into mappings and gaps) and saves the manifest
 * when it changed. It ends when the process does, or at stub_hwpt_rec_stop
 * (an attached process is detached and runs on; a spawned one is
 * killed); each thread's last trace is taken as its thread ends (snapshot
 * mode: the newest aux_size bytes of it), and the final bundle is saved
 * with `complete` set.
 *
 * Every system call of the loop goes through struct stub_hwpt_rec_sys, and
 * those of the perf events through stub_hwpt_sys, so tests run the loop on
 * scripted waitpid reports and rings in ordinary memory
 * (tests/unit/test_stub_hwpt_rec.c). Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_HWPT_REC_H
#define HINDSIGHT_STUB_HWPT_REC_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "stub/recorders/stub_hwpt_caps.h"

struct replay_bundle;
struct stub_hwpt_rec;

#define STUB_HWPT_REC_POLL_MS 100  /* the drain timer */

struct stub_hwpt_rec_options {
	const char *dir;           /* the bundle directory; created */
	bool full;                 /* drain everything; else snapshot mode */
	uint64_t aux_size;         /* AUX bytes per thread; 0: STUB_HWPT_SNAPSHOT_DEFAULT */
	struct stub_hwpt_opts opts;
	const char *sysfs_root;    /* NULL: STUB_HWPT_SYSFS_DEVICES */
	int poll_ms;               /* 0: STUB_HWPT_REC_POLL_MS */
};

struct stub_hwpt_rec_summary {
	size_t threads;
	size_t gaps;
	uint64_t trace_bytes;
};

/* The loop's system calls, replaceable by tests. */
struct stub_hwpt_rec_sys {
	pid_t (*waitpid)(pid_t pid, int *status, int options);
	long (*ptrace)(int req, pid_t tid, void *addr, void *data);
	int (*tgkill)(pid_t pid, pid_t tid, int sig);
	int (*kill)(pid_t pid, int sig);
	int (*poll)(struct pollfd *fds, nfds_t n, int timeout);
	bool (*is_thread_of)(pid_t pid, pid_t tid);   /* Tgid of /proc/TID/status */
	int (*tids)(pid_t pid, pid_t **out);           /* stub_procfs_tids */
};
extern struct stub_hwpt_rec_sys stub_hwpt_rec_sys;

/* A recorder of stopped process @pid into @o->dir (@argv: the command for
 * the bundle, or NULL). 0, or a negative errno with one line in @why:
 * -ENOENT (no intel_pt PMU), the errors of stub_hwpt_open /
 * stub_hwpt_add_thread (perf_event_open refused, mmap over the locked
 * memory limit), or of the directory. Nothing has been resumed; on
 * failure the process is still stopped and can be recorded otherwise
 * (after stub_hwpt_rec_free). */
int stub_hwpt_rec_new(struct stub_hwpt_rec **out, const struct stub_hwpt_rec_options *o,
		      pid_t pid, char *const argv[], bool attached, char *why, size_t whysize);

/* Runs the process to its end or to stub_hwpt_rec_stop and saves the
 * final bundle. 0, or a negative errno with a line in @why (the bundle is
 * saved as far as it goes, incomplete). */
int stub_hwpt_rec_run(struct stub_hwpt_rec *r, char *why, size_t whysize);

/* Asks stub_hwpt_rec_run to end; async-signal-safe. */
void stub_hwpt_rec_stop(struct stub_hwpt_rec *r);

const struct replay_bundle *stub_hwpt_rec_bundle(const struct stub_hwpt_rec *r);
void stub_hwpt_rec_get_summary(const struct stub_hwpt_rec *r, struct stub_hwpt_rec_summary *s);

/* Closes the events and frees @r (NULL is fine). */
void stub_hwpt_rec_free(struct stub_hwpt_rec *r);

#endif
