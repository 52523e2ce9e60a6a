/*
 * stub/recorders/stub_hwpt.c: the hardware Intel PT recorder (stub/recorders/stub_hwpt.h).
 *
 * Per thread: a perf event fd, its mmap (control page + DATA ring), the
 * AUX mmap at aux_offset, and the thread's PT file. The kernel ABI is
 * handled as <linux/perf_event.h> documents it: aux_offset / aux_size are
 * written into the control page before the AUX mmap, both rings are
 * power-of-two pages, the heads are read with acquire and the tails
 * written with release ordering (stub/recorders/stub_hwpt_ring.c).
 */
#include "stub/recorders/stub_hwpt.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_hwpt_ring.h"
#include "stub/recorders/stub_hwpt_sideband.h"

static int sys_perf_event_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group,
			       unsigned long flags)
{
	return (int)syscall(SYS_perf_event_open, attr, tid, cpu, group, flags);
}

static int sys_ioctl(int fd, unsigned long req, unsigned long arg)
{
	return ioctl(fd, req, arg);
}

struct stub_hwpt_sys stub_hwpt_sys = { sys_perf_event_open, mmap, munmap, sys_ioctl };

struct hwpt_thread {
	pid_t tid;
	int fd, out;               /* the event; threads/TID.pt */
	struct perf_event_mmap_page *page;
	size_t base_len;           /* control page + DATA */
	void *aux;
	struct stub_hwpt_ring data_ring, aux_ring;
	bool hup;                  /* its task is gone: not polled */
	uint64_t bytes;            /* in its file */
};

struct stub_hwpt {
	struct stub_hwpt_setup setup;
	struct replay_bundle *b;
	struct stub_hwpt_caps caps;
	struct stub_hwpt_cpu cpu;
	uint64_t config;
	size_t page;
	uint8_t *buf;              /* aux_size bytes for copies */
	struct hwpt_thread *threads;
	size_t nthreads;
	struct stub_hwpt_sideband sideband;   /* every thread's DATA, one time order */
	struct stub_hwpt_batch batch;
	bool have_tconv;           /* sideband's conversion taken from a control page */
	uint64_t bytes_done;       /* of removed threads */
};

void stub_hwpt_attr(uint32_t type, uint64_t config, bool full, uint32_t aux_watermark,
		    struct perf_event_attr *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->size = sizeof(*attr);
	attr->type = type;
	attr->config = config;
	attr->disabled = 1;                 /* enabled once the rings are mapped */
	attr->exclude_kernel = 1;
	attr->exclude_hv = 1;
	attr->sample_id_all = 1;
	attr->sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
			    PERF_SAMPLE_IDENTIFIER;
	attr->mmap = 1;
	attr->mmap2 = 1;
	attr->comm = 1;
	attr->comm_exec = 1;
	attr->task = 1;
	attr->watermark = 1;
	attr->wakeup_watermark = 4096;
	attr->aux_watermark = full ? aux_watermark : 0;
}

void stub_hwpt_open_error(int err, pid_t tid, uint64_t config, char *why, size_t whysize)
{
	const char *what;

	switch (err) {
	case ENOENT:
	case ENODEV:
		what = "this kernel has no intel_pt PMU of that type";
		break;
	case EOPNOTSUPP:
		what = "this kernel or CPU cannot trace this way (an option the PMU does "
		       "not support)";
		break;
	case EACCES:
	case EPERM:
		what = "permission denied: set /proc/sys/kernel/perf_event_paranoid to 1 "
		       "or less, or run with CAP_PERFMON";
		break;
	case EINVAL:
		what = "the kernel rejected the configuration";
		break;
	case EBUSY:
		what = "Intel PT is in use by another tracer";
		break;
	case ESRCH:
		what = "the thread is gone";
		break;
	case EMFILE:
	case ENFILE:
		what = "too many open files";
		break;
	default:
		what = strerror(err);
		break;
	}
	snprintf(why, whysize, "perf_event_open(intel_pt, config 0x%" PRIx64 ") for thread %d: "
		 "%s", config, (int)tid, what);
}

/* Bytes rounded up to a power-of-two number of pages. */
static uint64_t ring_size(uint64_t bytes, size_t page)
{
	uint64_t n = page;

	while (n < bytes && n < (1ULL << 40))
		n <<= 1;
	return n;
}

