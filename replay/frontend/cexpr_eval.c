/*
 * replay/frontend/cexpr_eval.c: a parsed C expression into a value, as GDB's C
 * evaluator computes it: lazy lvalues in memory (read only when a value
 * is needed, so `sizeof *p` and `&p->next` read nothing), array and
 * function decay, member access through anonymous members and
 * bit-fields, casts, GDB's '@'. Arithmetic, comparisons and the usual
 * conversions live in cexpr_arith.c; registers and $history in
 * cexpr_dollar.c. A recording cannot be changed and has no live process:
 * assignment, ++, -- and calls are refused.
 */
#include "replay/frontend/cexpr_arith.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static int eval_ident(struct cexpr *cx, const char *name, struct cexpr_value **out)
{
	char err[256] = "";
	int rc;

	if (!cx->env.lookup)
		return cx_fail(cx, -ENOENT, "No symbol \"%s\" in current context.", name);
	rc = cx->env.lookup(cx->env.ctx, cx, name, out, err, sizeof(err));
	if (rc == -ENOENT)
		return cx_fail(cx, -ENOENT, "No symbol \"%s\" in current context.", name);
	if (rc < 0)
		return cx_fail(cx, rc, "%s", err[0] ? err : "Cannot read that symbol here.");
	if (!*out)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	return 0;
}

static int eval_string(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	const struct dw_type *t = cx_array_of(cx, cexpr_builtin_type("char"), n->len + 1);

	*out = t ? cx_value_new(cx, t) : NULL;
	if (!*out)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	memcpy((*out)->bytes, n->str, n->len);
	return 0;
}

/* GDB's *p while it only wants types (whatis, ptype): a zero of p's
 * target type at address 0, nothing read. */
static int zero_at(struct cexpr *cx, const struct dw_type *t, struct cexpr_value **out)
{
	const struct dw_type *target = t->kind == DW_TYPE_POINTER ? t->target :
				       cexpr_builtin_type("int");

	if (!target)
		target = &cx_void_type;
	if (dw_type_strip(target)->kind == DW_TYPE_FUNCTION) {
		*out = cexpr_value_at(cx, target, 0);
		return *out ? 0 : -ENOMEM;
	}
	*out = cx_value_new(cx, target);
	if (!*out)
		return -ENOMEM;
	(*out)->lval = CEXPR_LVAL_MEMORY;
	return 0;
}

/* *@v. */
int cx_deref(struct cexpr *cx, struct cexpr_value *v, struct cexpr_value **out)
{
	const struct dw_type *t = dw_type_strip(v->type);
	int rc;

	if (t->kind == DW_TYPE_FUNCTION && cx->types_only)
		return cx_fail(cx, -EINVAL, "Attempt to take contents of a non-pointer value.");
	if (t->kind == DW_TYPE_FUNCTION) {
		*out = v;
		return 0;
	}
	if (t->kind == DW_TYPE_ARRAY) {
		*out = cx_value_part(cx, v, t->target, 0);
		return *out ? 0 : -EINVAL;
	}
	if (cx->types_only && (t->kind == DW_TYPE_POINTER || cx_is_integral(t)))
		return zero_at(cx, t, out);
	rc = cx_fetch(cx, v);
	if (rc < 0)
		return rc;
	/* a pointer the program or the recording lost: GDB's words */
	rc = cx_missing(v, 0, v->size);
	if (rc == CEXPR_BYTE_OPTIMIZED_OUT)
		return cx_fail(cx, -ENODATA, "value has been optimized out");
	if (rc)
		return cx_fail(cx, -ENODATA, "value is not available");
	if (t->kind == DW_TYPE_POINTER) {
		const struct dw_type *target = t->target ? t->target : &cx_void_type;

		if (dw_type_strip(target)->kind == DW_TYPE_VOID)
			return cx_fail(cx, -EINVAL, "Attempt to dereference a generic pointer.");
		*out = cexpr_value_at(cx, target, cx_as_int(v));
	} else if (cx_is_integral(t)) {
		*out = cexpr_value_at(cx, cexpr_builtin_type("int"), cx_as_int(v));
	} else {
		return cx_fail(cx, -EINVAL, "Attempt to take contents of a non-pointer value.");
	}
	return *out ? 0 : -ENOMEM;
}

