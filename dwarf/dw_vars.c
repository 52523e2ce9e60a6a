/* dw_vars: scopes, globals, types and functions by name; see dw_vars.h.
 *
 * A scope is found by walking the DIEs of the pc's unit down through the
 * subprogram, lexical blocks and inlined subroutines whose ranges hold
 * the pc. Each function level's variables follow GDB's reading
 * (dwarf2/read.c, buildsym.c, dictionary.c): a function's or inlined
 * call's own symbols keep DIE order (a linear dictionary), a lexical
 * block's are hashed (their printing order is the hash table's: buckets in
 * order, the earliest DIE first within one), a block without ranges lends
 * its variables to the enclosing scope, and the children of the abstract
 * origin that no concrete child refers to are read after the concrete
 * ones (inherit_abstract_dies), so variables optimized away entirely still
 * show as <optimized out>. */
#include "dwarf/dw_vars.h"
#include "dwarf/dw_vars_int.h"
#include "dwarf/dw_rd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_die.h"
#include "dwarf/dw_elf.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_loc.h"
#include "dwarf/dw_pool.h"
#include "dwarf/dw_range.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_types.h"
#include "dwarf/dw_unit.h"

enum { MAX_ORIGINS = 8 };

/* --- units --- */

static int unit_first(const struct dw_range *r, void *arg)
{
	*(int64_t *)arg = r->owner;
	return 1;
}

/* The unit whose ranges hold @pc, or -1. */
int64_t dwv_unit_at(struct dw_debug *d, uint64_t pc)
{
	int64_t u = -1;

	dw_ranges_each(d->ranges, d->nranges, pc, unit_first, &u);
	return u;
}

void dwv_unit_ctx_init(struct unit_ctx *uc, struct dw_debug *d, size_t unit, uint64_t pc)
{
	const struct dw_unit *u = &d->units[unit];
	Dwarf_Die cu = dw_die_at(d, u->die_off);

	memset(uc, 0, sizeof(*uc));
	uc->d = d;
	uc->version = u->version;
	uc->base = u->base;
	uc->pc = pc;
	if (!cu)
		return;
	Dwarf_Off hdr = 0, hlen = 0;
	Dwarf_Error err = NULL;

	if (dwarf_die_CU_offset_range(cu, &hdr, &hlen, &err) == DW_DLV_OK)
		uc->header = hdr;
	dw_err_free(d, err);
	if (!dw_die_udata(d, cu, DW_AT_addr_base, &uc->addr_base))
		dw_die_ref(d, cu, DW_AT_addr_base, &uc->addr_base);
	if (!dw_die_udata(d, cu, DW_AT_loclists_base, &uc->loclists_base))
		dw_die_ref(d, cu, DW_AT_loclists_base, &uc->loclists_base);
	dwarf_dealloc_die(cu);
}

static bool section(struct dw_debug *d, const char *name, const uint8_t **p, size_t *size)
{
	size_t idx = dw_elf_find(d->elf, name);
	const void *data;

	if (!idx || dw_elf_load(d->elf, idx, &data, size) != 0 || !data)
		return false;
	*p = data;
	return true;
}

/* .debug_addr entry @index of the unit. */
static int addr_index(void *ctx, uint64_t index, uint64_t *addr)
{
	struct unit_ctx *uc = ctx;
	const uint8_t *p;
	size_t size;
	uint64_t at = uc->addr_base + index * 8;

	if (!section(uc->d, ".debug_addr", &p, &size) || index > size / 8 || at > size - 8 ||
	    size < 8)
		return -EINVAL;
	memcpy(addr, p + at, 8);
	return 0;
}

/* --- location lists --- */

/* Takes a counted expression (@ulen: ULEB length, else 2 bytes) at r. */
static void lrd_expr(struct dw_rd *r, bool ulen, const uint8_t **e, size_t *len)
{
	uint64_t n = ulen ? dw_rd_uleb(r) : dw_rd_fixed(r, 2);

	if (r->bad || n > r->end - r->at) {
		r->bad = true;
		return;
	}
	*e = r->p + r->at;
	*len = (size_t)n;
	r->at += (size_t)n;
}

/* DWARF 4 .debug_loc at @off: the expression for uc->pc. Returns 1, 0
 * when no entry holds it, -EINVAL. */
static int loc_v4(struct unit_ctx *uc, uint64_t off, const uint8_t **e, size_t *len)
{
	struct dw_rd r;
	uint64_t base = uc->base;
	size_t size;

	if (!section(uc->d, ".debug_loc", &r.p, &size) || off >= size)
		return -EINVAL;
	r.at = (size_t)off, r.end = size, r.bad = false;
	for (unsigned n = 0; n < 100000 && !r.bad; n++) {
		uint64_t lo = dw_rd_fixed(&r, 8), hi = dw_rd_fixed(&r, 8);
		const uint8_t *x = NULL;
		size_t xl = 0;

		if (r.bad || (lo == 0 && hi == 0))
			break;
		if (lo == UINT64_MAX) {
			base = hi;
			continue;
		}
		lrd_expr(&r, false, &x, &xl);
		if (!r.bad && uc->pc >= base + lo && uc->pc < base + hi) {
			*e = x, *len = xl;
			return 1;
		}
	}
	return r.bad ? -EINVAL : 0;
}

