/* dwarf/dw_range.h: address ranges and the sorted tables made of them: a
 * DIE's ranges as DWARF gives them (DW_AT_low_pc / DW_AT_high_pc or
 * DW_AT_ranges, DWARF 4 and 5), sorting with watermarks, and every range
 * holding an address. dw_debug keeps its units' ranges so (dw_debug.h
 * includes this), dw_unit its functions'. Internal to dwarf/ and its
 * readers of the unit index. */
#ifndef DW_RANGE_H
#define DW_RANGE_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stddef.h>
#include <stdint.h>

struct dw_debug;

/* An address range owned by something (a unit or a function), by index. */
struct dw_range {
	uint64_t low, high;
	uint64_t watermark; /* greatest high of this and every earlier entry */
	uint32_t owner;
};

/* Ranges of @die: DW_AT_low_pc/high_pc or DW_AT_ranges (DWARF 4 and 5), each
 * non-empty range appended to *@out as owned by @owner. @base is the unit's
 * base address for DWARF 4 range lists. A list that cannot be read marks
 * @d damaged. Returns the number added, -ENOMEM. */
int dw_ranges_read(struct dw_debug *d, Dwarf_Die die, uint64_t base, uint32_t owner,
		   struct dw_range **out, size_t *n, size_t *cap);
/* Sorts ranges by low and fills watermarks. */
void dw_ranges_sort(struct dw_range *r, size_t n);
/* Calls @fn for every range holding @addr, from the highest low downwards;
 * stops when @fn returns nonzero. */
void dw_ranges_each(const struct dw_range *r, size_t n, uint64_t addr,
		    int (*fn)(const struct dw_range *, void *), void *arg);

#endif
