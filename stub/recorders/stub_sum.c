/*
 * stub/recorders/stub_sum.c: a recorder's file's checksums, written as the
 * file is (stub/recorders/stub_sum.h).
 */
#include "stub/recorders/stub_sum.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "replay/model/sums.h"

struct stub_sum {
	FILE *f;
	uint64_t at;               /* bytes fed */
	uint64_t start;            /* where the block being summed starts */
	uint32_t crc;              /* of [start, at) */
	uint64_t *marks;           /* [head, n): block ends to come, ascending */
	size_t head, n, cap;
	uint8_t *recs;             /* records not written yet (until a flush) */
	size_t nrecs, caprecs;
	uint64_t nblocks;          /* blocks ended */
	/* --snapshot: where blocks end (the byte, the number of the block
	 * that starts there), for stub_sum_holes; the first one and those
	 * from the last hole on. */
	struct stub_sum_end { uint64_t off, rec; } *ends;
	size_t nends, capends;
	bool track;
	int err;                   /* the first error */
};

struct stub_sum *stub_sum_create(const char *path, bool ring)
{
	char sp[4200], head[REPLAY_SUMS_HEADER] = REPLAY_SUMS_MAGIC;  /* no holes */
	struct stub_sum *s = calloc(1, sizeof(*s));
	int e;

	if (!s)
		return NULL;
	snprintf(sp, sizeof(sp), "%s.sum", path);
	s->f = replay_bundle_fcreate(sp);
	if (!s->f || fwrite(head, 1, sizeof(head), s->f) != sizeof(head) || fflush(s->f)) {
		e = errno ? errno : EIO;
		if (s->f)
			fclose(s->f);
		free(s);
		errno = e;
		return NULL;
	}
	s->track = ring;
	return s;
}

/* The block [start, at) as a record, written at the next flush (after
 * the data it covers). */
static void end_block(struct stub_sum *s)
{
	if (s->at == s->start)
		return;
	if (s->nrecs + REPLAY_SUMS_RECORD > s->caprecs) {
		size_t cap = s->caprecs ? 2 * s->caprecs : 64 * REPLAY_SUMS_RECORD;
		uint8_t *nv = realloc(s->recs, cap);

		if (!nv) {
			s->err = s->err ? s->err : -ENOMEM;
			return;
		}
		s->recs = nv;
		s->caprecs = cap;
	}
	replay_sums_put(s->recs + s->nrecs, (uint32_t)(s->at - s->start), s->crc);
	s->nrecs += REPLAY_SUMS_RECORD;
	s->start = s->at;
	s->crc = 0;
	s->nblocks++;
	if (!s->track)
		return;
	if (s->nends == s->capends) {
		size_t cap = s->capends ? 2 * s->capends : 64;
		struct stub_sum_end *nv = realloc(s->ends, cap * sizeof(*nv));

		if (!nv) {
			s->err = s->err ? s->err : -ENOMEM;
			return;
		}
		s->ends = nv;
		s->capends = cap;
	}
	s->ends[s->nends++] = (struct stub_sum_end){ s->at, s->nblocks };
}

void stub_sum_feed(struct stub_sum *s, const void *p, size_t n)
{
	const uint8_t *b = p;

	if (!s)
		return;
	while (n) {
		uint64_t end = s->start + REPLAY_SUMS_BLOCK_MAX;
		size_t take;

		while (s->head < s->n && s->marks[s->head] <= s->at)
			s->head++;
		if (s->head < s->n && s->marks[s->head] < end)
			end = s->marks[s->head];
		take = end - s->at < n ? (size_t)(end - s->at) : n;
		s->crc = replay_sums_crc(s->crc, b, take);
		s->at += take;
		b += take;
		n -= take;
		if (s->at == end)
			end_block(s);
	}
}

void stub_sum_mark(struct stub_sum *s, uint64_t off)
{
	if (!s || off < s->at || (s->n > s->head && off <= s->marks[s->n - 1]))
		return;
	if (off == s->at) {
		end_block(s);
		return;
	}
	if (s->head == s->n)
		s->head = s->n = 0;
	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		uint64_t *nv = realloc(s->marks, cap * sizeof(*nv));

		if (!nv) {
			s->err = s->err ? s->err : -ENOMEM;
			return;
		}
		s->marks = nv;
		s->cap = cap;
	}
	s->marks[s->n++] = off;
}

int stub_sum_flush(struct stub_sum *s)
{
	if (!s)
		return 0;
	end_block(s);
	errno = 0;
	if (((s->nrecs && fwrite(s->recs, 1, s->nrecs, s->f) != s->nrecs) || fflush(s->f)) &&
	    !s->err)
		s->err = errno ? -errno : -EIO;
	s->nrecs = 0;
	return s->err;
}

int stub_sum_close(struct stub_sum *s)
{
	int e;

	if (!s)
		return 0;
	e = stub_sum_flush(s);
	if (fclose(s->f) && !e)
		e = -EIO;
	free(s->marks);
	free(s->recs);
	free(s->ends);
	free(s);
	return e;
}

/* The number of the block that starts at byte @off; false if none is
 * known to. */
static bool block_at(const struct stub_sum *s, uint64_t off, uint64_t *rec)
{
	*rec = 0;
	for (size_t i = 0; off && i < s->nends; i++)
		if (s->ends[i].off == off) {
			*rec = s->ends[i].rec;
			return true;
		}
	return off == 0;
}

