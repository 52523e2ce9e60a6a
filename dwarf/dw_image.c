/* dw_image: one image and its debug info, answering lookups; see dw_image.h. */
#include "dwarf/dw_image.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_cfi.h"
#include "dwarf/dw_debug.h"
#include "dwarf/dw_debugfile.h"
#include "dwarf/dw_demangle.h"
#include "dwarf/dw_elf.h"
#include "dwarf/dw_pool.h"
#include "dwarf/dw_symtab.h"
#include "dwarf/dw_unit.h"
#include "dwarf/dw_image_int.h"


static int dw_image_init(struct dw_image **out, struct dw_elf *e, bool mem)
{
	struct dw_image *img = calloc(1, sizeof(*img));

	if (!img) {
		dw_elf_free(e);
		return -ENOMEM;
	}
	dw_pool_init(&img->pool);
	img->elf = e;
	img->from_memory = mem;
	*out = img;
	return 0;
}

int dw_image_open(const char *path, struct dw_image **out)
{
	struct dw_elf *e;
	int rc;

	*out = NULL;
	if (!path)
		return -EINVAL;
	rc = dw_elf_open(path, &e);
	return rc < 0 ? rc : dw_image_init(out, e, false);
}

int dw_image_open_memory(const void *buf, size_t len, const char *name, struct dw_image **out)
{
	struct dw_elf *e;
	int rc;

	*out = NULL;
	if (!buf)
		return -EINVAL;
	rc = dw_elf_open_memory(buf, len, name ? name : "[memory]", &e);
	return rc < 0 ? rc : dw_image_init(out, e, true);
}

void dw_image_free(struct dw_image *img)
{
	if (!img)
		return;
	if (img->debug_ok)
		dw_debug_close(&img->debug);
	dw_cfi_free(img->cfi);
	dw_symtab_fini(&img->syms);
	dw_symtab_fini(&img->dsyms);
	dw_symtab_fini(&img->plt);
	dw_symtab_fini(&img->msyms);
	dw_elf_free(img->dbg_elf);
	dw_elf_free(img->elf);
	dw_pool_fini(&img->pool);
	free(img);
}

const char *dw_image_path(const struct dw_image *img)
{
	return img->elf->path;
}

int dw_image_build_id(struct dw_image *img, uint8_t *out, size_t max)
{
	const uint8_t *id;
	size_t n = dw_elf_build_id(img->elf, &id);

	if (out)
		memcpy(out, id, n < max ? n : max);
	return (int)n;
}

/* --- finding the debug info --- */

void dw_image_symbols(struct dw_image *img)
{
	if (img->syms_loaded)
		return;
	img->syms_loaded = true;
	img->syms_elf = img->elf;
	if (img->dbg_elf && dw_symtab_load(&img->syms, img->dbg_elf, SHT_SYMTAB, &img->pool) > 0) {
		img->syms_elf = img->dbg_elf;
		if (dw_symtab_load(&img->dsyms, img->elf, SHT_SYMTAB, &img->pool) <= 0) {
			dw_symtab_fini(&img->dsyms);
			dw_symtab_load(&img->dsyms, img->elf, SHT_DYNSYM, &img->pool);
		}
	} else {
		dw_symtab_fini(&img->syms);
		if (dw_symtab_load(&img->syms, img->elf, SHT_SYMTAB, &img->pool) <= 0) {
			dw_symtab_fini(&img->syms);
			dw_symtab_load(&img->syms, img->elf, SHT_DYNSYM, &img->pool);
		}
	}
	dw_symtab_load_plt(&img->plt, img->elf, &img->pool);
}

/* GDB's minimal symbols: the table dw_image_symbols chose, with objects. */
static void dw_image_msyms(struct dw_image *img)
{
	if (img->msyms_loaded)
		return;
	img->msyms_loaded = true;
	dw_image_symbols(img);
	if (dw_symtab_load_msyms(&img->msyms, img->syms_elf, SHT_SYMTAB, &img->pool) <= 0) {
		dw_symtab_fini(&img->msyms);
		dw_symtab_load_msyms(&img->msyms, img->syms_elf, SHT_DYNSYM, &img->pool);
	}
}

