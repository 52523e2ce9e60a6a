/*
 * replay/frontend/cexpr_value.c: the evaluator's state (struct cexpr), its memory
 * (values of one evaluation, made-up types), the builtin C types, values
 * and their bytes, and the value history.
 */
#include "replay/frontend/cexpr_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct cx_block {
	struct cx_block *next;
	max_align_t data[];
};

/* Builtin types, GDB's names. */
#define BASE(var, nm, sz, e) \
	static const struct dw_type var = { .kind = DW_TYPE_BASE, .name = nm, .size = sz, .enc = e }
BASE(t_char, "char", 1, DW_ENC_SIGNED_CHAR);
BASE(t_schar, "signed char", 1, DW_ENC_SIGNED_CHAR);
BASE(t_uchar, "unsigned char", 1, DW_ENC_UNSIGNED_CHAR);
BASE(t_short, "short", 2, DW_ENC_SIGNED);
BASE(t_ushort, "unsigned short", 2, DW_ENC_UNSIGNED);
BASE(t_int, "int", 4, DW_ENC_SIGNED);
BASE(t_uint, "unsigned int", 4, DW_ENC_UNSIGNED);
BASE(t_long, "long", 8, DW_ENC_SIGNED);
BASE(t_ulong, "unsigned long", 8, DW_ENC_UNSIGNED);
BASE(t_llong, "long long", 8, DW_ENC_SIGNED);
BASE(t_ullong, "unsigned long long", 8, DW_ENC_UNSIGNED);
BASE(t_bool, "_Bool", 1, DW_ENC_BOOL);
BASE(t_float, "float", 4, DW_ENC_FLOAT);
BASE(t_double, "double", 8, DW_ENC_FLOAT);
BASE(t_ldouble, "long double", 16, DW_ENC_FLOAT);
BASE(t_i8, "int8_t", 1, DW_ENC_SIGNED);
BASE(t_i16, "int16_t", 2, DW_ENC_SIGNED);
BASE(t_i32, "int32_t", 4, DW_ENC_SIGNED);
BASE(t_i64, "int64_t", 8, DW_ENC_SIGNED);
const struct dw_type cx_void_type = { .kind = DW_TYPE_VOID, .name = "void" };
static const struct dw_type t_voidp = { .kind = DW_TYPE_POINTER, .size = 8,
					.target = &cx_void_type };
static const struct dw_type t_code = { .kind = DW_TYPE_FUNCTION };
static const struct dw_type t_codep = { .kind = DW_TYPE_POINTER, .size = 8, .target = &t_code };

/* $eflags: GDB's flags type i386_eflags; its bits in order. */
static const struct dw_enumerator eflags_bits[] = {
	{ "CF", 1 << 0 }, { "PF", 1 << 2 }, { "AF", 1 << 4 }, { "ZF", 1 << 6 },
	{ "SF", 1 << 7 }, { "TF", 1 << 8 }, { "IF", 1 << 9 }, { "DF", 1 << 10 },
	{ "OF", 1 << 11 }, { "NT", 1 << 14 }, { "RF", 1 << 16 }, { "VM", 1 << 17 },
	{ "AC", 1 << 18 }, { "VIF", 1 << 19 }, { "VIP", 1 << 20 }, { "ID", 1 << 21 },
};
const struct dw_type cx_eflags_type = {
	.kind = DW_TYPE_ENUM, .name = "i386_eflags", .size = 4, .enc = DW_ENC_SIGNED,
	.enumerators = eflags_bits, .nenumerators = sizeof(eflags_bits) / sizeof(eflags_bits[0]),
};

static const struct { const char *name; const struct dw_type *t; } builtins[] = {
	{ "char", &t_char }, { "signed char", &t_schar }, { "unsigned char", &t_uchar },
	{ "short", &t_short }, { "unsigned short", &t_ushort }, { "int", &t_int },
	{ "unsigned int", &t_uint }, { "long", &t_long }, { "unsigned long", &t_ulong },
	{ "long long", &t_llong }, { "unsigned long long", &t_ullong }, { "_Bool", &t_bool },
	{ "float", &t_float }, { "double", &t_double }, { "long double", &t_ldouble },
	{ "void", &cx_void_type }, { "int8_t", &t_i8 }, { "int16_t", &t_i16 },
	{ "int32_t", &t_i32 }, { "int64_t", &t_i64 }, { "void *", &t_voidp },
	{ "void (*)()", &t_codep }, { "i386_eflags", &cx_eflags_type },
};

const struct dw_type *cexpr_builtin_type(const char *name)
{
	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].name, name))
			return builtins[i].t;
	return NULL;
}

void cx_putn(struct cx_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 64) + n;
		char *p = realloc(b->s, cap);

		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = cap;
	}
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = 0;
}

