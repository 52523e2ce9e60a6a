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
#include "dwarf/dw_range.h"

struct dw_unit;
struct dw_vars_cache;

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
	/* What dw_types.c keeps for this debug (the types read so far, the
	 * name index) and how it is freed: dw_types sits above this file, so
	 * dw_debug_close frees it through the function left with it. */
	struct dw_vars_cache *vars;
	void (*vars_free)(struct dw_vars_cache *);
};

/* Opens libdwarf over @elf. Returns 0, -ENODATA when @elf has no
 * .debug_info, -EIO when libdwarf refuses it, -ENOMEM. */
int dw_debug_open(struct dw_debug *d, struct dw_elf *elf, struct dw_pool *pool);
void dw_debug_close(struct dw_debug *d);
/* Builds the unit index once. Returns 0 or -ENOMEM; a damaged unit only
 * ends the index early (d->damaged). */
int dw_debug_index(struct dw_debug *d);

#endif
