/*
 * replay/rodata.c: read-only file segments, by address.
 */
#include "replay/rodata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/bundle.h"
#include "replay/elf_load.h"

struct rodata_seg {
	uint64_t start, size, offset;
	int fd;                    /* shared by the segments of one file */
	int owns_fd;
};

struct replay_rodata {
	struct rodata_seg *segs;
	size_t n, cap;
};

static int add_seg(struct replay_rodata *r, const struct rodata_seg *s)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 16;
		struct rodata_seg *grown = realloc(r->segs, cap * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		r->segs = grown;
		r->cap = cap;
	}
	r->segs[r->n++] = *s;
	return 0;
}

/* The read-only segments of one file, placed as @m places it. */
static int add_file(struct replay_rodata *r, const char *path, const struct replay_mapping *m)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	int n = replay_elf_load_segments(path, segs), fd = -1, err = 0;
	uint64_t bias;

	if (n <= 0 || replay_elf_mapping_bias(path, m->start, m->offset, &bias))
		return 0;
	for (int i = 0; i < n && !err; i++) {
		struct rodata_seg s = { bias + segs[i].vaddr, segs[i].size, segs[i].offset, fd, 0 };

		if (segs[i].writable || segs[i].executable)
			continue; /* code is the image's; writable data the log's */
		if (fd < 0) {
			fd = dw_open_regular(path);
			if (fd < 0)
				return 0;
			s.owns_fd = 1;
		}
		s.fd = fd;
		err = add_seg(r, &s);
		if (err && s.owns_fd)
			close(fd);
	}
	return err;
}

int replay_rodata_new(const struct replay_bundle *b, struct replay_rodata **out)
{
	struct replay_rodata *r = calloc(1, sizeof(*r));
	char path[4096];
	int err = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < b->nmaps && !err; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(b->maps[j].file, b->maps[i].file);
		if (seen || replay_bundle_path(b, b->maps[i].file, path, sizeof(path)))
			continue;
		err = add_file(r, path, &b->maps[i]);
	}
	if (err) {
		replay_rodata_free(r);
		return err;
	}
	*out = r;
	return 0;
}

void replay_rodata_free(struct replay_rodata *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n; i++)
		if (r->segs[i].owns_fd)
			close(r->segs[i].fd);
	free(r->segs);
	free(r);
}

int replay_rodata_read(const struct replay_rodata *r, uint64_t addr, void *buf, size_t len)
{
	for (size_t i = 0; r && i < r->n; i++) {
		const struct rodata_seg *s = &r->segs[i];
		ssize_t got;

		if (addr < s->start || addr - s->start >= s->size)
			continue;
		if (len > s->size - (addr - s->start))
			len = (size_t)(s->size - (addr - s->start));
		got = pread(s->fd, buf, len, (off_t)(s->offset + (addr - s->start)));
		return got > 0 ? (int)got : -ENOENT;
	}
	return -ENOENT;
}
