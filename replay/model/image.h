/*
 * replay/model/image.h: the process's executable memory at a logical time.
 *
 * A libipt image (struct pt_image) built from the bundle's mappings that
 * are valid at the decoder's current time, with every file section added
 * through one image section cache (pt_iscache_add_file +
 * pt_image_add_cached), so blocks decoded once are cached per section.
 * When the time leaves the span over which the set of mappings is the same,
 * a new image is built and handed to the decoder. The image also reads
 * instruction bytes for disassembly from the mapped files, each mmapped
 * once. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_IMAGE_H
#define HINDSIGHT_REPLAY_IMAGE_H

#include <stddef.h>
#include <stdint.h>

struct replay_bundle;
struct pt_image;
struct replay_image;

/* An image over @b's mappings (@b must outlive it). 0 or -ENOMEM. */
int replay_image_new(const struct replay_bundle *b, struct replay_image **out);
void replay_image_free(struct replay_image *img);

/* Makes the image hold the mappings valid at @time. Returns 1 and sets
 * *@image to a new libipt image when the set changed (the caller gives it
 * to its decoder; the old one stays valid until the next change), 0 when
 * nothing changed, -ENOMEM. Mappings whose file cannot be read are left
 * out (decoding them gives "no memory mapped" gaps). */
int replay_image_at(struct replay_image *img, uint64_t time, struct pt_image **image);

/* Copies up to @size bytes of code at @addr into @buf, from the section
 * @isid (a libipt section id from a block; 0 if unknown) or else from the
 * mapping valid at the current time, as the loader makes them: the file's
 * bytes, zero past its end in its last page and in a segment's bss. Returns
 * the number of bytes, up to the mapping's end (a partial read), or
 * -ENOENT if nothing is mapped there. */
int replay_image_read(struct replay_image *img, int isid, uint64_t addr, uint8_t *buf, size_t size);

/* The mapping (index into the bundle's maps) that holds @addr at the
 * current time, or -ENOENT. */
int replay_image_lookup(const struct replay_image *img, uint64_t addr);

#endif
