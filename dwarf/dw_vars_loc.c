/* dwarf/dw_vars_loc.c: one variable as it is at a pc, the floor of
 * dw_vars (dw_vars_int.h): a unit's reading context, DWARF 4 .debug_loc and
 * DWARF 5 .debug_loclists lists, expressions made plain for dw_loc_eval
 * (address indexes and typed operations rewritten), constant values, and
 * a variable's DIE read into struct dw_var. dw_vars.c (scopes),
 * dw_vars_names.c (names) and dw_callsite.c build on it; it calls none of
 * them. */
#include "dwarf/dw_vars.h"
#include "dwarf/dw_vars_int.h"
#include "dwarf/dw_rd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_die.h"
#include "dwarf/dw_elf.h"
#include "dwarf/dw_loc.h"
#include "dwarf/dw_pool.h"
#include "dwarf/dw_range.h"
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
Dwarf_Die dwv_die_with(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at)
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

const char *dwv_origin_name(struct dw_debug *d, Dwarf_Die die)
{
	Dwarf_Die w = dwv_die_with(d, die, DW_AT_name);
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

int dwv_var_read(struct unit_ctx *uc, Dwarf_Die die, struct dw_var *v)
{
	struct dw_debug *d = uc->d;
	Dwarf_Die t = dwv_die_with(d, die, DW_AT_type);

	memset(v, 0, sizeof(*v));
	v->die = dw_die_off(die);
	v->name = dwv_origin_name(d, die);
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
