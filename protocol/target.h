/*
 * protocol/target.h: the interface the RSP server drives.
 *
 * The server (protocol/rsp_server.c) knows nothing of ptrace, PT or DWARF: it
 * turns packets into calls on a struct rsp_target, an operations table plus an
 * opaque context. stub/ implements it for a live process; replay/ will
 * implement it for a recording. Every operation returns >= 0 on success and a
 * negative errno on failure; the server alone turns those into E replies.
 *
 * Conventions:
 * - Thread ids are Linux ids (pid = tgid, tid = the thread's id). In requests
 *   the server has already resolved "any" (0) and "all" (-1) to real threads,
 *   except where a field says otherwise.
 * - Signal numbers are host (Linux) numbers; protocol/rsp_signals.c converts
 *   to and from GDB's numbering at the wire.
 * - -EOPNOTSUPP from an optional operation means "not supported": the client
 *   gets the empty reply, as for an unknown packet. A NULL operation means
 *   the same.
 */
#ifndef HINDSIGHT_PROTOCOL_TARGET_H
#define HINDSIGHT_PROTOCOL_TARGET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/rsp_regs.h"

struct rsp_buf;

/* Host signals are 1 .. RSP_NSIG - 1 (Linux: 64 of them). */
#define RSP_NSIG 65

/* A thread: process id and thread id. -1 is "all", 0 is "any". */
struct rsp_ptid {
	int64_t pid;
	int64_t tid;
};

enum rsp_resume_kind {
	RSP_RESUME_STOP,           /* leave (or keep) the thread stopped */
	RSP_RESUME_CONTINUE,
	RSP_RESUME_STEP,           /* one instruction */
	RSP_RESUME_RANGE,          /* step while range_start <= pc < range_end */
	RSP_RESUME_REVERSE_STEP,   /* bs: replay targets only */
	RSP_RESUME_REVERSE_CONTINUE, /* bc: replay targets only */
};

/* What one thread does on resume; the server passes one per thread. */
struct rsp_resume {
	struct rsp_ptid thread;
	enum rsp_resume_kind kind;
	int signo;                 /* host signal to deliver, 0 for none */
	uint64_t range_start;
	uint64_t range_end;
};

enum rsp_stop_kind {
	RSP_STOP_SIGNAL,           /* a thread stopped: signo, reason */
	RSP_STOP_EXITED,           /* the process exited: status */
	RSP_STOP_TERMINATED,       /* the process was killed by signo */
	RSP_STOP_NO_RESUMED,       /* nothing left running that could stop */
};

enum rsp_stop_reason {
	RSP_REASON_NONE,
	RSP_REASON_SWBREAK,        /* pc is already the breakpoint address */
	RSP_REASON_HWBREAK,
	RSP_REASON_WATCH,          /* watch_addr says where */
	RSP_REASON_RWATCH,
	RSP_REASON_AWATCH,
	RSP_REASON_STEP,           /* a single step or range step ended */
	RSP_REASON_REPLAY_BEGIN,   /* reverse execution ran out of history */
	RSP_REASON_REPLAY_END,
};

struct rsp_stop {
	enum rsp_stop_kind kind;
	struct rsp_ptid thread;    /* for EXITED / TERMINATED: tid == pid */
	int signo;                 /* host signal (SIGTRAP for breaks / steps) */
	int status;                /* exit status for EXITED */
	enum rsp_stop_reason reason;
	uint64_t watch_addr;
	const char *message;       /* for the debugger's console, sent before the
				    * stop reply (NULL: none) */
};

enum rsp_point_type {
	RSP_POINT_SW_BREAK = 0,    /* Z0 */
	RSP_POINT_HW_BREAK = 1,    /* Z1 */
	RSP_POINT_WRITE_WATCH = 2, /* Z2 */
	RSP_POINT_READ_WATCH = 3,  /* Z3 */
	RSP_POINT_ACCESS_WATCH = 4,/* Z4 */
};

/* Objects served through qXfer:<object>:read (features is the server's). */
enum rsp_xfer_object {
	RSP_XFER_AUXV,
	RSP_XFER_EXEC_FILE,
	RSP_XFER_LIBRARIES_SVR4,
	RSP_XFER_SIGINFO,
};