int stub_hwpt_open(const struct stub_hwpt_setup *s, struct replay_bundle *b,
		   struct stub_hwpt **out, char *why, size_t whysize)
{
	struct stub_hwpt *h = calloc(1, sizeof(*h));
	int rc;

	*out = NULL;
	if (!h)
		return -ENOMEM;
	h->setup = *s;
	h->b = b;
	h->page = (size_t)sysconf(_SC_PAGESIZE);
	h->setup.aux_size = ring_size(s->aux_size ? s->aux_size : STUB_HWPT_SNAPSHOT_DEFAULT,
				      h->page);
	/* A writable (full-mode) AUX area of one page: perf's minimum is 2. */
	if (s->full && h->setup.aux_size < 2 * h->page)
		h->setup.aux_size = 2 * h->page;
	stub_hwpt_cpu_probe(&h->cpu);
	rc = stub_hwpt_caps_read(s->sysfs_root, &h->caps, why, whysize);
	if (rc == -ENOENT)
		stub_hwpt_why_not(s->sysfs_root, &h->cpu, why, whysize);
	if (!rc)
		rc = stub_hwpt_config(&h->caps, &s->opts, &h->config, why, whysize);
	if (!rc)
		rc = replay_bundle_set_str(&b->recorder, "hardware");
	h->buf = rc ? NULL : malloc(h->setup.aux_size);
	if (!rc && !h->buf)
		rc = -ENOMEM;
	if (rc) {
		free(h->buf);
		free(h);
		return rc;
	}
	stub_hwpt_fill_bundle(&h->cpu, &h->caps, h->config, b);
	b->pid = s->pid;
	stub_hwpt_sideband_init(&h->sideband, b, s->pid, NULL, NULL);
	h->sideband.sb.vdso_file = s->vdso_file;
	stub_hwpt_batch_init(&h->batch);
	*out = h;
	return 0;
}

