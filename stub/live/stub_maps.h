/*
 * stub/live/stub_maps.h: /proc/PID/maps text to a memory region.
 *
 * For LLDB's qMemoryRegionInfo: the mapping that contains an address, or
 * the hole around it (from the end of the mapping below to the start of the
 * mapping above); for the files a debugger may read (stub_vfile), the
 * mapped files with their device and inode. Pure parsing of the text,
 * tested without a process.
 */
#ifndef HINDSIGHT_STUB_STUB_MAPS_H
#define HINDSIGHT_STUB_STUB_MAPS_H

#include <stdint.h>

#include "protocol/target.h"

/* Fills @out for @addr from the maps text @text (sorted by address, as
 * the kernel writes it). 0, or -EINVAL if a line cannot be parsed. */
int stub_maps_region(const char *text, uint64_t addr, struct rsp_region *out);

/* A mapping of a file: its path and the device (as st_dev encodes it)
 * and inode /proc/PID/maps gives. */
struct stub_maps_file {
	const char *path;
	uint64_t dev, ino;         /* as maps says: the superblock's device */
	uint64_t start, end;       /* the mapping, for /proc/PID/map_files */
};

/* Calls @fn for each mapping of a file in @text (a name starting with '/',
 * not " (deleted)"), in order, a file mapped several times as often; @f
 * lives for the call. 0, the first non-zero return of @fn, or -EINVAL if a
 * line cannot be parsed. */
int stub_maps_files(const char *text, int (*fn)(void *ctx, const struct stub_maps_file *f),
		    void *ctx);

/* The extent of the first mapping named @name ("[vdso]"): 0, -ENOENT, or
 * -EINVAL if a line before it cannot be parsed. */
int stub_maps_named(const char *text, const char *name, uint64_t *start, uint64_t *end);

#endif
