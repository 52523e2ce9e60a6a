/*
 * replay/frontend/frontend_images.h: the DWARF images of a recording's
 * mapped files, each at its load bias, opened once per session on first
 * use (f->images) and freed with it. Breakpoint locations
 * (frontend_break.c) look names and lines up in them, the C evaluator
 * (frontend_vars.c) functions known only by an ELF symbol. Both sit above
 * this file, and it calls nothing of theirs: a room-internal header, not
 * a door. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_IMAGES_H
#define HINDSIGHT_REPLAY_FRONTEND_IMAGES_H

#include <stddef.h>
#include <stdint.h>

struct dw_image;
struct replay_frontend;

struct replay_frontend_image {
	struct dw_image *img;
	uint64_t bias;             /* where the recording loaded it */
	char *path;
};

struct replay_frontend_images {
	struct replay_frontend_image *v; /* one per file, in mapping order */
	size_t n;
};

/* The images (opened now if need be; files that cannot be read are
 * skipped), or NULL on ENOMEM. They live as long as the session. */
struct replay_frontend_images *replay_frontend_images(struct replay_frontend *f);
/* Frees them (replay_frontend_free calls this). */
void replay_frontend_images_free(struct replay_frontend *f);

/* The address of the ELF function symbol @name (a global one of any
 * image first, as GDB's lookup_minimal_symbol): 0, -ENOENT, -ENOMEM. */
int replay_frontend_msymbol_addr(struct replay_frontend *f, const char *name, uint64_t *addr);

#endif
