/*
 * replay/model/rodata.c: read-only file segments, by address.
 */
#include "replay/model/rodata.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"

struct rodata_seg {
	uint64_t start, size, offset;
	int fd;                    /* shared by the segments of one file */
	int owns_fd;
	bool initial;              /* a writable segment: its bytes at the start only */
	uint64_t zero_from;        /* initial: from here to start + size, zero (bss) */
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

/* The read-only segments of one file, placed as @m places it, and with
 * @initial its writable ones (their contents before the program ran). */
static int add_file(struct replay_rodata *r, const char *path, const struct replay_mapping *m,
		    bool initial)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	int n = replay_elf_load_segments(path, segs), fd = -1, err = 0;
	uint64_t bias;

	if (n <= 0 || replay_elf_mapping_bias(path, m->start, m->offset, &bias))
		return 0;
	for (int i = 0; i < n && !err; i++) {
		struct rodata_seg s = { bias + segs[i].vaddr, segs[i].size, segs[i].offset, fd, 0,
					false, 0 };

		if (segs[i].executable || (segs[i].writable && !initial))
			continue; /* code is the image's; writable data the log's */
		if (segs[i].writable) {
			/* The file's bytes up to p_filesz, then zeros to p_memsz
			 * (the loader clears the rest of the page and maps
			 * anonymous zero pages for the bss). */
			s.initial = true;
			s.zero_from = bias + segs[i].file_end;
			s.size = segs[i].mem_end - segs[i].vaddr;
		}
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

/* Whether the recording saw every write since the program's first
 * instruction: started at exec, and no --snapshot cut dropped old writes. */
static bool from_first_instruction(const struct replay_bundle *b)
{
	if (!b->start || strcmp(b->start, "exec"))
		return false;
	for (size_t i = 0; i < b->ngaps; i++)
		if (b->gaps[i].kind && !strcmp(b->gaps[i].kind, "snapshot"))
			return false;
	return true;
}

int replay_rodata_new(const struct replay_bundle *b, struct replay_rodata **out)
{
	struct replay_rodata *r = calloc(1, sizeof(*r));
	bool from_start = from_first_instruction(b);
	char path[4096];
	int err = 0;

	if (!r)
		return -ENOMEM;
	for (size_t i = 0; i < b->nmaps && !err; i++) {
		bool seen = replay_mapping_generated(&b->maps[i]);

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(b->maps[j].file, b->maps[i].file);
		if (seen || replay_bundle_path(b, b->maps[i].file, path, sizeof(path)))
			continue;
		err = add_file(r, path, &b->maps[i], from_start && b->maps[i].time_map == 0);
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

/* Up to @len bytes of segment @s at @addr (inside it). */
static int seg_read(const struct rodata_seg *s, uint64_t addr, uint8_t *buf, size_t len)
{
	ssize_t got;

	if (len > s->size - (addr - s->start))
		len = (size_t)(s->size - (addr - s->start));
	if (s->initial && addr >= s->zero_from) {
		memset(buf, 0, len);
		return (int)len;
	}
	if (s->initial && len > s->zero_from - addr)
		len = (size_t)(s->zero_from - addr);
	got = pread(s->fd, buf, len, (off_t)(s->offset + (addr - s->start)));
	return got > 0 ? (int)got : -ENOENT;
}

static int read_segs(const struct replay_rodata *r, bool initial, uint64_t addr, void *buf,
		     size_t len)
{
	for (size_t i = 0; r && i < r->n; i++) {
		const struct rodata_seg *s = &r->segs[i];

		if (addr < s->start || addr - s->start >= s->size || (s->initial && !initial))
			continue;
		return seg_read(s, addr, buf, len);
	}
	return -ENOENT;
}

int replay_rodata_read(const struct replay_rodata *r, uint64_t addr, void *buf, size_t len)
{
	return read_segs(r, false, addr, buf, len);
}

int replay_rodata_read_untouched(const struct replay_rodata *r, uint64_t addr, void *buf,
				 size_t len)
{
	return read_segs(r, true, addr, buf, len);
}