/* One DWARF 5 entry: its range (when it has one) and expression. */
static int lle_v5(struct unit_ctx *uc, struct dw_rd *r, uint8_t kind, uint64_t *base, uint64_t *lo,
		  uint64_t *hi)
{
	uint64_t a, b;

	switch (kind) {
	case DW_LLE_base_addressx:
		return addr_index(uc, dw_rd_uleb(r), base) < 0 ? -EINVAL : 0;
	case DW_LLE_base_address: *base = dw_rd_fixed(r, 8); return 0;
	case DW_LLE_startx_endx:
		a = dw_rd_uleb(r), b = dw_rd_uleb(r);
		return addr_index(uc, a, lo) < 0 || addr_index(uc, b, hi) < 0 ? -EINVAL : 1;
	case DW_LLE_startx_length:
		a = dw_rd_uleb(r), b = dw_rd_uleb(r);
		if (addr_index(uc, a, lo) < 0)
			return -EINVAL;
		*hi = *lo + b;
		return 1;
	case DW_LLE_offset_pair:
		a = dw_rd_uleb(r), b = dw_rd_uleb(r);
		*lo = *base + a, *hi = *base + b;
		return 1;
	case DW_LLE_default_location: *lo = 0, *hi = UINT64_MAX; return 2;
	case DW_LLE_start_end: *lo = dw_rd_fixed(r, 8), *hi = dw_rd_fixed(r, 8); return 1;
	case DW_LLE_start_length: *lo = dw_rd_fixed(r, 8), *hi = *lo + dw_rd_uleb(r); return 1;
	default: return -EINVAL;
	}
}

/* DWARF 5 .debug_loclists at @off, as loc_v4. */
static int loc_v5(struct unit_ctx *uc, uint64_t off, const uint8_t **e, size_t *len)
{
	struct dw_rd r;
	uint64_t base = uc->base;
	size_t size;
	bool have_default = false;

	if (!section(uc->d, ".debug_loclists", &r.p, &size) || off >= size)
		return -EINVAL;
	r.at = (size_t)off, r.end = size, r.bad = false;
	for (unsigned n = 0; n < 100000 && !r.bad; n++) {
		uint8_t kind = (uint8_t)dw_rd_fixed(&r, 1);
		uint64_t lo = 0, hi = 0;
		const uint8_t *x = NULL;
		size_t xl = 0;
		int rc;

		if (r.bad || kind == DW_LLE_end_of_list)
			break;
		rc = lle_v5(uc, &r, kind, &base, &lo, &hi);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		lrd_expr(&r, true, &x, &xl);
		if (r.bad)
			break;
		if (rc == 2 && !have_default) {
			*e = x, *len = xl;
			have_default = true;
		} else if (rc == 1 && uc->pc >= lo && uc->pc < hi) {
			*e = x, *len = xl;
			return 1;
		}
	}
	return r.bad ? -EINVAL : have_default;
}

/* A DW_FORM_loclistx index to its offset in .debug_loclists. */
static int loclistx(struct unit_ctx *uc, uint64_t index, uint64_t *off)
{
	const uint8_t *p;
	size_t size;
	uint32_t rel;
	uint64_t at = uc->loclists_base + index * 4;

	if (!section(uc->d, ".debug_loclists", &p, &size) || index > size / 4 || size < 4 ||
	    at > size - 4)
		return -EINVAL;
	memcpy(&rel, p + at, 4);
	*off = uc->loclists_base + rel;
	return 0;
}

/* The expression of attribute @a (a location or a frame base) at uc->pc.
 * Returns 1 with *@e / *@len, 0 when nothing applies there, <0. */
