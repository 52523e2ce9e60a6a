/*
 * stub/recorders/stub_rec_code.c: code the program made itself, kept page
 * by page in the bundle (stub_rec_code.h).
 *
 * Each page some code ran in has one open version: its bytes (those code
 * ran from, the rest zero), which bytes those are, its slot in the file and
 * its mapping in the bundle. The file is written as the bytes come (one
 * pwrite per new piece), so the bundle a recorder saves at any moment
 * names only bytes already on disk.
 */
#include "stub/recorders/stub_rec_code.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/model/bundle.h"

#define PAGE 4096u
#define NBUCKETS 4096u

struct code_page {
	struct code_page *next;    /* in its bucket */
	uint64_t addr;
	uint64_t slot;             /* the open version's, in the file */
	size_t map;                /* ... and its mapping in the bundle */
	uint64_t since;            /* the time it opened */
	uint8_t bytes[PAGE];
	uint8_t known[PAGE / 8];   /* a bit a byte code ran from */
};

struct stub_rec_code {
	struct replay_bundle *b;
	char rel[32];              /* the file, in the bundle */
	char path[4096];
	int fd;                    /* -1 until the first code */
	uint64_t nslots, max_slots;
	size_t npages;
	struct code_page *bucket[NBUCKETS];
};

static size_t hash(uint64_t page)
{
	return (size_t)((page / PAGE) * 0x9E3779B97F4A7C15ull >> 52) % NBUCKETS;
}

struct stub_rec_code *stub_rec_code_new(struct replay_bundle *b, const char *dir)
{
	struct stub_rec_code *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->b = b;
	c->fd = -1;
	c->max_slots = STUB_REC_CODE_MAX_SLOTS;
	snprintf(c->rel, sizeof(c->rel), "images/code.bin");
	if (snprintf(c->path, sizeof(c->path), "%s/%s", dir, c->rel) >= (int)sizeof(c->path))
		c->path[0] = 0;    /* said when code comes (ENAMETOOLONG) */
	return c;
}

void stub_rec_code_free(struct stub_rec_code *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < NBUCKETS; i++)
		while (c->bucket[i]) {
			struct code_page *p = c->bucket[i];

			c->bucket[i] = p->next;
			free(p);
		}
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static struct code_page *find(const struct stub_rec_code *c, uint64_t page)
{
	struct code_page *p = c->bucket[hash(page)];

	while (p && p->addr != page)
		p = p->next;
	return p;
}

static int put(struct stub_rec_code *c, const void *p, size_t n, uint64_t off)
{
	ssize_t w;

	errno = 0;
	w = pwrite(c->fd, p, n, (off_t)off);
	if (w == (ssize_t)n)
		return 0;
	return errno ? -errno : -EIO;   /* ENOSPC said as such */
}

/* A new version of page @p from @time: a slot of its own, its bytes as
 * they are, and a mapping. 0, 1 (no slot left) or -errno. */
static int open_version(struct stub_rec_code *c, struct code_page *p, uint64_t time)
{
	struct replay_mapping m = { .time_map = time, .time_unmap = REPLAY_TIME_NEVER,
				    .start = p->addr, .size = PAGE, .file = c->rel,
				    .system_path = REPLAY_GENERATED_CODE };
	int e, idx;

	if (c->nslots >= c->max_slots)
		return 1;
	if (c->fd < 0) {
		char dir[4096 + 8];

		if (!c->path[0])
			return -ENAMETOOLONG;
		snprintf(dir, sizeof(dir), "%.*s", (int)(strrchr(c->path, '/') - c->path), c->path);
		replay_bundle_mkdir(dir);
		c->fd = replay_bundle_create(c->path);
		if (c->fd < 0)
			return c->fd;
	}
	m.offset = c->nslots * PAGE;
	e = put(c, p->bytes, PAGE, m.offset);
	if (e < 0)
		return e;
	idx = replay_bundle_add_mapping(c->b, &m);
	if (idx < 0)
		return idx;
	p->slot = c->nslots++;
	p->map = (size_t)idx;
	p->since = time;
	return 0;
}

