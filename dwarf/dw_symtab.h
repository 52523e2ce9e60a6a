/* dw_symtab: an ELF symbol table (.symtab or .dynsym) as an array sorted by
 * address, for "which function holds this address" when there is no debug
 * info, and the synthetic name@plt entries of the PLT sections. Two choices of
 * symbol: GDB's (dw_symtab_find_sized, below), and bfd's elf_find_function,
 * which addr2line uses (dw_symtab_find): the symbol of
 * the same section with the greatest address <= the address (size is not a
 * bound), the larger one on a tie; object, TLS, section and file symbols do
 * not count. Dynamic symbols carry their version ("memcpy@@GLIBC_2.14"), as
 * bfd names them. */
#ifndef DW_SYMTAB_H
#define DW_SYMTAB_H

#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_pool.h"

struct dw_sym {
	uint64_t addr, size;
	const char *name;
	const char *demangled; /* filled on first use */
	const char *file;      /* source file from an STT_FILE symbol, as bfd assigns it, or NULL */
	uint32_t shndx;
	uint32_t order;        /* index in the file's table */
	uint8_t info;          /* st_info: binding and type (0 for name@plt entries) */
};

struct dw_symtab {
	struct dw_sym *syms;
	size_t n;
};

/* Reads the table of type @type (SHT_SYMTAB or SHT_DYNSYM) of @e. Returns the
 * number of symbols kept (0 when the table is missing), -ENOMEM. Strings
 * point into @e or @pool. */
int dw_symtab_load(struct dw_symtab *t, struct dw_elf *e, uint32_t type, struct dw_pool *pool);
/* The same with data objects (STT_OBJECT) too: GDB's minimal symbols, which
 * name any address (`<g_points+16>`), not only code. */
int dw_symtab_load_msyms(struct dw_symtab *t, struct dw_elf *e, uint32_t type,
			 struct dw_pool *pool);
/* Builds name@plt entries for .plt, .plt.sec and .plt.got from their jmp
 * *GOT(%rip) instructions and the relocations of those GOT slots. Returns the
 * number of entries, -ENOMEM. */
int dw_symtab_load_plt(struct dw_symtab *t, struct dw_elf *e, struct dw_pool *pool);
void dw_symtab_fini(struct dw_symtab *t);

/* The symbol covering @addr in section @shndx as bfd sees it (see above), or
 * NULL. */
const struct dw_sym *dw_symtab_find(const struct dw_symtab *t, uint64_t addr, uint32_t shndx);
/* The symbol GDB's minimal symbols give @addr in section @shndx
 * (lookup_minimal_symbol_by_pc_section): going down from @addr, the first
 * sized symbol if its size covers @addr; a size-0 symbol met before it (a
 * label, or a symbol whose size is not known) when it does not; NULL when
 * neither (code past a sized symbol's end is GDB's "??"). Of several
 * names at one address, the one dw_symtab_find picks. */
const struct dw_sym *dw_symtab_find_sized(const struct dw_symtab *t, uint64_t addr, uint32_t shndx);
/* The symbol starting exactly at @addr (largest first), or NULL. */
const struct dw_sym *dw_symtab_at(const struct dw_symtab *t, uint64_t addr);
/* The name demangled (cached in the symbol), never NULL. */
const char *dw_sym_name(struct dw_sym *s, struct dw_pool *pool);

#endif
