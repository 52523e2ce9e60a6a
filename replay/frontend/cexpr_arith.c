/*
 * replay/frontend/cexpr_arith.c: C's operators on values as GDB computes them:
 * integer promotions and the usual arithmetic conversions (to int,
 * unsigned int, long, unsigned long or the widest float), pointer
 * arithmetic scaled by the pointee, pointer difference, comparisons
 * (int 0 or 1), casts, and GDB's messages for what does not compute
 * ("Division by zero", "Argument to arithmetic operation not a number or
 * boolean.").
 */
#include "replay/frontend/cexpr_arith.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const struct dw_type *int_type(uint64_t len, bool uns)
{
	if (len <= 4)
		return cexpr_builtin_type(uns ? "unsigned int" : "int");
	return cexpr_builtin_type(uns ? "unsigned long" : "long");
}

/* Arrays and functions in memory become pointers; the rest is read. */
static int decay(struct cexpr *cx, struct cexpr_value **v)
{
	const struct dw_type *t = dw_type_strip((*v)->type), *p;
	int missing;
	int rc;

	if (t->kind == DW_TYPE_ARRAY || t->kind == DW_TYPE_FUNCTION) {
		/* GDB would copy a string literal into the live process. */
		if ((*v)->lval != CEXPR_LVAL_MEMORY)
			return cx_fail(cx, -EINVAL, "evaluation of this expression requires the "
				       "target program to be active");
		p = cexpr_pointer_to(cx, t->kind == DW_TYPE_ARRAY ? t->target : (*v)->type);
		*v = p ? cx_value_int(cx, p, (*v)->addr) : NULL;
		return *v ? 0 : -ENOMEM;
	}
	rc = cx_fetch(cx, *v);
	if (rc < 0)
		return rc;
	missing = cx_missing(*v, 0, (*v)->size);
	if (missing == CEXPR_BYTE_OPTIMIZED_OUT)
		return cx_fail(cx, -ENODATA, "value has been optimized out");
	if (missing)
		return cx_fail(cx, -ENODATA, "value is not available");
	return 0;
}

static bool is_ptr(const struct cexpr_value *v)
{
	return dw_type_strip(v->type)->kind == DW_TYPE_POINTER;
}

static bool is_uns(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t->enc == DW_ENC_UNSIGNED || t->enc == DW_ENC_UNSIGNED_CHAR || t == &cx_eflags_type;
}

/* The type both operands convert to (C's usual arithmetic conversions). */
static const struct dw_type *common_type(const struct dw_type *a, const struct dw_type *b)
{
	uint64_t la = dw_type_size(a), lb = dw_type_size(b);
	bool ua, ub;

	if (cx_is_float(a) || cx_is_float(b)) {
		uint64_t n = cx_is_float(a) && cx_is_float(b) ? (la > lb ? la : lb) :
			     cx_is_float(a) ? la : lb;

		return cexpr_builtin_type(n == 4 ? "float" : n == 8 ? "double" : "long double");
	}
	ua = is_uns(a) && la >= 4;
	ub = is_uns(b) && lb >= 4;
	la = la < 4 ? 4 : la;
	lb = lb < 4 ? 4 : lb;
	if (la != lb)
		return int_type(la > lb ? la : lb, la > lb ? ua : ub);
	return int_type(la, ua || ub);
}

static int arith_error(struct cexpr *cx)
{
	return cx_fail(cx, -EINVAL, "Argument to arithmetic operation not a number or boolean.");
}

static int make(struct cexpr *cx, const struct dw_type *t, uint64_t x, struct cexpr_value **out)
{
	*out = cx_value_int(cx, t, x);
	return *out ? 0 : -ENOMEM;
}

static int compare(struct cexpr *cx, int op, int cmp, struct cexpr_value **out)
{
	bool r = op == '<' ? cmp < 0 : op == '>' ? cmp > 0 : op == OP_LE ? cmp <= 0 :
		 op == OP_GE ? cmp >= 0 : op == OP_EQ ? cmp == 0 : cmp != 0;

	return make(cx, cexpr_builtin_type("int"), r, out);
}

static bool is_compare(int op)
{
	return op == '<' || op == '>' || op == OP_LE || op == OP_GE || op == OP_EQ || op == OP_NE;
}

static uint64_t scale(const struct cexpr_value *p)
{
	uint64_t n = dw_type_size(dw_type_strip(p->type)->target);

	return n ? n : 1;
}

static int pointer_op(struct cexpr *cx, int op, struct cexpr_value *a, struct cexpr_value *b,
		      struct cexpr_value **out)
{
	uint64_t x = cx_as_int(a), y = cx_as_int(b);