int dwv_attr_expr(struct unit_ctx *uc, Dwarf_Attribute a, const uint8_t **e, size_t *len)
{
	struct dw_debug *d = uc->d;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Unsigned u = 0, n;
	Dwarf_Ptr p;
	Dwarf_Block *blk = NULL;
	Dwarf_Off o;
	int rc = -EINVAL;

	if (dwarf_whatform(a, &form, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return -EINVAL;
	}
	if (form == DW_FORM_exprloc) {
		if (dwarf_formexprloc(a, &n, &p, &err) == DW_DLV_OK)
			*e = p, *len = (size_t)n, rc = 1;
	} else if (form == DW_FORM_block1 || form == DW_FORM_block2 || form == DW_FORM_block4 ||
		   form == DW_FORM_block) {
		if (dwarf_formblock(a, &blk, &err) == DW_DLV_OK) {
			*e = blk->bl_data, *len = (size_t)blk->bl_len, rc = 1;
			dwarf_dealloc(d->dbg, blk, DW_DLA_BLOCK); /* bl_data points into the section */
		}
	} else if (form == DW_FORM_loclistx) {
		uint64_t off;

		if (dwarf_formudata(a, &u, &err) == DW_DLV_OK && loclistx(uc, u, &off) == 0)
			rc = loc_v5(uc, off, e, len);
	} else if (form == DW_FORM_data4 || form == DW_FORM_data8) {
		if (dwarf_formudata(a, &u, &err) == DW_DLV_OK)
			rc = uc->version >= 5 ? loc_v5(uc, u, e, len) : loc_v4(uc, u, e, len);
	} else if (dwarf_global_formref(a, &o, &err) == DW_DLV_OK) {
		rc = uc->version >= 5 ? loc_v5(uc, o, e, len) : loc_v4(uc, o, e, len);
	}
	dw_err_free(d, err);
	return rc;
}

/* The base type DIE at unit offset @off, for typed stack operations. */
static int base_type_at(void *ctx, uint64_t off, unsigned *size, bool *is_signed, bool *is_float)
{
	struct unit_ctx *uc = ctx;
	Dwarf_Die die = dw_die_at(uc->d, uc->header + off);
	uint64_t bytes = 0, ate = 0;
	bool ok;

	if (!die)
		return -EINVAL;
	ok = dw_die_tag(die) == DW_TAG_base_type && dw_die_udata(uc->d, die, DW_AT_byte_size, &bytes) &&
	     dw_die_udata(uc->d, die, DW_AT_encoding, &ate);
	dwarf_dealloc_die(die);
	if (!ok || bytes > 16)
		return -EINVAL;
	*size = (unsigned)bytes;
	*is_signed = ate == DW_ATE_signed || ate == DW_ATE_signed_char;
	*is_float = ate == DW_ATE_float || ate == DW_ATE_complex_float || ate == DW_ATE_decimal_float;
	return 0;
}

/* Indexes and typed operations in the expression become plain ones (the
 * copy lives in the pool). */
int dwv_expr_own(struct unit_ctx *uc, const uint8_t **e, size_t *len)
{
	const struct dw_loc_rewriter rw = { addr_index, base_type_at, uc };
	uint8_t *out = NULL, *copy;
	size_t n = 0;
	bool rewrite = false;

	for (size_t i = 0; i < *len;) {
		int sz = dw_loc_op_size(*e, *len, i);

		if (sz < 0)
			return 0; /* dw_loc_eval will say what is wrong with it */
		rewrite |= dw_loc_needs_rewrite((*e)[i]);
		i += (size_t)sz;
	}
	if (!rewrite)
		return 0;
	if (dw_loc_rewrite(*e, *len, &rw, &out, &n) < 0)
		return 0;
	copy = n ? dw_pool_alloc(uc->d->pool, n) : NULL;
	if (n && !copy) {
		free(out);
		return -ENOMEM;
	}
	if (n)
		memcpy(copy, out, n);
	free(out);
	*e = copy, *len = n;
	return 0;
}

/* --- one variable --- */

/* @die, or the DIE its DW_AT_abstract_origin / DW_AT_specification chain
 * reaches that has @at; NULL when none (the caller frees a non-@die). */
static Dwarf_Die die_with(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Die cur = die;

	for (unsigned i = 0; i < MAX_ORIGINS; i++) {
		uint64_t off;
		Dwarf_Die next;

		if (dw_die_has(cur, at))
			return cur;
		if (!dw_die_ref(d, cur, DW_AT_abstract_origin, &off) &&
		    !dw_die_ref(d, cur, DW_AT_specification, &off))
			break;
		next = dw_die_at(d, off);
		if (cur != die)
			dwarf_dealloc_die(cur);
		if (!next)
			return NULL;
		cur = next;
	}
	if (cur != die)
		dwarf_dealloc_die(cur);
	return NULL;
}

static const char *origin_name(struct dw_debug *d, Dwarf_Die die)
{
	Dwarf_Die w = die_with(d, die, DW_AT_name);
	const char *name = w ? dw_die_name(d, w) : NULL;

	if (w && w != die)
		dwarf_dealloc_die(w);
	return name;
}

/* A number of DW_AT_const_value @a (form @form) into 8 pool bytes. */
static int const_number(struct dw_debug *d, Dwarf_Attribute a, Dwarf_Half form, struct dw_var *v)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	uint64_t size = dw_type_size(v->type), *val = dw_pool_alloc(d->pool, 8);

	if (!val)
		return -ENOMEM;
	if (form == DW_FORM_sdata || form == DW_FORM_implicit_const) {
		if (dwarf_formsdata(a, &s, &err) == DW_DLV_OK)
			*val = (uint64_t)s;
		else
			v->where = DW_VAR_OPTIMIZED_OUT;
	} else if (dwarf_formudata(a, &u, &err) == DW_DLV_OK) {
		*val = u;
	} else {
		v->where = DW_VAR_OPTIMIZED_OUT;
	}
	dw_err_free(d, err);
	v->bytes = (const uint8_t *)val;
	v->nbytes = size && size < 8 ? (size_t)size : 8;
	return 0;
}

/* DW_AT_const_value as bytes: blocks and strings as they are, numbers
 * little-endian in the type's size. */
