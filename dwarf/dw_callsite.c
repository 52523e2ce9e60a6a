/* dw_callsite: DW_TAG_call_site (DWARF 4's DW_TAG_GNU_call_site) by the
 * address its call returns to: the values its parameters were given (for
 * DW_OP_entry_value in the callee) and what it calls (an entry value holds
 * only for the callee of that call site); see dw_vars.h. */
#include "dwarf/dw_vars.h"
#include "dwarf/dw_vars_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_die.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_types.h"

struct call_find {
	struct unit_ctx *uc;
	uint64_t return_pc;
	unsigned reg;
	const uint8_t *expr;
	size_t len;
	int found;              /* 1: the call site; 2: and its parameter */
	bool no_param;          /* the call site only */
	uint64_t site;          /* its DIE */
	unsigned depth;
};

/* DW_AT_location of a call site parameter names register @reg. */
static bool param_in_reg(struct dw_debug *d, Dwarf_Die die, unsigned reg)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned n = 0;
	Dwarf_Ptr p = NULL;
	bool yes = false;

	if (dwarf_attr(die, DW_AT_location, &a, &err) == DW_DLV_OK) {
		if (dwarf_formexprloc(a, &n, &p, &err) == DW_DLV_OK) {
			const uint8_t *e = p;

			yes = (n == 1 && e[0] == 0x50 + reg && reg < 32) ||
			      (n == 2 && e[0] == 0x90 && e[1] == reg && reg < 128);
		}
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	return yes;
}

