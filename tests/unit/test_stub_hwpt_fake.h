/*
 * tests/unit/test_stub_hwpt_fake.h: the kernel's part of Intel PT, played
 * in ordinary memory for the hardware recorder's tests (this machine has
 * no intel_pt PMU). stub_hwpt_sys is pointed at fakes: perf_event_open
 * gives an eventfd (a real fd to poll and close) and remembers the attr;
 * mmap gives zeroed page-aligned memory, the control page filled as the
 * kernel fills it (data_offset / data_size, the time conversion); ioctl
 * counts enables and disables. The test then writes what the CPU and the
 * kernel would: AUX bytes at aux_head (an offset within the buffer in
 * snapshot mode, a growing counter in full mode), DATA records at
 * data_head, with the sample_id trailer TID|TIME|CPU|IDENTIFIER.
 */
#ifndef TEST_STUB_HWPT_FAKE_H
#define TEST_STUB_HWPT_FAKE_H

#include <errno.h>
#include <linux/perf_event.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stub/recorders/stub_hwpt.h"

#define FK_MAX 32
#define FK_PAGE 4096

struct fk_event {
	int fd;
	pid_t tid;
	struct perf_event_attr attr;
	struct perf_event_mmap_page *page;
	size_t base_len;
	uint8_t *aux;
	size_t aux_len;
	int aux_prot;
	uint64_t aux_pos;          /* bytes the "CPU" wrote */
	uint64_t data_pos;
	int enables, disables, unmaps;
};

static struct fk_event fk_ev[FK_MAX];
static size_t fk_n;
static int fk_open_errno;
static int fk_aux_errno;               /* the AUX mmap fails with this */
static bool fk_time_valid;
static void (*fk_on_disable)(struct fk_event *e);
static size_t fk_order[4 * FK_MAX];    /* ioctl log: event index * 2 + (disable) */
static size_t fk_norder;

static struct fk_event *fk_by_fd(int fd)
{
	for (size_t i = 0; i < fk_n; i++)
		if (fk_ev[i].fd == fd)
			return &fk_ev[i];
	return NULL;
}

static inline struct fk_event *fk_by_tid(pid_t tid)
{
	for (size_t i = fk_n; i-- > 0;)
		if (fk_ev[i].tid == tid)
			return &fk_ev[i];
	return NULL;
}

static int fk_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group,
		   unsigned long flags)
{
	struct fk_event *e;

	(void)cpu; (void)group; (void)flags;
	if (fk_open_errno) {
		errno = fk_open_errno;
		return -1;
	}
	if (fk_n == FK_MAX) {
		errno = EMFILE;
		return -1;
	}
	e = &fk_ev[fk_n++];
	memset(e, 0, sizeof(*e));
	e->fd = eventfd(0, EFD_CLOEXEC);
	e->tid = tid;
	e->attr = *attr;
	return e->fd;
}

static void *fk_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off)
{
	struct fk_event *e = fk_by_fd(fd);
	void *p;

	(void)addr; (void)flags;
	if (!e || posix_memalign(&p, FK_PAGE, len)) {
		errno = ENOMEM;
		return MAP_FAILED;
	}
	memset(p, 0, len);
	if (off == 0) {
		e->page = p;
		e->base_len = len;
		e->page->data_offset = FK_PAGE;
		e->page->data_size = len - FK_PAGE;
		e->page->cap_user_time_zero = fk_time_valid;
		e->page->time_shift = 10;
		e->page->time_mult = 2048;          /* 2 ns per TSC tick */
		e->page->time_zero = 1000;
		return p;
	}
	if ((uint64_t)off != e->page->aux_offset || len != e->page->aux_size || fk_aux_errno) {
		free(p);
		errno = fk_aux_errno ? fk_aux_errno : EINVAL;
		return MAP_FAILED;
	}
	e->aux = p;
	e->aux_len = len;
	e->aux_prot = prot;
	return p;
}

static int fk_munmap(void *addr, size_t len)
{
	(void)len;
	for (size_t i = 0; i < fk_n; i++) {
		if (fk_ev[i].aux == addr || (void *)fk_ev[i].page == addr) {
			fk_ev[i].unmaps++;
			free(addr);
			if (fk_ev[i].aux == addr)
				fk_ev[i].aux = NULL;
			else
				fk_ev[i].page = NULL;
			return 0;
		}
	}
	errno = EINVAL;
	return -1;
}

static int fk_ioctl(int fd, unsigned long req, unsigned long arg)
{
	struct fk_event *e = fk_by_fd(fd);

	(void)arg;
	if (!e) {
		errno = EBADF;
		return -1;
	}
	if (fk_norder < sizeof(fk_order) / sizeof(fk_order[0]))
		fk_order[fk_norder++] = (size_t)(e - fk_ev) * 2 + (req == PERF_EVENT_IOC_DISABLE);
	if (req == PERF_EVENT_IOC_ENABLE)
		e->enables++;
	if (req == PERF_EVENT_IOC_DISABLE) {
		e->disables++;
		if (fk_on_disable)
			fk_on_disable(e);
	}
	return 0;
}

static inline void fk_install(void)
{
	stub_hwpt_sys.perf_event_open = fk_open;
	stub_hwpt_sys.mmap = fk_mmap;
	stub_hwpt_sys.munmap = fk_munmap;
	stub_hwpt_sys.ioctl = fk_ioctl;
	fk_n = 0;
	fk_norder = 0;
	fk_open_errno = 0;
	fk_aux_errno = 0;
	fk_time_valid = false;
	fk_on_disable = NULL;
}

