/*
 * replay/model/image.c: libipt images over the bundle's mappings, by time.
 *
 * Bytes are read as the loader and the kernel make them: a mapping of a
 * file shows its bytes page by page; the last page holding the file's end
 * reads as zero past it (a page wholly past the end faults); bytes of a
 * PT_LOAD segment past its file size, inside its memory size, are zero
 * (bss: the loader clears the rest of the page and maps zero pages). The
 * libipt sections stay the file's bytes: decoding never runs in a bss.
 *
 * Code the program made itself (the Valgrind and software recorders keep
 * it, one mapping per version of a page: thousands for a JIT) is not in the
 * libipt image, whose every change would otherwise add each section again:
 * libipt reads it through the image's callback, from the version valid at
 * the time the decoder last gave (an index sorted by page and time).
 *
 * Each file is opened once, through dw_open_regular (which refuses what the
 * recording's owner could not read, dwarf/dw_access.h), and kept open: libipt,
 * the bytes and the ELF segments all read it as /proc/self/fd/N, so a name
 * swapped for a link to another file after the check reads nothing else.
 */
#include "replay/model/image.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"

#define PAGE 4096u

struct image_map {
	int fd;                    /* the file, checked; -1 not opened yet */
	bool fd_shared;            /* another mapping's fd (same file name) */
	int isid;                  /* in the section cache; 0 not added yet */
	bool failed;               /* the file could not be added or mapped */
	bool active;               /* valid at the current time */
	const uint8_t *bytes;      /* the whole file, mmapped on first read */
	bool bytes_shared;         /* another mapping's (the same file) */
	size_t fsize;
	/* The file's PT_LOAD segments and this mapping's load bias (runtime
	 * = file address + bias), for the bytes the loader zeroes; none when
	 * the file is no ELF file. */
	struct replay_elf_segment *segs;
	int nsegs;
	uint64_t bias;
};

struct replay_image {
	const struct replay_bundle *b;
	struct pt_image_section_cache *iscache;
	struct pt_image *image;    /* the current one */
	struct pt_image *old;      /* the previous one, freed at the next change */
	struct image_map *maps;
	uint64_t lo, hi;           /* the set of active mappings holds in [lo, hi) */
	bool built;
	/* The mappings of generated code (replay_mapping_generated), by
	 * start and time; the time the decoder gave last. */
	size_t *gen;
	size_t ngen;
	uint64_t now;
	size_t gen_first;          /* the one whose file the others share, once read */
	bool gen_read_once;
};

static int gen_order(const void *a, const void *b, void *ctx)
{
	const struct replay_bundle *bu = ctx;
	const struct replay_mapping *x = &bu->maps[*(const size_t *)a];
	const struct replay_mapping *y = &bu->maps[*(const size_t *)b];

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->time_map < y->time_map ? -1 : x->time_map > y->time_map;
}

/* The generated code's mapping that holds @addr at img->now, or -ENOENT. */
static int gen_find(const struct replay_image *img, uint64_t addr)
{
	size_t lo = 0, hi = img->ngen;

	/* The first whose start is above @addr; the ones before it start at
	 * or below it (pages: one start holds it, versions over time). */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (img->b->maps[img->gen[mid]].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct replay_mapping *m = &img->b->maps[img->gen[lo]];

		if (addr - m->start >= m->size)
			return -ENOENT;
		if (m->time_map <= img->now && img->now < m->time_unmap)
			return (int)img->gen[lo];
	}
	return -ENOENT;
}