static int call_param(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct call_find *cf = arg;
	Dwarf_Half tag = dw_die_tag(die);
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;

	if ((tag != DW_TAG_call_site_parameter && tag != DW_TAG_GNU_call_site_parameter) ||
	    !param_in_reg(d, die, cf->reg))
		return 0;
	if (dwarf_attr(die, DW_AT_call_value, &a, &err) == DW_DLV_OK ||
	    (dw_err_free(d, err), err = NULL,
	     dwarf_attr(die, DW_AT_GNU_call_site_value, &a, &err) == DW_DLV_OK)) {
		if (dwv_attr_expr(cf->uc, a, &cf->expr, &cf->len) > 0)
			cf->found = 2;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	return cf->found == 2;
}

/* An address attribute (DW_FORM_addr, DW_FORM_addrx...). */
static bool die_addr(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at, uint64_t *out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Addr v;
	bool ok = false;

	if (dwarf_attr(die, at, &a, &err) == DW_DLV_OK) {
		ok = dwarf_formaddr(a, &v, &err) == DW_DLV_OK;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	if (ok)
		*out = v;
	return ok;
}

/* A call site among @die's children (and rangeless blocks') returning to
 * cf->return_pc: its parameter in cf->reg. */
static int call_site(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct call_find *cf = arg;
	Dwarf_Half tag = dw_die_tag(die);
	uint64_t ret = 0;
	int rc;

	if (tag == DW_TAG_lexical_block && !dwv_has_ranges(die) && cf->depth < 64) {
		cf->depth++;
		rc = dw_die_children(d, die, call_site, cf);
		cf->depth--;
		return rc;
	}
	if (tag != DW_TAG_call_site && tag != DW_TAG_GNU_call_site)
		return 0;
	if (!die_addr(d, die, DW_AT_call_return_pc, &ret) && !die_addr(d, die, DW_AT_low_pc, &ret))
		return 0;
	if (ret != cf->return_pc)
		return 0;
	cf->found = 1;
	cf->site = dw_die_off(die);
	if (!cf->no_param)
		dw_die_children(d, die, call_param, cf);
	return 1;
}

/* The call site returning to file address @cf->return_pc in @d (its
 * parameter in @cf->reg unless @cf->no_param): 0 with @cf filled, -ENOENT,
 * -ENOMEM. */
static int call_find(struct dw_debug *d, struct call_find *cf, struct unit_ctx *uc)
{
	struct path *p;
	int64_t unit;
	int rc;

	if (!d || (unit = dwv_unit_at(d, cf->return_pc - 1)) < 0)
		return -ENOENT;
	dwv_unit_ctx_init(uc, d, (size_t)unit, cf->return_pc - 1);
	cf->uc = uc;
	if (!(p = malloc(sizeof(*p))))
		return -ENOMEM;
	rc = dwv_path_find(uc, (size_t)unit, p);
	for (size_t i = p->n; rc == 0 && i-- > 0 && !cf->found;) {
		Dwarf_Die die = dw_die_at(d, p->die[i]);

		if (die) {
			dw_die_children(d, die, call_site, cf);
			dwarf_dealloc_die(die);
		}
	}
	free(p);
	return rc < 0 ? rc : cf->found ? 0 : -ENOENT;
}

int dw_image_call_value(struct dw_image *img, uint64_t return_pc, unsigned reg,
			const uint8_t **expr, size_t *len)
{
	struct call_find cf = { .return_pc = return_pc, .reg = reg };
	struct unit_ctx uc;
	int rc = call_find(dw_image_dwarf(img), &cf, &uc);

	if (rc < 0)
		return rc;
	if (cf.found != 2)
		return -ENOENT;
	rc = dwv_expr_own(&uc, &cf.expr, &cf.len);
	*expr = cf.expr;
	*len = cf.len;
	return rc;
}

/* The function @die calls (DW_AT_call_origin, DWARF 4's abstract origin):
 * its address if this DIE or one it comes from (abstract origin,
 * specification) has one, else its name. */
static int call_origin(struct dw_debug *d, Dwarf_Die site, struct dw_call_target *out)
{
	uint64_t off;
	Dwarf_Die die;

	if (!dw_die_ref(d, site, DW_AT_call_origin, &off) &&
	    !dw_die_ref(d, site, DW_AT_abstract_origin, &off))
		return -ENOENT;
	for (unsigned i = 0; i < 8 && (die = dw_die_at(d, off)); i++) {
		bool next;

		if (!dw_die_flag(d, die, DW_AT_declaration) && die_addr(d, die, DW_AT_low_pc, &out->addr)) {
			out->kind = DW_CALL_TARGET_ADDR;
			dwarf_dealloc_die(die);
			return 0;
		}
		if (!out->name)
			out->name = dw_die_name(d, die);
		next = dw_die_ref(d, die, DW_AT_abstract_origin, &off) ||
		       dw_die_ref(d, die, DW_AT_specification, &off);
		dwarf_dealloc_die(die);
		if (!next)
			break;
	}
	if (!out->name)
		return -ENOENT;
	out->kind = DW_CALL_TARGET_NAME;
	return 0;
}

int dw_image_call_target(struct dw_image *img, uint64_t return_pc, struct dw_call_target *out)
{
	struct dw_debug *d = dw_image_dwarf(img);
	struct call_find cf = { .return_pc = return_pc, .no_param = true };
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	struct unit_ctx uc;
	Dwarf_Die site;
	int rc = call_find(d, &cf, &uc);

	memset(out, 0, sizeof(*out));
	if (rc < 0)
		return rc;
	if (!(site = dw_die_at(d, cf.site)))
		return -ENOENT;
	out->tail = dw_die_flag(d, site, DW_AT_call_tail_call) || dw_die_flag(d, site, DW_AT_GNU_tail_call);
	rc = call_origin(d, site, out);
	if (rc == -ENOENT && (dwarf_attr(site, DW_AT_call_target, &a, &err) == DW_DLV_OK ||
			      (dw_err_free(d, err), err = NULL,
			       dwarf_attr(site, DW_AT_GNU_call_site_target, &a, &err) == DW_DLV_OK))) {
		rc = dwv_attr_expr(&uc, a, &out->expr, &out->len) > 0 ? dwv_expr_own(&uc, &out->expr, &out->len)
								       : -ENOENT;
		if (rc == 0)
			out->kind = DW_CALL_TARGET_EXPR;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	dwarf_dealloc_die(site);
	return rc;
}

int dw_space_call_value(struct dw_space *s, uint64_t return_pc, unsigned reg,
			const uint8_t **expr, size_t *len, uint64_t *bias)
{
	struct dw_image *img;
	uint64_t b;

	if (dw_space_image_at(s, return_pc - 1, &img, &b) < 0)
		return -ENOENT;
	if (bias)
		*bias = b;
	return dw_image_call_value(img, return_pc - b, reg, expr, len);
}

int dw_space_call_target(struct dw_space *s, uint64_t return_pc, struct dw_call_target *out,
			 uint64_t *bias)
{
	struct dw_image *img;
	uint64_t b;
	int rc;

	memset(out, 0, sizeof(*out));
	if (dw_space_image_at(s, return_pc - 1, &img, &b) < 0)
		return -ENOENT;
	if (bias)
		*bias = b;
	rc = dw_image_call_target(img, return_pc - b, out);
	if (rc == 0 && out->kind == DW_CALL_TARGET_ADDR)
		out->addr += b;
	return rc;
}
