/* dw_space: the images of one process or recording at their load biases, so
 * a runtime address finds its image and is looked up at its file address
 * (runtime - bias). Images are opened lazily by path or handed over already
 * open. */
#ifndef DW_SPACE_H
#define DW_SPACE_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_image.h"

struct dw_cfi_row;

struct dw_space;

/* Returns 0 or -ENOMEM. */
int dw_space_new(struct dw_space **out);
/* Frees the space and every image it owns; NULL is fine. */
void dw_space_free(struct dw_space *s);

/* Maps [@start, @end) (runtime addresses) to the image at @path, loaded at
 * @bias (runtime = file address + bias; 0 for a non-PIE program). The image
 * is opened now. Returns 0, -EINVAL for an empty range or one overlapping
 * an earlier mapping, the errors of dw_image_open, -ENOMEM. */
int dw_space_add(struct dw_space *s, const char *path, uint64_t bias, uint64_t start, uint64_t end);
/* Same with an image already open; the space owns it from now on (also on
 * failure). */
int dw_space_add_image(struct dw_space *s, struct dw_image *img, uint64_t bias, uint64_t start, uint64_t end);
/* Removes the mapping holding @start (munmap, dlclose). Returns 0, -ENOENT. */
int dw_space_remove(struct dw_space *s, uint64_t start);

/* Looks @addr up in the image mapped there. out->function_start is a
 * runtime address. *@image (may be NULL) gets the image. Returns 0,
 * -ENOENT when no image is mapped at @addr or nothing is known of it. */
int dw_space_lookup(struct dw_space *s, uint64_t addr, struct dw_location *out, struct dw_image **image);

/* The minimal symbol naming runtime address @addr (dw_image_msymbol in the
 * image mapped there, or, for a bss past the file's pages, in the image
 * mapped just below): 0 with its name and @addr's offset, or -ENOENT. */
int dw_space_msymbol(struct dw_space *s, uint64_t addr, const char **name, uint64_t *offset);
/* The call frame rules at runtime address @addr (dw_image_cfi_row in the
 * image mapped there; out->start / end are runtime addresses, expressions
 * are the file's). Returns 0, -ESRCH when no image is mapped at @addr,
 * -ENOENT when the image has no FDE for it, dw_cfi_row_at's errors. */
int dw_space_cfi_row(struct dw_space *s, uint64_t addr, struct dw_cfi_row *out);

/* The image mapped at runtime address @addr and its bias. Returns 0,
 * -ESRCH when nothing is mapped there. */
int dw_space_image_at(struct dw_space *s, uint64_t addr, struct dw_image **img, uint64_t *bias);
/* The @i-th distinct image of the space (by the address of its first
 * mapping) and that mapping's bias: i = 0, 1, ... until -ENOENT. */
int dw_space_image(struct dw_space *s, size_t i, struct dw_image **img, uint64_t *bias);

#endif
