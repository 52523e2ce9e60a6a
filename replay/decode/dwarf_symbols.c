/*
 * replay/decode/dwarf_symbols.c: struct replay_symbolizer over dw_space.
 *
 * For each mapping, the load bias (replay_elf_mapping_bias) places its
 * file's addresses. The answers for the last addresses asked are kept (an
 * address's answer never changes): a walk over every instruction (`calls`,
 * the timeline) asks for the same addresses again and again, and a lookup
 * is two binary searches over tables that do not stay in the CPU's caches.
 */
#include "replay/decode/dwarf_symbols.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "dwarf/dw_image.h"
#include "dwarf/dw_space.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/model/fingerprint.h"

/* Direct-mapped, by address: 16K answers, about 3.5 MB. */
#define ANSWERS 16384

struct answer {
	uint64_t addr;
	int err;                   /* 0, or what dw_space_lookup said; */
	bool used;                 /* an empty slot is not an answer */
	struct replay_symbol sym;  /* when err == 0 */
};

struct replay_dwarf_symbols {
	struct dw_space *space;
	struct answer *answers;    /* ANSWERS of them, or NULL: none kept */
};

int replay_dwarf_symbols_new(const struct replay_bundle *b, struct replay_dwarf_symbols **out)
{
	struct replay_dwarf_symbols *s = calloc(1, sizeof(*s));
	char path[4096];

	if (!s || dw_space_new(&s->space)) {
		free(s);
		return -ENOMEM;
	}
	s->answers = calloc(ANSWERS, sizeof(*s->answers));
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];
		uint64_t bias;

		if (replay_bundle_path(b, m->file, path, sizeof(path)) ||
		    replay_elf_mapping_bias(path, m->start, m->offset, &bias))
			continue;
		/* Overlaps (an address reused later) and unreadable files are
		 * skipped: the first mapping of a range names it. */
		if (dw_space_add(s->space, path, bias, m->start, m->start + m->size) == -ENOMEM) {
			replay_dwarf_symbols_free(s);
			return -ENOMEM;
		}
	}
	*out = s;
	return 0;
}

void replay_dwarf_symbols_free(struct replay_dwarf_symbols *s)
{
	if (!s)
		return;
	dw_space_free(s->space);
	free(s->answers);
	free(s);
}

static int lookup(struct replay_dwarf_symbols *s, uint64_t addr, struct replay_symbol *out)
{
	struct dw_location loc;
	int err = dw_space_lookup(s->space, addr, &loc, NULL);

	if (err)
		return err;
	if (loc.nframes == 0)
		return -ENOENT;
	out->function = loc.frames[loc.nframes - 1].function;
	out->start = loc.function_start;
	out->file = loc.has_line ? loc.frames[0].file : NULL;
	out->line = loc.has_line ? loc.frames[0].line : 0;
	out->line_start = loc.has_line ? loc.line_addr : 0;
	out->ninlined = 0;
	for (size_t i = 0; i + 1 < loc.nframes && i < REPLAY_SYMBOL_MAX_INLINED; i++) {
		out->call_file[out->ninlined] = loc.frames[i + 1].file;
		out->call_line[out->ninlined] = loc.frames[i + 1].line;
		out->inlined[out->ninlined++] = loc.frames[i].function;
	}
	return 0;
}

int replay_dwarf_symbols_lookup(void *ctx, uint64_t addr, struct replay_symbol *out)
{
	struct replay_dwarf_symbols *s = ctx;
	struct answer *a;

	if (!s->answers)
		return lookup(s, addr, out);
	a = &s->answers[(addr ^ (addr >> 14)) & (ANSWERS - 1)];
	if (!a->used || a->addr != addr) {
		a->addr = addr;
		a->err = lookup(s, addr, &a->sym);
		a->used = true;
	}
	if (a->err == 0)
		*out = a->sym;
	return a->err;
}

int replay_dwarf_symbols_cfi(void *ctx, uint64_t pc, struct dw_cfi_row *out)
{
	struct replay_dwarf_symbols *s = ctx;

	return dw_space_cfi_row(s->space, pc, out);
}

uint64_t replay_dwarf_symbols_fingerprint(struct replay_dwarf_symbols *s, uint64_t h,
					  const struct replay_bundle *b)
{
	for (size_t i = 0; i < b->nmaps; i++) {
		struct dw_image *img;
		uint64_t bias;

		if (dw_space_image_at(s->space, b->maps[i].start, &img, &bias) < 0)
			continue;
		h = replay_fingerprint(h, &b->maps[i].start, sizeof(b->maps[i].start));
		h = replay_fingerprint(h, &bias, sizeof(bias));
		h = replay_fingerprint_file(h, dw_image_path(img));
		h = replay_fingerprint_file(h, dw_image_debug_path(img));
	}
	return h;
}

struct dw_space *replay_dwarf_symbols_space(struct replay_dwarf_symbols *s)
{
	return s->space;
}