void cx_puts(struct cx_buf *b, const char *s)
{
	cx_putn(b, s, strlen(s));
}

void cx_printf(struct cx_buf *b, const char *fmt, ...)
{
	char tmp[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
	va_end(ap);
	if (n > 0)
		cx_putn(b, tmp, (size_t)n < sizeof(tmp) ? (size_t)n : sizeof(tmp) - 1);
}

char *cx_buf_take(struct cx_buf *b)
{
	if (b->oom) {
		free(b->s);
		return NULL;
	}
	if (!b->s)
		return strdup("");
	return b->s;
}

int cx_fail(struct cexpr *cx, int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cx->err, sizeof(cx->err), fmt, ap);
	va_end(ap);
	return code;
}

static void *block_alloc(struct cx_block **list, size_t size)
{
	struct cx_block *b = calloc(1, sizeof(*b) + size);

	if (!b)
		return NULL;
	b->next = *list;
	*list = b;
	return b->data;
}

static void blocks_free(struct cx_block **list)
{
	while (*list) {
		struct cx_block *b = *list;

		*list = b->next;
		free(b);
	}
}

void *cx_alloc(struct cexpr *cx, size_t size)
{
	return block_alloc(&cx->blocks, size);
}

void *cx_tree_alloc(struct cexpr *cx, size_t size)
{
	return block_alloc(&cx->tree_blocks, size);
}

void cx_tree_release(struct cexpr *cx)
{
	blocks_free(&cx->tree_blocks);
}

void cexpr_value_free(struct cexpr_value *v)
{
	if (!v)
		return;
	free(v->bytes);
	free(v->state);
	free(v);
}

void cx_pool_release(struct cexpr *cx)
{
	while (cx->pool) {
		struct cexpr_value *v = cx->pool;

		cx->pool = v->next_in_pool;
		cexpr_value_free(v);
	}
}

struct cexpr *cexpr_new(const struct cexpr_env *env)
{
	struct cexpr *cx = calloc(1, sizeof(*cx));

	if (cx)
		cx->env = *env;
	return cx;
}

void cexpr_free(struct cexpr *cx)
{
	if (!cx)
		return;
	cx_pool_release(cx);
	cx_tree_release(cx);
	for (int i = 0; i < cx->nhist; i++)
		cexpr_value_free(cx->hist[i]);
	free(cx->hist);
	for (size_t i = 0; i < cx->nconv; i++)
		cexpr_value_free(cx->conv[i].v);
	free(cx->conv);
	blocks_free(&cx->blocks);
	blocks_free(&cx->types);
	free(cx);
}

const char *cexpr_error(const struct cexpr *cx)
{
	return cx->err;
}

/* Type makers: a linear search of what was made keeps `&x` from growing
 * @cx forever. */
struct dw_type *cx_new_type(struct cexpr *cx)
{
	return block_alloc(&cx->types, sizeof(struct dw_type));
}

const struct dw_type *cexpr_pointer_to(struct cexpr *cx, const struct dw_type *t)
{
	struct dw_type *p;

	if (t == &cx_void_type)
		return &t_voidp;
	for (struct cx_block *b = cx->types; b; b = b->next) {
		const struct dw_type *m = (const struct dw_type *)b->data;

		if (m->kind == DW_TYPE_POINTER && m->target == t && !m->name)
			return m;
	}
	p = cx_new_type(cx);
	if (!p)
		return NULL;
	p->kind = DW_TYPE_POINTER;
	p->size = 8;
	p->target = t;
	return p;
}

const struct dw_type *cx_array_of(struct cexpr *cx, const struct dw_type *elem, uint64_t n)
{
	struct dw_type *a;

	for (struct cx_block *b = cx->types; b; b = b->next) {
		const struct dw_type *m = (const struct dw_type *)b->data;

		if (m->kind == DW_TYPE_ARRAY && m->target == elem && m->count == n &&
		    m->count_known)
			return m;
	}
	a = cx_new_type(cx);
	if (!a)
		return NULL;
	a->kind = DW_TYPE_ARRAY;
	a->target = elem;
	a->count = n;
	a->count_known = true;
	return a;
}

const struct dw_type *cx_qualified(struct cexpr *cx, enum dw_type_kind q, const struct dw_type *t)
{
	struct dw_type *c = cx_new_type(cx);

	if (!c)
		return NULL;
	c->kind = q;
	c->target = t;
	return c;
}

static struct cexpr_value *value_alloc(struct cexpr *cx, const struct dw_type *t, bool bytes)
{
	struct cexpr_value *v = calloc(1, sizeof(*v));
	uint64_t size = dw_type_size(t);

