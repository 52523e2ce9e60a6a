/*
 * replay/decode/symbols.h: addresses to function names, and the symbolizer hook.
 *
 * replay/ asks a struct replay_symbolizer for an address's function, file
 * and line, and does not care how they are found. The default one here
 * reads ELF FUNC symbols (.symtab, then .dynsym) of the bundle's mapped
 * files, placed where each mapping puts its file; C++ names are
 * demangled. A DWARF symbolizer (dwarf/'s dw_space_lookup, with source
 * lines and inlined frames) plugs into the same hook from cli/. Nothing
 * here prints.
 */
#ifndef HINDSIGHT_REPLAY_SYMBOLS_H
#define HINDSIGHT_REPLAY_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct replay_bundle;

#define REPLAY_SYMBOL_MAX_INLINED 8

struct replay_symbol {
	const char *function;      /* NULL if unknown; valid as long as the symbolizer */
	uint64_t start;            /* the function's first address (for <fn+off>) */
	const char *file;          /* source file, or NULL */
	unsigned line;             /* 0 if unknown */
	uint64_t line_start;       /* the address of the line-table row @line comes
				    * from (GDB's sal.pc), 0 if not known */
	/* Functions inlined at the address, innermost first (the real
	 * function, @function, not among them). */
	const char *inlined[REPLAY_SYMBOL_MAX_INLINED];
	size_t ninlined;
	/* Where inlined[i] was inlined: a file:line of inlined[i + 1], or of
	 * @function for the last (DW_AT_call_file / call_line); NULL / 0 when
	 * not known. */
	const char *call_file[REPLAY_SYMBOL_MAX_INLINED];
	unsigned call_line[REPLAY_SYMBOL_MAX_INLINED];
};

struct replay_symbolizer {
	/* Fills @out for @addr: 0, or -ENOENT if nothing is known. */
	int (*lookup)(void *ctx, uint64_t addr, struct replay_symbol *out);
	void *ctx;
	/* Optional: lookups from now on are for the images mapped at
	 * logical time @time (an exec maps other files at the same
	 * addresses). A walker calls it with each item's time. */
	void (*at)(void *ctx, uint64_t time);
};

/* @s's lookups from now on at logical time @time (nothing if it has no
 * `at`, or the time is not known: 0 with no state log). */
static inline void replay_symbolizer_at(const struct replay_symbolizer *s, uint64_t time)
{
	if (s && s->at && time)
		s->at(s->ctx, time);
}

struct replay_symbols;

/* ELF symbols of @b's mapped files (@b must outlive them). Files that
 * cannot be read are skipped. 0 or -ENOMEM. */
int replay_symbols_new(const struct replay_bundle *b, struct replay_symbols **out);
void replay_symbols_free(struct replay_symbols *s);

/* The lookup of struct replay_symbolizer, with a struct replay_symbols as
 * @ctx: function and start from ELF, no file or line. */
int replay_symbols_lookup(void *ctx, uint64_t addr, struct replay_symbol *out);

#endif