/* &@v (@n: the operand, for GDB's message about a register variable). */
static int address_of(struct cexpr *cx, const struct cx_node *n, struct cexpr_value *v,
		      struct cexpr_value **out)
{
	const struct dw_type *p;

	if (v->lval == CEXPR_LVAL_REGISTER && n->kind == N_IDENT)
		return cx_fail(cx, -EINVAL, "Address requested for identifier \"%s\" which is in "
			       "register $%s", n->str, v->reg);
	if (v->lval == CEXPR_NOT_LVAL && n->kind == N_IDENT)
		return cx_fail(cx, -EINVAL, "Can't take address of \"%s\" which isn't an lvalue.",
			       n->str);
	if (v->lval != CEXPR_LVAL_MEMORY || v->bit_size)
		return cx_fail(cx, -EINVAL, "Attempt to take address of value not located in "
			       "memory.");
	p = cexpr_pointer_to(cx, v->type);
	*out = p ? cx_value_int(cx, p, v->addr) : NULL;
	return *out ? 0 : cx_fail(cx, -ENOMEM, "Out of memory.");
}

/* &*@n->a->a: GDB takes it for the pointer (or integer) itself, a
 * function or an array in memory for their address. 1 if done, 0 if it
 * is not one. */
static int address_of_deref(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *v;
	const struct dw_type *t, *p;
	int rc;

	if (n->op != '&' || n->a->kind != N_UNARY || n->a->op != '*')
		return 0;
	rc = cx_eval(cx, n->a->a, &v);
	if (rc < 0)
		return rc;
	t = dw_type_strip(v->type);
	if (t->kind == DW_TYPE_POINTER || cx_is_integral(t)) {
		rc = cx_fetch(cx, v);
		*out = v;
		return rc < 0 ? rc : 1;
	}
	if ((t->kind != DW_TYPE_FUNCTION && t->kind != DW_TYPE_ARRAY) ||
	    v->lval != CEXPR_LVAL_MEMORY)
		return 0;
	p = cexpr_pointer_to(cx, t->kind == DW_TYPE_ARRAY ? t->target : v->type);
	*out = p ? cx_value_int(cx, p, v->addr) : NULL;
	return *out ? 1 : -ENOMEM;
}

static int eval_unary(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *v;
	int rc = address_of_deref(cx, n, out);

	if (rc != 0)
		return rc < 0 ? rc : 0;
	rc = cx_eval(cx, n->a, &v);

	if (rc < 0)
		return rc;
	if (n->op == '*' || n->op == '!') {
		rc = cx_struct_operand(cx, n->op, v, NULL);
		if (rc < 0)
			return rc;
	}
	if (n->op == '*')
		return cx_deref(cx, v, out);
	if (n->op == '&')
		return address_of(cx, n->a, v, out);
	return cx_unop(cx, n->op, v, out);
}

/* The member @name of struct / union type @t, through anonymous members:
 * the member, its byte offset in *@off. */
static const struct dw_member *find_member(const struct dw_type *t, const char *name,
					   uint64_t *off, unsigned depth)
{
	t = dw_type_strip(t);
	if (!t || (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION) || depth > 32)
		return NULL;
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct dw_member *m = &t->members[i];
		uint64_t sub = 0;
		const struct dw_member *found;

		if (m->name && !strcmp(m->name, name)) {
			*off = m->offset;
			return m;
		}
		if (!m->name && (found = find_member(m->type, name, &sub, depth + 1))) {
			*off = m->offset + sub;
			return found;
		}
	}
	return NULL;
}

