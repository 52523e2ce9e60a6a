/* dw_debug: the DWARF of one ELF file (the program itself or its separate
 * debug file) through libdwarf, and the index of its compilation units.
 * libdwarf reads sections through dw_elf (see dw_debug.c), so compressed
 * sections are inflated by libelf and nothing is read before it is needed.
 * The unit index (each CU's address ranges, sorted) is built on the first
 * lookup; a unit's line table and function tree only when an address falls
 * in it (dw_unit.h). */
#ifndef DW_DEBUG_H
#define DW_DEBUG_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_pool.h"

struct dw_unit;
struct dw_vars_cache;

/* An address range owned by something (a unit or a function), by index. */
struct dw_range {
	uint64_t low, high;
	uint64_t watermark; /* greatest high of this and every earlier entry */
	uint32_t owner;
};

struct dw_debug {
	struct dw_elf *elf;             /* borrowed */
	struct dw_pool *pool;           /* borrowed */
	Dwarf_Obj_Access_Interface iface;
	Dwarf_Debug dbg;
	bool indexed;
	bool damaged;                   /* some unit or table could not be read */
	struct dw_unit *units;
	size_t nunits;
	struct dw_range *ranges;        /* unit ranges, sorted by low */
	size_t nranges;
	uint32_t *rangeless;            /* units with no ranges: checked through their lines */
	size_t nrangeless;
	struct dw_vars_cache *vars;     /* types read so far, names indexed (dw_vars.c) */
};

/* Opens libdwarf over @elf. Returns 0, -ENODATA when @elf has no
 * .debug_info, -EIO when libdwarf refuses it, -ENOMEM. */
int dw_debug_open(struct dw_debug *d, struct dw_elf *elf, struct dw_pool *pool);
void dw_debug_close(struct dw_debug *d);
/* Builds the unit index once. Returns 0 or -ENOMEM; a damaged unit only
 * ends the index early (d->damaged). */
int dw_debug_index(struct dw_debug *d);

/* Ranges of @die: DW_AT_low_pc/high_pc or DW_AT_ranges (DWARF 4 and 5), each
 * non-empty range appended to *@out as owned by @owner. @base is the unit's
 * base address for DWARF 4 range lists. Returns the number added, -ENOMEM. */
int dw_debug_die_ranges(struct dw_debug *d, Dwarf_Die die, uint64_t base, uint32_t owner,
			struct dw_range **out, size_t *n, size_t *cap);
/* Sorts ranges by low and fills watermarks. */
void dw_ranges_sort(struct dw_range *r, size_t n);
/* Calls @fn for every range holding @addr, from the highest low downwards;
 * stops when @fn returns nonzero. */
void dw_ranges_each(const struct dw_range *r, size_t n, uint64_t addr,
		    int (*fn)(const struct dw_range *, void *), void *arg);

/* Small wrappers that never leak a Dwarf_Error. */
bool dw_attr_string(struct dw_debug *d, Dwarf_Die die, Dwarf_Half name, const char **out);
bool dw_attr_udata(struct dw_debug *d, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *out);
void dw_err_free(struct dw_debug *d, Dwarf_Error err);
/* Frees @err (may be NULL) of @dbg; NULL @dbg only for errors of dwarf_object_init_b. */
void dw_err_drop(Dwarf_Debug dbg, Dwarf_Error err);

#endif
