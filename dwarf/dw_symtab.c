/* dw_symtab: sorted ELF symbols and PLT entries; see dw_symtab.h. */
#include "dwarf/dw_symtab.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_demangle.h"

static int dw_sym_cmp(const void *a, const void *b)
{
	const struct dw_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* bfd's _bfd_elf_maybe_function_sym, on ELF terms; with @objects, GDB's
 * minimal symbols: data objects count too. */
static bool dw_sym_counts(const GElf_Sym *s, size_t nsections, bool objects)
{
	int type = GELF_ST_TYPE(s->st_info);

	if (s->st_shndx == SHN_UNDEF || s->st_shndx >= SHN_LORESERVE || s->st_shndx >= nsections)
		return false;
	if (type == STT_SECTION || type == STT_FILE || type == STT_TLS || type == STT_COMMON ||
	    (type == STT_OBJECT && !objects))
		return false;
	if (s->st_size == 0 && GELF_ST_BIND(s->st_info) == STB_LOCAL && type == STT_NOTYPE &&
	    GELF_ST_VISIBILITY(s->st_other) == STV_HIDDEN)
		return false;
	return true;
}

struct dw_versions {
	const GElf_Versym *versym;
	size_t nversym;
	const char **names; /* by version index */
	bool *base;
	size_t nnames;
};

static void dw_versions_load(struct dw_versions *v, struct dw_elf *e)
{
	memset(v, 0, sizeof(*v));
	for (size_t i = 1; i < e->nsections; i++) {
		const struct dw_elf_section *s = &e->sections[i];
		const void *d;
		size_t sz;

		if (s->type == SHT_GNU_versym && dw_elf_load(e, i, &d, &sz) == 0) {
			v->versym = d;
			v->nversym = sz / sizeof(GElf_Versym);
		}
		if (s->type != SHT_GNU_verdef || dw_elf_load(e, i, &d, &sz) != 0)
			continue;
		Elf_Data *data = elf_getdata(s->scn, NULL);
		size_t off = 0;
		GElf_Verdef vd;
		GElf_Verdaux va;

		for (int guard = 0; data && guard < 65536 && gelf_getverdef(data, (int)off, &vd); guard++) {
			if (vd.vd_ndx >= v->nnames) {
				size_t n = vd.vd_ndx + 1u;
				const char **names = realloc(v->names, n * sizeof(*names));
				bool *base = names ? realloc(v->base, n * sizeof(*base)) : NULL;

				if (names)
					v->names = names;
				if (!base)
					break;
				v->base = base;
				for (size_t k = v->nnames; k < n; k++) {
					v->names[k] = NULL;
					v->base[k] = false;
				}
				v->nnames = n;
			}
			if (gelf_getverdaux(data, (int)(off + vd.vd_aux), &va))
				v->names[vd.vd_ndx] = elf_strptr(e->elf, s->link, va.vda_name);
			v->base[vd.vd_ndx] = (vd.vd_flags & VER_FLG_BASE) != 0;
			if (vd.vd_next == 0)
				break;
			off += vd.vd_next;
		}
	}
}

static const char *dw_versioned(struct dw_versions *v, size_t idx, const char *name, struct dw_pool *pool)
{
	if (!v->versym || idx >= v->nversym)
		return name;
	unsigned ver = v->versym[idx] & 0x7fff;
	bool hidden = (v->versym[idx] & 0x8000) != 0;

	if (ver < 2 || ver >= v->nnames || !v->names[ver] || v->base[ver])
		return name;
	size_t ln = strlen(name), lv = strlen(v->names[ver]);
	char *r = dw_pool_alloc(pool, ln + lv + 3);

	if (!r)
		return name;
	memcpy(r, name, ln);
	memcpy(r + ln, hidden ? "@" : "@@", hidden ? 1 : 2);
	memcpy(r + ln + (hidden ? 1 : 2), v->names[ver], lv + 1);
	return r;
}

static int dw_symtab_read(struct dw_symtab *t, struct dw_elf *e, uint32_t type,
			  struct dw_pool *pool, bool objects)
{
	struct dw_versions ver;
	size_t idx = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 1; i < e->nsections && !idx; i++)
		if (e->sections[i].type == type)
			idx = i;
	if (!idx)
		return 0;
	Elf_Data *d = elf_getdata(e->sections[idx].scn, NULL);
	size_t count = d && e->sections[idx].entsize ? d->d_size / sizeof(Elf64_Sym) : 0;
	if (count == 0)
		return 0;
	t->syms = calloc(count, sizeof(*t->syms));
	if (!t->syms)
		return -ENOMEM;
	if (type == SHT_DYNSYM)
		dw_versions_load(&ver, e);
	/* bfd's elf_find_function: a symbol's file is the last STT_FILE before
	 * it, for global symbols only while no file followed a symbol. */
	enum { NOTHING_SEEN, SYMBOL_SEEN, FILE_AFTER_SYMBOL } state = NOTHING_SEEN;
	const char *file = NULL;

	for (size_t i = 1; i < count; i++) {
		GElf_Sym s;
		const char *name, *sfile;

		if (!gelf_getsym(d, (int)i, &s))
			continue;
		name = elf_strptr(e->elf, e->sections[idx].link, s.st_name);
		if (GELF_ST_TYPE(s.st_info) == STT_FILE) {
			file = name;
			if (state == SYMBOL_SEEN)
				state = FILE_AFTER_SYMBOL;
			continue;
		}
		sfile = file && (GELF_ST_BIND(s.st_info) == STB_LOCAL || state != FILE_AFTER_SYMBOL) ? file : NULL;
		if (state == NOTHING_SEEN)
			state = SYMBOL_SEEN;
		if (!name || !dw_sym_counts(&s, e->nsections, objects))
			continue;
		if (type == SHT_DYNSYM)
			name = dw_versioned(&ver, i, name, pool);
		t->syms[t->n++] = (struct dw_sym){ .addr = s.st_value, .size = s.st_size, .name = name,
						   .file = sfile, .shndx = s.st_shndx, .order = (uint32_t)i,
						   .info = s.st_info };
	}
	if (type == SHT_DYNSYM) {
		free(ver.names);
		free(ver.base);
	}
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), dw_sym_cmp);
	return (int)t->n;
}

