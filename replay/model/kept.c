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
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "replay/model/fingerprint.h"

struct kept_head {
	char magic[REPLAY_KEPT_MAGIC_LEN];
	uint64_t key;
	uint64_t len;              /* of the contents after the head */
	uint64_t sum;              /* sum_of the contents */
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

/* The contents' checksum: four lanes of 64-bit words, each word mixed
 * in by a multiply (a bijection, so that a change in one word always
 * changes its lane), a short tail and the length mixed in at the end.
 * Several times faster than zlib's crc32 here, and the kept files are
 * tens of megabytes that the next command reads whole. Not a defence
 * against an adversary: a check for damage. */
#define SUM_K 0x9e3779b97f4a7c15ull

struct sum {
	uint64_t lane[4];
	uint8_t buf[32];
	size_t nbuf;
	uint64_t total;
};

static void sum_init(struct sum *s)
{
	*s = (struct sum){ .lane = { 1, 2, 3, 4 } };
}

static void sum_block(struct sum *s, const uint8_t *p)
{
	for (int i = 0; i < 4; i++) {
		uint64_t w;

		memcpy(&w, p + 8 * i, 8);
		s->lane[i] = (s->lane[i] ^ w) * SUM_K;
		s->lane[i] ^= s->lane[i] >> 29;
	}
}

static void sum_update(struct sum *s, const void *data, size_t n)
{
	const uint8_t *p = data;

	if (!n)
		return;            /* (an empty part may have no pointer) */
	s->total += n;
	if (s->nbuf) {
		size_t k = n < 32 - s->nbuf ? n : 32 - s->nbuf;

		memcpy(s->buf + s->nbuf, p, k);
		s->nbuf += k;
		p += k;
		n -= k;
		if (s->nbuf < 32)
			return;
		sum_block(s, s->buf);
		s->nbuf = 0;
	}
	for (; n >= 32; p += 32, n -= 32)
		sum_block(s, p);
	memcpy(s->buf, p, n);
	s->nbuf = n;
}

static uint64_t fmix(uint64_t h)
{
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 33);
}

static uint64_t sum_final(struct sum *s)
{
	uint64_t h;

	memset(s->buf + s->nbuf, 0, 32 - s->nbuf);
	sum_block(s, s->buf);
	h = fmix(s->lane[0] ^ s->total);
	for (int i = 1; i < 4; i++)
		h = fmix(h ^ s->lane[i]);
	return h;
}

static uint64_t sum_of(const void *p, size_t n)
{
	struct sum s;

	sum_init(&s);
	sum_update(&s, p, n);
	return sum_final(&s);
}

int replay_kept_save(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN], uint64_t key,
		     const struct replay_kept_part *parts, size_t nparts)
{
	struct kept_head h = { .key = key };
	char tmp[4200];
	FILE *f;
	int fd, rc = 0;

	struct sum sm;

	memcpy(h.magic, magic, sizeof(h.magic));
	sum_init(&sm);
	for (size_t i = 0; i < nparts; i++) {
		h.len += parts[i].len;
		sum_update(&sm, parts[i].p, parts[i].len);
	}
	h.sum = sum_final(&sm);
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
		     size_t max, const void **out, size_t *len)
{
	struct kept_head h;
	struct stat st;
	uint8_t *map = MAP_FAILED;
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
	/* Its size first: a damaged length never maps more than there is. */
	else if (h.len > max || (uint64_t)st.st_size != sizeof(h) + h.len)
		rc = -EINVAL;
	/* Mapped, not read: the caller copies out what it keeps, once. */
	else if ((map = mmap(NULL, sizeof(h) + h.len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd,
			     0)) == MAP_FAILED)
		rc = errno == ENOMEM ? -ENOMEM : -EINVAL;
	else if (sum_of(map + sizeof(h), h.len) != h.sum)
		rc = -EINVAL;
	close(fd);
	if (rc < 0) {
		if (map != MAP_FAILED)
			munmap(map, sizeof(h) + h.len);
		return rc;
	}
	*out = map + sizeof(h);
	*len = h.len;
	return 0;
}

int replay_kept_load_array(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN],
			   uint64_t key, size_t max, void *head, size_t headsize,
			   size_t itemsize, void **items, size_t *n)
{
	const void *buf;
	size_t len;
	int rc = replay_kept_load(path, magic, key, max, &buf, &len);

	*items = NULL;
	*n = 0;
	if (rc < 0)
		return rc;
	if (len < headsize || (len - headsize) % itemsize) {
		replay_kept_release(buf, len);
		return -EINVAL;
	}
	memcpy(head, buf, headsize);
	*n = (len - headsize) / itemsize;
	*items = malloc(*n ? *n * itemsize : 1);
	if (*items)
		memcpy(*items, (const char *)buf + headsize, *n * itemsize);
	replay_kept_release(buf, len);
	return *items ? 0 : -ENOMEM;
}

void replay_kept_release(const void *out, size_t len)
{
	if (out)
		munmap((uint8_t *)out - sizeof(struct kept_head), sizeof(struct kept_head) + len);
}