static int const_bytes(struct unit_ctx *uc, Dwarf_Die die, struct dw_var *v)
{
	struct dw_debug *d = uc->d;
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Block *blk = NULL;
	Dwarf_Half form = 0;
	char *str;
	int rc = 0;

	if (dwarf_attr(die, DW_AT_const_value, &a, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return 0;
	}
	v->where = DW_VAR_CONST;
	if (dwarf_whatform(a, &form, &err) != DW_DLV_OK) {
		v->where = DW_VAR_OPTIMIZED_OUT;
	} else if (dwarf_get_form_class(uc->version, DW_AT_const_value, 4, form) ==
		   DW_FORM_CLASS_BLOCK) {
		if (dwarf_formblock(a, &blk, &err) == DW_DLV_OK) {
			v->bytes = blk->bl_data, v->nbytes = (size_t)blk->bl_len;
			dwarf_dealloc(d->dbg, blk, DW_DLA_BLOCK); /* bl_data is the section's */
		} else {
			v->where = DW_VAR_OPTIMIZED_OUT;
		}
	} else if (dwarf_get_form_class(uc->version, DW_AT_const_value, 4, form) ==
		   DW_FORM_CLASS_STRING) {
		if (dwarf_formstring(a, &str, &err) == DW_DLV_OK)
			v->bytes = (const uint8_t *)str, v->nbytes = strlen(str) + 1;
		else
			v->where = DW_VAR_OPTIMIZED_OUT;
	} else {
		rc = const_number(d, a, form, v);
	}
	dw_err_free(d, err);
	dwarf_dealloc_attribute(a);
	return rc;
}

/* Where @die's variable is at uc->pc. */
static int var_where(struct unit_ctx *uc, Dwarf_Die die, struct dw_var *v)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	int rc;

	v->where = DW_VAR_OPTIMIZED_OUT;
	if (dwarf_attr(die, DW_AT_location, &a, &err) != DW_DLV_OK) {
		dw_err_free(uc->d, err);
		return const_bytes(uc, die, v);
	}
	rc = dwv_attr_expr(uc, a, &v->expr, &v->exprlen);
	dwarf_dealloc_attribute(a);
	if (rc <= 0) /* no entry for the pc, or a list this reader cannot follow */
		return 0;
	v->where = DW_VAR_EXPR;
	return dwv_expr_own(uc, &v->expr, &v->exprlen);
}

static int var_read(struct unit_ctx *uc, Dwarf_Die die, struct dw_var *v)
{
	struct dw_debug *d = uc->d;
	Dwarf_Die t = die_with(d, die, DW_AT_type);

	memset(v, 0, sizeof(*v));
	v->die = dw_die_off(die);
	v->name = origin_name(d, die);
	v->is_param = dw_die_tag(die) == DW_TAG_formal_parameter;
	if (t) {
		v->type = dw_types_of(d, t, &uc->nomem);
		if (t != die)
			dwarf_dealloc_die(t);
	}
	if (uc->nomem)
		return -ENOMEM;
	return var_where(uc, die, v);
}

/* --- a scope's symbols --- */

/* One symbol of a block as GDB's dictionary holds it; @var < 0 for those
 * `info locals` does not print (labels, types, declarations). */
struct sym {
	const char *name;
	long var;
};

struct syms {
	struct unit_ctx *uc;
	struct dw_var *vars;
	size_t nvars, capvars;
	struct sym *s;
	size_t n, cap;
	uint64_t *refs;         /* abstract origins the concrete children name */
	size_t nrefs, caprefs;
	unsigned depth;
};

static int grow(void **v, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	void *nv = realloc(*v, nc * size);

	if (!nv)
		return -ENOMEM;
	*v = nv;
	*cap = nc;
	return 0;
}

static int sym_add(struct syms *ss, const char *name, const struct dw_var *v)
{
	if (grow((void **)&ss->s, &ss->cap, ss->n, sizeof(*ss->s)) < 0)
		return -ENOMEM;
	if (v && grow((void **)&ss->vars, &ss->capvars, ss->nvars, sizeof(*ss->vars)) < 0)
		return -ENOMEM;
	ss->s[ss->n++] = (struct sym){ .name = name, .var = v ? (long)ss->nvars : -1 };
	if (v)
		ss->vars[ss->nvars++] = *v;
	return 0;
}

bool dwv_has_ranges(Dwarf_Die die)
{
	return dw_die_has(die, DW_AT_low_pc) || dw_die_has(die, DW_AT_ranges);
}

static int sym_child(struct dw_debug *d, Dwarf_Die die, void *arg);

static int sym_variable(struct syms *ss, Dwarf_Die die)
{
	struct dw_var v;
	int rc;

	/* An extern declaration inside a function: GDB's LOC_UNRESOLVED */
	if (dw_die_flag(ss->uc->d, die, DW_AT_declaration) && !dw_die_has(die, DW_AT_location) &&
	    !dw_die_has(die, DW_AT_const_value))
		return sym_add(ss, dw_die_name(ss->uc->d, die), NULL);
	rc = var_read(ss->uc, die, &v);
	if (rc < 0)
		return rc;
	return v.name ? sym_add(ss, v.name, &v) : 0;
}

/* One child of a scope DIE: variables and parameters are symbols; a block
 * without ranges lends its children; labels and named types count in the
 * dictionary only. */
static int sym_child(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct syms *ss = arg;
	Dwarf_Half tag = dw_die_tag(die);
	uint64_t off;

	if (dw_die_ref(d, die, DW_AT_abstract_origin, &off)) {
		if (grow((void **)&ss->refs, &ss->caprefs, ss->nrefs, sizeof(*ss->refs)) < 0)
			return -ENOMEM;
		ss->refs[ss->nrefs++] = off;
	}
	switch (tag) {
	case DW_TAG_variable: case DW_TAG_formal_parameter:
		return sym_variable(ss, die);
	case DW_TAG_lexical_block:
		if (dwv_has_ranges(die) || ss->depth >= 64)
			return 0;
		ss->depth++;
		int rc = dw_die_children(d, die, sym_child, ss);

		ss->depth--;
		return rc;
	case DW_TAG_label: case DW_TAG_typedef: case DW_TAG_structure_type:
	case DW_TAG_union_type: case DW_TAG_enumeration_type: {
		const char *name = dw_die_name(d, die);

		return name ? sym_add(ss, name, NULL) : 0;
	}
	default:
		return 0;
	}
}

