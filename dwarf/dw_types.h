/* dw_types: type DIEs read into struct dw_type (dw_type.h), once per DIE
 * offset and kept in the dw_debug's cache until the image is freed, and
 * the index of every unit's file-scope names (variables, functions,
 * types) that dw_vars_names.c searches. Internal to dwarf/: the public face
 * is dw_vars.h. */
#ifndef DW_TYPES_H
#define DW_TYPES_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdbool.h>
#include <stdint.h>

#include "dwarf/dw_type.h"

struct dw_debug;

/* What a file-scope name is. */
enum dw_name_kind {
	DW_NAME_VAR,
	DW_NAME_FUNC,
	DW_NAME_STRUCT,
	DW_NAME_UNION,
	DW_NAME_ENUM,
	DW_NAME_TYPEDEF,
	DW_NAME_BASE,
	DW_NAME_ENUMERATOR,     /* die: its enumeration type; index: which enumerator */
};

struct dw_name {
	const char *name;
	uint64_t die;
	uint32_t unit;          /* index in dw_debug.units */
	uint32_t index;         /* DW_NAME_ENUMERATOR */
	uint8_t kind;           /* enum dw_name_kind */
	bool external;          /* DW_AT_external (through DW_AT_specification) */
	bool defined;           /* a variable with a location or value, a function with code,
				 * a complete type */
	bool declaration;       /* DW_AT_declaration */
};

struct dw_vars_cache {
	uint64_t *keys;         /* type DIE offsets, open addressing (0: empty) */
	const struct dw_type **vals;
	size_t cap, n;
	bool indexed;
	struct dw_name *names;  /* sorted by name, then unit, then DIE */
	size_t nnames;
	const struct dw_type *builtins[16]; /* made-up C base types, by dw_types_builtin */
};

/* The cache of @d, made on first use (dw_debug_close frees it through
 * d->vars_free); NULL when out of memory. */
struct dw_vars_cache *dw_vars_cache_of(struct dw_debug *d);
/* The type of the DIE at @off. Returns it (a VOID type for a DIE that
 * cannot be read or is no type), NULL only when out of memory. */
const struct dw_type *dw_types_read(struct dw_debug *d, uint64_t off);
/* The type DW_AT_type of @die names: NULL when it has none (void) or out
 * of memory (*@nomem set). */
const struct dw_type *dw_types_of(struct dw_debug *d, Dwarf_Die die, bool *nomem);
/* The void type. */
const struct dw_type *dw_types_void(void);
/* A made-up C base type for @name ("unsigned short", "long double"),
 * allocated in @d's pool; NULL when @name is none. */
const struct dw_type *dw_types_builtin(struct dw_debug *d, const char *name);
/* @name's base type keywords in one canonical spelling ("long unsigned
 * int" and "unsigned long" both give "unsigned long") into @buf; false
 * when @name is not made of C's base type keywords. */
bool dw_types_canonical(const char *name, char *buf, size_t size);
/* Builds the name index of every unit once. Returns 0 or -ENOMEM. */
int dw_types_index(struct dw_debug *d);
/* The first index entry named @name (entries of one name are adjacent),
 * or NULL. */
const struct dw_name *dw_types_names(struct dw_debug *d, const char *name, size_t *count);

#endif
