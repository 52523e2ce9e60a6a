/*
 * replay/model/kept.c: files kept beside a finished recording
 * (replay/model/kept.h): where, under which key, written and read back.
 */
#include "replay/model/kept.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zlib.h>

#include "replay/model/bundle.h"
#include "replay/model/fingerprint.h"

struct kept_head {
	char magic[REPLAY_KEPT_MAGIC_LEN];
	uint64_t key;
	uint64_t len;              /* of the contents after the head */
	uint64_t crc;              /* zlib's crc32 of the contents */
};

bool replay_kept_path(const struct replay_bundle *b, const char *file, const char *suffix,
		      char *path, size_t size)
{
	if (!file || !b->dir || !b->complete || b->perf_file || b->nmem || !b->recorder ||
	    (strcmp(b->recorder, "software") && strcmp(b->recorder, "hardware") &&
	     strcmp(b->recorder, "valgrind")) ||
	    file[0] == '/' || strstr(file, ".."))
		return false;
	return snprintf(path, size, "%s/%s%s", b->dir, file, suffix) < (int)size;
}

static uint64_t code_sum;
static pthread_once_t code_once = PTHREAD_ONCE_INIT;

static void code_sum_make(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4608];

	if (!f) {
		code_sum = 1;      /* unknown: a key no file holds yet */
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		char *p = strchr(line, '/');

		if (!p || !strstr(line, " r-xp "))
			continue;
		p[strcspn(p, "\n")] = 0;
		code_sum += replay_fingerprint_file(REPLAY_FINGERPRINT_START, p);
	}
	fclose(f);
}

uint64_t replay_kept_key_code(uint64_t h)
{
	pthread_once(&code_once, code_sum_make);
	return replay_fingerprint(h, &code_sum, sizeof(code_sum));
}

uint64_t replay_kept_key_file(const struct replay_bundle *b, uint64_t h, const char *file)
{
	char path[4096];

	if (file && replay_bundle_path(b, file, path, sizeof(path)) == 0)
		return replay_fingerprint_file(h, path);
	return replay_fingerprint(h, "", 1);
}

uint64_t replay_kept_key_trace(const struct replay_bundle *b, size_t thread, uint64_t h)
{
	const struct replay_thread *t = &b->threads[thread];

	h = replay_kept_key_code(h);
	h = replay_kept_key_file(b, h, "trace.json");
	h = replay_fingerprint(h, &t->tid, sizeof(t->tid));
	h = replay_kept_key_file(b, h, t->pt_file);
	h = replay_kept_key_file(b, h, t->pt_sums);
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];
		uint64_t at[5] = { m->start, m->size, m->offset, m->time_map, m->time_unmap };

		h = replay_fingerprint(h, at, sizeof(at));
		h = replay_kept_key_file(b, h, m->file);
	}
	return h;
}

static uint64_t crc_of(uint64_t crc, const void *p, size_t n)
{
	const unsigned char *b = p;

	while (n) {                        /* crc32_z takes any size; crc32 a uInt */
		size_t k = n > (1u << 30) ? (1u << 30) : n;

		crc = crc32(crc, b, (uInt)k);
		b += k;
		n -= k;
	}
	return crc;
}

int replay_kept_save(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN], uint64_t key,
		     const struct replay_kept_part *parts, size_t nparts)
{
	struct kept_head h = { .key = key };
	char tmp[4200];
	FILE *f;
	int fd, rc = 0;

	memcpy(h.magic, magic, sizeof(h.magic));
	h.crc = crc32(0, NULL, 0);
	for (size_t i = 0; i < nparts; i++) {
		h.len += parts[i].len;
		h.crc = crc_of(h.crc, parts[i].p, parts[i].len);
	}
	if (snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid()) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	unlink(tmp);               /* one a killed command left */
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	f = fd >= 0 ? fdopen(fd, "wb") : NULL;
	if (!f) {
		rc = -errno;
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (fwrite(&h, sizeof(h), 1, f) != 1)
		rc = -EIO;
	for (size_t i = 0; rc == 0 && i < nparts; i++)
		if (parts[i].len && fwrite(parts[i].p, 1, parts[i].len, f) != parts[i].len)
			rc = -EIO;
	if (fclose(f) != 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, path) != 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

static int read_all(int fd, void *buf, size_t n, off_t at)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (char *)buf + got, n - got, at + (off_t)got);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -EINVAL;
		got += (size_t)k;
	}
	return 0;
}

int replay_kept_load(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN], uint64_t key,
		     size_t max, void **out, size_t *len)
{
	struct kept_head h;
	struct stat st;
	void *buf = NULL;
	int fd, rc = 0;

	*out = NULL;
	*len = 0;
	/* A regular file only (never a FIFO to block on, nor a link). */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : -EINVAL;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    read_all(fd, &h, sizeof(h), 0) < 0 || memcmp(h.magic, magic, sizeof(h.magic)))
		rc = -EINVAL;
	else if (h.key != key)
		rc = -ENOENT;
	/* Its size first: a damaged length never makes a big allocation. */
	else if (h.len > max || (uint64_t)st.st_size != sizeof(h) + h.len)
		rc = -EINVAL;
	else if (!(buf = malloc(h.len ? h.len : 1)))
		rc = -ENOMEM;
	else if (read_all(fd, buf, h.len, sizeof(h)) < 0 ||
		 crc_of(crc32(0, NULL, 0), buf, h.len) != h.crc)
		rc = -EINVAL;
	close(fd);
	if (rc < 0) {
		free(buf);
		return rc;
	}
	*out = buf;
	*len = h.len;
	return 0;
}
