/* dw_space: images at load biases; see dw_space.h. A sorted array of
 * mappings, binary-searched. */
#include "dwarf/dw_space.h"

#include <errno.h>
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
};

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
	memmove(&s->maps[at + 1], &s->maps[at], (s->n - at) * sizeof(*s->maps));
	s->maps[at] = (struct dw_mapping){ .start = start, .end = end, .bias = bias, .img = img };
	s->n++;
	return 0;
}

int dw_space_add(struct dw_space *s, const char *path, uint64_t bias, uint64_t start, uint64_t end)
{
	struct dw_image *img = NULL;
	int rc;

	if (end <= start)
		return -EINVAL;
	/* One image per path: several mappings of one file share it. */
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(dw_image_path(s->maps[i].img), path) == 0 && s->maps[i].bias == bias)
			img = s->maps[i].img;
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