static int u64_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

struct inherit {
	struct syms *ss;
	size_t nrefs;
};

static int inherit_child(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct inherit *in = arg;
	uint64_t off = dw_die_off(die);

	if (in->nrefs && bsearch(&off, in->ss->refs, in->nrefs, sizeof(off), u64_cmp))
		return 0;
	return sym_child(d, die, in->ss);
}

/* The symbols of scope DIE @die: its children, then its abstract origin's
 * children no concrete child refers to. */
static int syms_read(struct syms *ss, Dwarf_Die die)
{
	struct dw_debug *d = ss->uc->d;
	uint64_t off;
	Dwarf_Die origin;
	int rc = dw_die_children(d, die, sym_child, ss);

	if (rc < 0 || !dw_die_ref(d, die, DW_AT_abstract_origin, &off))
		return rc;
	if (!(origin = dw_die_at(d, off)))
		return 0;
	struct inherit in = { .ss = ss, .nrefs = ss->nrefs };

	if (ss->nrefs)
		qsort(ss->refs, ss->nrefs, sizeof(*ss->refs), u64_cmp);
	rc = dw_die_children(d, origin, inherit_child, &in);
	dwarf_dealloc_die(origin);
	return rc;
}

/* GDB's default_search_name_hash for C names (msymbol_hash_iw for the odd
 * ones), SYMBOL_HASH_NEXT: hash * 67 + tolower(c) - 113. */
static unsigned gdb_hash_iw(const char *s)
{
	unsigned h = 0;

	for (; *s && *s != '('; s++)
		if (*s != ' ' && *s != '\t')
			h = h * 67 + (unsigned)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s) - 113;
	return h;
}

static unsigned gdb_hash(const char *s0)
{
	const char *s = s0;
	unsigned h = 0;

	if (*s == '_') {
		if (strncmp(s, "_ada_", 5) != 0)
			return gdb_hash_iw(s0);
		s += 5;
	}
	for (; *s; s++) {
		switch (*s) {
		case '$': case '.': case 'X':
			return s == s0 ? gdb_hash_iw(s0) : h;
		case ' ': case '(':
			return gdb_hash_iw(s0);
		case '_':
			if (s[1] == '_' && s != s0) {
				int c = s[2];

				if ((c < 'a' || c > 'z') && c != 'O')
					return h;
				h = 0;
				s++;
				continue;
			}
			break;
		case 'T':
			if (strcmp(s, "TKB") == 0)
				return h;
			break;
		}
		h = h * 67 + (unsigned)(*s >= 'A' && *s <= 'Z' ? *s + 32 : *s) - 113;
	}
	return h;
}

/* Appends the printable variables of @ss to @out (non-parameters when
 * !@params, else parameters) in GDB's order: DIE order for a function's
 * linear dictionary, hash-table order for a block's. */
static int syms_emit(const struct syms *ss, bool hashed, bool params, struct dw_var **out,
		     size_t *n, size_t *cap)
{
	size_t nb = ss->n / 5 + 1, k = 0;
	size_t *order = malloc((ss->n ? ss->n : 1) * sizeof(*order));

	if (!order)
		return -ENOMEM;
	if (!hashed) {
		for (size_t i = 0; i < ss->n; i++)
			order[k++] = i;
	} else {
		/* Inserted last to first, each at its bucket's head: a bucket
		 * lists its symbols first to last. */
		for (size_t b = 0; b < nb; b++)
			for (size_t i = 0; i < ss->n; i++)
				if (gdb_hash(ss->s[i].name) % nb == b)
					order[k++] = i;
	}
	for (size_t i = 0; i < k; i++) {
		const struct sym *s = &ss->s[order[i]];

		if (s->var < 0 || ss->vars[s->var].is_param != params)
			continue;
		if (grow((void **)out, cap, *n, sizeof(**out)) < 0) {
			free(order);
			return -ENOMEM;
		}
		(*out)[(*n)++] = ss->vars[s->var];
	}
	free(order);
	return 0;
}

static void syms_fini(struct syms *ss)
{
	free(ss->vars);
	free(ss->s);
	free(ss->refs);
}

/* --- the scope at a pc --- */

struct path_walk {
	struct unit_ctx *uc;
	struct path *p;
	unsigned depth;
	int rc;
};

static bool die_holds(struct unit_ctx *uc, Dwarf_Die die, uint64_t pc)
{
	struct dw_range *r = NULL;
	size_t n = 0, cap = 0;
	bool in = false;

	if (dw_ranges_read(uc->d, die, uc->base, 0, &r, &n, &cap) < 0)
		uc->nomem = true;
	for (size_t i = 0; i < n && !in; i++)
		in = pc >= r[i].low && pc < r[i].high;
	free(r);
	return in;
}

