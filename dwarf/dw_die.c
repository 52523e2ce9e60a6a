/* dwarf/dw_die.c: the small libdwarf wrappers of dw_die.h, which never
 * leak a Dwarf_Error. The floor of dwarf/'s DWARF readers: it calls none
 * of them. */
#include "dwarf/dw_die.h"

#include "dwarf/dw_debug.h"

/* --- errors --- */

void dw_err_free(struct dw_debug *d, Dwarf_Error err)
{
	/* The Dwarf_Debug matters: libdwarf tracks errors per debug and frees
	 * them again in dwarf_finish when freed as NULL's. */
	dw_err_drop(d ? d->dbg : NULL, err);
}

void dw_err_drop(Dwarf_Debug dbg, Dwarf_Error err)
{
	if (err)
		dwarf_dealloc_error(dbg, err);
}

/* --- attributes --- */

bool dw_attr_string(struct dw_debug *d, Dwarf_Die die, Dwarf_Half name, const char **out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	char *s = NULL;
	bool ok = false;

	if (dwarf_attr(die, name, &a, &err) == DW_DLV_OK) {
		ok = dwarf_formstring(a, &s, &err) == DW_DLV_OK;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	if (ok)
		*out = s;
	return ok;
}

bool dw_attr_udata(struct dw_debug *d, Dwarf_Die die, Dwarf_Half name, Dwarf_Unsigned *out)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	bool ok = false;

	if (dwarf_attr(die, name, &a, &err) == DW_DLV_OK) {
		ok = dwarf_formudata(a, out, &err) == DW_DLV_OK;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	return ok;
}

/* --- DIEs --- */

Dwarf_Die dw_die_at(struct dw_debug *d, uint64_t off)
{
	Dwarf_Die die = NULL;
	Dwarf_Error err = NULL;

	if (dwarf_offdie_b(d->dbg, off, 1, &die, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return NULL;
	}
	return die;
}

uint64_t dw_die_off(Dwarf_Die die)
{
	Dwarf_Off off = 0;
	Dwarf_Error err = NULL;

	if (dwarf_dieoffset(die, &off, &err) != DW_DLV_OK)
		dw_err_drop(NULL, err);
	return off;
}

Dwarf_Half dw_die_tag(Dwarf_Die die)
{
	Dwarf_Half tag = 0;
	Dwarf_Error err = NULL;

	if (dwarf_tag(die, &tag, &err) != DW_DLV_OK)
		dw_err_drop(NULL, err);
	return tag;
}

const char *dw_die_name(struct dw_debug *d, Dwarf_Die die)
{
	const char *s = NULL;

	return dw_attr_string(d, die, DW_AT_name, &s) ? s : NULL;
}

bool dw_die_has(Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Bool has = 0;
	Dwarf_Error err = NULL;

	if (dwarf_hasattr(die, at, &has, &err) != DW_DLV_OK) {
		dw_err_drop(NULL, err);
		return false;
	}
	return has;
}

bool dw_die_ref(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at, uint64_t *off)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Off o;
	bool ok = false;

	if (dwarf_attr(die, at, &a, &err) == DW_DLV_OK) {
		ok = dwarf_global_formref(a, &o, &err) == DW_DLV_OK;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	if (ok)
		*off = o;
	return ok;
}

/* An unsigned constant, DW_FORM_implicit_const included (which this
 * libdwarf's dwarf_formudata refuses). */
bool dw_die_udata(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at, uint64_t *v)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Unsigned u;
	Dwarf_Signed s;
	Dwarf_Half form = 0;
	bool ok = false;

	if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return false;
	}
	if (dwarf_formudata(a, &u, &err) == DW_DLV_OK) {
		*v = u;
		ok = true;
	} else {
		dw_err_free(d, err), err = NULL;
		if (dwarf_whatform(a, &form, &err) == DW_DLV_OK && form == DW_FORM_implicit_const &&
		    dwarf_formsdata(a, &s, &err) == DW_DLV_OK) {
			*v = (uint64_t)s;
			ok = true;
		}
		dw_err_free(d, err);
	}
	dwarf_dealloc_attribute(a);
	return ok;
}

bool dw_die_flag(struct dw_debug *d, Dwarf_Die die, Dwarf_Half at)
{
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Bool b = 0;

	if (dwarf_attr(die, at, &a, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return false;
	}
	if (dwarf_formflag(a, &b, &err) != DW_DLV_OK)
		dw_err_free(d, err);
	dwarf_dealloc_attribute(a);
	return b != 0;
}

int dw_die_children(struct dw_debug *d, Dwarf_Die die,
		    int (*fn)(struct dw_debug *, Dwarf_Die, void *),
		    void *arg)
{
	Dwarf_Die child = NULL;
	Dwarf_Error err = NULL;
	int rc = 0;

	if (dwarf_child(die, &child, &err) != DW_DLV_OK) {
		dw_err_free(d, err);
		return 0;
	}
	while (child && rc == 0) {
		Dwarf_Die next = NULL;

		rc = fn(d, child, arg);
		if (dwarf_siblingof_b(d->dbg, child, 1, &next, &err) != DW_DLV_OK) {
			dw_err_free(d, err), err = NULL;
			next = NULL;
		}
		dwarf_dealloc_die(child);
		child = next;
	}
	if (child)
		dwarf_dealloc_die(child);
	return rc;
}