int dw_symtab_load(struct dw_symtab *t, struct dw_elf *e, uint32_t type, struct dw_pool *pool)
{
	return dw_symtab_read(t, e, type, pool, false);
}

int dw_symtab_load_msyms(struct dw_symtab *t, struct dw_elf *e, uint32_t type,
			 struct dw_pool *pool)
{
	return dw_symtab_read(t, e, type, pool, true);
}

/* Name of what the GOT slot @got is filled with, from .rela.plt / .rela.dyn:
 * the dynamic symbol of its relocation, or for an IRELATIVE one (no symbol:
 * the slot gets what the ifunc resolver at the addend returns) objdump's
 * and GDB's "*ABS*+0xADDEND", written into @buf. NULL if none. */
static const char *dw_plt_target(struct dw_elf *e, uint64_t got, char *buf, size_t size)
{
	for (size_t i = 1; i < e->nsections; i++) {
		const struct dw_elf_section *s = &e->sections[i];

		if (s->type != SHT_RELA || s->link == 0 || s->link >= e->nsections)
			continue;
		Elf_Data *d = elf_getdata(s->scn, NULL), *sd = elf_getdata(e->sections[s->link].scn, NULL);
		size_t n = d ? d->d_size / sizeof(Elf64_Rela) : 0;

		for (size_t k = 0; sd && k < n; k++) {
			GElf_Rela r;
			GElf_Sym sym;

			if (!gelf_getrela(d, (int)k, &r) || r.r_offset != got)
				continue;
			if (GELF_R_TYPE(r.r_info) == R_X86_64_IRELATIVE) {
				snprintf(buf, size, "*ABS*+0x%" PRIx64, (uint64_t)r.r_addend);
				return buf;
			}
			if (!gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym) || GELF_R_SYM(r.r_info) == 0)
				return NULL;
			return elf_strptr(e->elf, e->sections[s->link].link, sym.st_name);
		}
	}
	return NULL;
}

/* GOT slot read by the first "jmp *disp32(%rip)" (ff 25) of one PLT entry. */
static bool dw_plt_slot(const uint8_t *p, size_t n, uint64_t addr, uint64_t *got)
{
	for (size_t k = 0; k + 6 <= n; k++) {
		if (p[k] == 0xff && p[k + 1] == 0x25) {
			int32_t disp;

			memcpy(&disp, p + k + 2, 4);
			*got = addr + k + 6 + (uint64_t)(int64_t)disp;
			return true;
		}
	}
	return false;
}