static int path_child(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct path_walk *w = arg;
	Dwarf_Half tag = dw_die_tag(die);
	bool scope = tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
		     tag == DW_TAG_lexical_block || tag == DW_TAG_entry_point;

	if (tag == DW_TAG_namespace && w->depth < 64) { /* C++: functions inside */
		w->depth++;
		int rc = dw_die_children(d, die, path_child, w);

		w->depth--;
		return rc;
	}
	if (!scope || w->depth >= 64)
		return 0;
	if (tag == DW_TAG_lexical_block && !dwv_has_ranges(die)) {
		/* its blocks are the enclosing scope's */
		w->depth++;
		int rc = dw_die_children(d, die, path_child, w);

		w->depth--;
		return rc;
	}
	if (!die_holds(w->uc, die, w->uc->pc))
		return 0;
	if (w->p->n == MAX_PATH)
		return 1;
	w->p->die[w->p->n] = dw_die_off(die);
	w->p->tag[w->p->n++] = tag;
	w->depth++;
	dw_die_children(d, die, path_child, w);
	w->depth--;
	return 1; /* scopes nest: the first that holds the pc is the one */
}

/* The DIEs from @pc's subprogram down to its innermost block. */
int dwv_path_find(struct unit_ctx *uc, size_t unit, struct path *p)
{
	Dwarf_Die cu = dw_die_at(uc->d, uc->d->units[unit].die_off);
	struct path_walk w = { .uc = uc, .p = p };

	p->n = 0;
	if (!cu)
		return -EIO;
	dw_die_children(uc->d, cu, path_child, &w);
	dwarf_dealloc_die(cu);
	if (uc->nomem)
		return -ENOMEM;
	return p->n ? 0 : -ENOENT;
}

/* The symbols of path entry @i into @ss. */
static int path_syms(struct unit_ctx *uc, const struct path *p, size_t i, struct syms *ss)
{
	Dwarf_Die die = dw_die_at(uc->d, p->die[i]);
	int rc;

	memset(ss, 0, sizeof(*ss));
	ss->uc = uc;
	if (!die)
		return -EIO;
	rc = syms_read(ss, die);
	dwarf_dealloc_die(die);
	return rc;
}

/* Level @lv: function DIE p[@f], its blocks p[@f+1 .. @end). */
static int level_build(struct unit_ctx *uc, const struct path *p, size_t f, size_t end,
		       struct dw_scope_level *lv)
{
	size_t cap = 0, acap = 0;
	struct syms ss;
	Dwarf_Die fd;
	int rc = 0;

	lv->die = p->die[f];
	lv->inlined = p->tag[f] == DW_TAG_inlined_subroutine;
	if ((fd = dw_die_at(uc->d, p->die[f]))) {
		lv->function = origin_name(uc->d, fd);
		dwarf_dealloc_die(fd);
	}
	for (size_t i = end; i-- > f + 1 && rc == 0;) {
		rc = path_syms(uc, p, i, &ss);
		if (rc == 0)
			rc = syms_emit(&ss, true, false, &lv->locals, &lv->nlocals, &cap);
		syms_fini(&ss);
	}
	if (rc < 0)
		return rc;
	rc = path_syms(uc, p, f, &ss);
	if (rc == 0)
		rc = syms_emit(&ss, false, false, &lv->locals, &lv->nlocals, &cap);
	if (rc == 0)
		rc = syms_emit(&ss, false, true, &lv->args, &lv->nargs, &acap);
	syms_fini(&ss);
	return rc;
}

static int scope_frame_base(struct unit_ctx *uc, uint64_t fn, struct dw_scope *s)
{
	Dwarf_Die die = dw_die_at(uc->d, fn);
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	int rc = 0;

	if (!die)
		return -EIO;
	if (dwarf_attr(die, DW_AT_frame_base, &a, &err) == DW_DLV_OK) {
		if (dwv_attr_expr(uc, a, &s->frame_base, &s->frame_base_len) <= 0)
			s->frame_base = NULL, s->frame_base_len = 0;
		else
			rc = dwv_expr_own(uc, &s->frame_base, &s->frame_base_len);
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(uc->d, err);
	dwarf_dealloc_die(die);
	return rc;
}

static int scope_build(struct unit_ctx *uc, const struct path *p, struct dw_scope *s)
{
	size_t nfn = 0, end = p->n;

	for (size_t i = 0; i < p->n; i++)
		nfn += p->tag[i] != DW_TAG_lexical_block;
	s->levels = calloc(nfn, sizeof(*s->levels));
	if (!s->levels)
		return -ENOMEM;
	/* Levels from the innermost inlined call out to the subprogram. */
	for (size_t i = p->n; i-- > 0;) {
		int rc;

		if (p->tag[i] == DW_TAG_lexical_block)
			continue;
		rc = level_build(uc, p, i, end, &s->levels[s->nlevels++]);
		if (rc < 0)
			return rc;
		end = i;
	}
	return scope_frame_base(uc, p->die[0], s);
}

void dw_scope_free(struct dw_scope *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nlevels; i++) {
		free(s->levels[i].args);
		free(s->levels[i].locals);
	}
	free(s->levels);
	free(s);
}