int replay_image_new(const struct replay_bundle *b, struct replay_image **out)
{
	struct replay_image *img = calloc(1, sizeof(*img));

	*out = NULL;
	if (!img)
		return -ENOMEM;
	img->b = b;
	img->maps = calloc(b->nmaps ? b->nmaps : 1, sizeof(*img->maps));
	img->iscache = pt_iscache_alloc(NULL);
	if (!img->maps || !img->iscache) {
		replay_image_free(img);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->nmaps; i++) {
		img->maps[i].fd = -1;
		img->ngen += replay_mapping_generated(&b->maps[i]);
	}
	if (img->ngen && !(img->gen = malloc(img->ngen * sizeof(*img->gen)))) {
		replay_image_free(img);
		return -ENOMEM;
	}
	img->ngen = 0;
	for (size_t i = 0; i < b->nmaps; i++)
		if (replay_mapping_generated(&b->maps[i]))
			img->gen[img->ngen++] = i;
	if (img->ngen)
		qsort_r(img->gen, img->ngen, sizeof(*img->gen), gen_order, (void *)b);
	*out = img;
	return 0;
}

void replay_image_free(struct replay_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->b->nmaps; i++) {
		if (img->maps[i].bytes && !img->maps[i].bytes_shared)
			munmap((void *)img->maps[i].bytes, img->maps[i].fsize);
		if (img->maps[i].fd >= 0 && !img->maps[i].fd_shared)
			close(img->maps[i].fd);
		free(img->maps[i].segs);
	}
	pt_image_free(img->image);
	pt_image_free(img->old);
	pt_iscache_free(img->iscache);
	free(img->maps);
	free(img->gen);
	free(img);
}

static int read_map(struct replay_image *img, size_t i, uint64_t addr, uint8_t *buf,
		    size_t size);

/* libipt's read where no section holds @ip: generated code, as of the time
 * the decoder gave last. */
static int gen_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		    void *ctx)
{
	struct replay_image *img = ctx;
	int i = gen_find(img, ip), n;

	(void)asid;
	if (i < 0)
		return -pte_nomap;
	n = read_map(img, (size_t)i, ip, buf, size);
	return n > 0 ? n : -pte_nomap;
}

static bool valid_at(const struct replay_mapping *m, uint64_t t)
{
	return m->time_map <= t && t < m->time_unmap;
}

/* The span around @t over which no mapping appears or goes. */
static void span(struct replay_image *img, uint64_t t)
{
	img->lo = 0;
	img->hi = UINT64_MAX;
	for (size_t i = 0; i < img->b->nmaps; i++) {
		const struct replay_mapping *m = &img->b->maps[i];
		uint64_t edges[2] = { m->time_map, m->time_unmap };

		if (replay_mapping_generated(m))
			continue;          /* read through the callback, by time */
		for (int e = 0; e < 2; e++) {
			if (edges[e] <= t && edges[e] > img->lo)
				img->lo = edges[e];
			if (edges[e] > t && edges[e] < img->hi)
				img->hi = edges[e];
		}
	}
}

/* Mapping @i's file opened and checked (once per file name), and the
 * name every reader uses for it, /proc/self/fd/N, in @path. 0 or -errno. */
static int map_fd(struct replay_image *img, size_t i, char *path, size_t size)
{
	const struct replay_mapping *m = &img->b->maps[i];
	struct image_map *im = &img->maps[i];
	char real[4096];
	int fd;

	if (!m->file)
		return -ENOENT;
	if (im->fd < 0 && replay_mapping_generated(m) && img->gen_read_once &&
	    img->maps[img->gen_first].fd >= 0 && !strcmp(img->b->maps[img->gen_first].file, m->file)) {
		/* Thousands of versions of pages in one file: not looked for
		 * among every mapping each time. */
		im->fd = img->maps[img->gen_first].fd;
		im->fd_shared = true;
	}
	if (im->fd < 0) {
		for (size_t k = 0; k < img->b->nmaps && im->fd < 0; k++)
			if (k != i && img->maps[k].fd >= 0 && img->b->maps[k].file &&
			    strcmp(img->b->maps[k].file, m->file) == 0) {
				im->fd = img->maps[k].fd;
				im->fd_shared = true;
			}
	}
	if (im->fd < 0) {
		if (replay_bundle_path(img->b, m->file, real, sizeof(real)) < 0)
			return -ENAMETOOLONG;
		fd = dw_open_regular(real);
		if (fd < 0)
			return fd;
		im->fd = fd;
	}
	return snprintf(path, size, "/proc/self/fd/%d", im->fd) >= (int)size ? -ENAMETOOLONG : 0;
}