	if (is_compare(op) && (is_ptr(b) || cx_is_integral(b->type)) &&
	    (is_ptr(a) || cx_is_integral(a->type)))
		return compare(cx, op, x < y ? -1 : x > y, out);
	if (op == '+' && is_ptr(a) && cx_is_integral(b->type))
		return make(cx, a->type, x + y * scale(a), out);
	if (op == '+' && is_ptr(b) && cx_is_integral(a->type))
		return make(cx, b->type, y + x * scale(b), out);
	if (op == '-' && is_ptr(a) && cx_is_integral(b->type))
		return make(cx, a->type, x - y * scale(a), out);
	if (op == '-' && is_ptr(a) && is_ptr(b)) {
		if (scale(a) != scale(b))
			return cx_fail(cx, -EINVAL, "First argument of `-' is a pointer and second "
				       "argument is neither\nan integer nor a pointer of the same "
				       "type.");
		return make(cx, cexpr_builtin_type("long"),
			    (uint64_t)((int64_t)(x - y) / (int64_t)scale(a)), out);
	}
	return arith_error(cx);
}

static int float_op(struct cexpr *cx, int op, const struct dw_type *t, long double x,
		    long double y, struct cexpr_value **out)
{
	long double r;

	if (is_compare(op))
		return compare(cx, op, x < y ? -1 : x > y ? 1 : x == y ? 0 : 2, out);
	switch (op) {
	case '+': r = x + y; break;
	case '-': r = x - y; break;
	case '*': r = x * y; break;
	case '/': r = x / y; break;
	default: return cx_fail(cx, -EINVAL, "Integer-only operation on floating point number.");
	}
	*out = cx_value_float(cx, t, r);
	return *out ? 0 : -ENOMEM;
}

static int shift(struct cexpr *cx, int op, struct cexpr_value *a, uint64_t y,
		 struct cexpr_value **out)
{
	const struct dw_type *t = common_type(a->type, a->type);
	unsigned bits = (unsigned)dw_type_size(t) * 8;
	uint64_t x = cx_as_int(a);

	if ((int64_t)y < 0 || y >= bits) {
		snprintf(cx->warning, sizeof(cx->warning), "%s shift count %s",
			 op == OP_SHL ? "left" : "right",
			 (int64_t)y < 0 ? "is negative" : ">= width of type");
		return make(cx, t, 0, out);
	}
	if (op == OP_SHL)
		return make(cx, t, x << y, out);
	if (!is_uns(t))
		return make(cx, t, (uint64_t)((int64_t)cx_extract((uint8_t *)&x, bits / 8, true) >>
					      y), out);
	return make(cx, t, (x & (bits == 64 ? ~0ull : (1ull << bits) - 1)) >> y, out);
}

static int int_op(struct cexpr *cx, int op, const struct dw_type *t, uint64_t x, uint64_t y,
		  struct cexpr_value **out)
{
	bool uns = is_uns(t);
	int64_t sx = (int64_t)x, sy = (int64_t)y;

	if (dw_type_size(t) == 4) {
		x = uns ? (uint32_t)x : (uint64_t)(int64_t)(int32_t)x;
		y = uns ? (uint32_t)y : (uint64_t)(int64_t)(int32_t)y;
		sx = (int64_t)x;
		sy = (int64_t)y;
	}
	if (is_compare(op))
		return compare(cx, op, uns ? (x < y ? -1 : x > y) : (sx < sy ? -1 : sx > sy), out);
	if ((op == '/' || op == '%') && y == 0 && cx->types_only)
		return make(cx, t, 0, out);
	if ((op == '/' || op == '%') && y == 0)
		return cx_fail(cx, -EINVAL, "Division by zero");
	switch (op) {
	case '+': return make(cx, t, x + y, out);
	case '-': return make(cx, t, x - y, out);
	case '*': return make(cx, t, x * y, out);
	case '&': return make(cx, t, x & y, out);
	case '|': return make(cx, t, x | y, out);
	case '^': return make(cx, t, x ^ y, out);
	case '/':
		if (!uns && sy == -1)
			return make(cx, t, -x, out);
		return make(cx, t, uns ? x / y : (uint64_t)(sx / sy), out);
	case '%':
		if (!uns && sy == -1)
			return make(cx, t, 0, out);
		return make(cx, t, uns ? x % y : (uint64_t)(sx % sy), out);
	default:
		return arith_error(cx);
	}
}