int dw_image_msymbol(struct dw_image *img, uint64_t addr, const char **name, uint64_t *offset)
{
	size_t sec;
	struct dw_sym *s;

	dw_image_debug_path(img);
	dw_image_msyms(img);
	sec = dw_elf_section_at(img->syms_elf, addr);
	s = sec ? (struct dw_sym *)dw_symtab_find_sized(&img->msyms, addr, (uint32_t)sec) : NULL;
	if (!s)
		return -ENOENT;
	*name = dw_sym_name(s, &img->pool);
	*offset = addr - s->addr;
	return 0;
}

static void dw_image_find_debug(struct dw_image *img)
{
	struct dw_elf *src = img->elf;
	char found[4096] = "";
	int rc;

	if (img->debug_tried)
		return;
	img->debug_tried = true;
	if (!dw_elf_has_data(img->elf, ".debug_info")) {
		rc = dw_debugfile_find(img->elf, img->from_memory ? NULL : img->elf->path, &img->dbg_elf,
				       found, sizeof(found));
		if (rc != 0) {
			bool has_syms = dw_elf_find(img->elf, ".symtab") || dw_elf_find(img->elf, ".dynsym");
			const char *what = has_syms ? "symbols only" : "addresses only";

			if (found[0])
				snprintf(img->note, sizeof(img->note), "debug file '%s' not found: %s", found, what);
			else
				snprintf(img->note, sizeof(img->note), "no debug info: %s", what);
			return;
		}
		src = img->dbg_elf;
	}
	snprintf(img->debug_path, sizeof(img->debug_path), "%s", src->path);
	rc = dw_debug_open(&img->debug, src, &img->pool);
	if (rc == 0) {
		img->debug_ok = true;
		return;
	}
	snprintf(img->note, sizeof(img->note), "debug info in '%s' unreadable: symbols only", src->path);
}

/* Opens the debug info and indexes its units. Returns true when usable. */
bool dw_image_debug(struct dw_image *img)
{
	dw_image_find_debug(img);
	if (!img->debug_ok)
		return false;
	if (!img->debug.indexed && dw_debug_index(&img->debug) == 0 && img->debug.damaged && !img->note[0])
		snprintf(img->note, sizeof(img->note),
			 "DWARF in '%s' damaged: %zu compilation units read", img->debug_path, img->debug.nunits);
	return true;
}

struct dw_debug *dw_image_dwarf(struct dw_image *img)
{
	return dw_image_debug(img) ? &img->debug : NULL;
}

const char *dw_image_debug_path(struct dw_image *img)
{
	dw_image_find_debug(img);
	return img->debug_ok ? img->debug_path : NULL;
}

const char *dw_image_note(struct dw_image *img)
{
	dw_image_debug(img);
	if (!img->note[0] && img->debug_ok && img->debug.damaged)
		snprintf(img->note, sizeof(img->note), "DWARF in '%s' damaged: some entries skipped",
			 img->debug_path);
	return img->note[0] ? img->note : NULL;
}

void dw_image_set_addr2line_quirks(struct dw_image *img, bool on)
{
	img->bfd_quirks = on;
}

/* --- address lookup --- */

/* The symbol naming @addr in @t, by @e's sections: GDB's minimal symbol (a
 * sized symbol does not cover code past its end), or in addr2line-quirk
 * mode the one bfd's elf_find_function picks. */
static struct dw_sym *dw_image_sym(const struct dw_image *img, struct dw_symtab *t, struct dw_elf *e,
				   uint64_t addr)
{
	size_t sec = dw_elf_section_at(e, addr);

	if (!sec)
		return NULL;
	if (img->bfd_quirks)
		return (struct dw_sym *)dw_symtab_find(t, addr, (uint32_t)sec);
	return (struct dw_sym *)dw_symtab_find_sized(t, addr, (uint32_t)sec);
}


struct dw_cands {
	uint32_t unit[64];
	size_t n;
};

static int dw_cand_add(const struct dw_range *r, void *arg)
{
	struct dw_cands *c = arg;

	for (size_t i = 0; i < c->n; i++)
		if (c->unit[i] == r->owner)
			return 0;
	if (c->n < sizeof(c->unit) / sizeof(c->unit[0]))
		c->unit[c->n++] = r->owner;
	return 0;
}

