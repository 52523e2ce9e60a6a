/*
 * stub/live/stub_spawn.h: starting a program under ptrace.
 *
 * fork; the child asks to be traced, unblocks every signal and execs; an
 * exec failure comes back to the parent as an errno through a close-on-exec
 * pipe. The program is searched in PATH like execvp does (but without
 * execvp's fallback to /bin/sh for files that are not executables).
 */
#ifndef HINDSIGHT_STUB_STUB_SPAWN_H
#define HINDSIGHT_STUB_STUB_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

/* The path to exec for @file into @out: @file itself if it has a slash,
 * else the first executable in @path (colon-separated; NULL: the default
 * PATH). 0, -ENOENT, -EACCES (found but not executable), -ENAMETOOLONG. */
int stub_spawn_resolve(const char *file, const char *path, char *out, size_t size);
/* Starts @argv and waits for its exec stop (SIGTRAP, before ld.so runs).
 * 0 and *@pid, or the negative errno of execve (-ENOENT, -EACCES, -ENOEXEC,
 * ...) or of fork / pipe / waitpid. */
int stub_spawn_start(char *const argv[], pid_t *pid);

#endif
