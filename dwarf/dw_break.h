/* dw_break: where GDB 13 puts `break FUNC` in one image, and which places a
 * name has there (file addresses; dw_space.h maps them through load biases).
 *
 * The address of a function entered at A (GDB's find_function_start_sal and
 * skip_prologue_sal, amd64_skip_prologue, amd64_analyze_prologue):
 *   - A itself when the compilation unit's line table covers A and the unit
 *     is assembler, or was built by GCC >= 4.5 and some variable's location
 *     is a location list (GDB's "locations valid": optimized code);
 *   - else the first row marked prologue_end in the function's line table;
 *   - else after `[endbr64] push %rbp; mov %rsp,%rbp` when the function
 *     starts so, moved on to the next line-table row when that leaves it in
 *     the middle of a row whose next row is still in the function;
 *   - else A (a frameless function).
 * An inlined instance is placed the same way from its containing function,
 * and never before its own first address.
 *
 * Not as GDB: the stack-realigning prologue (`lea 0x8(%rsp),%r10; and
 * $-16,%rsp; push -8(%r10)`, amd64_analyze_stack_align) is not recognised,
 * and Clang code without a prologue_end row is analysed as GCC's
 * (GDB then uses skip_prologue_using_sal). */
#ifndef DW_BREAK_H
#define DW_BREAK_H

#include <stddef.h>
#include <stdint.h>

struct dw_image;

/* One place a name has, as GDB's linespec finds it. */
struct dw_break_place {
	uint64_t addr;    /* where the breakpoint goes (file address) */
	uint8_t kind;     /* DW_BREAK_DEBUG, DW_BREAK_GLOBAL or DW_BREAK_LOCAL */
};

enum {
	DW_BREAK_DEBUG = 0,  /* a DWARF function or inlined instance: always kept */
	DW_BREAK_GLOBAL = 1, /* a global or weak ELF function symbol */
	DW_BREAK_LOCAL = 2,  /* a local one: GDB keeps these only when no image
			      * has a global one of the name */
};

/* GDB 13's breakpoint address for the function entered at @entry. */
uint64_t dw_image_break_addr(struct dw_image *img, uint64_t entry);

/* The places of @name in @img (out-of-line copies and inlined instances
 * from DWARF, ELF function symbols; GNU ifunc symbols are left out: GDB
 * resolves them to their target, which only the running program knows),
 * each already placed by dw_image_break_addr. Up to @max into @out; returns
 * the total (may exceed @max), -EINVAL, -ENOMEM. */
int dw_image_break_places(struct dw_image *img, const char *name, struct dw_break_place *out,
			  size_t max);

/* The address of the ELF function symbol named exactly @name (a global
 * one first): 0 or -ENOENT. */
int dw_image_symbol_addr(struct dw_image *img, const char *name, uint64_t *addr);

#endif
