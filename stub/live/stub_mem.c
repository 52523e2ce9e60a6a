/*
 * stub/live/stub_mem.c: pread / pwrite on /proc/PID/mem.
 *
 * A failing whole-range read is retried page by page so that the caller
 * gets the readable prefix, as GDB expects from a short `m` reply.
 */
#include "stub/live/stub_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#define STUB_MEM_PAGE 4096u

int stub_mem_open(struct stub_mem *m, pid_t pid)
{
	char path[64];
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	stub_mem_close(m);
	m->fd = fd;
	return 0;
}

void stub_mem_close(struct stub_mem *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

/* One pread, clamped so that neither the offset nor the count overflow. */
static ssize_t stub_mem_pread(int fd, uint64_t addr, void *buf, size_t len)
{
	ssize_t r;

	if (addr > (uint64_t)INT64_MAX)
		return -1;
	if (len > (uint64_t)INT64_MAX - addr)
		len = (size_t)((uint64_t)INT64_MAX - addr);
	if (len > INT_MAX)
		len = INT_MAX;
	do
		r = pread(fd, buf, len, (off_t)addr);
	while (r < 0 && errno == EINTR);
	return r;
}

/* The readable prefix of [addr, addr + len), a page at a time. */
static size_t stub_mem_read_pages(int fd, uint64_t addr, uint8_t *buf, size_t len)
{
	size_t done = 0;

	while (done < len) {
		uint64_t a = addr + done;
		size_t chunk = STUB_MEM_PAGE - (size_t)(a % STUB_MEM_PAGE);
		ssize_t r;

		if (chunk > len - done)
			chunk = len - done;
		r = stub_mem_pread(fd, a, buf + done, chunk);
		if (r <= 0)
			break;
		done += (size_t)r;
		if ((size_t)r < chunk)
			break;
	}
	return done;
}

int stub_mem_read(const struct stub_mem *m, uint64_t addr, void *buf, size_t len)
{
	ssize_t r;
	size_t got;

	if (m->fd < 0)
		return -EBADF;
	if (len == 0)
		return 0;
	if (len > INT_MAX)
		len = INT_MAX;
	r = stub_mem_pread(m->fd, addr, buf, len);
	if (r > 0)
		return (int)r;
	got = stub_mem_read_pages(m->fd, addr, buf, len);
	return got ? (int)got : -EIO;
}

int stub_mem_write(const struct stub_mem *m, uint64_t addr, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	size_t done = 0;

	if (m->fd < 0)
		return -EBADF;
	if (addr > (uint64_t)INT64_MAX || len > (uint64_t)INT64_MAX - addr)
		return -EIO;
	while (done < len) {
		ssize_t r = pwrite(m->fd, p + done, len - done, (off_t)(addr + done));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}
