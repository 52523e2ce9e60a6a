/* dw_break: GDB 13's placement of `break FUNC` in one image; see dw_break.h. */
#include "dwarf/dw_break.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_image.h"
#include "dwarf/dw_image_int.h"

#define DW_BREAK_SPAN 4096 /* a function without a known end: how far it may go */

/* GDB's producer_is_gcc: "GNU <language> <major>.<minor>...". */
static bool dw_producer_gcc(const char *p, int *major, int *minor)
{
	if (!p || strncmp(p, "GNU ", 4))
		return false;
	p += 4;
	while (*p && *p != ' ' && *p != '\t')
		p++;
	return *p && sscanf(p + 1, "%d.%d", major, minor) == 2;
}

/* GDB's compunit_symtab::locations_valid: GCC >= 4.5 and a location list. */
static bool dw_locations_valid(const struct dw_unit *u)
{
	int major, minor;

	return u->has_loclist && dw_producer_gcc(u->producer, &major, &minor) &&
	       (major > 4 || (major == 4 && minor >= 5));
}

/* The range of @u's function @f that holds @addr, into [*lo, *hi). */
static bool dw_func_range(const struct dw_unit *u, const struct dw_func *f, uint64_t addr,
			  uint64_t *lo, uint64_t *hi)
{
	uint32_t idx = (uint32_t)(f - u->funcs);

	for (size_t i = 0; i < u->nfranges; i++) {
		const struct dw_range *r = &u->franges[i];

		if (r->owner == idx && r->low <= addr && addr < r->high) {
			*lo = r->low;
			*hi = r->high;
			return true;
		}
	}
	return false;
}

/* The non-inlined function holding @addr (GDB's find_pc_sect_function and
 * find_pc_partial_function): its entry and the end of its range there.
 * From DWARF, else from the ELF symbol. */
static bool dw_containing(struct dw_image *img, const struct dw_hit *h, uint64_t addr,
			  uint64_t *entry, uint64_t *end)
{
	const struct dw_func *f = h->func;
	uint64_t lo;

	while (f && f->inlined && f->parent >= 0)
		f = &h->unit->funcs[f->parent];
	if (f && !f->inlined && dw_func_range(h->unit, f, f->entry, &lo, end)) {
		*entry = f->entry;
		return true;
	}
	dw_image_symbols(img);
	size_t sec = dw_elf_section_at(img->syms_elf, addr);
	const struct dw_sym *s = sec ? dw_symtab_find(&img->syms, addr, (uint32_t)sec) : NULL;

	if (!s)
		return false;
	*entry = s->addr;
	*end = s->size ? s->addr + s->size : s->addr + DW_BREAK_SPAN;
	return addr < *end;
}

/* Up to @n bytes of the image's code at @addr: how many. */
static size_t dw_code(struct dw_image *img, uint64_t addr, uint8_t *buf, size_t n)
{
	size_t sec = dw_elf_section_at(img->elf, addr);
	const struct dw_elf_section *s;
	const void *data;
	size_t size;

	if (!sec || dw_elf_load(img->elf, sec, &data, &size) < 0)
		return 0;
	s = &img->elf->sections[sec];
	if (addr < s->addr || addr - s->addr >= size)
		return 0;
	if (n > size - (addr - s->addr))
		n = size - (addr - s->addr);
	memcpy(buf, (const uint8_t *)data + (addr - s->addr), n);
	return n;
}

/* GDB's amd64_analyze_prologue from @pc: after `push %rbp; mov %rsp,%rbp`
 * (an endbr64 before them skipped), or @pc when there is no frame. */
static uint64_t dw_analyze(struct dw_image *img, uint64_t pc)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	uint8_t c[8];
	size_t n = dw_code(img, pc, c, sizeof(c)), i = 0;

	if (n >= 4 && !memcmp(c, endbr64, 4))
		i = 4;
	if (i + 1 > n || c[i] != 0x55) /* pushq %rbp */
		return pc;
	if (i + 4 <= n && (!memcmp(c + i + 1, "\x48\x89\xe5", 3) ||
			   !memcmp(c + i + 1, "\x48\x8b\xec", 3)))
		return pc + i + 4; /* movq %rsp,%rbp */
	if (i + 3 <= n && (!memcmp(c + i + 1, "\x89\xe5", 2) || !memcmp(c + i + 1, "\x8b\xec", 2)))
		return pc + i + 3; /* movl %esp,%ebp */
	return pc;                 /* a push alone: frameless for GDB */
}

/* The address of the row after the one holding @addr in its sequence (GDB's
 * symtab_and_line.end), or 0. */
static uint64_t dw_row_end(const struct dw_unit *u, const struct dw_row *r, uint64_t addr)
{
	for (size_t i = (size_t)(r - u->rows) + 1; i < u->nrows; i++) {
		if (u->rows[i].addr > addr)
			return u->rows[i].addr;
		if (u->rows[i].end_sequence)
			break;
	}
	return 0;
}

/* GDB's skip_prologue_using_linetable: the first prologue_end row in
 * [@entry, @end) of the entry row's file, or 0. */
