/*
 * replay/model/sums.c: a recording's files checked against their checksums
 * (replay/model/sums.h, docs/bundle.md "Checksums").
 */
#include "replay/model/sums.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"
#include "replay/model/fingerprint.h"
#include "replay/model/kept.h"

static const char why_crc[] = "a block's checksum differs";
static const char why_short[] = "it ends inside a block its checksums cover: it was cut short";
static const char why_tail[] = "what follows is not covered by its checksums";
static const char why_rec[] = "its checksums are damaged there";
static const char why_nosums[] = "its checksums cannot be read";

static int note(struct replay_bundle *b, const char *file, const char *what,
		const struct replay_sums_check *c)
{
	char text[4600];

	snprintf(text, sizeof(text), "%s %s is damaged at byte %" PRIu64 " (%s): it is read up "
		 "to there, and what follows is a gap%s", what, file, c->trust, c->why,
		 !strcmp(what, "state log") ? " (registers and memory unknown after it)" : "");
	return replay_bundle_add_note(b, text) < 0 ? -ENOMEM : 0;
}

static int cut(struct replay_bundle *b, const char *file, const char *what,
	       struct replay_sums_check *c, uint64_t at, const char *why)
{
	c->cut = true;
	c->trust = at;
	c->why = why;
	return note(b, file, what, c);
}

/* pread of exactly @n bytes; false on a short read or an error. */
static bool read_at(int fd, void *buf, size_t n, uint64_t off)
{
	size_t got = 0;

	while (got < n) {
		ssize_t k = pread(fd, (uint8_t *)buf + got, n - got, (off_t)(off + got));

		if (k <= 0)
			return false;
		got += (size_t)k;
	}
	return true;
}

/* The blocks of @fd (@size bytes) from where @c stopped, their records
 * read from @sf, whose header is @head. */
static int walk(struct replay_bundle *b, const char *file, const char *what,
		struct replay_sums_check *c, int fd, uint64_t size, int sf, const uint8_t *head,
		uint8_t *buf)
{
	static const uint8_t zero[REPLAY_SUMS_RECORD];
	bool holes = head[REPLAY_SUMS_FLAGS_AT] & REPLAY_SUMS_HOLES;
	uint64_t front_off = replay_sums_u64(head + REPLAY_SUMS_FRONT_AT);
	uint64_t front_rec = replay_sums_u64(head + REPLAY_SUMS_FRONT_AT + 8);
	uint8_t recs[REPLAY_SUMS_RECORD * 512];

	for (;;) {
		ssize_t n = pread(sf, recs, sizeof(recs),
				  (off_t)(REPLAY_SUMS_HEADER + c->recs * REPLAY_SUMS_RECORD));

		if (n < 0)
			return cut(b, file, what, c, c->off, why_nosums);
		if ((size_t)n < REPLAY_SUMS_RECORD)
			break;
		for (size_t i = 0; i + REPLAY_SUMS_RECORD <= (size_t)n; i += REPLAY_SUMS_RECORD) {
			uint32_t len, crc;

			/* Records --snapshot punched out: the file goes on
			 * where its ring made it start. */
			if (holes && c->recs < front_rec && !memcmp(recs + i, zero, sizeof(zero))) {
				if (front_off < c->off)
					return cut(b, file, what, c, c->off, why_rec);
				c->off = front_off;
				c->recs = front_rec;
				break;     /* read on from there */
			}
			replay_sums_get(recs + i, &len, &crc);
			if (len == 0 || len > REPLAY_SUMS_BLOCK_MAX)
				return cut(b, file, what, c, c->off, why_rec);
			if (c->off + len > size)  /* the file ends inside the block */
				return b->complete ? cut(b, file, what, c, c->off, why_short) : 0;
			if (!read_at(fd, buf, len, c->off))
				return cut(b, file, what, c, c->off, why_short);
			if (replay_sums_crc(0, buf, len) != crc)
				return cut(b, file, what, c, c->off, why_crc);
			c->off += len;
			c->recs++;
		}
	}
	/* Bytes no record covers: the end of a recording still going (or
	 * whose recorder died), else damage. */
	if (c->off < size && b->complete)
		return cut(b, file, what, c, c->off, why_tail);
	return 0;
}

/* The magic, known flags, a front (both its numbers not 0) with holes and
 * none without: any bit flipped in a header without holes is seen. */
static bool good_header(const uint8_t *head)
{
	static const uint8_t zero[REPLAY_SUMS_HEADER - REPLAY_SUMS_FRONT_AT];
	uint64_t front_off = replay_sums_u64(head + REPLAY_SUMS_FRONT_AT);
	uint64_t front_rec = replay_sums_u64(head + REPLAY_SUMS_FRONT_AT + 8);

	if (memcmp(head, REPLAY_SUMS_MAGIC, REPLAY_SUMS_MAGIC_LEN) ||
	    (head[REPLAY_SUMS_FLAGS_AT] & ~REPLAY_SUMS_HOLES) != 0)
		return false;
	if (head[REPLAY_SUMS_FLAGS_AT] & REPLAY_SUMS_HOLES)
		return front_off != 0 && front_rec != 0;
	return !memcmp(head + REPLAY_SUMS_FRONT_AT, zero, sizeof(zero));
}