static int map_rings(struct stub_hwpt *h, struct hwpt_thread *t, char *why, size_t whysize)
{
	uint64_t aux = h->setup.aux_size;
	int prot = PROT_READ | (h->setup.full ? PROT_WRITE : 0);
	void *p;
	int rc;

	t->base_len = h->page * (1 + STUB_HWPT_DATA_PAGES);
	p = stub_hwpt_sys.mmap(NULL, t->base_len, PROT_READ | PROT_WRITE, MAP_SHARED, t->fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	t->page = p;
	t->page->aux_offset = t->base_len;
	t->page->aux_size = aux;
	p = stub_hwpt_sys.mmap(NULL, aux, prot, MAP_SHARED, t->fd, (off_t)t->base_len);
	if (p == MAP_FAILED)
		goto fail;
	t->aux = p;
	/* data_offset / data_size say where DATA is (kernels before 4.1 left
	 * them 0: then it follows the control page). */
	if (stub_hwpt_ring_init(&t->data_ring, (uint8_t *)t->page + (t->page->data_offset
								       ? t->page->data_offset
								       : h->page),
				t->page->data_size ? t->page->data_size
						   : h->page * STUB_HWPT_DATA_PAGES,
				(uint64_t *)&t->page->data_head,
				(uint64_t *)&t->page->data_tail) < 0) {
		snprintf(why, whysize, "thread %d: the kernel's DATA area is not a power of two "
			 "(%llu bytes)", (int)t->tid, (unsigned long long)t->page->data_size);
		return -EINVAL;
	}
	stub_hwpt_ring_init(&t->aux_ring, t->aux, aux, (uint64_t *)&t->page->aux_head,
			    h->setup.full ? (uint64_t *)&t->page->aux_tail : NULL);
	return 0;
fail:
	rc = errno;
	snprintf(why, whysize, "mmap of the %s area for thread %d (%" PRIu64 " KiB): %s%s",
		 t->page ? "AUX" : "DATA", (int)t->tid, (t->page ? aux : t->base_len) >> 10,
		 strerror(rc), rc == EPERM || rc == ENOMEM
		 ? " (over /proc/sys/kernel/perf_event_mlock_kb and ulimit -l? try a smaller "
		   "--snapshot or --aux-size)" : "");
	return -rc;
}

static void thread_release(struct hwpt_thread *t)
{
	if (t->aux)
		stub_hwpt_sys.munmap(t->aux, t->aux_ring.size ? t->aux_ring.size
							     : t->page->aux_size);
	if (t->page)
		stub_hwpt_sys.munmap(t->page, t->base_len);
	if (t->fd >= 0)
		close(t->fd);
	if (t->out >= 0)
		close(t->out);
}

static int open_out(struct stub_hwpt *h, struct hwpt_thread *t, char *rel, size_t relsize)
{
	char path[4096];
	int e;

	snprintf(path, sizeof(path), "%s/threads", h->setup.dir);
	e = replay_bundle_mkdir(path);
	if (e < 0)
		return e;
	replay_bundle_thread_file(h->b, t->tid, "pt", rel, relsize);
	snprintf(path, sizeof(path), "%s/%s", h->setup.dir, rel);
	t->out = replay_bundle_create(path);
	return t->out < 0 ? t->out : 0;
}

static int start_thread(struct stub_hwpt *h, struct hwpt_thread *t, char *why, size_t whysize)
{
	struct perf_event_attr attr;
	char rel[64];
	int rc;

	stub_hwpt_attr(h->caps.pmu_type, h->config, h->setup.full,
		       (uint32_t)(h->setup.aux_size / 4), &attr);
	t->fd = stub_hwpt_sys.perf_event_open(&attr, t->tid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (t->fd < 0) {
		rc = -errno;
		stub_hwpt_open_error(-rc, t->tid, h->config, why, whysize);
		return rc;
	}
	rc = map_rings(h, t, why, whysize);
	if (rc)
		return rc;
	rc = open_out(h, t, rel, sizeof(rel));
	if (rc) {
		snprintf(why, whysize, "%s/%s: %s", h->setup.dir, rel, strerror(-rc));
		return rc;
	}
	h->sideband.layout = (struct replay_perf_sid_layout){ true, attr.sample_type };
	if (!h->have_tconv) {
		/* The kernel fills the time fields when the page is mapped; they
		 * are the same clock for every event. */
		stub_hwpt_tconv_from_page(t->page, &h->sideband.sb.tconv);
		h->have_tconv = true;
	}
	if (stub_hwpt_sys.ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0)) {
		rc = -errno;
		snprintf(why, whysize, "PERF_EVENT_IOC_ENABLE for thread %d: %s", (int)t->tid,
			 strerror(-rc));
		return rc;
	}
	rc = replay_bundle_add_thread(h->b, t->tid, rel);
	return rc < 0 ? rc : 0;
}

int stub_hwpt_add_thread(struct stub_hwpt *h, pid_t tid, char *why, size_t whysize)
{
	struct hwpt_thread *ts = realloc(h->threads, (h->nthreads + 1) * sizeof(*ts));
	struct hwpt_thread *t;
	int rc;

	if (!ts)
		return -ENOMEM;
	h->threads = ts;
	t = &ts[h->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->fd = t->out = -1;
	rc = start_thread(h, t, why, whysize);
	if (rc) {
		thread_release(t);
		return rc;
	}
	h->nthreads++;
	return 0;
}

static int write_all(int fd, const uint8_t *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Full mode: the thread's new AUX data to its file. */
static int drain_aux(struct stub_hwpt *h, struct hwpt_thread *t)
{
	ssize_t n;
	int rc, drained = 0;

	while ((n = stub_hwpt_ring_drain(&t->aux_ring, h->buf, h->setup.aux_size)) > 0) {
		if ((rc = write_all(t->out, h->buf, (size_t)n)))
			return rc;
		t->bytes += (uint64_t)n;
		drained = 1;
	}
	/* A full ring stopped the trace (a "truncated" AUX record says so);
	 * the kernel resumes it at the thread's next schedule-in, and perf
	 * re-enables the event after every read: so do we. */
	if (drained && !t->hup)
		stub_hwpt_sys.ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0);
	return n < 0 ? (int)n : 0;
}

/* Every thread's DATA records, applied in time order. */
static int drain_sideband(struct stub_hwpt *h)
{
	int rc = 0;

	for (size_t i = 0; i < h->nthreads && rc >= 0; i++)
		rc = stub_hwpt_sideband_take(&h->sideband, &h->threads[i].data_ring, &h->batch);
	if (rc >= 0)
		rc = stub_hwpt_sideband_apply(&h->sideband, &h->batch);
	return rc < 0 ? rc : 0;
}

/* Snapshot mode: the thread's window replaces its file. @last: the end of
 * its trace (the event stays disabled; a gap says if older trace was
 * overwritten). */
static int snapshot_aux(struct stub_hwpt *h, struct hwpt_thread *t, bool last)
{
	char text[160];
	ssize_t n;
	int rc;

	stub_hwpt_sys.ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0);   /* publishes aux_head */
	n = stub_hwpt_ring_snapshot(&t->aux_ring, h->buf, h->setup.aux_size);
	rc = n < 0 ? (int)n : 0;
	if (!rc && (ftruncate(t->out, 0) || lseek(t->out, 0, SEEK_SET) < 0))
		rc = -errno;
	if (!rc)
		rc = write_all(t->out, h->buf, (size_t)n);
	if (!rc)
		t->bytes = (uint64_t)n;
	if (!last) {
		stub_hwpt_sys.ioctl(t->fd, PERF_EVENT_IOC_ENABLE, 0);
	} else if (!rc && stub_hwpt_ring_wrapped(&t->aux_ring)) {
		snprintf(text, sizeof(text), "snapshot mode kept the newest %" PRIu64 " KiB of "
			 "this thread's trace: what it ran before is not recorded",
			 h->setup.aux_size >> 10);
		rc = replay_bundle_add_gap(h->b, t->tid, 0, "lost", text);
		rc = rc < 0 ? rc : 0;
	}
	return rc;
}

int stub_hwpt_poll(struct stub_hwpt *h)
{
	int rc = 0;

	for (size_t i = 0; i < h->nthreads && !rc && h->setup.full; i++)
		rc = drain_aux(h, &h->threads[i]);
	return rc ? rc : drain_sideband(h);
}

int stub_hwpt_snapshot(struct stub_hwpt *h)
{
	int rc = 0;

	if (h->setup.full)
		return stub_hwpt_poll(h);
	for (size_t i = 0; i < h->nthreads && !rc; i++)
		rc = snapshot_aux(h, &h->threads[i], false);
	return rc ? rc : drain_sideband(h);
}

int stub_hwpt_remove_thread(struct stub_hwpt *h, pid_t tid)
{
	for (size_t i = 0; i < h->nthreads; i++) {
		struct hwpt_thread *t = &h->threads[i];
		int rc, rc2;

		if (t->tid != tid)
			continue;
		if (h->setup.full) {
			stub_hwpt_sys.ioctl(t->fd, PERF_EVENT_IOC_DISABLE, 0);
			t->hup = true;          /* no re-enable */
			rc = drain_aux(h, t);
		} else {
			rc = snapshot_aux(h, t, true);
		}
		rc2 = drain_sideband(h);
		h->bytes_done += t->bytes;
		thread_release(t);
		h->threads[i] = h->threads[--h->nthreads];
		return rc ? rc : rc2;
	}
	return -ESRCH;
}

int stub_hwpt_remove_all(struct stub_hwpt *h)
{
	int rc = 0;

	while (h->nthreads) {
		int e = stub_hwpt_remove_thread(h, h->threads[0].tid);

		if (!rc)
			rc = e;
	}
	return rc;
}

size_t stub_hwpt_fds(const struct stub_hwpt *h, struct pollfd *fds, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < h->nthreads && k < n; i++)
		if (!h->threads[i].hup)
			fds[k++] = (struct pollfd){ .fd = h->threads[i].fd, .events = POLLIN };
	return k;
}

void stub_hwpt_hangup(struct stub_hwpt *h, int fd)
{
	for (size_t i = 0; i < h->nthreads; i++)
		if (h->threads[i].fd == fd)
			h->threads[i].hup = true;
}

uint64_t stub_hwpt_trace_bytes(const struct stub_hwpt *h)
{
	uint64_t n = h->bytes_done;

	for (size_t i = 0; i < h->nthreads; i++)
		n += h->threads[i].bytes;
	return n;
}

uint64_t stub_hwpt_now(const struct stub_hwpt *h)
{
	uint64_t last = h->sideband.sb.last_time;

	if (!h->sideband.sb.tconv.valid)
		return last;
	return __rdtsc() > last ? __rdtsc() : last;
}

void stub_hwpt_close(struct stub_hwpt *h)
{
	if (!h)
		return;
	stub_hwpt_remove_all(h);
	stub_hwpt_batch_release(&h->batch);
	free(h->threads);
	free(h->buf);
	free(h);
}