static uint64_t dw_prologue_end(const struct dw_unit *u, uint64_t entry, uint64_t end)
{
	const struct dw_row *r = dw_unit_row(u, entry);

	if (!r || r->addr != entry || u->lang == DW_LANG_Mips_Assembler)
		return 0;
	for (size_t i = (size_t)(r - u->rows); i < u->nrows && u->rows[i].addr < end; i++) {
		if (u->rows[i].end_sequence)
			break;
		if (u->rows[i].prologue_end && u->rows[i].file == r->file && u->rows[i].addr >= entry)
			return u->rows[i].addr;
	}
	return 0;
}

uint64_t dw_image_break_addr(struct dw_image *img, uint64_t a)
{
	struct dw_hit h = { 0 };
	uint64_t entry, end, pc;
	const struct dw_row *r;

	if (dw_image_debug(img)) {
		int rc = dw_debug_find(&img->debug, a, &h);

		if (rc < 0)
			return a;
		if (rc == 0)
			memset(&h, 0, sizeof(h));
	}
	/* find_function_start_sal: optimized or assembler code at its entry */
	if (h.unit && h.row && (dw_locations_valid(h.unit) || h.unit->lang == DW_LANG_Mips_Assembler))
		return a;
	if (!dw_containing(img, &h, a, &entry, &end))
		return a;
	pc = h.unit ? dw_prologue_end(h.unit, entry, end) : 0;
	if (!pc) {
		pc = dw_analyze(img, entry);
		/* left in the middle of a row: on to the next row in the function */
		r = h.unit ? dw_unit_row(h.unit, pc) : NULL;
		if (r && r->addr != pc) {
			uint64_t next = dw_row_end(h.unit, r, pc);

			if (next && entry <= next && next < end)
				pc = next;
		}
	}
	return pc > a ? pc : a;
}

struct dw_places {
	struct dw_break_place *v;
	size_t n, cap;
	int err;
};

static void dw_places_push(struct dw_places *p, uint64_t addr, uint8_t kind)
{
	if (p->n == p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 16;
		struct dw_break_place *nv = realloc(p->v, nc * sizeof(*nv));

		if (!nv) {
			p->err = -ENOMEM;
			return;
		}
		p->v = nv;
		p->cap = nc;
	}
	p->v[p->n++] = (struct dw_break_place){ .addr = addr, .kind = kind };
}

static void dw_places_symbols(struct dw_image *img, struct dw_symtab *t, const char *name,
			      struct dw_places *p)
{
	for (size_t i = 0; i < t->n; i++) {
		struct dw_sym *s = &t->syms[i];
		int type = GELF_ST_TYPE(s->info), bind = GELF_ST_BIND(s->info);

		if (type != STT_FUNC && type != STT_NOTYPE)
			continue; /* STT_GNU_IFUNC: see dw_break.h */
		if (dw_name_match(s->name, name) || dw_name_match(dw_sym_name(s, &img->pool), name))
			dw_places_push(p, s->addr, bind == STB_LOCAL ? DW_BREAK_LOCAL : DW_BREAK_GLOBAL);
	}
}

int dw_image_break_places(struct dw_image *img, const char *name, struct dw_break_place *out,
			  size_t max)
{
	struct dw_places p = { 0 };

	if (!name || !*name)
		return -EINVAL;
	if (dw_image_debug(img)) {
		for (size_t i = 0; i < img->debug.nunits && !p.err; i++) {
			struct dw_unit *u = &img->debug.units[i];

			if (dw_unit_load_funcs(&img->debug, u) == -ENOMEM) {
				p.err = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < u->nfuncs; k++) {
				const struct dw_func *f = &u->funcs[k];

				if (f->entry && (dw_name_match(f->name, name) ||
						 dw_name_match(dw_func_name(img, f), name)))
					dw_places_push(&p, f->entry, DW_BREAK_DEBUG);
			}
		}
	}
	dw_image_symbols(img);
	dw_places_symbols(img, &img->syms, name, &p);
	dw_places_symbols(img, &img->dsyms, name, &p);
	if (p.err) {
		free(p.v);
		return p.err;
	}
	for (size_t i = 0; i < p.n; i++)
		p.v[i].addr = dw_image_break_addr(img, p.v[i].addr);
	if (out)
		memcpy(out, p.v, (p.n < max ? p.n : max) * sizeof(*out));
	free(p.v);
	return p.n > INT32_MAX ? INT32_MAX : (int)p.n;
}

int dw_image_symbol_addr(struct dw_image *img, const char *name, uint64_t *addr)
{
	const struct dw_sym *local = NULL;

	dw_image_symbols(img);
	for (int t = 0; t < 2; t++) {
		const struct dw_symtab *tab = t ? &img->dsyms : &img->syms;

		for (size_t i = 0; i < tab->n; i++) {
			const struct dw_sym *s = &tab->syms[i];
			int type = GELF_ST_TYPE(s->info);

			if ((type != STT_FUNC && type != STT_NOTYPE) || strcmp(s->name, name))
				continue;
			if (GELF_ST_BIND(s->info) != STB_LOCAL) {
				*addr = s->addr;
				return 0;
			}
			if (!local)
				local = s;
		}
	}
	if (!local)
		return -ENOENT;
	*addr = local->addr;
	return 0;
}
