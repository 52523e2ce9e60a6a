/* dwarf/dw_die.h: small libdwarf wrappers that never leak a Dwarf_Error:
 * errors freed against the debug they belong to, a DIE's attributes
 * (strings, constants, references, flags), a DIE by its offset and its
 * children in order. The floor of dwarf/'s DWARF readers (dw_range,
 * dw_unit, dw_debug, dw_types, dw_vars read DIEs through it); it calls
 * none of them. Internal to dwarf/. */
#ifndef DW_DIE_H
#define DW_DIE_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdbool.h>
#include <stdint.h>

struct dw_debug;

/* --- errors --- */

/* Frees @err (may be NULL) of @d's session. */
void dw_err_free(struct dw_debug *d, Dwarf_Error err);
/* Frees @err (may be NULL) of @dbg; NULL @dbg only for errors of dwarf_object_init_b. */
void dw_err_drop(Dwarf_Debug dbg, Dwarf_Error err);

/* --- attributes --- */

bool dw_attr_string(struct dw_debug *d, Dwarf_Die die, Dwarf_Half name, const char **out);
bool dw_attr_udata(struct dw_debug *d, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *out);

/* --- DIEs --- */

Dwarf_Die dw_die_at(struct dw_debug *d, uint64_t off);
uint64_t dw_die_off(Dwarf_Die die);
Dwarf_Half dw_die_tag(Dwarf_Die die);
const char *dw_die_name(struct dw_debug *d, Dwarf_Die die);
bool dw_die_ref(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at, uint64_t *off);
bool dw_die_udata(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at, uint64_t *v);
bool dw_die_flag(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at);
bool dw_die_has(Dwarf_Die die, Dwarf_Half at);
/* Calls @fn on each child of @die in order until it returns nonzero
 * (returned); 0 when all were seen. Children are freed after @fn. */
int dw_die_children(struct dw_debug *d, Dwarf_Die die,
		    int (*fn)(struct dw_debug *, Dwarf_Die, void *),
		    void *arg);

#endif
