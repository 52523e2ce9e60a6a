/* dw_image_int.h: the inside of struct dw_image, for dwarf/'s own readers
 * of one image (dw_image.c, dw_break.c). Nothing outside dwarf/ includes it. */
#ifndef DW_IMAGE_INT_H
#define DW_IMAGE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_elf.h"
#include "dwarf/dw_pool.h"
#include "dwarf/dw_symtab.h"
#include "dwarf/dw_unit.h"

struct dw_cfi;

struct dw_image {
	struct dw_pool pool;
	struct dw_elf *elf;        /* the image */
	struct dw_elf *dbg_elf;    /* its separate debug file, or NULL */
	bool from_memory;
	bool debug_tried;
	bool debug_ok;
	struct dw_debug debug;
	char debug_path[4096];
	bool syms_loaded;
	struct dw_symtab syms;     /* names addresses: the debug file's .symtab, else the
				    * image's .symtab, else its .dynsym (as bfd picks) */
	struct dw_elf *syms_elf;   /* the file syms comes from (for section numbers) */
	struct dw_symtab dsyms;    /* the image's own table when syms is the debug file's */
	struct dw_symtab plt;
	bool msyms_loaded;
	struct dw_symtab msyms;    /* syms' table with data objects too (GDB's minimal symbols) */
	char note[4400];
	bool bfd_quirks;
	struct dw_cfi *cfi;        /* the image's .eh_frame / .debug_frame, on first use */
};

/* What holds an address: its unit, line-table row and innermost function. */
struct dw_hit {
	struct dw_unit *unit;
	const struct dw_row *row;
	const struct dw_func *func;
};

/* Whether the image has DWARF (finding its debug file first). */
bool dw_image_debug(struct dw_image *img);
/* Loads the image's ELF symbol tables once (syms, dsyms, plt). */
void dw_image_symbols(struct dw_image *img);
/* The unit, row and function at file address @addr: 1, 0 (none), -ENOMEM. */
int dw_debug_find(struct dw_debug *d, uint64_t addr, struct dw_hit *hit);
/* A function's name as addr2line prints it (demangled, cached). */
const char *dw_func_name(struct dw_image *img, const struct dw_func *f);
/* @name matches @full: equal, or @full is @name and a parameter list or
 * an @version. */
bool dw_name_match(const char *full, const char *name);

#endif
