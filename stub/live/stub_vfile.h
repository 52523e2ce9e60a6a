/*
 * stub/live/stub_vfile.h: the files of a live process a debugger may read
 * through the stub (vFile; rsp_target_ops.vfile_open / vfile_readlink).
 *
 * The files mapped in the process now (/proc/PID/maps: the program, ld.so,
 * the libraries), each only while it is the file with the device and inode
 * the kernel gives there, under any name whose real path is theirs (the
 * program's PT_INTERP, the library names of link_map), and their separate
 * debug files (dwarf/dw_served.h), the vDSO's too (by the build-id of its
 * image in memory); the process's /proc files GDB reads
 * (maps, smaps, cmdline, stat, status, coredump_filter, task/PID/maps, the
 * exe and cwd links). Names are seen in the process's file system
 * (/proc/PID/root). Nothing else: other files get -EACCES. With @any,
 * any file, in the file system of the process @fs_pid (0: the stub's).
 */
#ifndef HINDSIGHT_STUB_STUB_VFILE_H
#define HINDSIGHT_STUB_STUB_VFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* As rsp_target_ops.vfile_open for the process @pid: a descriptor,
 * -EACCES, the error of the open, -ENOMEM. Without @any, @fs_pid must be
 * 0 or @pid. */
int stub_vfile_open(pid_t pid, int64_t fs_pid, const char *path, bool any);
/* As rsp_target_ops.vfile_readlink. */
int stub_vfile_readlink(pid_t pid, int64_t fs_pid, const char *path, bool any, char *buf,
			size_t size);

#endif
