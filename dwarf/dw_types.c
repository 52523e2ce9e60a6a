/* dw_types: type DIEs into struct dw_type, the per-debug type cache and
 * the file-scope name index; see dw_types.h. A type enters the cache
 * before its members, targets and elements are read, so a struct that
 * points to itself finds itself. An incomplete struct, union or enum
 * (DW_AT_declaration) becomes the complete one of the same name from
 * another unit when there is one, as GDB resolves opaque types. */
#include "dwarf/dw_types.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debug.h"
#include "dwarf/dw_die.h"
#include "dwarf/dw_pool.h"
#include "dwarf/dw_unit.h"

enum { TYPE_DEPTH = 200, MAX_DIMS = 16 };

/* --- the cache --- */

static void cache_free(struct dw_vars_cache *c)
{
	if (!c)
		return;
	free(c->keys);
	free(c->vals);
	free(c->names);
	free(c);
}

struct dw_vars_cache *dw_vars_cache_of(struct dw_debug *d)
{
	if (!d->vars) {
		d->vars = calloc(1, sizeof(*d->vars));
		/* dw_debug_close frees it so, calling nothing of this file by name */
		d->vars_free = cache_free;
	}
	return d->vars;
}

static const struct dw_type **cache_slot(struct dw_vars_cache *c, uint64_t key)
{
	size_t i = (size_t)(key * 0x9e3779b97f4a7c15ull >> 20) & (c->cap - 1);

	while (c->keys[i] && c->keys[i] != key)
		i = (i + 1) & (c->cap - 1);
	return &c->vals[i];
}

static const struct dw_type *cache_get(struct dw_vars_cache *c, uint64_t key)
{
	return c->cap ? *cache_slot(c, key) : NULL;
}

static int cache_put(struct dw_vars_cache *c, uint64_t key, const struct dw_type *t)
{
	if ((c->n + 1) * 2 > c->cap) {
		struct dw_vars_cache nc = { .cap = c->cap ? c->cap * 2 : 256 };

		nc.keys = calloc(nc.cap, sizeof(*nc.keys));
		nc.vals = calloc(nc.cap, sizeof(*nc.vals));
		if (!nc.keys || !nc.vals) {
			free(nc.keys);
			free(nc.vals);
			return -ENOMEM;
		}
		for (size_t i = 0; i < c->cap; i++)
			if (c->keys[i]) {
				const struct dw_type **s = cache_slot(&nc, c->keys[i]);

				nc.keys[s - nc.vals] = c->keys[i];
				*s = c->vals[i];
			}
		free(c->keys);
		free(c->vals);
		c->keys = nc.keys;
		c->vals = nc.vals;
		c->cap = nc.cap;
	}
	const struct dw_type **s = cache_slot(c, key);

	if (!c->keys[s - c->vals])
		c->n++;
	c->keys[s - c->vals] = key;
	*s = t;
	return 0;
}

/* --- reading one type --- */

static const struct dw_type void_type = { .kind = DW_TYPE_VOID, .name = "void" };

const struct dw_type *dw_types_void(void)
{
	return &void_type;
}

struct rdt {
	struct dw_debug *d;
	struct dw_vars_cache *c;
	unsigned depth;
	bool nomem;
};

static const struct dw_type *type_at(struct rdt *r, uint64_t off);

/* DW_AT_type of @die: void when absent. */
static const struct dw_type *type_target(struct rdt *r, Dwarf_Die die)
{
	uint64_t off;

	if (!dw_die_ref(r->d, die, DW_AT_type, &off))
		return &void_type;
	return type_at(r, off);
}

static enum dw_type_enc base_enc(uint64_t ate)
{
	switch (ate) {
	case DW_ATE_signed: return DW_ENC_SIGNED;
	case DW_ATE_unsigned: case DW_ATE_UTF: case DW_ATE_address: return DW_ENC_UNSIGNED;
	case DW_ATE_signed_char: return DW_ENC_SIGNED_CHAR;
	case DW_ATE_unsigned_char: return DW_ENC_UNSIGNED_CHAR;
	case DW_ATE_boolean: return DW_ENC_BOOL;
	case DW_ATE_float: return DW_ENC_FLOAT;
	default: return DW_ENC_NONE;
	}
}

