/* dw_space: images at load biases; see dw_space.h. A sorted array of
 * mappings, binary-searched, and the distinct images sorted by path: one
 * image per file however often it is mapped (a library loaded and unloaded
 * 20,000 times is one open file, not 20,000). */
#include "dwarf/dw_space.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_cfi.h"

struct dw_mapping {
	uint64_t start, end, bias;
	struct dw_image *img;
};

struct dw_space {
	struct dw_mapping *maps;
	size_t n, cap;
	struct dw_image **imgs;    /* by dw_image_path, each once */
	size_t nimgs, capimgs;
};

/* Index of the first image whose path is not below @path; *@found if it is
 * @path's. */
static size_t dw_space_img_at(const struct dw_space *s, const char *path, bool *found)
{
	size_t lo = 0, hi = s->nimgs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(dw_image_path(s->imgs[mid]), path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < s->nimgs && strcmp(dw_image_path(s->imgs[lo]), path) == 0;
	return lo;
}

/* Notes @img as the image of its path (a handed-over image of a path
 * already known is kept apart: only dw_space_add shares). */
static int dw_space_img_note(struct dw_space *s, struct dw_image *img)
{
	bool found;
	size_t at = dw_space_img_at(s, dw_image_path(img), &found);

	if (found)
		return 0;
	if (s->nimgs == s->capimgs) {
		size_t nc = s->capimgs ? s->capimgs * 2 : 16;
		struct dw_image **ni = realloc(s->imgs, nc * sizeof(*ni));

		if (!ni)
			return -ENOMEM;
		s->imgs = ni;
		s->capimgs = nc;
	}
	memmove(&s->imgs[at + 1], &s->imgs[at], (s->nimgs - at) * sizeof(*s->imgs));
	s->imgs[at] = img;
	s->nimgs++;
	return 0;
}

static void dw_space_img_forget(struct dw_space *s, struct dw_image *img)
{
	bool found;
	size_t at = dw_space_img_at(s, dw_image_path(img), &found);

	if (found && s->imgs[at] == img) {
		memmove(&s->imgs[at], &s->imgs[at + 1], (s->nimgs - at - 1) * sizeof(*s->imgs));
		s->nimgs--;
	}
}

int dw_space_new(struct dw_space **out)
{
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

static void dw_space_release(struct dw_space *s, struct dw_image *img)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->maps[i].img == img)
			return; /* still mapped elsewhere */
	dw_space_img_forget(s, img);
	dw_image_free(img);
}

void dw_space_free(struct dw_space *s)
{
	if (!s)
		return;
	while (s->n > 0) {
		struct dw_image *img = s->maps[--s->n].img;

		dw_space_release(s, img);
	}
	free(s->maps);
	free(s->imgs);
	free(s);
}

/* Index of the first mapping with end > @addr. */
static size_t dw_space_upper(const struct dw_space *s, uint64_t addr)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->maps[mid].end <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int dw_space_add_image(struct dw_space *s, struct dw_image *img, uint64_t bias, uint64_t start, uint64_t end)
{
	size_t at;

	if (!img)
		return -EINVAL;
	at = dw_space_upper(s, start);
	if (end <= start || (at < s->n && s->maps[at].start < end)) {
		dw_space_release(s, img);
		return -EINVAL;
	}
	if (s->n == s->cap) {
		size_t nc = s->cap ? s->cap * 2 : 16;
		struct dw_mapping *nm = realloc(s->maps, nc * sizeof(*nm));

		if (!nm) {
			dw_space_release(s, img);
			return -ENOMEM;
		}
		s->maps = nm;
		s->cap = nc;
	}
	if (dw_space_img_note(s, img) < 0) {
		dw_space_release(s, img);
		return -ENOMEM;
	}
	memmove(&s->maps[at + 1], &s->maps[at], (s->n - at) * sizeof(*s->maps));
	s->maps[at] = (struct dw_mapping){ .start = start, .end = end, .bias = bias, .img = img };
	s->n++;
	return 0;
}