static const char *op_name(int op)
{
	static const struct { int op; const char *s; } names[] = {
		{ OP_SHL, "<<" }, { OP_SHR, ">>" }, { OP_LE, "<=" }, { OP_GE, ">=" },
		{ OP_EQ, "==" }, { OP_NE, "!=" }, { OP_AND, "&&" }, { OP_OR, "||" }, { '[', "[]" },
	};
	static const char single[] = "+-*/%<>&|^!~";
	static const char *const single_s[] = {
		"+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "!", "~",
	};
	const char *c = op > 0 && op < 128 ? strchr(single, op) : NULL;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (names[i].op == op)
			return names[i].s;
	return c && *c ? single_s[c - single] : "?";
}

static bool is_struct(const struct cexpr_value *v)
{
	return v && dw_type_strip(v->type)->kind == DW_TYPE_STRUCT;
}

int cx_struct_operand(struct cexpr *cx, int op, const struct cexpr_value *a,
		      const struct cexpr_value *b)
{
	if (is_struct(a))
		return cx_fail(cx, -EINVAL, "Structure has no component named operator%s.",
			       op_name(op));
	if (is_struct(b))
		return cx_fail(cx, -EINVAL, "Can't do that binary op on that type");
	return 0;
}

static bool is_bool(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t->kind == DW_TYPE_BASE && t->enc == DW_ENC_BOOL;
}

/* Two booleans: GDB does not promote them; & | ^ stay bool. */
static int bool_op(struct cexpr *cx, int op, struct cexpr_value *a, struct cexpr_value *b,
		   struct cexpr_value **out)
{
	uint64_t x = cx_as_int(a), y = cx_as_int(b);

	if (op == OP_EQ || op == OP_NE)
		return compare(cx, op, x != y, out);
	if (op == '&' || op == '|' || op == '^')
		return make(cx, a->type, op == '&' ? x & y : op == '|' ? x | y : x ^ y, out);
	return cx_fail(cx, -EINVAL, "Invalid operation on booleans.");
}

int cx_binop(struct cexpr *cx, int op, struct cexpr_value *a, struct cexpr_value *b,
	     struct cexpr_value **out)
{
	const struct dw_type *t;
	int rc = cx_struct_operand(cx, op, a, b);

	if (rc == 0)
		rc = decay(cx, &a);

	if (rc == 0)
		rc = decay(cx, &b);
	if (rc < 0)
		return rc;
	if (is_ptr(a) || is_ptr(b))
		return pointer_op(cx, op, a, b, out);
	if (is_bool(a->type) && is_bool(b->type))
		return bool_op(cx, op, a, b, out);
	if (!(cx_is_integral(a->type) || cx_is_float(a->type)) ||
	    !(cx_is_integral(b->type) || cx_is_float(b->type)))
		return arith_error(cx);
	if (op == OP_SHL || op == OP_SHR) {
		if (!cx_is_integral(a->type) || !cx_is_integral(b->type))
			return cx_fail(cx, -EINVAL, "Integer-only operation on floating point "
				       "number.");
		return shift(cx, op, a, cx_as_int(b), out);
	}
	t = common_type(a->type, b->type);
	if (cx_is_float(t))
		return float_op(cx, op, t, cx_as_float(a), cx_as_float(b), out);
	return int_op(cx, op, t, cx_as_int(a), cx_as_int(b), out);
}

int cx_unop(struct cexpr *cx, int op, struct cexpr_value *v, struct cexpr_value **out)
{
	const struct dw_type *t;
	int rc = cx_struct_operand(cx, op, v, NULL);

	if (rc < 0)
		return rc;
	if (op != '!' && !cx_is_integral(v->type) && !cx_is_float(v->type))
		return cx_fail(cx, -EINVAL, op == '-' ?
			       "Argument to negate operation not a number." : op == '+' ?
			       "Argument to positive operation not a number." :
			       "Argument to complement operation not an integer, boolean.");
	rc = decay(cx, &v);
	if (rc < 0)
		return rc;
	if (op == '!') {
		bool truth;

		rc = cx_truth(cx, v, &truth);
		return rc < 0 ? rc : make(cx, cexpr_builtin_type("int"), !truth, out);
	}
	if (cx_is_float(v->type) && op != '~') {
		/* GDB negates as 0 - x: -0.0 is 0. */
		long double x = cx_as_float(v);

		*out = cx_value_float(cx, v->type, op == '-' ? 0.0L - x : x);
		return *out ? 0 : -ENOMEM;
	}
	if (!cx_is_integral(v->type))
		return cx_fail(cx, -EINVAL, "Argument to complement operation not an integer, "
			       "boolean.");
	t = common_type(v->type, v->type);
	if (dw_type_size(v->type) >= 4)
		t = v->type;
	return make(cx, t, op == '-' ? -cx_as_int(v) : op == '~' ? ~cx_as_int(v) : cx_as_int(v),
		    out);
}

