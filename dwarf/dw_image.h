/* dw_image: source mapping for one ELF image (program, shared library,
 * vDSO dump) and its separate debug file: address to function, file:line and
 * inlined frames; file:line and function name to addresses; build-id.
 *
 * Addresses are the file's own (unrelocated) addresses; dw_space.h maps
 * runtime addresses through load biases. Nothing is read at open beyond the
 * ELF headers: the debug file is looked for on the first question, the
 * compilation unit index is built on the first lookup, and a unit's line
 * table and function tree only when an address falls in it.
 *
 * Answers match `addr2line -f -i -C -e FILE` (binutils 2.40) for the same
 * address; docs/dwarf.md lists the conventions and the known differences.
 * Strings returned stay valid until dw_image_free. Not thread-safe. */
#ifndef DW_IMAGE_H
#define DW_IMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_image;
struct dw_cfi_row;
struct dw_debug;

struct dw_frame {
	const char *function;   /* demangled; NULL when unknown ("??") */
	const char *file;       /* as addr2line prints it; NULL when unknown */
	unsigned line;          /* 0 when unknown */
	unsigned column;        /* 0 when unknown (addr2line does not print it) */
	unsigned discriminator; /* frames[0] only; addr2line prints "(discriminator N)" */
};

#define DW_MAX_FRAMES 32

struct dw_location {
	size_t nframes;          /* frames[0] innermost (inlined) ... frames[nframes-1] the real function */
	struct dw_frame frames[DW_MAX_FRAMES];
	uint64_t function_start; /* address of the containing function or symbol, 0 if unknown */
	bool has_line;           /* frames[0].file/line come from a line table */
	uint64_t line_addr;      /* with has_line: the address of that line-table row */
	bool truncated;          /* the inlined chain was longer than DW_MAX_FRAMES */
};

/* Opens @path (reads the ELF header and section table only). Returns 0,
 * -ENOENT / -EACCES / ... from open(2), -ENOEXEC when it is not a 64-bit
 * little-endian ELF file, -ENOMEM. */
int dw_image_open(const char *path, struct dw_image **out);
/* Same over a copy of @len bytes (a vDSO dump, fuzz input); @name is the
 * path reported. No separate debug file is looked for by debuglink. */
int dw_image_open_memory(const void *buf, size_t len, const char *name, struct dw_image **out);
/* Frees @img and every string it returned; NULL is fine. */
void dw_image_free(struct dw_image *img);

const char *dw_image_path(const struct dw_image *img);
/* Copies up to @max build-id bytes to @out. Returns the build-id's full
 * length, 0 when there is none. */
int dw_image_build_id(struct dw_image *img, uint8_t *out, size_t max);
/* The file the DWARF comes from (the image itself or its debug file), or
 * NULL when there is none. Looks for it if not done yet. */
const char *dw_image_debug_path(struct dw_image *img);
/* The image's DWARF, its units indexed (finding the debug file first), or
 * NULL when it has none: for dwarf/'s own readers (dw_vars.c). */
struct dw_debug *dw_image_dwarf(struct dw_image *img);
/* One line on what is missing or damaged ("no debug info: symbols only",
 * "debug file '...' not found: symbols only", "DWARF damaged: ..."), or NULL
 * when debug info is complete. Looks for the debug info if not done yet. */
const char *dw_image_note(struct dw_image *img);

/* With @on, reproduce binutils 2.40 addr2line's one known misreading (see
 * docs/dwarf.md): in a DWARF 5 line table, rows before the first
 * DW_LNS_set_file name file 0 instead of file 1. Off by default (the correct
 * reading); the tests turn it on to compare with addr2line exactly. */
void dw_image_set_addr2line_quirks(struct dw_image *img, bool on);

/* Where @addr is. Returns 0 with at least one frame, -ENOENT when nothing is
 * known of @addr (addr2line's "??" / "??:0"; *out has nframes 0), -ENOMEM.
 * A frame may still lack a function or a line (NULL / 0): addr2line's "??"
 * and "?". Inside .plt / .plt.sec / .plt.got the function is "name@plt". */
int dw_image_lookup(struct dw_image *img, uint64_t addr, struct dw_location *out);

/* Addresses of the statements of @file:@line (is_stmt rows that start a run
 * of that line), ascending. @file is a full path as the line table has it or
 * its trailing part from a '/' on ("dwprog.c", "dwarf/dwprog.c"). Returns the
 * total count (may exceed @max; only @max are stored), -ENOMEM. */
int dw_image_line_addrs(struct dw_image *img, const char *file, unsigned line, uint64_t *addrs, size_t max);
/* Entry addresses of the functions named @name: out-of-line copies and
 * inlined instances from DWARF, plus symbols. @name is the plain name
 * ("main"), the demangled name ("util::count(char const*, char)") or that
 * name without parameters ("util::count"), or the mangled one. Returns the
 * total count like dw_image_line_addrs, -ENOMEM. */
int dw_image_function_addrs(struct dw_image *img, const char *name, uint64_t *addrs, size_t max);

/* The minimal symbol GDB names @addr (a file address) by, as in `<g_points+16>`
 * or `<main+4>`: the ELF symbol (function or data object) of the same section
 * with the greatest address <= @addr, unless it has a size that ends before
 * @addr. Its (demangled) name and @addr's offset from it. 0 or -ENOENT. */
int dw_image_msymbol(struct dw_image *img, uint64_t addr, const char **name, uint64_t *offset);
/* The call frame rules at file address @addr, from the image's own
 * .eh_frame and .debug_frame (dw_cfi.h; indexed on first use). Returns 0,
 * -ENOENT when no FDE covers @addr, and dw_cfi_row_at's errors. */
int dw_image_cfi_row(struct dw_image *img, uint64_t addr, struct dw_cfi_row *out);

#endif
