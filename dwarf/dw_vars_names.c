/* dwarf/dw_vars_names.c: globals, types and functions by name
 * (dw_vars.h), per image and through a space: dw_types.c's index of
 * file-scope names searched with the pc's unit first, as GDB looks names
 * up, and a variable found so read by dw_vars_loc.c (dw_vars_int.h).
 * Beside dw_vars.c (scopes): neither calls the other. */
#include "dwarf/dw_vars.h"
#include "dwarf/dw_vars_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_die.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_range.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_types.h"
#include "dwarf/dw_unit.h"

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
	rc = dwv_var_read(&uc, die, out);
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
	decl = dwv_die_with(d, die, DW_AT_name);
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
