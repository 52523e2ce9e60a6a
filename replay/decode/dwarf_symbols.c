/*
 * replay/decode/dwarf_symbols.c: struct replay_symbolizer over dw_space.
 *
 * For each mapping, the load bias (replay_elf_mapping_bias) places its
 * file's addresses. A recording's address space changes over time: an
 * exec maps other files where the last program had its own (under
 * Valgrind, at the very same addresses), a dlclose leaves room for
 * something else. So the answers are per epoch, the times over which no
 * address names two images (replay_dwarf_symbols_at chooses one; each
 * epoch's images are opened when first asked for). The answers for the
 * last addresses asked are kept (an address's answer never changes within
 * an epoch): a walk over every instruction (`calls`, the timeline) asks
 * for the same addresses again and again, and a lookup is two binary
 * searches over tables that do not stay in the CPU's caches.
 */
#include "replay/decode/dwarf_symbols.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_image.h"
#include "dwarf/dw_space.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/model/fingerprint.h"

/* Direct-mapped, by address: 16K answers, about 3.5 MB. */
#define ANSWERS 16384

struct answer {
	uint64_t addr;
	size_t epoch;              /* whose images gave it */
	int err;                   /* 0, or what dw_space_lookup said; */
	bool used;                 /* an empty slot is not an answer */
	struct replay_symbol sym;  /* when err == 0 */
};

/* A mapping as the symbolizer places it. */
struct placed {
	char *path;
	uint64_t bias, start, end, time_map, time_unmap;
};

/* The times [from, to) over which no address range names two images: an
 * exec (or an munmap and a new mmap over the same range) starts another.
 * Its images are opened when it is first asked for. */
struct epoch {
	uint64_t from, to;
	struct dw_space *space;    /* NULL until asked for */
};

struct replay_dwarf_symbols {
	struct placed *maps;
	size_t nmaps;
	struct epoch *ep;
	size_t nep, cur;           /* the epoch answers are for now */
	bool failed;               /* an epoch could not be made: no memory */
	struct dw_space *empty;    /* what such an epoch answers with: nothing */
	struct answer *answers;    /* ANSWERS of them, or NULL: none kept */
};

static bool overlap(const struct placed *a, const struct placed *b)
{
	return a->start < b->end && b->start < a->end;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The epochs: a new one where a mapping is made over a range an earlier
 * mapping named with another file or bias (the same file at the same
 * bias, mapped again in pieces by mprotect, names it the same). */
static int make_epochs(struct replay_dwarf_symbols *s)
{
	uint64_t *at = malloc((s->nmaps + 1) * sizeof(*at));
	size_t n = 0;

	if (!at)
		return -ENOMEM;
	at[n++] = 0;
	for (size_t i = 0; i < s->nmaps; i++)
		for (size_t j = 0; j < s->nmaps; j++)
			if (s->maps[j].time_map < s->maps[i].time_map &&
			    overlap(&s->maps[i], &s->maps[j]) &&
			    (s->maps[i].bias != s->maps[j].bias ||
			     strcmp(s->maps[i].path, s->maps[j].path))) {
				at[n++] = s->maps[i].time_map;
				break;
			}
	qsort(at, n, sizeof(*at), cmp_u64);
	s->ep = calloc(n, sizeof(*s->ep));
	if (!s->ep) {
		free(at);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (s->nep && s->ep[s->nep - 1].from == at[i])
			continue;
		if (s->nep)
			s->ep[s->nep - 1].to = at[i];
		s->ep[s->nep++] = (struct epoch){ .from = at[i], .to = UINT64_MAX };
	}
	free(at);
	s->cur = s->nep - 1;               /* the end of the recording, until told */
	return 0;
}

/* Epoch @e's images: the mappings alive at some time of it, the latest
 * made first (an overlap inside one epoch, which dw_space skips, is then
 * named by the newer mapping). */
static struct dw_space *epoch_space(struct replay_dwarf_symbols *s, size_t e)
{
	struct epoch *ep = &s->ep[e];
	size_t *order;

	if (ep->space || s->failed)
		return ep->space;
	order = malloc((s->nmaps ? s->nmaps : 1) * sizeof(*order));
	if (!order || dw_space_new(&ep->space)) {
		free(order);
		ep->space = NULL;
		s->failed = true;
		return NULL;
	}
	for (size_t i = 0; i < s->nmaps; i++)
		order[i] = s->nmaps - 1 - i;
	for (size_t k = 0; k < s->nmaps; k++) {
		const struct placed *m = &s->maps[order[k]];

		if (m->time_map >= ep->to || m->time_unmap <= ep->from)
			continue;
		if (dw_space_add(ep->space, m->path, m->bias, m->start, m->end) == -ENOMEM) {
			dw_space_free(ep->space);
			ep->space = NULL;
			s->failed = true;
			break;
		}
	}
	free(order);
	return ep->space;
}

int replay_dwarf_symbols_new(const struct replay_bundle *b, struct replay_dwarf_symbols **out)
{
	struct replay_dwarf_symbols *s = calloc(1, sizeof(*s));
	char path[4096];

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->maps = calloc(b->nmaps ? b->nmaps : 1, sizeof(*s->maps));
	if (!s->maps || dw_space_new(&s->empty)) {
		free(s->maps);
		free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];
		struct placed *p = &s->maps[s->nmaps];

		if (replay_mapping_generated(m) ||
		    replay_bundle_path(b, m->file, path, sizeof(path)) ||
		    replay_elf_mapping_bias(path, m->start, m->offset, &p->bias))
			continue;      /* unreadable files are skipped */
		p->path = strdup(path);
		if (!p->path) {
			replay_dwarf_symbols_free(s);
			return -ENOMEM;
		}
		p->start = m->start;
		p->end = m->start + m->size;
		p->time_map = m->time_map;
		p->time_unmap = m->time_unmap;
		s->nmaps++;
	}
	if (make_epochs(s) < 0) {
		replay_dwarf_symbols_free(s);
		return -ENOMEM;
	}
	/* The end's images now: an image that cannot be read is said when
	 * the recording opens, as before, and no memory is said here. */
	if (!epoch_space(s, s->cur)) {
		replay_dwarf_symbols_free(s);
		return -ENOMEM;
	}
	s->answers = calloc(ANSWERS, sizeof(*s->answers));
	*out = s;
	return 0;
}