static int dw_u32_cmp(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

static int dw_try_unit(struct dw_debug *d, uint32_t idx, uint64_t addr, struct dw_hit *hit)
{
	struct dw_unit *u = &d->units[idx];
	int rc = dw_unit_load_funcs(d, u);

	if (rc == -ENOMEM)
		return rc;
	hit->unit = u;
	hit->row = u->lines_state > 0 ? dw_unit_row(u, addr) : NULL;
	hit->func = u->funcs_state > 0 ? dw_unit_func(u, addr) : NULL;
	return hit->row || hit->func;
}

/* bfd's unit order: units whose ranges hold @addr, then units without ranges. */
int dw_debug_find(struct dw_debug *d, uint64_t addr, struct dw_hit *hit)
{
	struct dw_cands c = { .n = 0 };
	int rc;

	dw_ranges_each(d->ranges, d->nranges, addr, dw_cand_add, &c);
	if (c.n)
		qsort(c.unit, c.n, sizeof(c.unit[0]), dw_u32_cmp);
	for (size_t i = 0; i < c.n; i++)
		if ((rc = dw_try_unit(d, c.unit[i], addr, hit)) != 0)
			return rc;
	for (size_t i = 0; i < d->nrangeless; i++)
		if ((rc = dw_try_unit(d, d->rangeless[i], addr, hit)) != 0)
			return rc;
	/* bfd also counts the line sequences of the units it has read as their
	 * ranges (padding between functions): so do we, for loaded units. */
	for (size_t i = 0; i < d->nunits; i++)
		if (d->units[i].lines_state > 0 && dw_unit_row(&d->units[i], addr))
			return dw_try_unit(d, (uint32_t)i, addr, hit);
	return 0;
}

/* A function's name as binutils 2.40 prints it: its linkage name (or, in C,
 * DW_AT_name); without one, the image's symbol starting exactly at the
 * function's first address if there is one (addr2line renames the function
 * once it has seen that address: "foo [clone .constprop.0]"), else
 * DW_AT_name. Demangled, cached in the function. */
const char *dw_func_name(struct dw_image *img, const struct dw_func *f)
{
	struct dw_func *w = (struct dw_func *)f;
	const char *name = f->name;

	if (w->demangled)
		return w->demangled;
	if (!f->is_linkage) {
		struct dw_sym *s;

		dw_image_symbols(img);
		s = dw_image_sym(img, &img->syms, img->syms_elf, f->bfd_low);
		if (s && s->addr == f->bfd_low) {
			w->demangled = dw_sym_name(s, &img->pool);
			return w->demangled;
		}
	}
	if (!name)
		return NULL;
	w->demangled = dw_demangle(&img->pool, name);
	return w->demangled ? w->demangled : name;
}

/* Frame 0: the function's name; with no function, the image's symbol
 * covering @addr, which also gives the file (STT_FILE) when the line table
 * did not, as bfd's elf_find_function does. */
/* The DWARF name alone, demangled. */
static const char *dw_func_dwarf_name(struct dw_image *img, const struct dw_func *f)
{
	const char *d = f->name ? dw_demangle(&img->pool, f->name) : NULL;

	return d ? d : f->name;
}

/* addr2line-quirk mode: binutils 2.40 names a function without a linkage
 * name by the symbol covering the address the first time the function is
 * the innermost one of a lookup, and renames it for good to that symbol
 * when the symbol starts at the function; it answers differently for the
 * same address depending on what was asked before. */
static const char *dw_func_name_bfd(struct dw_image *img, struct dw_func *f, struct dw_sym *s, bool inner)
{
	if (f->is_linkage)
		return dw_func_dwarf_name(img, f);
	if (inner && !f->bfd_seen) {
		f->bfd_seen = true;
		if (s && s->addr == f->bfd_low)
			f->bfd_name = dw_sym_name(s, &img->pool);
		if (s)
			return dw_sym_name(s, &img->pool);
	}
	return f->bfd_name ? f->bfd_name : dw_func_dwarf_name(img, f);
}

static void dw_inner_frame(struct dw_image *img, const struct dw_func *f, uint64_t addr, struct dw_frame *fr)
{
	struct dw_sym *s;

	if (img->bfd_quirks && f) {
		dw_image_symbols(img);
		s = f->is_linkage ? NULL : dw_image_sym(img, &img->syms, img->syms_elf, addr);
		fr->function = dw_func_name_bfd(img, (struct dw_func *)f, s, true);
	} else if (f) {
		fr->function = dw_func_name(img, f);
	}
	if (f && f->is_linkage)
		return;
	dw_image_symbols(img);
	s = dw_image_sym(img, &img->syms, img->syms_elf, addr);
	if (s && !fr->file)
		fr->file = s->file;
	if (!f && s)
		fr->function = dw_sym_name(s, &img->pool);
}

static void dw_location_from_hit(struct dw_image *img, const struct dw_hit *h, uint64_t addr,
				 struct dw_location *out)
{
	const struct dw_func *f = h->func;
	struct dw_frame *fr = &out->frames[0];

	if (h->row) {
		fr->file = dw_unit_row_file(h->unit, h->row, img->bfd_quirks);
		fr->line = h->row->line;
		fr->column = h->row->column;
		fr->discriminator = h->row->discriminator;
		out->has_line = true;
		out->line_addr = h->row->addr;
	}
	dw_inner_frame(img, f, addr, fr);
	out->nframes = 1;
	while (f && f->inlined && f->parent >= 0) {
		const struct dw_func *caller = &h->unit->funcs[f->parent];

		if (out->nframes == DW_MAX_FRAMES) {
			out->truncated = true;
			break;
		}
		fr = &out->frames[out->nframes++];
		fr->function = img->bfd_quirks ? dw_func_name_bfd(img, (struct dw_func *)caller, NULL, false)
					       : dw_func_name(img, caller);
		fr->file = f->call_file || h->unit->version >= 5 ? dw_unit_file(h->unit, f->call_file) : NULL;
		fr->line = f->call_line;
		f = caller;
	}
	while (f && f->inlined && f->parent >= 0)
		f = &h->unit->funcs[f->parent];
	if (f) {
		out->function_start = f->entry;
	} else {
		struct dw_sym *s;

		dw_image_symbols(img);
		s = dw_image_sym(img, &img->syms, img->syms_elf, addr);

		out->function_start = s ? s->addr : 0;
	}
}

static int dw_image_lookup_symbols(struct dw_image *img, uint64_t addr, struct dw_location *out)
{
	struct dw_sym *s;

	dw_image_symbols(img);
	s = dw_image_sym(img, &img->plt, img->elf, addr);
	if (!s)
		s = dw_image_sym(img, &img->syms, img->syms_elf, addr);
	if (!s)
		return -ENOENT;
	out->nframes = 1;
	out->frames[0].function = dw_sym_name(s, &img->pool);
	out->frames[0].file = s->file;
	out->function_start = s->addr;
	return 0;
}

int dw_image_lookup(struct dw_image *img, uint64_t addr, struct dw_location *out)
{
	memset(out, 0, sizeof(*out));
	if (dw_image_debug(img)) {
		struct dw_hit hit = { 0 };
		int rc = dw_debug_find(&img->debug, addr, &hit);

		if (rc < 0)
			return rc;
		if (rc > 0) {
			dw_location_from_hit(img, &hit, addr, out);
			return 0;
		}
	}
	return dw_image_lookup_symbols(img, addr, out);
}

/* --- addresses of a line or a function --- */

struct dw_addrs {
	uint64_t *v;
	size_t n, cap;
	int err;
};

static void dw_addrs_push(struct dw_addrs *a, uint64_t addr)
{
	if (a->n == a->cap) {
		size_t nc = a->cap ? a->cap * 2 : 16;
		uint64_t *nv = realloc(a->v, nc * sizeof(*nv));

		if (!nv) {
			a->err = -ENOMEM;
			return;
		}
		a->v = nv;
		a->cap = nc;
	}
	a->v[a->n++] = addr;
}

static int dw_u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static int dw_addrs_finish(struct dw_addrs *a, uint64_t *out, size_t max)
{
	size_t n = 0;

	if (a->err) {
		free(a->v);
		return a->err;
	}
	if (a->n)
		qsort(a->v, a->n, sizeof(*a->v), dw_u64_cmp);
	for (size_t i = 0; i < a->n; i++) {
		if (n && a->v[i] == a->v[n - 1])
			continue;
		a->v[n++] = a->v[i];
	}
	if (out && n)
		memcpy(out, a->v, (n < max ? n : max) * sizeof(*out));
	free(a->v);
	return n > INT32_MAX ? INT32_MAX : (int)n;
}

/* @path equals @want, or ends with "/" @want. */
static bool dw_path_match(const char *path, const char *want)
{
	size_t lp, lw;

	if (!path)
		return false;
	if (strcmp(path, want) == 0)
		return true;
	lp = strlen(path);
	lw = strlen(want);
	return want[0] != '/' && lp > lw && path[lp - lw - 1] == '/' && strcmp(path + lp - lw, want) == 0;
}

static void dw_unit_line_addrs(const struct dw_unit *u, const char *file, unsigned line, struct dw_addrs *a)
{
	bool *match = calloc(u->nfiles ? u->nfiles : 1, sizeof(*match));
	bool any = false;

	if (!match) {
		a->err = -ENOMEM;
		return;
	}
	for (size_t i = 0; i < u->nfiles; i++)
		any |= match[i] = dw_path_match(u->files[i], file);
	for (size_t s = 0; any && s < u->nseqs; s++) {
		const struct dw_seq *q = &u->seqs[s];
		const struct dw_row *prev = NULL;
		bool run_has_stmt = false;

		/* A run: consecutive rows of one file:line. Its first statement row
		 * is where a breakpoint on that line goes. */
		for (size_t i = q->first; i + 1 < q->first + q->count; i++) {
			const struct dw_row *r = &u->rows[i];

			if (!prev || prev->line != r->line || prev->file != r->file)
				run_has_stmt = false;
			if (r->is_stmt && !run_has_stmt && r->line == line && r->file < u->nfiles &&
			    match[r->file] && r->addr >= q->low)
				dw_addrs_push(a, r->addr);
			run_has_stmt |= r->is_stmt;
			prev = r;
		}
	}
	free(match);
}

int dw_image_line_addrs(struct dw_image *img, const char *file, unsigned line, uint64_t *addrs, size_t max)
{
	struct dw_addrs a = { 0 };

	if (!file || !*file)
		return -EINVAL;
	if (dw_image_debug(img)) {
		for (size_t i = 0; i < img->debug.nunits && !a.err; i++) {
			struct dw_unit *u = &img->debug.units[i];

			if (dw_unit_load_lines(&img->debug, u) == -ENOMEM)
				a.err = -ENOMEM;
			else if (u->lines_state > 0)
				dw_unit_line_addrs(u, file, line, &a);
		}
	}
	return dw_addrs_finish(&a, addrs, max);
}

/* @name matches @full (a raw or demangled name): equal, or @full is
 * @name followed by a parameter list. */
bool dw_name_match(const char *full, const char *name)
{
	size_t n;

	if (!full)
		return false;
	if (strcmp(full, name) == 0)
		return true;
	n = strlen(name);
	return strncmp(full, name, n) == 0 && (full[n] == '(' || full[n] == '@');
}

static void dw_symtab_name_addrs(struct dw_image *img, struct dw_symtab *t, const char *name,
				 struct dw_addrs *a)
{
	for (size_t i = 0; i < t->n; i++) {
		struct dw_sym *s = &t->syms[i];

		if (dw_name_match(s->name, name) || dw_name_match(dw_sym_name(s, &img->pool), name))
			dw_addrs_push(a, s->addr);
	}
}

int dw_image_function_addrs(struct dw_image *img, const char *name, uint64_t *addrs, size_t max)
{
	struct dw_addrs a = { 0 };

	if (!name || !*name)
		return -EINVAL;
	if (dw_image_debug(img)) {
		for (size_t i = 0; i < img->debug.nunits && !a.err; i++) {
			struct dw_unit *u = &img->debug.units[i];

			if (dw_unit_load_funcs(&img->debug, u) == -ENOMEM) {
				a.err = -ENOMEM;
				break;
			}
			for (size_t k = 0; k < u->nfuncs; k++) {
				const struct dw_func *f = &u->funcs[k];

				if (dw_name_match(f->name, name) || dw_name_match(dw_func_name(img, f), name))
					dw_addrs_push(&a, f->entry);
			}
		}
	}
	dw_image_symbols(img);
	dw_symtab_name_addrs(img, &img->syms, name, &a);
	dw_symtab_name_addrs(img, &img->dsyms, name, &a);
	return dw_addrs_finish(&a, addrs, max);
}

int dw_image_cfi_row(struct dw_image *img, uint64_t addr, struct dw_cfi_row *out)
{
	if (!img->cfi && dw_cfi_open(img->elf, &img->cfi) < 0)
		return -ENOMEM;
	return dw_cfi_row_at(img->cfi, addr, out);
}
