/* dw_debugfile: finding the separate debug file of an ELF image, the way gdb
 * and bfd do: by build-id under <root>/.build-id/xx/rest.debug (the file's
 * build-id must match), then by .gnu_debuglink next to the image, in its
 * .debug/ directory and under <root>/<image's directory> (the CRC must
 * match). The root is /usr/lib/debug. */
#ifndef DW_DEBUGFILE_H
#define DW_DEBUGFILE_H

#include <stddef.h>

#include "dwarf/dw_elf.h"

/* Looks for the debug file of @img (opened from @path). Returns 0 with the
 * opened file in *@out and its path in @found, -ENOENT when there is none
 * (@found then names what was looked for, or is empty), -ENOMEM. */
int dw_debugfile_find(struct dw_elf *img, const char *path, struct dw_elf **out, char *found, size_t max);

/* CRC-32 as .gnu_debuglink uses it (the zlib / IEEE polynomial). */
uint32_t dw_crc32(uint32_t crc, const void *buf, size_t len);

#endif
