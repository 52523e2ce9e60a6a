/*
 * stub/recorders/stub_hwpt.h: the hardware Intel PT recorder.
 *
 * One perf event of the intel_pt PMU per thread of the traced process
 * (user space only: exclude_kernel, exclude_hv), each with its own DATA
 * ring (sideband: MMAP2, COMM, ITRACE_START, AUX, LOST, FORK / EXIT) and
 * AUX ring (the PT packets). Two modes:
 *   - snapshot (setup.full false, like GDB's btrace): the AUX ring is
 *     mapped read-only, so the kernel overwrites the oldest trace and
 *     keeps the newest `aux_size` bytes per thread; stub_hwpt_snapshot
 *     writes that window to the bundle's threads/TID.pt when asked, and
 *     stub_hwpt_remove_thread at the end.
 *   - full: the AUX ring is mapped writable and drained into
 *     threads/TID.pt by stub_hwpt_poll; if the reader falls behind the
 *     kernel stops tracing until there is room, and its AUX record with
 *     the truncated flag becomes a "truncated" gap.
 * The DATA ring is drained in both modes into the bundle's mappings and
 * gaps (stub/recorders/stub_hwpt_sideband.h), with times converted to TSC.
 *
 * The caller (the process controller, which sees ptrace's clone / exec /
 * exit events: stub/recorders/stub_hwpt_rec.c) drives it: stub_hwpt_open once,
 * stub_hwpt_add_thread for the first thread at its exec stop and for
 * every new thread before it first runs, stub_hwpt_poll from its event
 * loop (the fds from stub_hwpt_fds become readable at the watermarks),
 * stub_hwpt_snapshot at a stop where the window is wanted,
 * stub_hwpt_remove_thread when a thread exits, stub_hwpt_close at the
 * end. Errors are negative errnos with one line in @why; nothing here
 * prints.
 *
 * The system calls go through struct stub_hwpt_sys so tests can make them
 * fail, or play the kernel's part with rings in ordinary memory; this
 * machine has no intel_pt PMU, so no real event has been opened here
 * (docs/hardware-pt.md).
 */
#ifndef HINDSIGHT_STUB_HWPT_H
#define HINDSIGHT_STUB_HWPT_H

#include <linux/perf_event.h>
#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_hwpt_caps.h"

#define STUB_HWPT_SNAPSHOT_DEFAULT (4u << 20)   /* bytes of AUX per thread */
#define STUB_HWPT_DATA_PAGES 64                  /* DATA ring pages (power of two) */

struct stub_hwpt_setup {
	const char *sysfs_root;    /* NULL: STUB_HWPT_SYSFS_DEVICES */
	struct stub_hwpt_opts opts;
	bool full;                 /* --full; else snapshot */
	uint64_t aux_size;         /* per thread; rounded up to a power-of-two of pages; 0: default */
	const char *dir;           /* the bundle directory (threads/ is created) */
	int64_t pid;               /* the traced process */
	const char *vdso_file;     /* NULL, or the bundle's copy of the vDSO: MMAP2 "[vdso]"
				    * records map it (borrowed) */
};

/* The system calls, replaceable by tests. */
struct stub_hwpt_sys {
	int (*perf_event_open)(struct perf_event_attr *attr, pid_t tid, int cpu, int group,
			       unsigned long flags);
	void *(*mmap)(void *addr, size_t len, int prot, int flags, int fd, off_t off);
	int (*munmap)(void *addr, size_t len);
	int (*ioctl)(int fd, unsigned long req, unsigned long arg);
};
extern struct stub_hwpt_sys stub_hwpt_sys;

struct stub_hwpt;

/* Reads the PMU and the CPU, chooses the config, fills @b's cpu / timing /
 * options (recorder "hardware"). @b must outlive the recorder. 0 or
 * -ENOENT (no intel_pt PMU: @why is the --record=auto line), -EINVAL /
 * -ENOTSUP (options), -ENOMEM. */
int stub_hwpt_open(const struct stub_hwpt_setup *s, struct replay_bundle *b,
		   struct stub_hwpt **out, char *why, size_t whysize);

/* Starts tracing thread @tid (stopped): perf_event_open, the DATA and AUX
 * mmaps, PERF_EVENT_IOC_ENABLE, threads/TID.pt and the bundle's thread.
 * 0 or a negative errno with a line from stub_hwpt_open_error or the
 * mmap's reason. */
int stub_hwpt_add_thread(struct stub_hwpt *h, pid_t tid, char *why, size_t whysize);

/* Full mode: appends every thread's new AUX data to its file, releases it
 * and re-enables the event (the kernel stops a thread's trace while its
 * ring is full; perf re-enables after each read too). Both modes: every
 * thread's DATA records into the bundle, in time order. 0 or a negative
 * errno (a write error of a PT file, -ENOMEM). */
int stub_hwpt_poll(struct stub_hwpt *h);

/* Snapshot mode: writes each thread's current window to its file (the
 * threads are stopped), disabling the event meanwhile. Full mode:
 * stub_hwpt_poll. 0 or a negative errno. */
int stub_hwpt_snapshot(struct stub_hwpt *h);

/* Stops tracing @tid: disables its event (which makes the kernel publish
 * the last aux_head), takes the last AUX data (full: drained; snapshot:
 * the window, and a "lost" gap if older trace was overwritten) and DATA
 * records, then unmaps and closes. 0 or the error of the last read (the
 * thread is removed anyway), -ESRCH if not traced. */
int stub_hwpt_remove_thread(struct stub_hwpt *h, pid_t tid);

/* stub_hwpt_remove_thread for every thread; the first error. */
int stub_hwpt_remove_all(struct stub_hwpt *h);

/* Up to @n pollfds (POLLIN) of the traced threads' events that have not
 * hung up; the count. */
size_t stub_hwpt_fds(const struct stub_hwpt *h, struct pollfd *fds, size_t n);

/* The event @fd reported POLLHUP or POLLERR (its task is gone, its rings
 * stay readable): it is left out of stub_hwpt_fds from now on. */
void stub_hwpt_hangup(struct stub_hwpt *h, int fd);

/* Bytes of PT written to the threads' files so far. */
uint64_t stub_hwpt_trace_bytes(const struct stub_hwpt *h);

/* The present in the recording's clock: the TSC when sideband times are
 * converted to TSC, else the latest sideband time. */
uint64_t stub_hwpt_now(const struct stub_hwpt *h);

/* Removes every thread and frees @h (NULL is fine). */
void stub_hwpt_close(struct stub_hwpt *h);

/* The one-line message for perf_event_open's @err (a positive errno) on
 * thread @tid. */
void stub_hwpt_open_error(int err, pid_t tid, uint64_t config, char *why, size_t whysize);

/* The perf_event_attr the recorder opens for @config on PMU @type. */
void stub_hwpt_attr(uint32_t type, uint64_t config, bool full, uint32_t aux_watermark,
		    struct perf_event_attr *attr);

#endif
