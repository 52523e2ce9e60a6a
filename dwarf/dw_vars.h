/* dw_vars: a program's variables, types and functions as its DWARF names
 * them, for C expressions (replay/frontend/cexpr.h) and `info locals` / `info args`
 * / `ptype`: what is visible at a pc, as GDB sees it.
 *
 * dw_image_scope gives the frames a pc is in (the innermost function and
 * the chain of inlined calls around the pc, level 0 innermost, like
 * dw_location's frames) with each level's arguments and locals in GDB's
 * order, and each variable's location expression as it applies at that pc
 * (DW_AT_location, or the entry of its location list that holds the pc,
 * DWARF 4 .debug_loc and DWARF 5 .debug_loclists), its constant value, or
 * nothing (optimized out). dw_loc_eval (dw_loc.h) runs the expression for
 * a frame. Globals, types and functions are found by name, the pc's
 * compilation unit first. Types are struct dw_type (dw_type.h), read once
 * per DIE and kept until the image is freed (dw_types.c): a pointer's,
 * typedef's or qualifier's target is never NULL (void is a DW_TYPE_VOID
 * type), a function type's return type is NULL for void, a variable's type
 * NULL when its DIE names none. C's base type names ("unsigned long") give
 * GDB's own types, as its parser does.
 *
 * The dw_image_ functions take file addresses; the dw_space_ ones runtime
 * addresses (the image mapped at the pc first, then every image of the
 * space). A pc in a caller's frame should be its return address minus one
 * (the call), as GDB looks it up. Not thread-safe. */
#ifndef DW_VARS_H
#define DW_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_type.h"

struct dw_image;
struct dw_space;

enum dw_var_where {
	DW_VAR_EXPR,          /* @expr: a location expression for dw_loc_eval */
	DW_VAR_CONST,         /* @bytes: the value itself (DW_AT_const_value) */
	DW_VAR_OPTIMIZED_OUT, /* no location at this pc: GDB's <optimized out> */
};

struct dw_var {
	const char *name;
	const struct dw_type *type;  /* NULL when the DIE has none (GDB's "<unknown type>") */
	bool is_param;
	enum dw_var_where where;
	const uint8_t *expr;         /* EXPR: file addresses (dw_loc_env.bias relocates) */
	size_t exprlen;
	const uint8_t *bytes;        /* CONST: little-endian, @nbytes long */
	size_t nbytes;
	uint64_t die;                /* the DIE's offset in .debug_info */
};

/* One function level of a scope: a subprogram or an inlined call. */
struct dw_scope_level {
	const char *function;        /* its name (through DW_AT_abstract_origin), NULL unknown */
	bool inlined;                /* an inlined instance (levels below the last) */
	uint64_t die;
	struct dw_var *args;         /* `info args`: parameters in order */
	size_t nargs;
	struct dw_var *locals;       /* `info locals`: innermost block first, GDB's order */
	size_t nlocals;
};

struct dw_scope {
	size_t nlevels;              /* >= 1 */
	struct dw_scope_level *levels; /* [0] innermost inlined instance, [nlevels-1] the function */
	const uint8_t *frame_base;   /* the function's DW_AT_frame_base (for dw_loc_env), or NULL */
	size_t frame_base_len;
	uint64_t bias;               /* dw_space_scope: the image's load bias, else 0 */
	struct dw_image *image;
};

/* The scope at file address @pc of @img: *@out (free with dw_scope_free).
 * Returns 0, -ENOENT when no function with DWARF holds @pc (no debug info,
 * a symbol-only function), -EIO when a DIE cannot be read, -ENOMEM. */
int dw_image_scope(struct dw_image *img, uint64_t pc, struct dw_scope **out);
/* Same at runtime address @pc; out->bias is the image's. -ESRCH when no
 * image is mapped at @pc. */
int dw_space_scope(struct dw_space *s, uint64_t pc, struct dw_scope **out);
void dw_scope_free(struct dw_scope *s);