/* A bit-field member read out of @v into a value of its type. */
static int bitfield(struct cexpr *cx, struct cexpr_value *v, const struct dw_member *m,
		    uint64_t off, struct cexpr_value **out)
{
	uint64_t nbytes = (m->bit_offset + m->bit_size + 7) / 8, raw, mask;
	struct cexpr_value *r;
	int rc;

	if (nbytes > 8 || m->bit_size > 64)
		return cx_fail(cx, -EINVAL, "Bit-field too wide.");
	rc = cx_fetch(cx, v);
	if (rc < 0)
		return rc;
	if (off + nbytes > v->size)
		return cx_fail(cx, -EINVAL, "Bit-field outside its struct.");
	r = cx_value_new(cx, m->type);
	if (!r)
		return -ENOMEM;
	if (cx_missing(v, off, nbytes)) {
		r->state = malloc(r->size ? r->size : 1);
		if (!r->state)
			return cx_fail(cx, -ENOMEM, "Out of memory.");
		memset(r->state, cx_missing(v, off, nbytes), r->size ? r->size : 1);
	}
	raw = cx_extract(v->bytes + off, nbytes, false) >> m->bit_offset;
	mask = m->bit_size == 64 ? ~0ull : (1ull << m->bit_size) - 1;
	raw &= mask;
	if (cx_is_signed(m->type) && (raw >> (m->bit_size - 1)) & 1)
		raw |= ~mask;
	memcpy(r->bytes, &raw, r->size < 8 ? r->size : 8);
	r->lval = v->lval;
	r->addr = v->addr + off;
	r->bit_size = m->bit_size;
	r->bit_pos = m->bit_offset;
	*out = r;
	return 0;
}

/* @v.@name or @v->@name: GDB goes through arrays and pointers, any
 * number of them, either way. */
static int member(struct cexpr *cx, struct cexpr_value *v, const char *name, bool arrow,
		  struct cexpr_value **out)
{
	const struct dw_type *t = dw_type_strip(v->type);
	const struct dw_member *m;
	uint64_t off = 0;
	int rc;

	for (unsigned hops = 0; (t->kind == DW_TYPE_ARRAY || t->kind == DW_TYPE_POINTER) &&
	     hops < 64; hops++) {
		rc = cx_deref(cx, v, &v);
		if (rc < 0)
			return rc;
		t = dw_type_strip(v->type);
	}
	if (t->kind != DW_TYPE_STRUCT && t->kind != DW_TYPE_UNION)
		return cx_fail(cx, -EINVAL, "Attempt to extract a component of a value that is "
			       "not a structure%s.", arrow ? " pointer" : "");
	m = find_member(t, name, &off, 0);
	if (!m)
		return cx_fail(cx, -EINVAL, "There is no member named %s.", name);
	if (m->bit_size)
		return bitfield(cx, v, m, off, out);
	*out = cx_value_part(cx, v, m->type, off);
	return *out ? 0 : -EINVAL;
}

static int eval_member(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *v;
	int rc = cx_eval(cx, n->a, &v);

	if (rc < 0)
		return rc;
	return member(cx, v, n->str, n->kind == N_ARROW, out);
}

static int eval_index(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *a, *i, *sum;
	const struct dw_type *t;
	int rc = cx_eval(cx, n->a, &a);

	if (rc == 0)
		rc = cx_eval(cx, n->b, &i);
	if (rc < 0)
		return rc;
	rc = cx_struct_operand(cx, '[', a, NULL);
	if (rc == 0 && cx_is_float(i->type)) {
		/* GDB takes a float index as the integer it truncates to. */
		rc = cx_fetch(cx, i);
		if (rc == 0 && !(i = cx_value_int(cx, cexpr_builtin_type("long"), cx_as_int(i))))
			rc = -ENOMEM;
	}
	if (rc < 0)
		return rc;
	t = dw_type_strip(a->type);
	if (t->kind == DW_TYPE_ARRAY && a->lval != CEXPR_LVAL_MEMORY) {
		uint64_t k, esize = dw_type_size(t->target);

		rc = cx_fetch(cx, i);
		if (rc < 0)
			return rc;
		k = cx_as_int(i);
		if (!cx_is_integral(i->type) || k >= t->count)
			return cx_fail(cx, -EINVAL, "no such vector element");
		*out = cx_value_part(cx, a, t->target, k * esize);
		return *out ? 0 : -EINVAL;
	}
	if (t->kind != DW_TYPE_ARRAY && t->kind != DW_TYPE_POINTER) {
		struct cx_buf b = { 0 };

		cx_print_type_name(&b, a->type, "");
		rc = cx_fail(cx, -EINVAL, "cannot subscript something of type `%s'",
			     b.s ? b.s : "?");
		free(b.s);
		return rc;
	}
	rc = cx_binop(cx, '+', a, i, &sum);
	return rc < 0 ? rc : cx_deref(cx, sum, out);
}

