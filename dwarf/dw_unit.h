/* dw_unit: one compilation unit, loaded on first use: its line table as
 * sorted sequences of rows, its file names joined as addr2line joins them,
 * and its functions (subprograms and inlined subroutines) with their ranges,
 * names and call sites. Both answer by binary search. The rules follow bfd's
 * dwarf2.c, which addr2line uses: see docs/dwarf.md. */
#ifndef DW_UNIT_H
#define DW_UNIT_H

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_debug;
struct dw_range;

struct dw_row {
	uint64_t addr;
	uint32_t file, line, discriminator;
	uint16_t column;
	uint8_t is_stmt, end_sequence, prologue_end;
	uint8_t default_file; /* file register not set yet in this sequence */
};

struct dw_seq {
	uint64_t low, high;   /* [low, high): high is the end_sequence row's address */
	uint32_t first, count; /* rows, the end row included */
};

struct dw_func {
	const char *name;     /* as bfd picks it: linkage name over DW_AT_name, through origins */
	const char *demangled; /* on first use */
	int32_t parent;       /* enclosing function (index) of an inlined subroutine, or -1 */
	uint32_t call_file, call_line;
	uint64_t entry;       /* DW_AT_low_pc, else the first range */
	uint64_t bfd_low;     /* low end of bfd's first arange (see dw_bfd_first_low) */
	bool is_linkage, inlined;
	bool bfd_seen;        /* addr2line-quirk mode: bfd has named this one */
	const char *bfd_name; /* addr2line-quirk mode: the symbol name bfd gave it */
};

struct dw_unit {
	Dwarf_Off die_off;
	uint16_t version;
	uint16_t line_version;
	unsigned lang;
	const char *comp_dir, *name;
	const char *producer; /* DW_AT_producer, or NULL */
	bool has_loclist;     /* a variable or parameter's location is a location list
			       * (GDB's has_loclist; known once the functions are loaded) */
	uint64_t base;
	int lines_state;      /* 0 not loaded, 1 loaded, <0 failed (errno) */
	int funcs_state;
	struct dw_row *rows;
	size_t nrows;
	struct dw_seq *seqs;
	size_t nseqs;
	const char **files;   /* by file number as the line program uses it */
	const char **gdb_files; /* the same as GDB names them (no compilation directory) */
	size_t nfiles;
	struct dw_func *funcs;
	size_t nfuncs;
	struct dw_range *franges; /* function ranges, sorted */
	size_t nfranges;
};

void dw_unit_init(struct dw_unit *u, Dwarf_Off die_off, uint16_t version);
void dw_unit_fini(struct dw_unit *u);
/* Read the line table, or the function tree, once. Return 0, -ENOMEM, or
 * -EIO when the unit's DIE cannot be read (a damaged table only leaves the
 * unit with fewer rows or functions). */
int dw_unit_load_lines(struct dw_debug *d, struct dw_unit *u);
int dw_unit_load_funcs(struct dw_debug *d, struct dw_unit *u);

/* The row for @addr: greatest address <= @addr in the sequence holding it. */
const struct dw_row *dw_unit_row(const struct dw_unit *u, uint64_t addr);
/* The innermost function holding @addr: the smallest range, the later DIE on a tie. */
const struct dw_func *dw_unit_func(const struct dw_unit *u, uint64_t addr);
/* File name for file number @idx, or NULL. */
const char *dw_unit_file(const struct dw_unit *u, uint32_t idx);
/* File name of row @r. A DWARF 5 row whose file register was never set
 * names file 1 (the initial value); with @bfd_quirk file 0, as binutils 2.40
 * (and libdwarf 20210528) read it. */
const char *dw_unit_row_file(const struct dw_unit *u, const struct dw_row *r, bool bfd_quirk);

#endif
