/*
 * protocol/rsp_vfile.h: GDB's host I/O packets (vFile:*), read-only.
 *
 * GDB reads the program, its libraries, their debug files and /proc files
 * through these when its sysroot is "target:" (the default); without them
 * it warns that the target cannot transfer files. Which files are served
 * is the target's to say (rsp_target_ops.vfile_open / vfile_readlink):
 * others get EACCES, and GDB goes on without them. With @any every file
 * the stub can read is (gdbserver's way). Only reading is served: open with write flags,
 * pwrite and unlink are refused (EACCES / empty reply).
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_VFILE_H
#define HINDSIGHT_PROTOCOL_RSP_VFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "protocol/rsp_buf.h"
#include "protocol/target.h"

#define RSP_VFILE_MAX_FDS 32

struct rsp_vfile {
	int fds[RSP_VFILE_MAX_FDS]; /* -1: free; the index is the client's fd */
	int64_t fs_pid;             /* 0: the stub's own file system */
	const struct rsp_target *target; /* says which files are served */
	bool any;                   /* ask for any file the stub can read */
};

/* @target must outlive @v. */
void rsp_vfile_init(struct rsp_vfile *v, const struct rsp_target *target, bool any);
/* Closes every file the client left open. */
void rsp_vfile_release(struct rsp_vfile *v);

/* Handles `vFile:<op>:<args>` (@args points after "vFile:", NUL-terminated,
 * writable) and appends the reply (`F<result>[,<errno>][;<data>]`, or empty
 * for an operation not served). Returns 0 or -ENOMEM. */
int rsp_vfile_handle(struct rsp_vfile *v, char *args, struct rsp_buf *reply);

#endif