	if (size > CX_MAX_VALUE && bytes) {
		cx_fail(cx, -EINVAL, "value requires %" PRIu64 " bytes, which is more than "
			"max-value-size", size);
		free(v);
		return NULL;
	}
	if (!v || (bytes && !(v->bytes = calloc(1, size ? size : 1)))) {
		free(v);
		cx_fail(cx, -ENOMEM, "Out of memory.");
		return NULL;
	}
	v->type = t;
	v->size = size;
	v->next_in_pool = cx->pool;
	cx->pool = v;
	return v;
}

struct cexpr_value *cx_value_new(struct cexpr *cx, const struct dw_type *t)
{
	return value_alloc(cx, t, true);
}

struct cexpr_value *cexpr_value_at(struct cexpr *cx, const struct dw_type *t, uint64_t addr)
{
	struct cexpr_value *v = value_alloc(cx, t, false);

	if (v) {
		v->lval = CEXPR_LVAL_MEMORY;
		v->addr = addr;
		v->lazy = true;
	}
	return v;
}

struct cexpr_value *cexpr_value_bytes(struct cexpr *cx, const struct dw_type *t,
				      const void *bytes, const uint8_t *state, const char *reg)
{
	struct cexpr_value *v = value_alloc(cx, t, true);

	if (!v)
		return NULL;
	memcpy(v->bytes, bytes, v->size);
	if (state) {
		v->state = malloc(v->size ? v->size : 1);
		if (!v->state)
			return NULL;
		memcpy(v->state, state, v->size);
	}
	if (reg) {
		v->lval = CEXPR_LVAL_REGISTER;
		snprintf(v->reg, sizeof(v->reg), "%s", reg);
	}
	return v;
}

struct cexpr_value *cexpr_value_missing(struct cexpr *cx, const struct dw_type *t,
					enum cexpr_byte what)
{
	struct cexpr_value *v = value_alloc(cx, t, true);

	if (!v)
		return NULL;
	v->state = malloc(v->size ? v->size : 1);
	if (!v->state)
		return NULL;
	memset(v->state, what, v->size ? v->size : 1);
	return v;
}

/* The first byte of [@addr, @addr + @size) that cannot be read (GDB's
 * message names it). */
static uint64_t first_unreadable(struct cexpr *cx, uint64_t addr, size_t size)
{
	uint8_t byte, state;

	for (size_t i = 0; i < size; i++) {
		state = 0;
		if (cx->env.read(cx->env.ctx, addr + i, &byte, 1, &state) < 0)
			return addr + i;
	}
	return addr;
}

int cx_fetch(struct cexpr *cx, struct cexpr_value *v)
{
	int rc;

	if (!v->lazy)
		return 0;
	if (v->size > CX_MAX_VALUE)
		return cx_fail(cx, -EINVAL, "value requires %zu bytes, which is more than "
			       "max-value-size", v->size);
	free(v->bytes);
	free(v->state);
	v->bytes = calloc(1, v->size ? v->size : 1);
	v->state = calloc(1, v->size ? v->size : 1);
	if (!v->bytes || !v->state)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	rc = v->size ? cx->env.read(cx->env.ctx, v->addr, v->bytes, v->size, v->state) : 0;
	if (rc < 0)
		return cx_fail(cx, -EIO, "Cannot access memory at address 0x%" PRIx64,
			       first_unreadable(cx, v->addr, v->size));
	v->lazy = false;
	if (!cx_missing(v, 0, v->size)) {
		free(v->state);
		v->state = NULL;
	}
	return 0;
}

int cx_missing(const struct cexpr_value *v, size_t off, size_t len)
{
	if (!v->state)
		return 0;
	for (size_t i = off; i < off + len && i < v->size; i++)
		if (v->state[i])
			return v->state[i];
	return 0;
}

struct cexpr_value *cx_value_part(struct cexpr *cx, struct cexpr_value *v,
				  const struct dw_type *t, uint64_t off)
{
	struct cexpr_value *p;
	uint64_t size = dw_type_size(t);

	if (v->lazy && v->lval == CEXPR_LVAL_MEMORY)
		return cexpr_value_at(cx, t, v->addr + off);
	if (off + size > v->size) {
		cx_fail(cx, -EINVAL, "no such vector element");
		return NULL;
	}
	p = cexpr_value_bytes(cx, t, v->bytes + off, v->state ? v->state + off : NULL, NULL);
	if (p) {
		p->lval = v->lval;
		p->addr = v->addr + off;
		memcpy(p->reg, v->reg, sizeof(p->reg));
	}
	return p;
}

struct cexpr_value *cexpr_value_copy(const struct cexpr_value *v)
{
	struct cexpr_value *c = malloc(sizeof(*c));

