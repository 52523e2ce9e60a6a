/*
 * replay/model/perf_data_write.c: a perf.data recording made a bundle, saved as
 * a directory (replay_perf_data_write, `hindsight import`) or kept in
 * memory (replay_perf_data_to_bundle, a perf.data opened directly), both
 * in replay/model/perf_data.h.
 *
 * On disk, each stream's PT goes to threads/TID.pt (or cpus/CPU.pt if its
 * thread is unknown), written to a temporary name and renamed, then the
 * threads are added to the bundle and trace.json is saved. A thread of
 * per-cpu streams split by context switches gets its segments one after
 * the other in threads/TID.pt, and keeps them as segments of that file.
 * In memory, the streams become the bundle's in-memory files of the same
 * names; the split ones stay cpus/CPU.pt, which the segments name.
 */
#include "replay/model/perf_data.h"

#include "replay/model/percpu.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int write_file(const char *path, const uint8_t *p, size_t n)
{
	char tmp[4096];
	int fd, rc;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", path) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	fd = replay_bundle_create(tmp);
	if (fd < 0)
		return fd;
	rc = write_all(fd, p, n);
	if (!rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	if (!rc && rename(tmp, path))
		rc = -errno;
	if (rc)
		unlink(tmp);
	return rc;
}

static int mkdir_p1(const char *dir)
{
	return replay_bundle_mkdir(dir);
}

static int write_stream(struct replay_perf_data *pd, const struct replay_perf_stream *s,
			const char *dir, char *err, size_t errsize)
{
	char rel[64], path[4096];
	const char *sub = s->tid >= 0 ? "threads" : "cpus";
	int rc;

	snprintf(rel, sizeof(rel), "%s", sub);
	if (snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	rc = mkdir_p1(path);
	if (s->tid >= 0)
		snprintf(rel, sizeof(rel), "threads/%lld.pt", (long long)s->tid);
	else
		snprintf(rel, sizeof(rel), "cpus/%d.pt", s->cpu);
	if (!rc && snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = write_file(path, s->data, s->size);
	if (rc) {
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		return rc;
	}
	if (s->tid < 0)
		return 0;
	rc = replay_bundle_add_thread(pd->bundle, s->tid, rel);
	return rc < 0 ? rc : 0;
}

/* Thread @t's segments, taken from the per-cpu streams in memory, as
 * threads/TID.pt; the segments then point there. */
static int write_split_thread(struct replay_perf_data *pd, struct replay_thread *t,
			      const char *dir, char *err, size_t errsize)
{
	char rel[64], path[4096];
	uint8_t *buf, *p;
	uint64_t total = 0;
	int rc;

	for (size_t i = 0; i < t->nsegs; i++)
		total += t->segs[i].size;
	buf = malloc(total ? (size_t)total : 1);
	if (!buf)
		return -ENOMEM;
	p = buf;
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct replay_pt_segment *g = &t->segs[i];
		const struct replay_perf_stream *s = replay_perf_data_cpu_stream(pd, g->cpu);

		if (!s || g->offset > s->size || g->size > s->size - g->offset) {
			free(buf);
			snprintf(err, errsize, "thread %lld: a segment is not in cpu %u's trace "
				 "(written once already?)", (long long)t->tid, g->cpu);
			return -EINVAL;
		}
		memcpy(p, s->data + g->offset, (size_t)g->size);
		p += g->size;
	}
	snprintf(rel, sizeof(rel), "threads/%lld.pt", (long long)t->tid);
	rc = snprintf(path, sizeof(path), "%s/threads", dir) >= (int)sizeof(path) ? -ENAMETOOLONG
										   : mkdir_p1(path);
	if (!rc && snprintf(path, sizeof(path), "%s/%s", dir, rel) >= (int)sizeof(path))
		rc = -ENAMETOOLONG;
	if (!rc)
		rc = write_file(path, buf, (size_t)total);
	free(buf);
	if (rc) {
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		return rc;
	}
	return replay_percpu_rebase(t, rel);
}

/* A thread's trace must be in one stream. 0, or -ENOTSUP with a line in
 * @err. */
static int check_streams(const struct replay_perf_data *pd, char *err, size_t errsize)
{
	for (size_t i = 0; i < pd->nstreams; i++) {
		if (pd->streams[i].tid >= 0 &&
		    replay_perf_data_stream(pd, pd->streams[i].tid) != &pd->streams[i]) {
			snprintf(err, errsize, "thread %lld has trace in more than one stream "
				 "(per-cpu trace of a thread that migrated): not supported yet",
				 (long long)pd->streams[i].tid);
			return -ENOTSUP;
		}
	}
	return 0;
}

int replay_perf_data_write(struct replay_perf_data *pd, const char *dir, char *err,
			   size_t errsize)
{
	int rc;

	if (!pd->bundle)
		return -EINVAL;
	rc = check_streams(pd, err, errsize);
	if (rc)
		return rc;
	rc = mkdir_p1(dir);
	if (rc) {
		snprintf(err, errsize, "%s: %s", dir, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < pd->nstreams && !rc; i++) {
		if (!pd->streams[i].split)
			rc = write_stream(pd, &pd->streams[i], dir, err, errsize);
	}
	for (size_t i = 0; i < pd->bundle->nthreads && !rc; i++)
		if (pd->bundle->threads[i].nsegs)
			rc = write_split_thread(pd, &pd->bundle->threads[i], dir, err, errsize);
	if (rc)
		return rc;
	rc = replay_bundle_set_str(&pd->bundle->dir, dir);
	if (!rc)
		rc = replay_bundle_save(pd->bundle, dir);
	if (rc)
		snprintf(err, errsize, "%s/trace.json: %s", dir, strerror(-rc));
	return rc;
}

/* Stream @s's bytes, taken from it, as the in-memory file its thread (or
 * its thread's segments) names; a stream of no thread is dropped. */
static int keep_stream(struct replay_perf_data *pd, struct replay_perf_stream *s)
{
	char rel[64];
	uint8_t *data = s->data;
	int rc;

	if (s->tid < 0 && !s->split)
		return 0;
	if (s->tid >= 0 && !s->split)
		snprintf(rel, sizeof(rel), "threads/%lld.pt", (long long)s->tid);
	else
		snprintf(rel, sizeof(rel), "cpus/%d.pt", s->cpu);
	if (!data && !(data = malloc(1)))
		return -ENOMEM;
	s->data = NULL;
	rc = replay_bundle_add_mem(pd->bundle, rel, data, s->size);
	s->size = 0;
	if (!rc && s->tid >= 0 && !s->split)
		rc = replay_bundle_add_thread(pd->bundle, s->tid, rel);
	return rc < 0 ? rc : 0;
}

int replay_perf_data_to_bundle(struct replay_perf_data *pd, struct replay_bundle **out,
			       char *err, size_t errsize)
{
	int rc;

	*out = NULL;
	if (!pd->bundle)
		return -EINVAL;
	rc = check_streams(pd, err, errsize);
	for (size_t i = 0; i < pd->nstreams && !rc; i++)
		rc = keep_stream(pd, &pd->streams[i]);
	if (rc == -ENOMEM)
		snprintf(err, errsize, "out of memory");
	if (!rc)
		*out = replay_perf_data_detach_bundle(pd);
	return rc;
}