int dw_image_scope(struct dw_image *img, uint64_t pc, struct dw_scope **out)
{
	struct dw_debug *d = dw_image_dwarf(img);
	struct unit_ctx uc;
	struct path *p;
	struct dw_scope *s;
	int64_t unit;
	int rc;

	*out = NULL;
	if (!d || (unit = dwv_unit_at(d, pc)) < 0)
		return -ENOENT;
	if (!dw_vars_cache_of(d))
		return -ENOMEM;
	dwv_unit_ctx_init(&uc, d, (size_t)unit, pc);
	p = malloc(sizeof(*p));
	s = calloc(1, sizeof(*s));
	rc = p && s ? dwv_path_find(&uc, (size_t)unit, p) : -ENOMEM;
	if (rc == 0 && p->tag[0] != DW_TAG_subprogram && p->tag[0] != DW_TAG_entry_point)
		rc = -ENOENT;
	if (rc == 0)
		rc = scope_build(&uc, p, s);
	free(p);
	if (rc < 0) {
		dw_scope_free(s);
		return rc;
	}
	s->image = img;
	*out = s;
	return 0;
}

int dw_space_scope(struct dw_space *sp, uint64_t pc, struct dw_scope **out)
{
	struct dw_image *img;
	uint64_t bias;
	int rc;

	*out = NULL;
	if (dw_space_image_at(sp, pc, &img, &bias) < 0)
		return -ESRCH;
	rc = dw_image_scope(img, pc - bias, out);
	if (rc == 0)
		(*out)->bias = bias;
	return rc;
}

/* --- names --- */

/* The unit @pc is in, or -1 (then no unit is preferred). */
static int64_t unit_pref(struct dw_debug *d, uint64_t pc)
{
	return pc ? dwv_unit_at(d, pc) : -1;
}

static int global_var(struct dw_debug *d, const struct dw_name *nm, struct dw_var *out)
{
	struct unit_ctx uc;
	Dwarf_Die die;
	int rc;

	if (nm->kind == DW_NAME_ENUMERATOR) {
		const struct dw_type *t = dw_types_read(d, nm->die);

		if (!t)
			return -ENOMEM;
		if (t->kind != DW_TYPE_ENUM || nm->index >= t->nenumerators)
			return -ENOENT;
		memset(out, 0, sizeof(*out));
		out->name = nm->name;
		out->type = t;
		out->where = DW_VAR_CONST;
		/* little-endian: the first bytes of the int64_t are the value's */
		out->bytes = (const uint8_t *)&t->enumerators[nm->index].value;
		out->nbytes = t->size && t->size <= 8 ? (size_t)t->size : 4;
		out->die = nm->die;
		return 0;
	}
	dwv_unit_ctx_init(&uc, d, nm->unit, 0);
	if (!(die = dw_die_at(d, nm->die)))
		return -EIO;
	rc = var_read(&uc, die, out);
	dwarf_dealloc_die(die);
	return rc;
}

/* Picks among the entries named alike by @pass: 0 the pc's unit, 1
 * external definitions anywhere, 2 any definition; then what is no
 * declaration but has no location either (GDB's optimized-out symbols):
 * 3 in the pc's unit, 4 anywhere. */
static const struct dw_name *pick(const struct dw_name *n, size_t count, int64_t unit, int pass,
				  bool (*want)(const struct dw_name *))
{
	for (size_t i = 0; i < count; i++) {
		bool here = (int64_t)n[i].unit == unit;

		if (!want(&n[i]) || (pass < 3 && !n[i].defined) || n[i].declaration)
			continue;
		if ((pass == 0 && here) || (pass == 1 && n[i].external) || pass == 2 ||
		    (pass == 3 && here) || pass == 4)
			return &n[i];
	}
	return NULL;
}

static bool want_var(const struct dw_name *n)
{
	return n->kind == DW_NAME_VAR || n->kind == DW_NAME_ENUMERATOR;
}

static bool want_func(const struct dw_name *n)
{
	return n->kind == DW_NAME_FUNC;
}

static const struct dw_name *find_name(struct dw_debug *d, uint64_t pc, const char *name,
				       bool (*want)(const struct dw_name *))
{
	const struct dw_name *n, *hit = NULL;
	size_t count;
	int64_t unit = unit_pref(d, pc);

	n = dw_types_names(d, name, &count);
	for (int pass = 0; pass < (want == want_var ? 5 : 3) && !hit; pass++)
		hit = pick(n, count, unit, pass, want);
	return hit;
}

int dw_image_global(struct dw_image *img, uint64_t pc, const char *name, struct dw_var *out)
{
	struct dw_debug *d = dw_image_dwarf(img);
	const struct dw_name *nm;
	int rc;

	if (!d)
		return -ENOENT;
	rc = dw_types_index(d);
	if (rc < 0)
		return rc;
	nm = find_name(d, pc, name, want_var);
	return nm ? global_var(d, nm, out) : -ENOENT;
}

/* "struct x" → DW_NAME_STRUCT and "x". */
static int type_kind(const char **name)
{
	static const struct {
		const char *kw;
		int kind;
	} kws[] = { { "struct", DW_NAME_STRUCT }, { "union", DW_NAME_UNION }, { "enum", DW_NAME_ENUM } };

	for (size_t i = 0; i < sizeof(kws) / sizeof(kws[0]); i++) {
		size_t n = strlen(kws[i].kw);

		if (strncmp(*name, kws[i].kw, n) == 0 && (*name)[n] == ' ') {
			*name += n;
			while (**name == ' ')
				(*name)++;
			return kws[i].kind;
		}
	}
	return -1;
}