static int add_section(struct replay_image *img, struct pt_image *image, size_t i)
{
	const struct replay_mapping *m = &img->b->maps[i];
	struct image_map *im = &img->maps[i];
	char path[64];
	int isid;

	if (im->failed)
		return 0;
	if (!im->isid) {
		if (map_fd(img, i, path, sizeof(path)) < 0) {
			im->failed = true;
			return 0;
		}
		isid = pt_iscache_add_file(img->iscache, path, m->offset, m->size, m->start);
		if (isid <= 0) {
			im->failed = true;
			return isid == -pte_nomem ? -ENOMEM : 0;
		}
		im->isid = isid;
	}
	if (pt_image_add_cached(image, img->iscache, im->isid, NULL) < 0)
		im->failed = true;
	return 0;
}

int replay_image_at(struct replay_image *img, uint64_t time, struct pt_image **image)
{
	struct pt_image *fresh;
	int rc;

	img->now = time;
	if (img->built && img->lo <= time && time < img->hi)
		return 0;
	fresh = pt_image_alloc(NULL);
	if (!fresh)
		return -ENOMEM;
	if (img->ngen && pt_image_set_callback(fresh, gen_read, img) < 0) {
		pt_image_free(fresh);
		return -ENOMEM;
	}
	for (size_t i = 0; i < img->b->nmaps; i++) {
		img->maps[i].active = valid_at(&img->b->maps[i], time) &&
				      !replay_mapping_generated(&img->b->maps[i]);
		if (img->maps[i].active && (rc = add_section(img, fresh, i)) < 0) {
			pt_image_free(fresh);
			return rc;
		}
	}
	span(img, time);
	pt_image_free(img->old);
	img->old = img->image;
	img->image = fresh;
	img->built = true;
	*image = fresh;
	return 1;
}

int replay_image_lookup(const struct replay_image *img, uint64_t addr)
{
	for (size_t i = 0; i < img->b->nmaps; i++) {
		const struct replay_mapping *m = &img->b->maps[i];

		if (img->maps[i].active && addr >= m->start && addr - m->start < m->size)
			return (int)i;
	}
	return gen_find(img, addr);
}

/* The load bias of mapping @m of an ELF file of type @type with segments
 * @segs: 0 for an executable (ET_EXEC), else from the one segment whose
 * pages hold the mapping's offset. -ENOENT when that is not one segment
 * (two segments sharing a file page: which one this is cannot be told). */
static int mapping_bias(const struct replay_mapping *m, unsigned type,
			const struct replay_elf_segment *segs, int n, uint64_t *bias)
{
	int found = -1;

	if (type == ET_EXEC) {
		*bias = 0;
		return 0;
	}
	for (int k = 0; k < n; k++) {
		if (m->offset < segs[k].offset || m->offset - segs[k].offset >= segs[k].pages)
			continue;
		if (found >= 0)
			return -ENOENT;
		found = k;
	}
	if (found < 0)
		return -ENOENT;
	*bias = m->start - (segs[found].vaddr + (m->offset - segs[found].offset));
	return 0;
}

/* The segments of mapping @i's file at @path, when it is an ELF file
 * whose segments place the mapping (for its bss). */
static void load_segments(struct replay_image *img, size_t i, const char *path)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	struct image_map *im = &img->maps[i];
	Elf64_Ehdr eh;
	int n;

	if (im->fsize < sizeof(eh))
		return;
	memcpy(&eh, im->bytes, sizeof(eh));
	n = replay_elf_load_segments(path, segs);
	if (n <= 0 || mapping_bias(&img->b->maps[i], eh.e_type, segs, n, &im->bias) < 0)
		return;
	im->segs = malloc((size_t)n * sizeof(*segs));
	if (!im->segs)
		return;
	memcpy(im->segs, segs, (size_t)n * sizeof(*segs));
	im->nsegs = n;
}

