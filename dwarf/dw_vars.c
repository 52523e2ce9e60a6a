/* dw_vars: the scope at a pc; see dw_vars.h. Globals, types and
 * functions by name are dw_vars_names.c's, one variable and where it is
 * dw_vars_loc.c's (dw_vars_int.h).
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
	rc = dwv_var_read(ss->uc, die, &v);
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
		lv->function = dwv_origin_name(uc->d, fd);
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