/* GDB's @: @a (in memory) and the @count - 1 objects after it. */
static int artificial_array(struct cexpr *cx, struct cexpr_value *a, struct cexpr_value *c,
			    struct cexpr_value **out)
{
	const struct dw_type *t;
	int64_t count;
	int rc = cx_fetch(cx, c);

	if (rc < 0)
		return rc;
	if (!cx_is_integral(c->type))
		return cx_fail(cx, -EINVAL, "Non-integral right operand for \"@\" operator.");
	if (a->lval != CEXPR_LVAL_MEMORY || a->bit_size)
		return cx_fail(cx, -EINVAL, "Only values in memory can be extended with '@'.");
	count = (int64_t)cx_as_int(c);
	if (count <= 0)
		return cx_fail(cx, -EINVAL, "Invalid number %" PRId64 " of repetitions.", count);
	t = cx_array_of(cx, a->type, (uint64_t)count);
	*out = t ? cexpr_value_at(cx, t, a->addr) : NULL;
	return *out ? 0 : -ENOMEM;
}

static int eval_binary(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *a, *b;
	int rc = cx_eval(cx, n->a, &a);

	if (rc < 0)
		return rc;
	if (n->op == OP_AND || n->op == OP_OR) {
		bool t;

		rc = cx_struct_operand(cx, n->op, a, NULL);
		if (rc < 0)
			return rc;
		rc = cx_truth(cx, a, &t);
		if (rc < 0)
			return rc;
		if (t == (n->op == OP_OR)) {
			*out = cx_value_int(cx, cexpr_builtin_type("int"), t);
			return *out ? 0 : -ENOMEM;
		}
		rc = cx_eval(cx, n->b, &b);
		if (rc == 0)
			rc = cx_struct_operand(cx, n->op, NULL, b);
		if (rc == 0)
			rc = cx_truth(cx, b, &t);
		if (rc == 0 && !(*out = cx_value_int(cx, cexpr_builtin_type("int"), t)))
			rc = -ENOMEM;
		return rc;
	}
	rc = cx_eval(cx, n->b, &b);
	if (rc < 0)
		return rc;
	if (n->op == ',') {
		*out = b;
		return 0;
	}
	if (n->op == '@')
		return artificial_array(cx, a, b, out);
	return cx_binop(cx, n->op, a, b, out);
}

static int eval_cond(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *c;
	bool t;
	int rc = cx_eval(cx, n->a, &c);

	if (rc == 0)
		rc = cx_truth(cx, c, &t);
	if (rc < 0)
		return rc;
	return cx_eval(cx, t ? n->b : n->c, out);
}

static int eval_sizeof(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	const struct dw_type *t = n->type, *s;
	struct cexpr_value *v;
	int rc;

	if (n->kind == N_SIZEOF) {
		rc = cx_eval(cx, n->a, &v);
		if (rc < 0)
			return rc;
		t = v->type;
	}
	s = dw_type_strip(t);
	if ((s->kind == DW_TYPE_STRUCT || s->kind == DW_TYPE_UNION) && s->declaration)
		return cx_fail(cx, -EINVAL, "Attempt to use a type name as an expression");
	*out = cx_value_int(cx, cexpr_builtin_type("int"),
			    s->kind == DW_TYPE_VOID || s->kind == DW_TYPE_FUNCTION ? 1 :
			    dw_type_size(t));
	return *out ? 0 : -ENOMEM;
}

/* An array or function in memory as the pointer C makes of it. */
static int array_to_pointer(struct cexpr *cx, struct cexpr_value **v)
{
	const struct dw_type *t = dw_type_strip((*v)->type), *p;

	if ((t->kind != DW_TYPE_ARRAY && t->kind != DW_TYPE_FUNCTION) ||
	    (*v)->lval != CEXPR_LVAL_MEMORY)
		return 0;
	p = cexpr_pointer_to(cx, t->kind == DW_TYPE_ARRAY ? t->target : (*v)->type);
	*v = p ? cx_value_int(cx, p, (*v)->addr) : NULL;
	return *v ? 0 : -ENOMEM;
}

/* $i = x, $i += x, $i++, ++$i: convenience variables are the debugger's
 * own, so they change (the recording does not). */