struct rsp_thread_info {
	struct rsp_ptid ptid;
	char name[32];             /* "" when unknown */
	int core;                  /* -1 when unknown */
};

struct rsp_process_info {
	int64_t pid;
	int64_t ppid;
	uint32_t uid, gid, euid, egid;
	bool attached;             /* true: attached to it; false: we created it */
};

/* A memory region for LLDB's qMemoryRegionInfo. */
struct rsp_region {
	uint64_t start;
	uint64_t size;
	bool mapped;               /* false: a hole; start / size give its extent */
	bool read, write, exec;
	char name[256];            /* backing file, "" for anonymous */
};

/* Capabilities that change what the server announces. */
enum rsp_target_feature {
	RSP_TARGET_AVX = 1u << 0,  /* ymm upper halves exist: tdesc has i386.avx */
	RSP_TARGET_REVERSE = 1u << 1, /* bs / bc are served */
	RSP_TARGET_BTRACE_PT = 1u << 2,  /* GDB's record btrace pt */
	RSP_TARGET_BTRACE_BTS = 1u << 3, /* GDB's record btrace bts */
	/* qXfer objects xfer_read serves (exec-file is always asked for). */
	RSP_TARGET_XFER_AUXV = 1u << 4,
	RSP_TARGET_XFER_LIBRARIES = 1u << 5, /* libraries-svr4 */
	RSP_TARGET_XFER_SIGINFO = 1u << 6,
	RSP_TARGET_XFER_EXEC_FILE = 1u << 7,
};

/* Branch trace for GDB's `record btrace` (Qbtrace, qXfer:btrace). */
enum rsp_btrace_format {
	RSP_BTRACE_BTS,            /* blocks of sequential instructions */
	RSP_BTRACE_PT,             /* an Intel PT stream */
};

enum rsp_btrace_read {
	RSP_BTRACE_READ_ALL,       /* everything there is */
	RSP_BTRACE_READ_NEW,       /* everything, if it changed since the last read */
	RSP_BTRACE_READ_DELTA,     /* only what was added (BTS only) */
};

/* A run of sequential instructions, `begin` to `end` inclusive (the
 * address of the last one). */
struct rsp_btrace_block {
	uint64_t begin, end;
};

/* What btrace_read fills: PT bytes (oldest first, starting at a PSB) and
 * the CPU they were recorded on, or BTS blocks (newest first; the newest
 * ends at the thread's pc). */
struct rsp_btrace_data {
	enum rsp_btrace_format format;
	struct rsp_buf *raw;       /* PT: append the stream here */
	struct rsp_btrace_block *blocks; /* BTS: set by the target, freed by */
	size_t nblocks;            /* the server with free() */
	char cpu_vendor[16];       /* PT: "" when not an Intel CPU */
	unsigned cpu_family, cpu_model, cpu_stepping;
};

struct rsp_target_ops {
	/* RSP_TARGET_* bits. */
	unsigned (*features)(void *ctx);

	/* Fills @out with up to @max threads; returns the total number of
	 * threads (which may exceed @max: call again with more room), 0 when
	 * there is no process. */
	int (*threads)(void *ctx, struct rsp_thread_info *out, size_t max);
	/* 0 if alive, -ESRCH if not. */
	int (*thread_alive)(void *ctx, struct rsp_ptid thread);

	/* All registers of @thread in GDB's order (protocol/rsp_regs.h), with
	 * avail[] set for each register whose value is known. */
	int (*read_regs)(void *ctx, struct rsp_ptid thread, struct rsp_regs *out);
	/* Writes every register whose avail[] is set. */
	int (*write_regs)(void *ctx, struct rsp_ptid thread, const struct rsp_regs *in);

	/* Returns the number of bytes read from @addr (at least 1; fewer than
	 * @len when the range runs into unreadable memory) or -EIO / -EFAULT
	 * when nothing at @addr is readable. Inserted breakpoints are hidden:
	 * the original bytes come back. */
	int (*read_mem)(void *ctx, uint64_t addr, void *buf, size_t len);
	/* 0 or a negative errno; writes over breakpoints update their shadow. */
	int (*write_mem)(void *ctx, uint64_t addr, const void *buf, size_t len);