int dw_space_add(struct dw_space *s, const char *path, uint64_t bias, uint64_t start, uint64_t end)
{
	struct dw_image *img = NULL;
	bool found;
	size_t at;
	int rc;

	if (end <= start)
		return -EINVAL;
	/* One image per path: every mapping of one file shares it, at any
	 * bias (the bias is the mapping's, lookups subtract it). */
	at = dw_space_img_at(s, path, &found);
	if (found)
		img = s->imgs[at];
	if (!img) {
		rc = dw_image_open(path, &img);
		if (rc < 0)
			return rc;
	}
	return dw_space_add_image(s, img, bias, start, end);
}

int dw_space_remove(struct dw_space *s, uint64_t start)
{
	size_t at = dw_space_upper(s, start);
	struct dw_image *img;

	if (at >= s->n || s->maps[at].start > start)
		return -ENOENT;
	img = s->maps[at].img;
	memmove(&s->maps[at], &s->maps[at + 1], (s->n - at - 1) * sizeof(*s->maps));
	s->n--;
	dw_space_release(s, img);
	return 0;
}

int dw_space_lookup(struct dw_space *s, uint64_t addr, struct dw_location *out, struct dw_image **image)
{
	size_t at = dw_space_upper(s, addr);
	const struct dw_mapping *m;
	int rc;

	memset(out, 0, sizeof(*out));
	if (image)
		*image = NULL;
	if (at >= s->n || s->maps[at].start > addr)
		return -ENOENT;
	m = &s->maps[at];
	if (image)
		*image = m->img;
	rc = dw_image_lookup(m->img, addr - m->bias, out);
	if (rc == 0 && out->function_start)
		out->function_start += m->bias;
	if (rc == 0 && out->has_line)
		out->line_addr += m->bias;
	return rc;
}

int dw_space_cfi_row(struct dw_space *s, uint64_t addr, struct dw_cfi_row *out)
{
	size_t at = dw_space_upper(s, addr);
	const struct dw_mapping *m;
	int rc;

	if (at >= s->n || s->maps[at].start > addr)
		return -ESRCH;
	m = &s->maps[at];
	rc = dw_image_cfi_row(m->img, addr - m->bias, out);
	if (rc == 0) {
		out->start += m->bias;
		out->end += m->bias;
	}
	return rc;
}

int dw_space_msymbol(struct dw_space *s, uint64_t addr, const char **name, uint64_t *offset)
{
	size_t at = dw_space_upper(s, addr);

	/* The mapping holding @addr, else the one below it: a bss past the
	 * file's pages is an anonymous mapping, but the file's section. */
	if (at < s->n && s->maps[at].start <= addr)
		return dw_image_msymbol(s->maps[at].img, addr - s->maps[at].bias, name, offset);
	if (at == 0)
		return -ENOENT;
	return dw_image_msymbol(s->maps[at - 1].img, addr - s->maps[at - 1].bias, name, offset);
}

int dw_space_image_at(struct dw_space *s, uint64_t addr, struct dw_image **img, uint64_t *bias)
{
	size_t at = dw_space_upper(s, addr);

	if (at >= s->n || s->maps[at].start > addr)
		return -ESRCH;
	*img = s->maps[at].img;
	*bias = s->maps[at].bias;
	return 0;
}

int dw_space_image(struct dw_space *s, size_t i, struct dw_image **img, uint64_t *bias)
{
	size_t seen = 0;

	for (size_t k = 0; k < s->n; k++) {
		bool first = true;

		for (size_t j = 0; j < k && first; j++)
			first = s->maps[j].img != s->maps[k].img;
		if (first && seen++ == i) {
			*img = s->maps[k].img;
			*bias = s->maps[k].bias;
			return 0;
		}
	}
	return -ENOENT;
}