static int assign_convenience(struct cexpr *cx, const struct cx_node *n,
			      struct cexpr_value **out)
{
	struct cexpr_value *cur = NULL, *rhs, *res;
	const char *name = n->a->str;
	int rc = 0;

	if (n->kind == N_ASSIGN) {
		rc = cx_eval(cx, n->b, &rhs);
		if (rc == 0 && n->op)
			rc = cx_eval_dollar(cx, name, &cur);
		if (rc == 0 && n->op)
			rc = cx_binop(cx, n->op, cur, rhs, &res);
		else
			res = rhs;
		if (rc == 0 && !n->op)
			rc = array_to_pointer(cx, &res);
	} else {
		rc = cx_eval_dollar(cx, name, &cur);
		if (rc == 0 && dw_type_strip(cur->type)->kind == DW_TYPE_VOID)
			return cx_fail(cx, -EINVAL, "Not a numeric type.");
		rhs = cx_value_int(cx, cexpr_builtin_type("int"), 1);
		if (rc == 0 && !rhs)
			rc = -ENOMEM;
		if (rc == 0)
			rc = cx_binop(cx, n->op == OP_INC ? '+' : '-', cur, rhs, &res);
	}
	if (rc == 0)
		rc = cx_convenience_set(cx, name, res);
	if (rc == 0)
		*out = n->kind == N_INCDEC && !n->ival ? cur : res;
	return rc;
}

/* What a recording cannot do: change memory, call functions. */
static int refuse(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	struct cexpr_value *v;
	int rc;

	if (n->kind != N_CALL && n->a->kind == N_DOLLAR && cx_is_convenience(n->a->str))
		return assign_convenience(cx, n, out);
	if (n->kind != N_CALL && n->a->kind == N_DOLLAR && cx_is_history(n->a->str))
		return cx_fail(cx, -EINVAL, "Left operand of assignment is not a modifiable "
			       "lvalue.");

	if (n->kind == N_CALL) {
		rc = cx_eval(cx, n->a, &v);
		return rc < 0 ? rc : cx_fail(cx, -EPERM, "You can't do that without a process to "
					     "debug.");
	}
	rc = cx_eval(cx, n->a, &v);
	if (rc < 0)
		return rc;
	if (v->lval == CEXPR_NOT_LVAL)
		return cx_fail(cx, -EINVAL, "Left operand of assignment is not an lvalue.");
	return cx_fail(cx, -EPERM, "A recording cannot be changed: assignment, ++ and -- are "
		       "not possible in hindsight replay.");
}

static int eval_node(struct cexpr *cx, const struct cx_node *n, struct cexpr_value **out)
{
	switch (n->kind) {
	case N_INT:
		*out = cx_value_int(cx, n->type, n->ival);
		return *out ? 0 : -ENOMEM;
	case N_FLOAT:
		*out = cx_value_float(cx, n->type, n->fval);
		return *out ? 0 : -ENOMEM;
	case N_STRING:
		return eval_string(cx, n, out);
	case N_IDENT:
		return eval_ident(cx, n->str, out);
	case N_DOLLAR:
		return cx_eval_dollar(cx, n->str, out);
	case N_UNARY:
		return eval_unary(cx, n, out);
	case N_BINARY:
		return eval_binary(cx, n, out);
	case N_COND:
		return eval_cond(cx, n, out);
	case N_CAST: {
		struct cexpr_value *v;
		int rc = cx_eval(cx, n->a, &v);

		return rc < 0 ? rc : cx_cast(cx, n->type, v, out);
	}
	case N_SIZEOF_TYPE: case N_SIZEOF:
		return eval_sizeof(cx, n, out);
	case N_INDEX:
		return eval_index(cx, n, out);
	case N_MEMBER: case N_ARROW:
		return eval_member(cx, n, out);
	case N_CALL: case N_ASSIGN: case N_INCDEC:
		return refuse(cx, n, out);
	default:
		return cx_fail(cx, -EINVAL, "Unsupported expression.");
	}
}

int cx_eval(struct cexpr *cx, struct cx_node *n, struct cexpr_value **out)
{
	int rc;

	if (++cx->depth > 12000) {
		cx->depth--;
		return cx_fail(cx, -EINVAL, "Expression too complex.");
	}
	rc = eval_node(cx, n, out);
	cx->depth--;
	return rc;
}
