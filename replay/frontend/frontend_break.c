/*
 * replay/frontend/frontend_break.c: FUNC, FILE:LINE, LINE and *ADDR into addresses
 * (see frontend_break.h).
 */
#include "replay/frontend/frontend_break.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_image.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/frontend/frontend.h"

#define PROLOGUE_MAX 256   /* bytes looked at for the end of a prologue */
#define LINES_AHEAD 10

struct fb_image {
	struct dw_image *img;
	uint64_t bias;
	char *path;
};

struct fb_images {
	struct fb_image *v;
	size_t n;
};

static bool fb_has(const struct fb_images *im, const char *path)
{
	for (size_t i = 0; i < im->n; i++)
		if (!strcmp(im->v[i].path, path))
			return true;
	return false;
}

/* The images of every mapped file, opened once. */
static struct fb_images *fb_images(struct replay_frontend *f)
{
	struct fb_images *im = f->images;
	char path[4096];

	if (im)
		return im;
	im = calloc(1, sizeof(*im));
	if (!im || !(im->v = calloc(f->b->nmaps ? f->b->nmaps : 1, sizeof(*im->v)))) {
		free(im);
		return NULL;
	}
	for (size_t i = 0; i < f->b->nmaps; i++) {
		const struct replay_mapping *m = &f->b->maps[i];
		struct fb_image *e = &im->v[im->n];

		if (replay_bundle_path(f->b, m->file, path, sizeof(path)) || fb_has(im, path) ||
		    replay_elf_mapping_bias(path, m->start, m->offset, &e->bias) ||
		    dw_image_open(path, &e->img) < 0)
			continue;
		e->path = strdup(path);
		if (!e->path) {
			dw_image_free(e->img);
			continue;
		}
		im->n++;
	}
	f->images = im;
	return im;
}

void replay_frontend_images_free(struct replay_frontend *f)
{
	struct fb_images *im = f->images;

	if (!im)
		return;
	for (size_t i = 0; i < im->n; i++) {
		dw_image_free(im->v[i].img);
		free(im->v[i].path);
	}
	free(im->v);
	free(im);
	f->images = NULL;
}

/* The first address after @entry on another line of the same function. */
static uint64_t fb_skip_prologue(struct replay_frontend *f, uint64_t entry)
{
	struct replay_symbol s0, s;

	if (f->sym.lookup(f->sym.ctx, entry, &s0) < 0 || !s0.file)
		return entry;
	for (uint64_t a = entry + 1; a < entry + PROLOGUE_MAX; a++) {
		if (f->sym.lookup(f->sym.ctx, a, &s) < 0 || s.start != s0.start)
			break;
		if (s.file && s.line && s.line != s0.line)
			return a;
	}
	return entry;
}

static int fb_function(struct replay_frontend *f, const char *name, uint64_t *addrs, size_t max)
{
	struct fb_images *im = fb_images(f);
	size_t n = 0;

	if (!im)
		return -ENOMEM;
	for (size_t i = 0; i < im->n && n < max; i++) {
		uint64_t got[REPLAY_FRONTEND_MAX_ADDRS];
		int k = dw_image_function_addrs(im->v[i].img, name, got, REPLAY_FRONTEND_MAX_ADDRS);

		for (int j = 0; j < k && j < REPLAY_FRONTEND_MAX_ADDRS && n < max; j++)
			addrs[n++] = fb_skip_prologue(f, got[j] + im->v[i].bias);
		/* The program's own definition wins over libraries'. */
		if (n)
			break;
	}
	return (int)n;
}

static int fb_line(struct replay_frontend *f, const char *file, unsigned line, uint64_t *addrs,
		   size_t max)
{
	struct fb_images *im = fb_images(f);
	size_t n = 0;

	if (!im)
		return -ENOMEM;
	for (unsigned l = line; l < line + LINES_AHEAD && !n; l++) {
		for (size_t i = 0; i < im->n && n < max; i++) {
			uint64_t got[REPLAY_FRONTEND_MAX_ADDRS];
			int k = dw_image_line_addrs(im->v[i].img, file, l, got,
						    REPLAY_FRONTEND_MAX_ADDRS);

			for (int j = 0; j < k && j < REPLAY_FRONTEND_MAX_ADDRS && n < max; j++)
				addrs[n++] = got[j] + im->v[i].bias;
		}
	}
	return (int)n;
}

static int fb_number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

int replay_frontend_resolve(struct replay_frontend *f, const char *spec, uint64_t *addrs,
			    size_t max)
{
	const char *colon = strrchr(spec, ':');
	struct replay_symbol s;
	uint64_t v, pc;

	if (!*spec || max == 0)
		return -EINVAL;
	if (spec[0] == '*') {
		if (fb_number(spec + 1, &v) < 0)
			return -EINVAL;
		addrs[0] = v;
		return 1;
	}
	if (colon && colon != spec && !strchr(colon, ' ')) {
		char file[1024];

		if (fb_number(colon + 1, &v) < 0 || v == 0 || v > 10000000 ||
		    (size_t)(colon - spec) >= sizeof(file))
			return -EINVAL;
		memcpy(file, spec, (size_t)(colon - spec));
		file[colon - spec] = 0;
		return fb_line(f, file, (unsigned)v, addrs, max);
	}
	if (fb_number(spec, &v) == 0) {
		if (replay_frontend_where(f, &pc, &s) < 0 || !s.file || v == 0 || v > 10000000)
			return -EINVAL;
		return fb_line(f, s.file, (unsigned)v, addrs, max);
	}
	return fb_function(f, spec, addrs, max);
}
