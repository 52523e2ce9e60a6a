/* dw_vars_int.h: what the files behind dw_vars.h share (inside dwarf/
 * only). dw_vars_loc.c, the lowest, gives a unit's reading context,
 * location expressions at a pc and one variable read; dw_vars.c the path
 * of scopes down to a pc; dw_vars_names.c and dw_callsite.c build on
 * them, and nothing calls back up. */
#ifndef DW_VARS_INT_H
#define DW_VARS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_debug.h"

struct dw_var;

enum { MAX_PATH = 256 };

/* What a unit says about reading its location lists. */
struct unit_ctx {
	struct dw_debug *d;
	uint16_t version;
	uint64_t base;          /* DW_AT_low_pc: the base of lists and ranges */
	uint64_t addr_base;     /* DW_AT_addr_base (DWARF 5) */
	uint64_t loclists_base; /* DW_AT_loclists_base */
	uint64_t header;        /* the unit header's offset: typed operations' DIEs count from it */
	uint64_t pc;
	bool nomem;
};

struct path {
	uint64_t die[MAX_PATH];
	Dwarf_Half tag[MAX_PATH];
	size_t n;
};

/* --- dw_vars_loc.c --- */

/* The unit whose ranges hold @pc, or -1. */
int64_t dwv_unit_at(struct dw_debug *d, uint64_t pc);
void dwv_unit_ctx_init(struct unit_ctx *uc, struct dw_debug *d, size_t unit, uint64_t pc);
/* The expression of attribute @a (a location or a frame base) at uc->pc.
 * Returns 1 with *@e / *@len, 0 when nothing applies there, <0. */
int dwv_attr_expr(struct unit_ctx *uc, Dwarf_Attribute a, const uint8_t **e, size_t *len);
/* Indexes and typed operations in the expression become plain ones (the
 * copy lives in the pool). */
int dwv_expr_own(struct unit_ctx *uc, const uint8_t **e, size_t *len);
/* @die, or the DIE its DW_AT_abstract_origin / DW_AT_specification chain
 * reaches that has @at; NULL when none (the caller frees a non-@die). */
Dwarf_Die dwv_die_with(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at);
/* @die's name, through its origins; NULL when none. */
const char *dwv_origin_name(struct dw_debug *d, Dwarf_Die die);
/* The variable or parameter DIE @die as it is at uc->pc into *@v. Returns
 * 0 (a location the reader cannot follow is optimized out), -ENOMEM. */
int dwv_var_read(struct unit_ctx *uc, Dwarf_Die die, struct dw_var *v);

/* --- dw_vars.c --- */

bool dwv_has_ranges(Dwarf_Die die);
/* The DIEs from @uc->pc's subprogram down to its innermost block. */
int dwv_path_find(struct unit_ctx *uc, size_t unit, struct path *p);

#endif