	/* Z / z: 0, -EOPNOTSUPP (type not supported), -ENOSPC (no debug
	 * register left), or another negative errno. Idempotent. */
	int (*insert_point)(void *ctx, enum rsp_point_type type, uint64_t addr, int kind);
	int (*remove_point)(void *ctx, enum rsp_point_type type, uint64_t addr, int kind);

	/* Resumes the threads named in @actions (one entry per thread; threads
	 * not named stay stopped). Returns 0 or a negative errno. */
	int (*resume)(void *ctx, const struct rsp_resume *actions, size_t n);
	/* An fd that becomes readable when wait() may have something, while
	 * resumed; -1 if wait(block = true) must be called instead. */
	int (*event_fd)(void *ctx);
	/* After resume(): 1 and @out filled when the resume ended (all threads
	 * are stopped again, all-stop), 0 if nothing yet (block = false only;
	 * @out->message, if set, is said on the debugger's console now, the
	 * target still running), or a negative errno. */
	int (*wait)(void *ctx, struct rsp_stop *out, bool block);
	/* Ctrl-C: make the running process stop; wait() reports the stop. */
	int (*interrupt)(void *ctx);

	/* Kill or detach the process; 0 or a negative errno. */
	int (*kill)(void *ctx);
	int (*detach)(void *ctx);

	/* The whole object into @out (the server slices offset / length).
	 * @annex is "" when the packet had none. */
	int (*xfer_read)(void *ctx, enum rsp_xfer_object obj, const char *annex,
			 struct rsp_buf *out);

	int (*process_info)(void *ctx, struct rsp_process_info *out);
	/* LLDB's qShlibInfoAddr: the address of the DT_DEBUG value slot. */
	int (*shlib_info_addr)(void *ctx, uint64_t *addr);
	int (*memory_region)(void *ctx, uint64_t addr, struct rsp_region *out);

	/* Signals (host numbers) to deliver without stopping: pass[sig] != 0. */
	int (*set_pass_signals)(void *ctx, const uint8_t pass[RSP_NSIG]);

	/* Branch tracing of one thread, for GDB's `record btrace` (optional;
	 * announced through RSP_TARGET_BTRACE_*). enable: 0, -EALREADY,
	 * -EOPNOTSUPP (format), -ESRCH. disable / conf: -ENOENT when the thread
	 * is not traced. read: 0 and @out filled, 1 when kind is NEW and nothing
	 * changed since the last read, -ENOENT when not traced, -EOPNOTSUPP
	 * for DELTA with PT. */
	int (*btrace_enable)(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format format,
			     uint64_t size);
	int (*btrace_disable)(void *ctx, struct rsp_ptid thread);
	int (*btrace_conf)(void *ctx, struct rsp_ptid thread, enum rsp_btrace_format *format,
			   uint64_t *size);
	int (*btrace_read)(void *ctx, struct rsp_ptid thread, enum rsp_btrace_read kind,
			   struct rsp_btrace_data *out);

	/* Host I/O (vFile:open / vFile:readlink): the files this target lets
	 * a debugger read, the program, its libraries and their debug files;
	 * with @any (serve --vfile-any) any file the stub can read (optional:
	 * without it no file is served). @fs_pid is the client's vFile:setfs
	 * (0: the stub's own file system), @path the file as the client names
	 * it. vfile_open: a descriptor open for reading, which the server
	 * closes; -EACCES for a file the target does not serve, or the error
	 * of opening one it serves (-ENOENT: not there). vfile_readlink: the
	 * length of the link's text in @buf (no NUL), -EACCES, or the error
	 * of readlink. */
	int (*vfile_open)(void *ctx, int64_t fs_pid, const char *path, bool any);
	int (*vfile_readlink)(void *ctx, int64_t fs_pid, const char *path, bool any, char *buf,
			      size_t size);

	/* A monitor command the server does not know itself. Appends the text
	 * to print to @out; -ENOENT if the command is unknown. */
	int (*monitor)(void *ctx, const char *cmd, struct rsp_buf *out);
};

struct rsp_target {
	const struct rsp_target_ops *ops;
	void *ctx;
};

#endif
