/*
 * stub/stub_maps.h: /proc/PID/maps text to a memory region.
 *
 * For LLDB's qMemoryRegionInfo: the mapping that contains an address, or
 * the hole around it (from the end of the mapping below to the start of the
 * mapping above). Pure parsing of the text, tested without a process.
 */
#ifndef HINDSIGHT_STUB_STUB_MAPS_H
#define HINDSIGHT_STUB_STUB_MAPS_H

#include <stdint.h>

#include "protocol/target.h"

/* Fills @out for @addr from the maps text @text (sorted by address, as
 * the kernel writes it). 0, or -EINVAL if a line cannot be parsed. */
int stub_maps_region(const char *text, uint64_t addr, struct rsp_region *out);

#endif