/* A data member: its byte offset and, for bit-fields, the bits. */
static void member_place(struct rdt *r, Dwarf_Die die, struct dw_member *m)
{
	uint64_t loc = 0, bits = 0, dbo, bo, storage;

	if (!dw_die_udata(r->d, die, DW_AT_data_member_location, &loc)) {
		Dwarf_Attribute a = NULL;
		Dwarf_Error err = NULL;
		Dwarf_Unsigned len;
		Dwarf_Ptr p;

		/* DWARF 2's DW_OP_plus_uconst N. */
		if (dwarf_attr(die, DW_AT_data_member_location, &a, &err) == DW_DLV_OK) {
			if (dwarf_formexprloc(a, &len, &p, &err) == DW_DLV_OK && len >= 2 &&
			    ((uint8_t *)p)[0] == DW_OP_plus_uconst) {
				const uint8_t *b = p;

				for (unsigned i = 1, sh = 0; i < len && sh < 64; i++, sh += 7) {
					loc |= (uint64_t)(b[i] & 0x7f) << sh;
					if (!(b[i] & 0x80))
						break;
				}
			}
			dwarf_dealloc_attribute(a);
		}
		dw_err_free(r->d, err);
	}
	m->offset = loc;
	if (!dw_die_udata(r->d, die, DW_AT_bit_size, &bits) || bits == 0)
		return;
	m->bit_size = (unsigned)bits;
	if (dw_die_udata(r->d, die, DW_AT_data_bit_offset, &dbo)) {
		bits = dbo;
	} else if (dw_die_udata(r->d, die, DW_AT_bit_offset, &bo)) {
		/* DWARF 2-4: bits from the storage unit's most significant bit */
		if (!dw_die_udata(r->d, die, DW_AT_byte_size, &storage))
			storage = dw_type_size(m->type);
		bits = loc * 8 + storage * 8 - bo - m->bit_size;
	} else {
		bits = loc * 8;
	}
	m->offset = bits / 8;
	m->bit_offset = (unsigned)(bits % 8);
}

struct members {
	struct rdt *r;
	struct dw_member *v;
	size_t n, cap;
};

