/*
 * stub/live/stub_mem.h: raw memory of a traced process through /proc/PID/mem.
 *
 * One fd opened read-write (the tracer may write read-only text pages
 * through it). An exec gives the process a new address space: reopen.
 * Breakpoint shadowing is not done here (stub/live/stub_break.h).
 */
#ifndef HINDSIGHT_STUB_STUB_MEM_H
#define HINDSIGHT_STUB_STUB_MEM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct stub_mem {
	int fd; /* -1 when closed */
};

/* Opens /proc/@pid/mem; 0 or a negative errno. Closes what was open. */
int stub_mem_open(struct stub_mem *m, pid_t pid);
void stub_mem_close(struct stub_mem *m);
/* Bytes read (>= 1; fewer than @len when the range runs into unreadable
 * memory) or -EIO when @addr itself is unreadable, -EBADF when closed. */
int stub_mem_read(const struct stub_mem *m, uint64_t addr, void *buf, size_t len);
/* 0, -EIO when not all of it could be written, -EBADF when closed. */
int stub_mem_write(const struct stub_mem *m, uint64_t addr, const void *buf, size_t len);

#endif