int cx_truth(struct cexpr *cx, struct cexpr_value *v, bool *out)
{
	int rc;

	if (is_struct(v) || dw_type_strip(v->type)->kind == DW_TYPE_UNION) {
		/* GDB's value_logical_not: any byte not zero. */
		rc = cx_fetch(cx, v);
		if (rc < 0)
			return rc;
		*out = false;
		for (size_t i = 0; i < v->size; i++)
			*out |= v->bytes[i] != 0;
		return 0;
	}
	rc = decay(cx, &v);
	if (rc < 0)
		return rc;
	if (cx_is_float(v->type))
		*out = cx_as_float(v) != 0;
	else if (cx_is_integral(v->type) || is_ptr(v))
		*out = cx_as_int(v) != 0;
	else
		return arith_error(cx);
	return 0;
}

/* GDB's last resort for a cast: the same bytes seen as @t (a value in
 * memory: the object of type @t at its address). */
static int reinterpret(struct cexpr *cx, const struct dw_type *t, struct cexpr_value *v,
		       struct cexpr_value **out)
{
	int rc;

	if (v->lval == CEXPR_LVAL_MEMORY && !v->bit_size) {
		*out = cexpr_value_at(cx, t, v->addr);
		return *out ? 0 : -ENOMEM;
	}
	if (!v->size || dw_type_size(t) != v->size)
		return cx_fail(cx, -EINVAL, "Invalid cast.");
	rc = cx_fetch(cx, v);
	if (rc < 0)
		return rc;
	*out = cexpr_value_bytes(cx, t, v->bytes, v->state, NULL);
	return *out ? 0 : -ENOMEM;
}

/* A cast to a struct, union or array type. */
static int cast_aggregate(struct cexpr *cx, const struct dw_type *t, struct cexpr_value *v,
			  struct cexpr_value **out)
{
	const struct dw_type *st = dw_type_strip(t), *sv = dw_type_strip(v->type);

	if (st == sv) {
		*out = cx_value_part(cx, v, t, 0);
		return *out ? 0 : -EINVAL;
	}
	if (st->kind == DW_TYPE_ARRAY)
		return cx_fail(cx, -EINVAL, "Invalid cast.");
	return reinterpret(cx, t, v, out);
}

static bool is_aggregate(const struct dw_type *t)
{
	t = dw_type_strip(t);
	return t->kind == DW_TYPE_STRUCT || t->kind == DW_TYPE_UNION || t->kind == DW_TYPE_ARRAY;
}

int cx_cast(struct cexpr *cx, const struct dw_type *t, struct cexpr_value *v,
	    struct cexpr_value **out)
{
	const struct dw_type *st = dw_type_strip(t);
	int rc;

	if (st->kind == DW_TYPE_VOID) {
		*out = cx_value_new(cx, t);
		return *out ? 0 : -ENOMEM;
	}
	if (is_aggregate(st))
		return cast_aggregate(cx, t, v, out);
	if (dw_type_strip(v->type)->kind == DW_TYPE_STRUCT ||
	    dw_type_strip(v->type)->kind == DW_TYPE_UNION)
		return reinterpret(cx, t, v, out);
	rc = decay(cx, &v);
	if (rc < 0)
		return rc;
	if (!cx_is_integral(v->type) && !cx_is_float(v->type) && !is_ptr(v))
		return cx_fail(cx, -EINVAL, "Invalid cast.");
	if ((st->kind == DW_TYPE_POINTER && cx_is_float(v->type)) ||
	    (cx_is_float(t) && is_ptr(v)))
		return reinterpret(cx, t, v, out);
	if (st->kind == DW_TYPE_POINTER)
		return make(cx, t, cx_as_int(v), out);
	if (cx_is_float(t)) {
		*out = cx_value_float(cx, t, cx_as_float(v));
		return *out ? 0 : -ENOMEM;
	}
	if (st->kind == DW_TYPE_BASE && st->enc == DW_ENC_BOOL)
		return make(cx, t, cx_is_float(v->type) ? cx_as_float(v) != 0 : cx_as_int(v) != 0,
			    out);
	if (cx_is_integral(t))
		return make(cx, t, cx_as_int(v), out);
	return cx_fail(cx, -EINVAL, "Invalid cast.");
}