	if (!c)
		return NULL;
	*c = *v;
	c->next_in_pool = NULL;
	c->bytes = v->bytes ? malloc(v->size ? v->size : 1) : NULL;
	c->state = v->state ? malloc(v->size ? v->size : 1) : NULL;
	if ((v->bytes && !c->bytes) || (v->state && !c->state)) {
		cexpr_value_free(c);
		return NULL;
	}
	if (v->bytes)
		memcpy(c->bytes, v->bytes, v->size);
	if (v->state)
		memcpy(c->state, v->state, v->size);
	return c;
}

struct cexpr_value *cx_value_int(struct cexpr *cx, const struct dw_type *t, uint64_t x)
{
	struct cexpr_value *v;

	if (cx_is_float(t))
		return cx_value_float(cx, t, cx_is_signed(t) ? (long double)(int64_t)x : x);
	v = cx_value_new(cx, t);
	if (v)
		memcpy(v->bytes, &x, v->size < 8 ? v->size : 8);
	return v;
}

struct cexpr_value *cx_value_float(struct cexpr *cx, const struct dw_type *t, long double x)
{
	struct cexpr_value *v = cx_value_new(cx, t);
	float f = (float)x;
	double d = (double)x;

	if (!v)
		return NULL;
	if (v->size == 4)
		memcpy(v->bytes, &f, 4);
	else if (v->size == 8)
		memcpy(v->bytes, &d, 8);
	else if (v->size >= 10)
		memcpy(v->bytes, &x, 10);
	return v;
}

bool cx_is_integral(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t && ((t->kind == DW_TYPE_BASE && t->enc != DW_ENC_FLOAT) ||
		     t->kind == DW_TYPE_ENUM);
}

bool cx_is_float(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t && t->kind == DW_TYPE_BASE && t->enc == DW_ENC_FLOAT;
}

bool cx_is_signed(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t && (t->enc == DW_ENC_SIGNED || t->enc == DW_ENC_SIGNED_CHAR ||
		     t->enc == DW_ENC_FLOAT);
}

bool cx_is_char(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t && t->kind == DW_TYPE_BASE && t->size == 1 &&
	       (t->enc == DW_ENC_SIGNED_CHAR || t->enc == DW_ENC_UNSIGNED_CHAR);
}

uint64_t cx_extract(const uint8_t *p, size_t n, bool sgn)
{
	uint64_t x = 0;

	if (n > 8)
		n = 8;
	memcpy(&x, p, n);
	if (sgn && n && n < 8 && (x >> (n * 8 - 1)) & 1)
		x |= ~0ull << (n * 8);
	return x;
}

long double cx_extract_float(const uint8_t *p, size_t n)
{
	float f;
	double d;
	long double l = 0;

	if (n == 4) {
		memcpy(&f, p, 4);
		return f;
	}
	if (n == 8) {
		memcpy(&d, p, 8);
		return d;
	}
	if (n >= 10)
		memcpy(&l, p, 10);
	return l;
}

uint64_t cx_as_int(const struct cexpr_value *v)
{
	const struct dw_type *t = dw_type_strip(v->type);
	long double f;

	if (cx_is_float(t)) {
		/* GDB's to_longest: in range, or saturated (NaN: the maximum). */
		f = cx_extract_float(v->bytes, v->size);
		if (f < 9223372036854775808.0L && f >= -9223372036854775808.0L)
			return (uint64_t)(int64_t)f;
		return f < 0 ? (uint64_t)INT64_MIN : (uint64_t)INT64_MAX;
	}
	return cx_extract(v->bytes, v->size, cx_is_signed(t));
}

long double cx_as_float(const struct cexpr_value *v)
{
	if (cx_is_float(v->type))
		return cx_extract_float(v->bytes, v->size);
	if (cx_is_signed(v->type))
		return (long double)(int64_t)cx_as_int(v);
	return (long double)cx_as_int(v);
}

int cexpr_history_add(struct cexpr *cx, const struct cexpr_value *v)
{
	struct cexpr_value *c;

	if (cx->nhist == cx->caphist) {
		int cap = cx->caphist ? cx->caphist * 2 : 16;
		struct cexpr_value **h = realloc(cx->hist, cap * sizeof(*h));

		if (!h)
			return -ENOMEM;
		cx->hist = h;
		cx->caphist = cap;
	}
	c = cexpr_value_copy(v);
	if (!c)
		return -ENOMEM;
	cx->hist[cx->nhist++] = c;
	return cx->nhist;
}

const struct cexpr_value *cexpr_history_get(const struct cexpr *cx, int n)
{
	if (n == 0)
		n = cx->nhist;
	if (n < 1 || n > cx->nhist)
		return NULL;
	return cx->hist[n - 1];
}

int cexpr_history_count(const struct cexpr *cx)
{
	return cx->nhist;
}

int cexpr_value_fetch(struct cexpr *cx, struct cexpr_value *v)
{
	return v->lazy ? cx_fetch(cx, v) : 0;
}
