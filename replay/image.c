/*
 * replay/image.c: libipt images over the bundle's mappings, by time.
 */
#include "replay/image.h"

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
#include "replay/bundle.h"

struct image_map {
	int isid;                  /* in the section cache; 0 not added yet */
	bool failed;               /* the file could not be added or mapped */
	bool active;               /* valid at the current time */
	const uint8_t *bytes;      /* the whole file, mmapped on first read */
	size_t fsize;
};

struct replay_image {
	const struct replay_bundle *b;
	struct pt_image_section_cache *iscache;
	struct pt_image *image;    /* the current one */
	struct pt_image *old;      /* the previous one, freed at the next change */
	struct image_map *maps;
	uint64_t lo, hi;           /* the set of active mappings holds in [lo, hi) */
	bool built;
};

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
	*out = img;
	return 0;
}

void replay_image_free(struct replay_image *img)
{
	if (!img)
		return;
	for (size_t i = 0; i < img->b->nmaps; i++)
		if (img->maps[i].bytes)
			munmap((void *)img->maps[i].bytes, img->maps[i].fsize);
	pt_image_free(img->image);
	pt_image_free(img->old);
	pt_iscache_free(img->iscache);
	free(img->maps);
	free(img);
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

		for (int e = 0; e < 2; e++) {
			if (edges[e] <= t && edges[e] > img->lo)
				img->lo = edges[e];
			if (edges[e] > t && edges[e] < img->hi)
				img->hi = edges[e];
		}
	}
}

static int add_section(struct replay_image *img, struct pt_image *image, size_t i)
{
	const struct replay_mapping *m = &img->b->maps[i];
	struct image_map *im = &img->maps[i];
	char path[4096];
	int isid;

	if (im->failed)
		return 0;
	if (!im->isid) {
		if (replay_bundle_path(img->b, m->file, path, sizeof(path)) < 0) {
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

	if (img->built && img->lo <= time && time < img->hi)
		return 0;
	fresh = pt_image_alloc(NULL);
	if (!fresh)
		return -ENOMEM;
	for (size_t i = 0; i < img->b->nmaps; i++) {
		img->maps[i].active = valid_at(&img->b->maps[i], time);
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
	return -ENOENT;
}

static int map_file(struct replay_image *img, size_t i)
{
	struct image_map *im = &img->maps[i];
	char path[4096];
	struct stat st;
	void *p;
	int fd;

	if (im->bytes)
		return 0;
	if (replay_bundle_path(img->b, img->b->maps[i].file, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = dw_open_regular(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0 || st.st_size <= 0) {
		close(fd);
		return -EINVAL;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	im->bytes = p;
	im->fsize = (size_t)st.st_size;
	return 0;
}

static int read_map(struct replay_image *img, size_t i, uint64_t addr, uint8_t *buf, size_t size)
{
	const struct replay_mapping *m = &img->b->maps[i];
	uint64_t rel = addr - m->start, off;

	if (addr < m->start || rel >= m->size || map_file(img, i) < 0)
		return -ENOENT;
	off = m->offset + rel;
	if (off >= img->maps[i].fsize)
		return -ENOENT;
	if (size > m->size - rel)
		size = m->size - rel;
	if (size > img->maps[i].fsize - off)
		size = img->maps[i].fsize - off;
	memcpy(buf, img->maps[i].bytes + off, size);
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
