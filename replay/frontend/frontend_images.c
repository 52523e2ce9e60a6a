/*
 * replay/frontend/frontend_images.c: the DWARF images of the recording's
 * mapped files and their ELF symbols (see frontend_images.h). Below
 * frontend_break.c and frontend_vars.c, which both look things up in
 * them; it needs nothing of the session but its bundle.
 */
#include "replay/frontend/frontend_images.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_break.h"
#include "dwarf/dw_image.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/frontend/frontend.h"

static bool has(const struct replay_frontend_images *im, const char *path)
{
	for (size_t i = 0; i < im->n; i++)
		if (!strcmp(im->v[i].path, path))
			return true;
	return false;
}

/* The images of every mapped file, opened once. */
struct replay_frontend_images *replay_frontend_images(struct replay_frontend *f)
{
	struct replay_frontend_images *im = f->images;
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
		struct replay_frontend_image *e = &im->v[im->n];

		if (replay_mapping_generated(m) ||
		    replay_bundle_path(f->b, m->file, path, sizeof(path)) || has(im, path) ||
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
	struct replay_frontend_images *im = f->images;

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

int replay_frontend_msymbol_addr(struct replay_frontend *f, const char *name, uint64_t *addr)
{
	struct replay_frontend_images *im = replay_frontend_images(f);

	if (!im)
		return -ENOMEM;
	for (size_t i = 0; i < im->n; i++)
		if (dw_image_symbol_addr(im->v[i].img, name, addr) == 0) {
			*addr += im->v[i].bias;
			return 0;
		}
	return -ENOENT;
}