/* ---- a whole check kept (replay/model/kept.h) ---------------------------- */

/* A file of a finished recording that was checked whole and found good
 * is not read again while it and its sums are the same files (path,
 * size, modification time, inode): its contents are what was checked.
 * The kept file holds how far the check went. */
#define CHECKED_MAGIC "HSCHECK1"

struct checked {
	uint64_t off, recs;
};

static bool checked_where(const struct replay_bundle *b, const char *file, const char *sums,
			  char *path, size_t size, uint64_t *key)
{
	if (!replay_kept_path(b, file, ".checked", path, size))
		return false;
	*key = replay_fingerprint(REPLAY_FINGERPRINT_START, "sums-checked-1", 15);
	*key = replay_kept_key_code(*key);
	*key = replay_kept_key_file(b, *key, file);
	*key = replay_kept_key_file(b, *key, sums);
	return true;
}

/* A kept whole check of @file into @c: true, or false (check it). */
static bool checked_load(const char *path, uint64_t key, uint64_t size,
			 struct replay_sums_check *c)
{
	struct checked k;
	size_t len;
	const void *buf;
	bool ok;

	if (replay_kept_load(path, CHECKED_MAGIC, key, sizeof(k), &buf, &len) < 0)
		return false;
	ok = len == sizeof(k);
	if (ok)
		memcpy(&k, buf, sizeof(k));
	replay_kept_release(buf, len);
	/* All of it, and no more than there is. */
	if (!ok || k.off != size)
		return false;
	*c = (struct replay_sums_check){ .off = k.off, .recs = k.recs };
	return true;
}

int replay_sums_check_file(struct replay_bundle *b, const char *file, const char *sums,
			   const char *what, struct replay_sums_check *c)
{
	char kpath[4200];
	uint64_t key = 0;
	bool fresh = !c->cut && !c->off && !c->recs;
	bool keep = fresh && checked_where(b, file, sums, kpath, sizeof(kpath), &key);

	char path[4096], spath[4096];
	uint8_t head[REPLAY_SUMS_HEADER];
	struct stat st;
	int fd = -1, sf = -1, r = 0;
	uint8_t *buf;

	if (c->cut)
		return note(b, file, what, c);
	if (replay_bundle_path(b, file, path, sizeof(path)) < 0 ||
	    replay_bundle_path(b, sums, spath, sizeof(spath)) < 0)
		return 0;
	fd = dw_open_regular(path);
	if (fd < 0)
		return 0;          /* a missing file is said where it is read */
	sf = dw_open_regular(spath);
	buf = malloc(REPLAY_SUMS_BLOCK_MAX);
	if (!buf)
		r = -ENOMEM;
	else if (sf < 0 || fstat(fd, &st) < 0 || !read_at(sf, head, sizeof(head), 0) ||
		 !good_header(head))
		r = cut(b, file, what, c, 0, why_nosums);
	else if (keep && checked_load(kpath, key, (uint64_t)st.st_size, c))
		r = 0;
	else {
		r = walk(b, file, what, c, fd, (uint64_t)st.st_size, sf, head, buf);
		if (r == 0 && keep && !c->cut && c->off == (uint64_t)st.st_size) {
			struct checked k = { c->off, c->recs };
			struct replay_kept_part part = { &k, sizeof(k) };

			/* Where it cannot be written, the next open checks again. */
			replay_kept_save(kpath, CHECKED_MAGIC, key, &part, 1);
		}
	}
	free(buf);
	if (sf >= 0)
		close(sf);
	close(fd);
	return r;
}

static bool same(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

int replay_bundle_check_sums(struct replay_bundle *b, const struct replay_bundle *old,
			     unsigned what)
{
	int r = 0;

	for (size_t i = 0; r == 0 && i < b->nthreads; i++) {
		struct replay_thread *t = &b->threads[i];
		const struct replay_thread *o = old && i < old->nthreads ? &old->threads[i] : NULL;

		if (o && same(o->pt_file, t->pt_file) && same(o->pt_sums, t->pt_sums))
			t->pt_check = o->pt_check;
		if (o && same(o->state_file, t->state_file) && same(o->state_sums, t->state_sums))
			t->state_check = o->state_check;
		if ((what & REPLAY_SUMS_TRACES) && t->pt_file && t->pt_sums)
			r = replay_sums_check_file(b, t->pt_file, t->pt_sums, "trace", &t->pt_check);
		if (r == 0 && (what & REPLAY_SUMS_STATES) && t->state_file && t->state_sums)
			r = replay_sums_check_file(b, t->state_file, t->state_sums, "state log",
						   &t->state_check);
	}
	return r;
}