static int dw_plt_section(struct dw_symtab *t, size_t *cap, struct dw_elf *e, size_t idx,
			  struct dw_pool *pool)
{
	const struct dw_elf_section *s = &e->sections[idx];
	const void *d;
	size_t sz, ent = s->entsize >= 8 && s->entsize <= 32 ? s->entsize : 16;

	if (s->type != SHT_PROGBITS || dw_elf_load(e, idx, &d, &sz) != 0)
		return 0;
	for (size_t off = 0; off + ent <= sz; off += ent) {
		uint64_t got;
		const char *target;
		char abs[32];

		if (!dw_plt_slot((const uint8_t *)d + off, ent, s->addr + off, &got))
			continue;
		target = dw_plt_target(e, got, abs, sizeof(abs));
		if (!target || !*target)
			continue;
		if (t->n == *cap) {
			size_t nc = *cap ? *cap * 2 : 64;
			struct dw_sym *ns = realloc(t->syms, nc * sizeof(*ns));

			if (!ns)
				return -ENOMEM;
			t->syms = ns;
			*cap = nc;
		}
		size_t len = strlen(target);
		char *w = dw_pool_alloc(pool, len + 5);

		if (!w)
			return -ENOMEM;
		memcpy(w, target, len);
		memcpy(w + len, "@plt", 5);
		t->syms[t->n++] = (struct dw_sym){ .addr = s->addr + off, .size = ent, .name = w,
						   .shndx = (uint32_t)idx, .order = (uint32_t)t->n };
	}
	return 0;
}

int dw_symtab_load_plt(struct dw_symtab *t, struct dw_elf *e, struct dw_pool *pool)
{
	static const char *const names[] = { ".plt", ".plt.sec", ".plt.got" };
	size_t cap = 0;

	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t idx = dw_elf_find(e, names[i]);
		int rc = idx ? dw_plt_section(t, &cap, e, idx, pool) : 0;

		if (rc < 0)
			return rc;
	}
	if (t->n)
		qsort(t->syms, t->n, sizeof(*t->syms), dw_sym_cmp);
	return (int)t->n;
}

void dw_symtab_fini(struct dw_symtab *t)
{
	free(t->syms);
	memset(t, 0, sizeof(*t));
}

/* Index of the last symbol with addr <= @addr, or -1. */
static ptrdiff_t dw_symtab_upper(const struct dw_symtab *t, uint64_t addr)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (t->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (ptrdiff_t)lo - 1;
}

const struct dw_sym *dw_symtab_find(const struct dw_symtab *t, uint64_t addr, uint32_t shndx)
{
	ptrdiff_t i = dw_symtab_upper(t, addr);
	const struct dw_sym *best = NULL;

	for (; i >= 0; i--) {
		const struct dw_sym *s = &t->syms[i];

		if (best && s->addr != best->addr)
			break;
		if (s->shndx == shndx)
			best = s;
	}
	return best;
}

const struct dw_sym *dw_symtab_find_sized(const struct dw_symtab *t, uint64_t addr, uint32_t shndx)
{
	const struct dw_sym *zero = NULL, *sized = NULL;

	/* Of several names at one address, the first in dw_sym_cmp's order
	 * (the largest, then the first in the table), as dw_symtab_find:
	 * GDB's choice (printf, __printf and _IO_printf: _IO_printf). */
	for (ptrdiff_t i = dw_symtab_upper(t, addr); i >= 0; i--) {
		const struct dw_sym *s = &t->syms[i];

		if (s->shndx != shndx)
			continue;
		if (sized) {
			if (s->addr != sized->addr)
				break;
			if (s->size && addr - s->addr < s->size)
				sized = s;
			continue;
		}
		if (s->size) {
			if (addr - s->addr >= s->size)
				return zero;
			sized = s;
			continue;
		}
		if (zero && zero->addr != s->addr)
			break;
		zero = s;
	}
	return sized ? sized : zero;
}

const struct dw_sym *dw_symtab_at(const struct dw_symtab *t, uint64_t addr)
{
	ptrdiff_t i = dw_symtab_upper(t, addr);

	while (i > 0 && t->syms[i - 1].addr == addr)
		i--;
	return i >= 0 && t->syms[i].addr == addr ? &t->syms[i] : NULL;
}

const char *dw_sym_name(struct dw_sym *s, struct dw_pool *pool)
{
	if (!s->demangled)
		s->demangled = dw_demangle(pool, s->name);
	return s->demangled ? s->demangled : s->name;
}