static int member_one(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct members *ms = arg;
	struct dw_member m = { 0 };

	(void)d;
	if (dw_die_tag(die) != DW_TAG_member || dw_die_flag(d, die, DW_AT_external))
		return 0;
	if (ms->n == ms->cap) {
		size_t nc = ms->cap ? ms->cap * 2 : 8;
		struct dw_member *nv = realloc(ms->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		ms->v = nv;
		ms->cap = nc;
	}
	m.name = dw_die_name(d, die);
	m.type = type_target(ms->r, die);
	member_place(ms->r, die, &m);
	ms->v[ms->n++] = m;
	return 0;
}

static void *pool_copy(struct rdt *r, const void *p, size_t n)
{
	void *q = n ? dw_pool_alloc(r->d->pool, n) : NULL;

	if (n && !q)
		r->nomem = true;
	else if (n)
		memcpy(q, p, n);
	return q;
}

static void read_struct(struct rdt *r, Dwarf_Die die, struct dw_type *t)
{
	struct members ms = { .r = r };

	if (dw_die_children(r->d, die, member_one, &ms) < 0)
		r->nomem = true;
	t->members = pool_copy(r, ms.v, ms.n * sizeof(*ms.v));
	t->nmembers = t->members ? ms.n : 0;
	free(ms.v);
}

struct enums {
	struct rdt *r;
	struct dw_enumerator *v;
	size_t n, cap;
	bool negative;
};

static int enum_one(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct enums *es = arg;
	Dwarf_Attribute a = NULL;
	Dwarf_Error err = NULL;
	Dwarf_Half form = 0;
	Dwarf_Signed s = 0;
	Dwarf_Unsigned u = 0;

	if (dw_die_tag(die) != DW_TAG_enumerator)
		return 0;
	if (es->n == es->cap) {
		size_t nc = es->cap ? es->cap * 2 : 8;
		struct dw_enumerator *nv = realloc(es->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		es->v = nv;
		es->cap = nc;
	}
	if (dwarf_attr(die, DW_AT_const_value, &a, &err) == DW_DLV_OK) {
		if (dwarf_whatform(a, &form, &err) == DW_DLV_OK && form == DW_FORM_sdata &&
		    dwarf_formsdata(a, &s, &err) == DW_DLV_OK)
			es->negative |= s < 0;
		else if (dwarf_formudata(a, &u, &err) == DW_DLV_OK)
			s = (Dwarf_Signed)u;
		dwarf_dealloc_attribute(a);
	}
	dw_err_free(d, err);
	es->v[es->n++] = (struct dw_enumerator){ .name = dw_die_name(d, die), .value = s };
	return 0;
}

static void read_enum(struct rdt *r, Dwarf_Die die, struct dw_type *t)
{
	struct enums es = { .r = r };
	uint64_t off;

	if (dw_die_children(r->d, die, enum_one, &es) < 0)
		r->nomem = true;
	t->enc = es.negative ? DW_ENC_SIGNED : DW_ENC_UNSIGNED;
	if (dw_die_ref(r->d, die, DW_AT_type, &off)) {
		const struct dw_type *u = dw_type_strip(type_at(r, off));

		if (u && (u->enc == DW_ENC_SIGNED || u->enc == DW_ENC_SIGNED_CHAR))
			t->enc = DW_ENC_SIGNED;
		else if (u && u->kind == DW_TYPE_BASE)
			t->enc = DW_ENC_UNSIGNED;
	}
	/* Values of data forms as the enum's signedness and size read them. */
	for (size_t i = 0; i < es.n && t->enc == DW_ENC_SIGNED && t->size && t->size < 8; i++) {
		uint64_t v = (uint64_t)es.v[i].value, top = 1ull << (t->size * 8 - 1);

		if (v < (top << 1) && (v & top))
			es.v[i].value = (int64_t)(v | ~((top << 1) - 1));
	}
	t->enumerators = pool_copy(r, es.v, es.n * sizeof(*es.v));
	t->nenumerators = t->enumerators ? es.n : 0;
	free(es.v);
}

struct dims {
	struct rdt *r;
	uint64_t count[MAX_DIMS];
	bool known[MAX_DIMS];
	size_t n;
};

static int dim_one(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct dims *ds = arg;
	uint64_t v, lo = 0;

	if (dw_die_tag(die) != DW_TAG_subrange_type || ds->n == MAX_DIMS)
		return 0;
	ds->known[ds->n] = false;
	if (dw_die_udata(d, die, DW_AT_count, &v)) {
		ds->count[ds->n] = v;
		ds->known[ds->n] = true;
	} else if (dw_die_udata(d, die, DW_AT_upper_bound, &v)) {
		dw_die_udata(d, die, DW_AT_lower_bound, &lo);
		/* gcc's `int a[0]` says upper bound -1 as all ones */
		ds->count[ds->n] = v + 1 >= lo && v != UINT64_MAX ? v + 1 - lo : 0;
		ds->known[ds->n] = true;
	}
	ds->n++;
	return 0;
}

/* Arrays: one dw_type per dimension, @t the outermost. */
static void read_array(struct rdt *r, Dwarf_Die die, struct dw_type *t)
{
	struct dims ds = { .r = r };
	const struct dw_type *elem = type_target(r, die);

	dw_die_children(r->d, die, dim_one, &ds);
	if (ds.n == 0) {
		ds.n = 1;
		ds.known[0] = false;
	}
	for (size_t i = ds.n; i-- > 1;) {
		struct dw_type *in = dw_pool_alloc(r->d->pool, sizeof(*in));

		if (!in) {
			r->nomem = true;
			return;
		}
		*in = (struct dw_type){ .kind = DW_TYPE_ARRAY, .target = elem, .count = ds.count[i],
					.count_known = ds.known[i] };
		in->size = dw_type_size(in);
		elem = in;
	}
	t->target = elem;
	t->count = ds.count[0];
	t->count_known = ds.known[0];
	t->size = dw_type_size(t);
}

struct params {
	struct rdt *r;
	const struct dw_type **v;
	size_t n, cap;
	bool varargs;
};

static int param_one(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct params *ps = arg;
	Dwarf_Half tag = dw_die_tag(die);

	(void)d;
	if (tag == DW_TAG_unspecified_parameters)
		ps->varargs = true;
	if (tag != DW_TAG_formal_parameter)
		return 0;
	if (ps->n == ps->cap) {
		size_t nc = ps->cap ? ps->cap * 2 : 8;
		const struct dw_type **nv = realloc(ps->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		ps->v = nv;
		ps->cap = nc;
	}
	ps->v[ps->n++] = type_target(ps->r, die);
	return 0;
}

/* A subroutine type or a subprogram's: return type, parameters. */
static void read_function(struct rdt *r, Dwarf_Die die, struct dw_type *t)
{
	struct params ps = { .r = r };
	uint64_t off;

	t->kind = DW_TYPE_FUNCTION;
	t->target = dw_die_ref(r->d, die, DW_AT_type, &off) ? type_at(r, off) : NULL;
	t->prototyped = dw_die_flag(r->d, die, DW_AT_prototyped);
	if (dw_die_children(r->d, die, param_one, &ps) < 0)
		r->nomem = true;
	t->varargs = ps.varargs;
	t->params = pool_copy(r, ps.v, ps.n * sizeof(*ps.v));
	t->nparams = t->params ? ps.n : 0;
	free(ps.v);
}

static const struct dw_type *opaque_resolve(struct rdt *r, Dwarf_Half tag, const char *name);

/* A C base type's name as GDB spells it ("long unsigned int" is
 * "unsigned long", "short int" "short"), pooled; @name when it is already
 * so, not C's, or out of memory. */
static const char *base_name(struct dw_debug *d, const char *name)
{
	char canon[64];
	char *copy;

	if (!dw_types_canonical(name, canon, sizeof(canon)) || !strcmp(canon, name))
		return name;
	copy = dw_pool_alloc(d->pool, strlen(canon) + 1);
	if (!copy)
		return name;
	memcpy(copy, canon, strlen(canon) + 1);
	return copy;
}

/* The parts of @t by @tag; @t is in the cache already. */
static void read_kind(struct rdt *r, Dwarf_Die die, Dwarf_Half tag, struct dw_type *t)
{
	uint64_t v;

	switch (tag) {
	case DW_TAG_base_type:
		t->kind = DW_TYPE_BASE;
		t->enc = dw_die_udata(r->d, die, DW_AT_encoding, &v) ? base_enc(v) : DW_ENC_NONE;
		t->name = base_name(r->d, t->name);
		break;
	case DW_TAG_pointer_type: case DW_TAG_reference_type: case DW_TAG_rvalue_reference_type:
		t->kind = DW_TYPE_POINTER;
		t->size = t->size ? t->size : 8;
		t->target = type_target(r, die);
		break;
	case DW_TAG_structure_type: case DW_TAG_class_type: case DW_TAG_union_type:
		t->kind = tag == DW_TAG_union_type ? DW_TYPE_UNION : DW_TYPE_STRUCT;
		read_struct(r, die, t);
		break;
	case DW_TAG_enumeration_type:
		t->kind = DW_TYPE_ENUM;
		read_enum(r, die, t);
		break;
	case DW_TAG_array_type:
		t->kind = DW_TYPE_ARRAY;
		read_array(r, die, t);
		break;
	case DW_TAG_typedef: case DW_TAG_const_type: case DW_TAG_volatile_type:
	case DW_TAG_restrict_type: case DW_TAG_atomic_type:
		t->kind = tag == DW_TAG_typedef ? DW_TYPE_TYPEDEF : tag == DW_TAG_const_type ?
			  DW_TYPE_CONST : tag == DW_TAG_volatile_type ? DW_TYPE_VOLATILE :
			  tag == DW_TAG_restrict_type ? DW_TYPE_RESTRICT : DW_TYPE_VOLATILE;
		t->target = type_target(r, die);
		t->size = 0;
		break;
	case DW_TAG_subroutine_type: case DW_TAG_subprogram:
		read_function(r, die, t);
		t->size = 0;
		t->name = NULL; /* a subprogram's name is the function's, not its type's */
		break;
	default:
		t->kind = DW_TYPE_VOID;
		break;
	}
}

static bool is_aggregate(Dwarf_Half tag)
{
	return tag == DW_TAG_structure_type || tag == DW_TAG_class_type ||
	       tag == DW_TAG_union_type || tag == DW_TAG_enumeration_type;
}

static const struct dw_type *type_die(struct rdt *r, Dwarf_Die die, uint64_t off)
{
	Dwarf_Half tag = dw_die_tag(die);
	struct dw_type *t;
	uint64_t v;

	if (is_aggregate(tag) && dw_die_flag(r->d, die, DW_AT_declaration)) {
		const struct dw_type *full = opaque_resolve(r, tag, dw_die_name(r->d, die));

		if (full)
			return cache_put(r->c, off, full) < 0 ? (r->nomem = true, full) : full;
	}
	t = dw_pool_alloc(r->d->pool, sizeof(*t));
	if (!t || cache_put(r->c, off, t) < 0) {
		r->nomem = true;
		return &void_type;
	}
	memset(t, 0, sizeof(*t));
	t->name = dw_die_name(r->d, die);
	if (dw_die_udata(r->d, die, DW_AT_byte_size, &v))
		t->size = v;
	t->declaration = is_aggregate(tag) && dw_die_flag(r->d, die, DW_AT_declaration);
	if (tag == DW_TAG_unspecified_type && !t->name)
		t->name = "void";
	read_kind(r, die, tag, t);
	return t;
}

static const struct dw_type *type_at(struct rdt *r, uint64_t off)
{
	const struct dw_type *t = cache_get(r->c, off);
	Dwarf_Die die;

	if (t)
		return t;
	if (r->depth >= TYPE_DEPTH || !(die = dw_die_at(r->d, off)))
		return &void_type;
	r->depth++;
	t = type_die(r, die, off);
	r->depth--;
	dwarf_dealloc_die(die);
	return t;
}

const struct dw_type *dw_types_read(struct dw_debug *d, uint64_t off)
{
	struct rdt r = { .d = d, .c = dw_vars_cache_of(d) };
	const struct dw_type *t;

	if (!r.c)
		return NULL;
	t = type_at(&r, off);
	return r.nomem ? NULL : t;
}

const struct dw_type *dw_types_of(struct dw_debug *d, Dwarf_Die die, bool *nomem)
{
	uint64_t off;
	const struct dw_type *t;

	if (!dw_die_ref(d, die, DW_AT_type, &off))
		return NULL;
	t = dw_types_read(d, off);
	if (!t)
		*nomem = true;
	return t;
}

/* A complete struct / union / enum named @name in any unit, or NULL. */
static const struct dw_type *opaque_resolve(struct rdt *r, Dwarf_Half tag, const char *name)
{
	uint8_t kind = tag == DW_TAG_union_type ? DW_NAME_UNION :
		       tag == DW_TAG_enumeration_type ? DW_NAME_ENUM : DW_NAME_STRUCT;
	const struct dw_name *n;
	size_t count;

	if (!name || dw_types_index(r->d) < 0)
		return NULL;
	n = dw_types_names(r->d, name, &count);
	for (size_t i = 0; i < count; i++)
		if (n[i].kind == kind && n[i].defined)
			return type_at(r, n[i].die);
	return NULL;
}

/* --- C's base type names --- */

static const struct {
	const char *name;
	uint64_t size;
	enum dw_type_enc enc;
} builtin_types[] = {
	{ "_Bool", 1, DW_ENC_BOOL },
	{ "char", 1, DW_ENC_SIGNED_CHAR },
	{ "signed char", 1, DW_ENC_SIGNED_CHAR },
	{ "unsigned char", 1, DW_ENC_UNSIGNED_CHAR },
	{ "short", 2, DW_ENC_SIGNED },
	{ "unsigned short", 2, DW_ENC_UNSIGNED },
	{ "int", 4, DW_ENC_SIGNED },
	{ "unsigned int", 4, DW_ENC_UNSIGNED },
	{ "long", 8, DW_ENC_SIGNED },
	{ "unsigned long", 8, DW_ENC_UNSIGNED },
	{ "long long", 8, DW_ENC_SIGNED },
	{ "unsigned long long", 8, DW_ENC_UNSIGNED },
	{ "float", 4, DW_ENC_FLOAT },
	{ "double", 8, DW_ENC_FLOAT },
	{ "long double", 16, DW_ENC_FLOAT },
};

/* The keywords of @name counted; false on any other word. */
struct kw {
	unsigned uns, sig, shrt, lng, chr, in, flt, dbl, bol;
};

static bool kw_count(const char *name, struct kw *k)
{
	static const char *const words[] = { "unsigned", "signed", "short", "long", "char",
					     "int", "float", "double", "_Bool" };
	unsigned *slots[] = { &k->uns, &k->sig, &k->shrt, &k->lng, &k->chr, &k->in, &k->flt,
			      &k->dbl, &k->bol };
	const char *p = name;
	bool any = false;

	memset(k, 0, sizeof(*k));
	while (*p) {
		size_t n, i;

		while (*p == ' ' || *p == '\t')
			p++;
		n = strcspn(p, " \t");
		if (!n)
			break;
		for (i = 0; i < sizeof(words) / sizeof(words[0]); i++)
			if (strlen(words[i]) == n && strncmp(p, words[i], n) == 0)
				break;
		if (i == sizeof(words) / sizeof(words[0]))
			return false;
		(*slots[i])++;
		any = true;
		p += n;
	}
	return any;
}

bool dw_types_canonical(const char *name, char *buf, size_t size)
{
	struct kw k;
	const char *base;
	unsigned nbase;

	if (!name || !kw_count(name, &k) || (k.uns && k.sig) || k.uns > 1 || k.sig > 1)
		return false;
	nbase = k.chr + k.in + k.flt + k.dbl + k.bol;
	if (nbase > 1 || k.chr > 1 || k.shrt > 1 || k.lng > 2 || (k.shrt && k.lng))
		return false;
	if (k.bol || k.flt || k.dbl) {
		if (k.uns || k.sig || k.shrt || (k.lng && !k.dbl) || k.lng > 1)
			return false;
		base = k.bol ? "_Bool" : k.flt ? "float" : k.lng ? "long double" : "double";
		snprintf(buf, size, "%s", base);
		return true;
	}
	if (k.chr) {
		if (k.shrt || k.lng)
			return false;
		snprintf(buf, size, "%schar", k.uns ? "unsigned " : k.sig ? "signed " : "");
		return true;
	}
	base = k.shrt ? "short" : k.lng == 2 ? "long long" : k.lng ? "long" : "int";
	snprintf(buf, size, "%s%s", k.uns ? "unsigned " : "", base);
	return true;
}

const struct dw_type *dw_types_builtin(struct dw_debug *d, const char *name)
{
	struct dw_vars_cache *c = dw_vars_cache_of(d);
	char canon[32];

	if (!c || !dw_types_canonical(name, canon, sizeof(canon)))
		return NULL;
	for (size_t i = 0; i < sizeof(builtin_types) / sizeof(builtin_types[0]); i++) {
		struct dw_type *t;

		if (strcmp(builtin_types[i].name, canon) != 0)
			continue;
		if (c->builtins[i])
			return c->builtins[i];
		t = dw_pool_alloc(d->pool, sizeof(*t));
		if (!t)
			return NULL;
		*t = (struct dw_type){ .kind = DW_TYPE_BASE, .name = builtin_types[i].name,
				       .size = builtin_types[i].size, .enc = builtin_types[i].enc };
		c->builtins[i] = t;
		return t;
	}
	return NULL;
}

/* --- the name index --- */

struct index_build {
	uint32_t unit;
	struct dw_name *v;
	size_t n, cap;
};

static int index_push(struct index_build *b, struct dw_name nm)
{
	if (b->n == b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 256;
		struct dw_name *nv = realloc(b->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		b->v = nv;
		b->cap = nc;
	}
	b->v[b->n++] = nm;
	return 0;
}

struct enum_walk {
	struct index_build *b;
	uint64_t die;
	uint32_t i;
};

static int index_enumerator(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct enum_walk *w = arg;
	const char *name;

	if (dw_die_tag(die) != DW_TAG_enumerator)
		return 0;
	name = dw_die_name(d, die);
	w->i++;
	if (!name)
		return 0;
	return index_push(w->b, (struct dw_name){ .name = name, .die = w->die, .unit = w->b->unit,
						  .index = w->i - 1, .kind = DW_NAME_ENUMERATOR,
						  .defined = true });
}

static int name_kind(Dwarf_Half tag)
{
	switch (tag) {
	case DW_TAG_variable: return DW_NAME_VAR;
	case DW_TAG_subprogram: return DW_NAME_FUNC;
	case DW_TAG_structure_type: case DW_TAG_class_type: return DW_NAME_STRUCT;
	case DW_TAG_union_type: return DW_NAME_UNION;
	case DW_TAG_enumeration_type: return DW_NAME_ENUM;
	case DW_TAG_typedef: return DW_NAME_TYPEDEF;
	case DW_TAG_base_type: return DW_NAME_BASE;
	default: return -1;
	}
}

/* A variable's or function's name and external flag through
 * DW_AT_specification (a definition names its declaration). */
static void index_spec(struct dw_debug *d, Dwarf_Die die, struct dw_name *nm)
{
	uint64_t off;
	Dwarf_Die spec;

	if (!dw_die_ref(d, die, DW_AT_specification, &off) &&
	    !dw_die_ref(d, die, DW_AT_abstract_origin, &off))
		return;
	if (!(spec = dw_die_at(d, off)))
		return;
	if (!nm->name)
		nm->name = dw_die_name(d, spec);
	nm->external |= dw_die_flag(d, spec, DW_AT_external);
	dwarf_dealloc_die(spec);
}

static int index_one(struct dw_debug *d, Dwarf_Die die, void *arg)
{
	struct index_build *b = arg;
	Dwarf_Half tag = dw_die_tag(die);
	int kind = name_kind(tag);
	struct dw_name nm = { .unit = b->unit, .kind = (uint8_t)kind };

	if (kind < 0)
		return 0;
	nm.die = dw_die_off(die);
	nm.name = dw_die_name(d, die);
	nm.external = dw_die_flag(d, die, DW_AT_external);
	nm.declaration = dw_die_flag(d, die, DW_AT_declaration);
	if (kind == DW_NAME_VAR || kind == DW_NAME_FUNC)
		index_spec(d, die, &nm);
	if (kind == DW_NAME_VAR)
		nm.defined = dw_die_has(die, DW_AT_location) || dw_die_has(die, DW_AT_const_value);
	else if (kind == DW_NAME_FUNC)
		nm.defined = dw_die_has(die, DW_AT_low_pc) || dw_die_has(die, DW_AT_ranges);
	else
		nm.defined = !dw_die_flag(d, die, DW_AT_declaration);
	if (kind == DW_NAME_ENUM) {
		struct enum_walk w = { .b = b, .die = nm.die };
		int rc = dw_die_children(d, die, index_enumerator, &w);

		if (rc < 0)
			return rc;
	}
	return nm.name ? index_push(b, nm) : 0;
}

static int name_cmp(const void *a, const void *b)
{
	const struct dw_name *x = a, *y = b;
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return x->die < y->die ? -1 : x->die > y->die;
}

int dw_types_index(struct dw_debug *d)
{
	struct dw_vars_cache *c = dw_vars_cache_of(d);
	struct index_build b = { 0 };
	int rc = 0;

	if (!c)
		return -ENOMEM;
	if (c->indexed)
		return 0;
	c->indexed = true;
	if (dw_debug_index(d) < 0)
		return -ENOMEM;
	for (size_t i = 0; i < d->nunits && rc == 0; i++) {
		Dwarf_Die cu = dw_die_at(d, d->units[i].die_off);

		if (!cu)
			continue;
		b.unit = (uint32_t)i;
		rc = dw_die_children(d, cu, index_one, &b);
		dwarf_dealloc_die(cu);
	}
	if (rc < 0) {
		free(b.v);
		c->indexed = false;
		return rc;
	}
	if (b.n)
		qsort(b.v, b.n, sizeof(*b.v), name_cmp);
	c->names = b.v;
	c->nnames = b.n;
	return 0;
}

const struct dw_name *dw_types_names(struct dw_debug *d, const char *name, size_t *count)
{
	struct dw_vars_cache *c = d->vars;
	size_t lo = 0, hi, end;

	*count = 0;
	if (!c || !c->indexed || !name)
		return NULL;
	hi = c->nnames;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(c->names[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < c->nnames && strcmp(c->names[end].name, name) == 0; end++)
		;
	*count = end - lo;
	return end > lo ? &c->names[lo] : NULL;
}