/* Whether @n bytes at @off of @p differ from @bytes where code ran. */
static bool differs(const struct code_page *p, size_t off, const uint8_t *bytes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((p->known[(off + i) / 8] >> ((off + i) % 8) & 1) && p->bytes[off + i] != bytes[i])
			return true;
	return false;
}

static void learn(struct code_page *p, size_t off, const uint8_t *bytes, size_t n)
{
	memcpy(p->bytes + off, bytes, n);
	for (size_t i = off; i < off + n; i++)
		p->known[i / 8] |= (uint8_t)(1u << (i % 8));
}

/* The piece of code in one page: @n bytes at @ip. STUB_REC_CODE_* flags
 * or -errno. */
static int seen_page(struct stub_rec_code *c, uint64_t ip, const uint8_t *bytes, size_t n,
		     uint64_t time)
{
	uint64_t page = ip & ~(uint64_t)(PAGE - 1);
	size_t off = (size_t)(ip - page);
	struct code_page *p = find(c, page);
	int e;

	if (!p) {
		p = calloc(1, sizeof(*p));
		if (!p)
			return -ENOMEM;
		p->addr = page;
		learn(p, off, bytes, n);
		e = open_version(c, p, time);
		if (e) {
			free(p);
			return e < 0 ? e : STUB_REC_CODE_LOST;
		}
		p->next = c->bucket[hash(page)];
		c->bucket[hash(page)] = p;
		c->npages++;
		return STUB_REC_CODE_NEW;
	}
	if (differs(p, off, bytes, n) && p->since < time) {
		/* Other code there from now: the bytes that ran before are
		 * the old version's until now. With no new version (no slot
		 * left) the page is kept no more: its code decodes as a gap
		 * from now, never as the old bytes. */
		c->b->maps[p->map].time_unmap = time;
		learn(p, off, bytes, n);
		e = open_version(c, p, time);
		if (e > 0)
			stub_rec_code_forget(c, page, page + PAGE, time);
		return e < 0 ? e : e ? STUB_REC_CODE_NEW | STUB_REC_CODE_LOST : STUB_REC_CODE_NEW;
	}
	/* More of the page (or other bytes at the very time its version
	 * opened, before any of it ran): into the open version. */
	learn(p, off, bytes, n);
	return put(c, bytes, n, p->slot * PAGE + off);
}

int stub_rec_code_seen(struct stub_rec_code *c, uint64_t ip, const uint8_t *bytes, size_t len,
		       uint64_t time, stub_rec_code_imaged_fn *imaged, void *ctx)
{
	int flags = 0;

	while (len) {
		uint64_t end = (ip | (PAGE - 1)) + 1;
		size_t n = end - ip < len ? (size_t)(end - ip) : len;
		int e = imaged && imaged(ctx, ip) ? 0 : seen_page(c, ip, bytes, n, time);

		if (e < 0)
			return e;
		flags |= e;
		ip += n;
		bytes += n;
		len -= n;
	}
	return flags;
}

void stub_rec_code_forget(struct stub_rec_code *c, uint64_t start, uint64_t end, uint64_t time)
{
	if (!c->npages || end <= start)
		return;
	for (size_t i = 0; i < NBUCKETS; i++) {
		struct code_page **pp = &c->bucket[i];

		while (*pp) {
			struct code_page *p = *pp;

			if (p->addr + PAGE <= start || p->addr >= end) {
				pp = &p->next;
				continue;
			}
			c->b->maps[p->map].time_unmap = time;
			*pp = p->next;
			free(p);
			c->npages--;
		}
	}
}

uint64_t stub_rec_code_since(const struct stub_rec_code *c, uint64_t ip, size_t len)
{
	uint64_t since = 0;

	for (uint64_t page = ip & ~(uint64_t)(PAGE - 1); len && page < ip + len; page += PAGE) {
		const struct code_page *p = find(c, page);

		if (p && p->since > since)
			since = p->since;
	}
	return since;
}

void stub_rec_code_limit(struct stub_rec_code *c, uint64_t slots)
{
	c->max_slots = slots;
}

size_t stub_rec_code_pages(const struct stub_rec_code *c)
{
	return c->npages;
}

size_t stub_rec_code_versions(const struct stub_rec_code *c)
{
	return (size_t)c->nslots;
}