/* The CPU writes @n bytes of trace; the kernel publishes the head. */
static inline void fk_aux_write(struct fk_event *e, const void *bytes, size_t n)
{
	bool full = e->aux_prot & PROT_WRITE;

	for (size_t i = 0; i < n; i++)
		e->aux[(e->aux_pos + i) % e->aux_len] = ((const uint8_t *)bytes)[i];
	e->aux_pos += n;
	__atomic_store_n(&e->page->aux_head, full ? e->aux_pos : e->aux_pos % e->aux_len,
			 __ATOMIC_RELEASE);
}

/* The kernel writes one DATA record. */
static inline void fk_data_write(struct fk_event *e, const void *rec, size_t n)
{
	uint8_t *data = (uint8_t *)e->page + e->page->data_offset;

	for (size_t i = 0; i < n; i++)
		data[(e->data_pos + i) % e->page->data_size] = ((const uint8_t *)rec)[i];
	e->data_pos += n;
	__atomic_store_n(&e->page->data_head, e->data_pos, __ATOMIC_RELEASE);
}

/* ---- sideband records as the kernel writes them ---- */

struct fk_rec {
	uint8_t b[512];
	size_t n;
};

static inline void fk_put(struct fk_rec *r, const void *p, size_t n)
{
	memcpy(r->b + r->n, p, n);
	r->n += n;
}

static inline void fk_put32(struct fk_rec *r, uint32_t v) { fk_put(r, &v, 4); }
static inline void fk_put64(struct fk_rec *r, uint64_t v) { fk_put(r, &v, 8); }

static inline void fk_begin(struct fk_rec *r, uint32_t type, uint16_t misc)
{
	r->n = 0;
	fk_put32(r, type);
	fk_put(r, &misc, 2);
	fk_put(r, &(uint16_t){ 0 }, 2);
}

/* The trailer (pid, tid, time, cpu, id) and the size. */
static inline void fk_end(struct fk_rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	uint16_t size;

	fk_put32(r, pid);
	fk_put32(r, tid);
	fk_put64(r, time);
	fk_put32(r, 1);
	fk_put32(r, 0);
	fk_put64(r, 42);
	size = (uint16_t)r->n;
	memcpy(r->b + 6, &size, 2);
}

static inline void fk_mmap2(struct fk_rec *r, uint32_t pid, uint32_t tid, uint64_t addr,
			    uint64_t len, const char *name, uint64_t time)
{
	size_t nlen = (strlen(name) + 8) & ~(size_t)7;
	char pad[128] = { 0 };

	fk_begin(r, PERF_RECORD_MMAP2, PERF_RECORD_MISC_USER);
	fk_put32(r, pid);
	fk_put32(r, tid);
	fk_put64(r, addr);
	fk_put64(r, len);
	fk_put64(r, 0);
	fk_put32(r, 8);
	fk_put32(r, 1);
	fk_put64(r, 1234);
	fk_put64(r, 0);
	fk_put32(r, PROT_READ | PROT_EXEC);
	fk_put32(r, MAP_PRIVATE);
	memcpy(pad, name, strlen(name));
	fk_put(r, pad, nlen);
	fk_end(r, pid, tid, time);
}

static inline void fk_aux(struct fk_rec *r, uint32_t pid, uint32_t tid, uint64_t off,
			  uint64_t size, uint64_t flags, uint64_t time)
{
	fk_begin(r, PERF_RECORD_AUX, 0);
	fk_put64(r, off);
	fk_put64(r, size);
	fk_put64(r, flags);
	fk_end(r, pid, tid, time);
}

static inline void fk_exit(struct fk_rec *r, uint32_t pid, uint32_t tid, uint64_t time)
{
	fk_begin(r, PERF_RECORD_EXIT, 0);
	fk_put32(r, pid);
	fk_put32(r, pid);
	fk_put32(r, tid);
	fk_put32(r, tid);
	fk_put64(r, time);
	fk_end(r, pid, tid, time);
}

/* A PSB packet (02 82 x 8). */
static const uint8_t fk_psb[16] = { 2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82,
				    2, 0x82, 2, 0x82, 2, 0x82, 2, 0x82 };

/* @path's contents into @buf (at most @size); the length, or -1. */
static inline ssize_t fk_slurp(const char *path, uint8_t *buf, size_t size)
{
	FILE *f = fopen(path, "rb");
	size_t n;

	if (!f)
		return -1;
	n = fread(buf, 1, size, f);
	fclose(f);
	return (ssize_t)n;
}

/* A sysfs tree of an intel_pt PMU (type 8, Broadwell-like formats) under
 * @root/intel_pt. */
static inline void fk_sysfs(const char *root)
{
	static const char *files[][2] = {
		{ "type", "8\n" }, { "format/pt", "config:0\n" }, { "format/tsc", "config:10\n" },
		{ "format/branch", "config:13\n" }, { "format/noretcomp", "config:11\n" },
	};
	char path[512];

	snprintf(path, sizeof(path), "%s/intel_pt", root);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/intel_pt/format", root);
	mkdir(path, 0755);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		FILE *f;

		snprintf(path, sizeof(path), "%s/intel_pt/%s", root, files[i][0]);
		f = fopen(path, "w");
		if (f) {
			fputs(files[i][1], f);
			fclose(f);
		}
	}
}

#endif