int dw_image_type(struct dw_image *img, uint64_t pc, const char *name, const struct dw_type **out)
{
	struct dw_debug *d = dw_image_dwarf(img);
	const struct dw_name *n, *hit = NULL;
	const struct dw_type *bt;
	size_t count;
	int kind, rc;
	int64_t unit;

	if (!d)
		return -ENOENT;
	if ((rc = dw_types_index(d)) < 0)
		return rc;
	kind = type_kind(&name);
	if (kind < 0 && (bt = dw_types_builtin(d, name))) {
		*out = bt; /* GDB's own types for C's keywords, as its parser does */
		return 0;
	}
	unit = unit_pref(d, pc);
	n = dw_types_names(d, name, &count);
	/* the pc's unit, then any; a definition over a declaration */
	for (int pass = 0; pass < 4 && !hit; pass++)
		for (size_t i = 0; i < count && !hit; i++) {
			bool kind_ok = kind >= 0 ? n[i].kind == kind :
				       n[i].kind == DW_NAME_TYPEDEF || n[i].kind == DW_NAME_BASE;

			if (kind_ok && (pass & 1 || (int64_t)n[i].unit == unit) &&
			    (pass >= 2 || n[i].defined))
				hit = &n[i];
		}
	if (!hit)
		return -ENOENT;
	*out = dw_types_read(d, hit->die);
	return *out ? 0 : -ENOMEM;
}

int dw_image_function(struct dw_image *img, uint64_t pc, const char *name,
		      const struct dw_type **type, uint64_t *entry)
{
	struct dw_debug *d = dw_image_dwarf(img);
	const struct dw_name *nm;
	Dwarf_Die die, decl;
	Dwarf_Error err = NULL;
	Dwarf_Addr low = 0;
	int rc;

	if (!d)
		return -ENOENT;
	if ((rc = dw_types_index(d)) < 0)
		return rc;
	if (!(nm = find_name(d, pc, name, want_func)))
		return -ENOENT;
	if (!(die = dw_die_at(d, nm->die)))
		return -EIO;
	if (dwarf_lowpc(die, &low, &err) != DW_DLV_OK) {
		struct dw_range *r = NULL;
		size_t n = 0, cap = 0;

		dw_err_free(d, err);
		dw_ranges_read(d, die, d->units[nm->unit].base, 0, &r, &n, &cap);
		low = n ? r[0].low : 0;
		free(r);
	}
	/* An out-of-line copy's type is its abstract origin's. */
	decl = die_with(d, die, DW_AT_name);
	*type = dw_types_read(d, decl ? dw_die_off(decl) : nm->die);
	if (decl && decl != die)
		dwarf_dealloc_die(decl);
	dwarf_dealloc_die(die);
	*entry = low;
	return *type ? 0 : -ENOMEM;
}

/* --- through a space --- */

/* Calls @fn on the image at @pc, then every other image, until it
 * answers something else than -ENOENT. */
static int space_each(struct dw_space *s, uint64_t pc,
		      int (*fn)(struct dw_image *, uint64_t file_pc, uint64_t bias, void *), void *arg)
{
	struct dw_image *first = NULL, *img;
	uint64_t bias;
	int rc = -ENOENT;

	if (dw_space_image_at(s, pc, &first, &bias) == 0)
		rc = fn(first, pc - bias, bias, arg);
	for (size_t i = 0; rc == -ENOENT && dw_space_image(s, i, &img, &bias) == 0; i++)
		if (img != first)
			rc = fn(img, 0, bias, arg);
	return rc;
}

struct space_q {
	const char *name;
	struct dw_var *var;
	const struct dw_type **type;
	uint64_t *entry;
	uint64_t bias;
};

static int space_global(struct dw_image *img, uint64_t pc, uint64_t bias, void *arg)
{
	struct space_q *q = arg;

	q->bias = bias;
	return dw_image_global(img, pc, q->name, q->var);
}

static int space_type(struct dw_image *img, uint64_t pc, uint64_t bias, void *arg)
{
	struct space_q *q = arg;

	(void)bias;
	return dw_image_type(img, pc, q->name, q->type);
}

static int space_function(struct dw_image *img, uint64_t pc, uint64_t bias, void *arg)
{
	struct space_q *q = arg;
	int rc = dw_image_function(img, pc, q->name, q->type, q->entry);

	if (rc == 0)
		*q->entry += bias;
	return rc;
}

int dw_space_global(struct dw_space *s, uint64_t pc, const char *name, struct dw_var *out,
		    uint64_t *bias)
{
	struct space_q q = { .name = name, .var = out };
	int rc = space_each(s, pc, space_global, &q);

	if (rc == 0 && bias)
		*bias = q.bias;
	return rc;
}

int dw_space_type(struct dw_space *s, uint64_t pc, const char *name, const struct dw_type **out)
{
	struct space_q q = { .name = name, .type = out };

	return space_each(s, pc, space_type, &q);
}

int dw_space_function(struct dw_space *s, uint64_t pc, const char *name,
		      const struct dw_type **type, uint64_t *entry)
{
	struct space_q q = { .name = name, .type = type, .entry = entry };

	return space_each(s, pc, space_function, &q);
}