static int map_file(struct replay_image *img, size_t i)
{
	struct image_map *im = &img->maps[i];
	char path[64];
	struct stat st;
	void *p;
	int r;

	if (im->bytes)
		return 0;
	r = map_fd(img, i, path, sizeof(path));
	if (r < 0)
		return r;
	/* A file many mappings name (a library's segments; the pages of
	 * code a program made, thousands of versions in one file) is
	 * mapped once. */
	if (replay_mapping_generated(&img->b->maps[i]) && img->gen_read_once &&
	    img->maps[img->gen_first].fd == im->fd && img->maps[img->gen_first].bytes) {
		im->bytes = img->maps[img->gen_first].bytes;
		im->fsize = img->maps[img->gen_first].fsize;
		im->bytes_shared = true;
		return 0;          /* no ELF file: no segments */
	}
	for (size_t k = 0; k < img->b->nmaps && !im->bytes; k++)
		if (k != i && img->maps[k].fd == im->fd && img->maps[k].bytes) {
			im->bytes = img->maps[k].bytes;
			im->fsize = img->maps[k].fsize;
			im->bytes_shared = true;
		}
	if (!im->bytes) {
		if (fstat(im->fd, &st) < 0 || st.st_size <= 0)
			return -EINVAL;
		p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, im->fd, 0);
		if (p == MAP_FAILED)
			return -errno;
		im->bytes = p;
		im->fsize = (size_t)st.st_size;
	}
	if (!replay_mapping_generated(&img->b->maps[i]))
		load_segments(img, i, path);
	else if (!img->gen_read_once) {
		img->gen_first = i;
		img->gen_read_once = true;
	}
	return 0;
}

/* Clears the bytes of [@addr, @addr + @size) in @buf that are a segment's
 * bss in mapping @im: from its file size to its memory size, and at least
 * to the end of that page (the loader clears it: padzero, ld.so). */
static void clear_bss(const struct image_map *im, uint64_t addr, uint8_t *buf, size_t size)
{
	for (int k = 0; k < im->nsegs; k++) {
		const struct replay_elf_segment *g = &im->segs[k];
		uint64_t lo = g->file_end + im->bias, hi = g->mem_end + im->bias;
		uint64_t page_end = (lo + PAGE - 1) & ~(uint64_t)(PAGE - 1);

		if (g->mem_end <= g->file_end)
			continue;
		if (hi < page_end)
			hi = page_end;
		if (lo < addr)
			lo = addr;
		if (hi > addr + size)
			hi = addr + size;
		if (lo < hi)
			memset(buf + (lo - addr), 0, hi - lo);
	}
}

static int read_map(struct replay_image *img, size_t i, uint64_t addr, uint8_t *buf, size_t size)
{
	const struct replay_mapping *m = &img->b->maps[i];
	const struct image_map *im = &img->maps[i];
	uint64_t rel = addr - m->start, off, pages, in_file;

	if (addr < m->start || rel >= m->size || map_file(img, i) < 0)
		return -ENOENT;
	off = m->offset + rel;
	pages = ((uint64_t)im->fsize + PAGE - 1) & ~(uint64_t)(PAGE - 1);
	if (off >= pages)
		return -ENOENT;     /* past the file's last page: a fault */
	if (size > m->size - rel)
		size = m->size - rel;
	if (size > pages - off)
		size = pages - off;
	in_file = off < im->fsize ? im->fsize - off : 0;
	if (in_file > size)
		in_file = size;
	memcpy(buf, im->bytes + off, in_file);
	memset(buf + in_file, 0, size - in_file);
	clear_bss(im, addr, buf, size);
	return (int)size;
}

int replay_image_read(struct replay_image *img, int isid, uint64_t addr, uint8_t *buf, size_t size)
{
	int i;

	if (isid > 0)
		for (size_t k = 0; k < img->b->nmaps; k++)
			if (img->maps[k].isid == isid && img->maps[k].active)
				return read_map(img, k, addr, buf, size);
	i = replay_image_lookup(img, addr);
	return i < 0 ? i : read_map(img, (size_t)i, addr, buf, size);
}