/* The global (file-scope) variable @name as seen from file address @pc:
 * the file-static or external one of @pc's compilation unit first, then an
 * external definition of any unit (declarations without a location are
 * skipped; DW_AT_specification is followed). Strings and types live as
 * long as the image. Returns 0, -ENOENT, -ENOMEM. */
int dw_image_global(struct dw_image *img, uint64_t pc, const char *name, struct dw_var *out);
/* The type named @name: "int", "unsigned long" (any order of C's
 * keywords), "struct node", "union word", "enum color", a typedef's name;
 * @pc's unit first, then any unit. A C base type the program never uses
 * ("unsigned short") is made up. Returns 0, -ENOENT, -ENOMEM. */
int dw_image_type(struct dw_image *img, uint64_t pc, const char *name, const struct dw_type **out);
/* The function @name as a value: its type (DW_TYPE_FUNCTION: return type
 * and parameters) and entry address (file address). Returns 0, -ENOENT,
 * -ENOMEM. */
int dw_image_function(struct dw_image *img, uint64_t pc, const char *name,
		      const struct dw_type **type, uint64_t *entry);

/* The value a function was called with in DWARF register @reg, for
 * DW_OP_entry_value (dw_loc_eval_entry): the DW_AT_call_value of the
 * call site parameter in @reg of the call that returns to file address
 * @return_pc (DW_TAG_call_site's DW_AT_call_return_pc, DWARF 4's
 * DW_TAG_GNU_call_site's DW_AT_low_pc). The expression is to be run in the
 * caller's frame (its scope's frame base) as a value
 * (dw_loc_eval_value). Returns 0, -ENOENT when there is no such call site
 * or parameter, -ENOMEM. */
int dw_image_call_value(struct dw_image *img, uint64_t return_pc, unsigned reg,
			const uint8_t **expr, size_t *len);
/* Same at runtime address @return_pc; *@bias gets the image's. */
int dw_space_call_value(struct dw_space *s, uint64_t return_pc, unsigned reg,
			const uint8_t **expr, size_t *len, uint64_t *bias);

/* What the call site returning to file address @return_pc calls: GDB
 * resolves DW_OP_entry_value in a function only through a call site that
 * calls it (not one whose callee tail-called it). */
struct dw_call_target {
	enum {
		DW_CALL_TARGET_ADDR = 1, /* @addr: the function's entry */
		DW_CALL_TARGET_NAME,     /* @name: a function declared elsewhere */
		DW_CALL_TARGET_EXPR,     /* @expr: DW_AT_call_target, the address a
					  * value computed in the caller's frame */
	} kind;
	uint64_t addr;
	const char *name;
	const uint8_t *expr;
	size_t len;
	bool tail;                       /* DW_AT_call_tail_call: a jump */
};
/* Returns 0, -ENOENT (no such call site, or it does not say), -ENOMEM. */
int dw_image_call_target(struct dw_image *img, uint64_t return_pc, struct dw_call_target *out);
/* Same at runtime address @return_pc (@out->addr a runtime address too);
 * *@bias gets the image's. */
int dw_space_call_target(struct dw_space *s, uint64_t return_pc, struct dw_call_target *out,
			 uint64_t *bias);

/* The same through a space at runtime address @pc, the image mapped at @pc
 * first, then every image; *@bias (may be NULL) gets the bias of the image
 * that answered (a global's expression is relocated by it); @entry is a
 * runtime address. -ENOENT when no image knows @name. */
int dw_space_global(struct dw_space *s, uint64_t pc, const char *name, struct dw_var *out,
		    uint64_t *bias);
int dw_space_type(struct dw_space *s, uint64_t pc, const char *name, const struct dw_type **out);
int dw_space_function(struct dw_space *s, uint64_t pc, const char *name,
		      const struct dw_type **type, uint64_t *entry);

#endif