int stub_sum_holes(struct stub_sum *s, uint64_t keep, uint64_t from)
{
	uint8_t head[REPLAY_SUMS_HEADER - REPLAY_SUMS_FLAGS_AT] = { REPLAY_SUMS_HOLES };
	uint64_t rk, rf;
	size_t k = 1;
	int fd;

	if (!s)
		return 0;
	if (!s->track || !block_at(s, keep, &rk) || !block_at(s, from, &rf) || rf < rk ||
	    rf * REPLAY_SUMS_RECORD > (s->nblocks - s->nrecs / REPLAY_SUMS_RECORD) * REPLAY_SUMS_RECORD)
		return -EINVAL;     /* not where blocks end, or records not written */
	if (rf == 0)
		return 0;           /* the file starts where it did: no holes */
	/* Where the file starts now, then the records before it punched out:
	 * a reader sees either the records (their bytes are still there) or
	 * zeros and where to go on. */
	fd = fileno(s->f);
	replay_sums_put_u64(head + 1, from);
	replay_sums_put_u64(head + 9, rf);
	if (pwrite(fd, head, sizeof(head), REPLAY_SUMS_FLAGS_AT) != (ssize_t)sizeof(head))
		return -errno;
	if (rf > rk && fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				 (off_t)(REPLAY_SUMS_HEADER + rk * REPLAY_SUMS_RECORD),
				 (off_t)((rf - rk) * REPLAY_SUMS_RECORD)) < 0 &&
	    errno != EOPNOTSUPP && errno != ENOSYS)
		return -errno;
	/* Block ends before @from are not asked for again (but @keep's). */
	for (size_t i = 1; i < s->nends; i++)
		if (s->ends[i].off >= from)
			s->ends[k++] = s->ends[i];
	s->nends = s->nends ? k : 0;
	return 0;
}

/* @rel + ".sum" into @field, and the sums of @dir/@rel into @out. */
static int start_one(const char *dir, const char *rel, bool ring, char **field,
		     struct stub_sum **out)
{
	char path[4200], name[4200];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	snprintf(name, sizeof(name), "%s.sum", rel);
	*out = stub_sum_create(path, ring);
	if (!*out)
		return -errno;
	return replay_bundle_set_str(field, name);
}

int stub_sum_start(struct replay_bundle *b, size_t idx, const char *dir, bool ring,
		   struct stub_sum **pt, struct stub_sum **state)
{
	struct replay_thread *t = &b->threads[idx];
	int e = t->pt_file ? start_one(dir, t->pt_file, ring, &t->pt_sums, pt) : 0;

	if (e >= 0 && t->state_file)
		e = start_one(dir, t->state_file, ring, &t->state_sums, state);
	return e;
}

/* --- --snapshot's end ------------------------------------------------- */

/* @path.sum made anew from the bytes of @path, in whole blocks: for a
 * rewrite whose cuts are not where blocks end (never, as marks are put). */
static int rebuild(const char *path)
{
	struct stub_sum *s = stub_sum_create(path, false);
	uint8_t *buf = malloc(REPLAY_SUMS_BLOCK_MAX);
	FILE *in = fopen(path, "rbe");
	size_t n;
	int e = s && buf && in ? 0 : -ENOMEM;

	while (e == 0 && (n = fread(buf, 1, REPLAY_SUMS_BLOCK_MAX, in)) > 0)
		stub_sum_feed(s, buf, n);
	if (in && ferror(in))
		e = -EIO;
	if (in)
		fclose(in);
	free(buf);
	if (stub_sum_close(s) < 0 && e == 0)
		e = -EIO;
	return e;
}

int stub_sum_drop_front(const char *path, uint64_t keep, uint64_t from)
{
	char sp[4200], tmp[4300];
	static const uint8_t zero[REPLAY_SUMS_RECORD];
	uint8_t rec[REPLAY_SUMS_RECORD], head[REPLAY_SUMS_HEADER] = REPLAY_SUMS_MAGIC;
	uint8_t old[REPLAY_SUMS_HEADER];
	FILE *in, *out;
	uint64_t off = 0, n = 0, front_rec;
	bool straddles = false;
	int e = 0;

	snprintf(sp, sizeof(sp), "%s.sum", path);
	snprintf(tmp, sizeof(tmp), "%s.cut", sp);
	in = fopen(sp, "rbe");
	if (!in)
		return errno == ENOENT ? 0 : -errno;
	out = replay_bundle_fcreate(tmp);
	if (!out || fread(old, 1, sizeof(old), in) != sizeof(old) ||
	    fwrite(head, 1, sizeof(head), out) != sizeof(head))
		e = -EIO;
	front_rec = old[REPLAY_SUMS_FLAGS_AT] & REPLAY_SUMS_HOLES ?
		    replay_sums_u64(old + REPLAY_SUMS_FRONT_AT + 8) : 0;
	while (e == 0 && fread(rec, 1, sizeof(rec), in) == sizeof(rec)) {
		uint32_t len, crc;

		if (n++ < front_rec && !memcmp(rec, zero, sizeof(zero))) {
			/* punched out while recording: on from the front */
			off = replay_sums_u64(old + REPLAY_SUMS_FRONT_AT);
			n = front_rec;
			if (fseek(in, (long)(REPLAY_SUMS_HEADER + n * REPLAY_SUMS_RECORD), SEEK_SET))
				e = -EIO;
			continue;
		}
		replay_sums_get(rec, &len, &crc);
		/* Kept: the blocks before @keep and from @from on. */
		straddles |= (off < keep && off + len > keep) || (off < from && off + len > from);
		if ((off + len <= keep || off >= from) && fwrite(rec, 1, sizeof(rec), out) != sizeof(rec))
			e = -EIO;
		off += len;
	}
	fclose(in);
	if (out && fclose(out) && e == 0)
		e = -EIO;
	if (e == 0 && !straddles && rename(tmp, sp) < 0)
		e = -errno;
	if (e < 0 || straddles)
		unlink(tmp);
	return e == 0 && straddles ? rebuild(path) : e;
}