void replay_dwarf_symbols_at(void *ctx, uint64_t time)
{
	struct replay_dwarf_symbols *s = ctx;
	size_t lo = 0, hi = s->nep;

	if (time >= s->ep[s->cur].from && time < s->ep[s->cur].to)
		return;
	while (hi - lo > 1) {              /* the last epoch from <= time */
		size_t mid = (lo + hi) / 2;

		if (s->ep[mid].from <= time)
			lo = mid;
		else
			hi = mid;
	}
	s->cur = lo;
}

void replay_dwarf_symbols_free(struct replay_dwarf_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nep; i++)
		dw_space_free(s->ep[i].space);
	for (size_t i = 0; i < s->nmaps; i++)
		free(s->maps[i].path);
	free(s->maps);
	free(s->ep);
	dw_space_free(s->empty);
	free(s->answers);
	free(s);
}

static int lookup(struct replay_dwarf_symbols *s, uint64_t addr, struct replay_symbol *out)
{
	struct dw_space *space = epoch_space(s, s->cur);
	struct dw_location loc;
	int err = space ? dw_space_lookup(space, addr, &loc, NULL) : -ENOMEM;

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
	a = &s->answers[(addr ^ (addr >> 14) ^ s->cur * 0x9e37) & (ANSWERS - 1)];
	if (!a->used || a->addr != addr || a->epoch != s->cur) {
		a->addr = addr;
		a->epoch = s->cur;
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
	struct dw_space *space = epoch_space(s, s->cur);

	return space ? dw_space_cfi_row(space, pc, out) : -ENOMEM;
}

uint64_t replay_dwarf_symbols_fingerprint(struct replay_dwarf_symbols *s, uint64_t h,
					  const struct replay_bundle *b)
{
	(void)b;
	h = replay_fingerprint(h, &s->nep, sizeof(s->nep));
	for (size_t e = 0; e < s->nep; e++) {
		struct dw_space *space = epoch_space(s, e);
		struct dw_image *img;
		uint64_t bias;

		h = replay_fingerprint(h, &s->ep[e].from, sizeof(s->ep[e].from));
		for (size_t k = 0; space && dw_space_image(space, k, &img, &bias) == 0; k++) {
			h = replay_fingerprint(h, &bias, sizeof(bias));
			h = replay_fingerprint_file(h, dw_image_path(img));
			h = replay_fingerprint_file(h, dw_image_debug_path(img));
		}
	}
	return h;
}

struct dw_space *replay_dwarf_symbols_space(struct replay_dwarf_symbols *s)
{
	struct dw_space *space = epoch_space(s, s->cur);

	return space ? space : s->empty;
}
