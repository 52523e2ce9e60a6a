/*
 * replay/decode/dwarf_symbols.h: a symbolizer over dwarf/: function, file and line
 * of a recording's addresses from DWARF (ELF symbols and name@plt where
 * there is none).
 *
 * Its images are the bundle's mappings, each placed at its load bias. A
 * recording's address space changes over time (an exec, or a dlclose and
 * something else mapped at the same place): the answers are those of the
 * images mapped at the time last given to replay_dwarf_symbols_at (the
 * end of the recording until then).
 */
#ifndef HINDSIGHT_REPLAY_DWARF_SYMBOLS_H
#define HINDSIGHT_REPLAY_DWARF_SYMBOLS_H

#include <stdint.h>

#include "replay/decode/symbols.h"

struct dw_cfi_row;
struct dw_space;
struct replay_bundle;
struct replay_dwarf_symbols;

/* Images of @b's mappings (files that cannot be read are skipped; @b must
 * outlive the symbolizer). 0 or -ENOMEM. */
int replay_dwarf_symbols_new(const struct replay_bundle *b, struct replay_dwarf_symbols **out);
void replay_dwarf_symbols_free(struct replay_dwarf_symbols *s);

/* The lookup of struct replay_symbolizer (@ctx: a replay_dwarf_symbols):
 * the containing function (the real one, not an inlined frame), its start,
 * and the innermost file:line. 0 or -ENOENT. */
int replay_dwarf_symbols_lookup(void *ctx, uint64_t addr, struct replay_symbol *out);

/* The `at` of struct replay_symbolizer (@ctx: a replay_dwarf_symbols):
 * answers, CFI rows and the space are, from now on, those of the images
 * mapped at logical time @time. Cheap when the time stays in one epoch. */
void replay_dwarf_symbols_at(void *ctx, uint64_t time);

/* @h (an FNV-1a hash) with what the answers come from mixed in: where
 * each of @b's mappings has which image, and the image's file and the file
 * of its DWARF (path, size, modification time, inode; a debug file is
 * looked for if not done yet). The answers stay the same while it does:
 * what keeps something built from them (calls' marks) checks it. */
uint64_t replay_dwarf_symbols_fingerprint(struct replay_dwarf_symbols *s, uint64_t h,
					  const struct replay_bundle *b);

/* The images at the time last given, as one dw_space (borrowed):
 * variables, types, symbols (an empty one where they could not be
 * opened for want of memory). */
struct dw_space *replay_dwarf_symbols_space(struct replay_dwarf_symbols *s);
/* The call frame rules at @pc (@ctx: a replay_dwarf_symbols), for
 * struct replay_unwind_env: dw_space_cfi_row over the same images. */
int replay_dwarf_symbols_cfi(void *ctx, uint64_t pc, struct dw_cfi_row *out);

#endif
