/*
 * replay/frontend/cexpr_parse.c: GDB's C grammar into a tree (struct cx_node):
 * recursive descent over cexpr_lex's tokens, one function per level
 * (comma, assignment, ?:, binary operators by precedence climbing with
 * GDB's '@' between shifts and +, unary, postfix, primary), and type names
 * with abstract declarators for casts, sizeof, ptype and whatis.
 */
#include "replay/frontend/cexpr_lex.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

struct parser {
	struct cexpr *cx;
	struct cx_token *t;
	size_t i, n;
	unsigned depth;
};

/* Nesting allowed: a unary operator or a declarator weighs 1, a nested
 * expression 8 (its descent takes that many functions): 1000 parentheses
 * and thousands of unary operators parse, as in GDB; the stack stays well
 * under 8 MiB. */
#define MAX_PARSE_DEPTH 10000
#define NEST_WEIGHT 8

static struct cx_token *peek(struct parser *p)
{
	return &p->t[p->i];
}

static bool is_op(struct parser *p, int op)
{
	return peek(p)->kind == T_PUNCT && peek(p)->op == op;
}

static bool accept(struct parser *p, int op)
{
	if (!is_op(p, op))
		return false;
	p->i++;
	return true;
}

static int syntax(struct parser *p)
{
	if (peek(p)->kind == T_ERROR)
		return cx_fail(p->cx, -EINVAL, "%s", peek(p)->str);
	return cx_fail(p->cx, -EINVAL, "A syntax error in expression, near `%s'.", peek(p)->start);
}

static struct cx_node *node(struct parser *p, enum cx_node_kind k, int op,
			    struct cx_node *a, struct cx_node *b)
{
	struct cx_node *n = cx_tree_alloc(p->cx, sizeof(*n));

	if (!n) {
		cx_fail(p->cx, -ENOMEM, "Out of memory.");
		return NULL;
	}
	n->kind = k;
	n->op = op;
	n->a = a;
	n->b = b;
	return n;
}

static int parse_comma(struct parser *p, struct cx_node **out);

/* Goes @w deeper: 0, or GDB's message when that is too deep. */
static int enter(struct parser *p, unsigned w)
{
	p->depth += w;
	if (p->depth <= MAX_PARSE_DEPTH)
		return 0;
	return cx_fail(p->cx, -EINVAL, "A memory exhausted in expression, near `%s'.",
		       peek(p)->start);
}
static int parse_assign(struct parser *p, struct cx_node **out);
static int parse_unary(struct parser *p, struct cx_node **out);
static int parse_type(struct parser *p, const struct dw_type **out);

/* ---- type names ---- */

static bool is_type_word(const char *w)
{
	static const char *const words[] = {
		"signed", "unsigned", "short", "long", "int", "char", "float", "double",
		"void", "_Bool", "const", "volatile", "struct", "union", "enum",
	};

	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++)
		if (!strcmp(words[i], w))
			return true;
	return false;
}

/* Does a type name start here? */
static bool type_starts(struct parser *p)
{
	struct cx_token *t = peek(p);
	const struct dw_type *ty;

	if (t->kind != T_IDENT)
		return false;
	if (is_type_word(t->str))
		return true;
	if (!p->cx->env.type_named)
		return false;
	ty = p->cx->env.type_named(p->cx->env.ctx, t->str);
	return ty && (ty->kind == DW_TYPE_TYPEDEF || ty->kind == DW_TYPE_BASE);
}

static int tagged_type(struct parser *p, const char *tag, const struct dw_type **out)
{
	char name[256];
	const struct dw_type *t = NULL;

	if (peek(p)->kind != T_IDENT)
		return syntax(p);
	snprintf(name, sizeof(name), "%s %s", tag, peek(p)->str);
	if (p->cx->env.type_named)
		t = p->cx->env.type_named(p->cx->env.ctx, name);
	if (!t)
		return cx_fail(p->cx, -EINVAL, "No %s type named %s.", tag, peek(p)->str);
	p->i++;
	*out = t;
	return 0;
}

/* The base words "unsigned long int" into GDB's builtin name. */
static const char *base_name(char buf[32], int sign, int shorts, int longs, const char *kw)
{
	if (kw && (!strcmp(kw, "double")))
		return longs ? "long double" : "double";
	if (kw && strcmp(kw, "int") && strcmp(kw, "char"))
		return kw;
	if (kw && !strcmp(kw, "char"))
		return sign < 0 ? "signed char" : sign > 0 ? "unsigned char" : "char";
	snprintf(buf, 32, "%s%s", sign > 0 ? "unsigned " : "",
		 shorts ? "short" : longs == 1 ? "long" : longs ? "long long" : "int");
	return buf;
}

/* Specifiers and qualifiers: the type they name. */
static int parse_specifiers(struct parser *p, const struct dw_type **out)
{
	int sign = 0, shorts = 0, longs = 0, any = 0, ints = 0;
	bool cnst = false, vol = false;
	const char *kw = NULL;
	const struct dw_type *t = NULL;
	int rc;

	for (struct cx_token *tk; (tk = peek(p))->kind == T_IDENT; any++) {
		const char *w = tk->str;

		if (!strcmp(w, "const") || !strcmp(w, "volatile")) {
			*(w[0] == 'c' ? &cnst : &vol) = true;
			p->i++;
			continue;
		}
		if (t || kw || !is_type_word(w)) {
			if (t || kw || sign || shorts || longs || !p->cx->env.type_named)
				break;
			t = p->cx->env.type_named(p->cx->env.ctx, w);
			if (!t)
				break;
			p->i++;
			continue;
		}
		p->i++;
		if (!strcmp(w, "signed") || !strcmp(w, "unsigned"))
			sign = w[0] == 'u' ? 1 : -1;
		else if (!strcmp(w, "short"))
			shorts++;
		else if (!strcmp(w, "long"))
			longs++;
		else if (!strcmp(w, "struct") || !strcmp(w, "union") || !strcmp(w, "enum")) {
			rc = tagged_type(p, w, &t);
			if (rc < 0)
				return rc;
		} else if (strcmp(w, "int")) {
			kw = w;
		} else {
			ints++;
		}
	}
	if (!t && !kw && !sign && !shorts && !longs && !ints)
		return any ? syntax(p) : -ENOENT;
	if (!t) {
		char buf[32];
		const char *name = base_name(buf, sign, shorts, longs, kw);

		t = cexpr_builtin_type(name);
		if (!t)
			return syntax(p);
	}
	if (vol)
		t = cx_qualified(p->cx, DW_TYPE_VOLATILE, t);
	if (t && cnst)
		t = cx_qualified(p->cx, DW_TYPE_CONST, t);
	if (!t)
		return cx_fail(p->cx, -ENOMEM, "Out of memory.");
	*out = t;
	return 0;
}

/* "(params)" after a declarator: a function type returning @ret. */
static int parse_params(struct parser *p, const struct dw_type *ret, const struct dw_type **out)
{
	const struct dw_type *params[64], **copy;
	struct dw_type *f = cx_new_type(p->cx);
	size_t n = 0;
	int rc;

	if (!f)
		return cx_fail(p->cx, -ENOMEM, "Out of memory.");
	f->kind = DW_TYPE_FUNCTION;
	f->target = ret && ret->kind == DW_TYPE_VOID ? NULL : ret;
	while (!is_op(p, ')')) {
		if (is_op(p, '.') && p->t[p->i + 1].op == '.' && p->t[p->i + 2].op == '.') {
			p->i += 3;
			f->varargs = true;
			break;
		}
		if (n == sizeof(params) / sizeof(params[0]))
			return syntax(p);
		rc = parse_type(p, &params[n]);
		if (rc == -ENOENT)
			return syntax(p);
		if (rc < 0)
			return rc;
		f->prototyped = true;
		if (dw_type_strip(params[n])->kind != DW_TYPE_VOID || n || !is_op(p, ')'))
			n++;
		if (!accept(p, ','))
			break;
	}
	if (!accept(p, ')'))
		return syntax(p);
	copy = cx_alloc(p->cx, (n ? n : 1) * sizeof(*copy));
	if (!copy)
		return cx_fail(p->cx, -ENOMEM, "Out of memory.");
	memcpy(copy, params, n * sizeof(*copy));
	f->params = copy;
	f->nparams = n;
	*out = f;
	return 0;
}

/* Array and function suffixes after a declarator, applied to @t. */
static int parse_suffixes(struct parser *p, const struct dw_type **t);

static int parse_suffixes_1(struct parser *p, const struct dw_type **t)
{
	if (accept(p, '[')) {
		uint64_t count = 0;
		bool known = peek(p)->kind == T_INT;
		int rc;

		if (known)
			count = p->t[p->i++].ival;
		if (!accept(p, ']'))
			return syntax(p);
		rc = parse_suffixes(p, t);
		if (rc < 0)
			return rc;
		if (known) {
			*t = cx_array_of(p->cx, *t, count);
		} else {
			struct dw_type *u = cx_new_type(p->cx);

			if (u) {
				u->kind = DW_TYPE_ARRAY;
				u->target = *t;
			}
			*t = u;
		}
		return *t ? 0 : cx_fail(p->cx, -ENOMEM, "Out of memory.");
	}
	if (accept(p, '(')) {
		int rc = parse_params(p, *t, t);

		return rc < 0 ? rc : parse_suffixes(p, t);
	}
	return 0;
}

static int parse_suffixes(struct parser *p, const struct dw_type **t)
{
	int rc = enter(p, NEST_WEIGHT);

	if (rc == 0)
		rc = parse_suffixes_1(p, t);
	p->depth -= NEST_WEIGHT;
	return rc;
}

/* Skips a balanced ( ... ) at p->i (p->i at the '('). */
static int skip_parens(struct parser *p)
{
	int level = 0;

	do {
		if (peek(p)->kind == T_END)
			return syntax(p);
		if (is_op(p, '('))
			level++;
		else if (is_op(p, ')'))
			level--;
		p->i++;
	} while (level);
	return 0;
}

/* An abstract declarator around @base: pointers, (inner), suffixes. */
static int parse_abstract(struct parser *p, const struct dw_type **t);

static int parse_abstract_1(struct parser *p, const struct dw_type **t)
{
	size_t inner, after;
	int rc;

	while (accept(p, '*')) {
		*t = cexpr_pointer_to(p->cx, *t);
		while (peek(p)->kind == T_IDENT && (!strcmp(peek(p)->str, "const") ||
						   !strcmp(peek(p)->str, "volatile"))) {
			*t = cx_qualified(p->cx, peek(p)->str[0] == 'c' ? DW_TYPE_CONST :
					  DW_TYPE_VOLATILE, *t);
			p->i++;
		}
		if (!*t)
			return cx_fail(p->cx, -ENOMEM, "Out of memory.");
	}
	if (is_op(p, '(') && p->t[p->i + 1].kind == T_PUNCT &&
	    (p->t[p->i + 1].op == '*' || p->t[p->i + 1].op == '(' || p->t[p->i + 1].op == '[')) {
		inner = p->i + 1;
		rc = skip_parens(p);
		if (rc < 0)
			return rc;
		rc = parse_suffixes(p, t);
		if (rc < 0)
			return rc;
		after = p->i;
		p->i = inner;
		rc = parse_abstract(p, t);
		if (rc < 0)
			return rc;
		if (!accept(p, ')'))
			return syntax(p);
		p->i = after;
		return 0;
	}
	return parse_suffixes(p, t);
}

static int parse_abstract(struct parser *p, const struct dw_type **t)
{
	int rc = enter(p, NEST_WEIGHT);

	if (rc == 0)
		rc = parse_abstract_1(p, t);
	p->depth -= NEST_WEIGHT;
	return rc;
}

/* A whole type name: 0, -ENOENT if none starts here (nothing consumed). */
static int parse_type(struct parser *p, const struct dw_type **out)
{
	int rc;

	if (!type_starts(p))
		return -ENOENT;
	rc = parse_specifiers(p, out);
	if (rc < 0)
		return rc;
	return parse_abstract(p, out);
}

/* ---- expressions ---- */

static int parse_primary(struct parser *p, struct cx_node **out)
{
	struct cx_token *t = peek(p);
	struct cx_node *n;
	int rc;

	if (accept(p, '(')) {
		rc = parse_comma(p, out);
		if (rc < 0)
			return rc;
		return accept(p, ')') ? 0 : syntax(p);
	}
	switch (t->kind) {
	case T_INT: case T_CHAR:
		n = node(p, N_INT, 0, NULL, NULL);
		if (n) {
			n->ival = t->ival;
			n->type = t->kind == T_CHAR ? cexpr_builtin_type("char") : t->type;
		}
		break;
	case T_FLOAT:
		n = node(p, N_FLOAT, 0, NULL, NULL);
		if (n) {
			n->fval = t->fval;
			n->type = t->type;
		}
		break;
	case T_IDENT:
		if (type_starts(p))
			return syntax(p);
		/* fall through */
	case T_STRING: case T_DOLLAR:
		n = node(p, t->kind == T_STRING ? N_STRING :
			 t->kind == T_IDENT ? N_IDENT : N_DOLLAR, 0, NULL, NULL);
		if (n) {
			n->str = t->str;
			n->len = t->len;
		}
		break;
	default:
		return syntax(p);
	}
	if (!n)
		return -ENOMEM;
	p->i++;
	/* "a" "b" is "ab". */
	while (n->kind == N_STRING && peek(p)->kind == T_STRING) {
		char *s = cx_tree_alloc(p->cx, n->len + peek(p)->len + 1);

		if (!s)
			return cx_fail(p->cx, -ENOMEM, "Out of memory.");
		memcpy(s, n->str, n->len);
		memcpy(s + n->len, peek(p)->str, peek(p)->len);
		n->str = s;
		n->len += peek(p)->len;
		p->i++;
	}
	*out = n;
	return 0;
}

static int parse_call_args(struct parser *p, struct cx_node **fn)
{
	struct cx_node *arg;
	int rc;

	*fn = node(p, N_CALL, 0, *fn, NULL);
	if (!*fn)
		return -ENOMEM;
	if (accept(p, ')'))
		return 0;
	do {
		rc = parse_assign(p, &arg);
		if (rc < 0)
			return rc;
	} while (accept(p, ','));
	return accept(p, ')') ? 0 : syntax(p);
}

static int parse_postfix(struct parser *p, struct cx_node **out)
{
	struct cx_node *idx;
	int rc = parse_primary(p, out);

	while (rc == 0) {
		if (accept(p, '[')) {
			rc = parse_comma(p, &idx);
			if (rc == 0 && !accept(p, ']'))
				rc = syntax(p);
			*out = rc ? NULL : node(p, N_INDEX, 0, *out, idx);
		} else if (is_op(p, '.') || is_op(p, OP_ARROW)) {
			bool arrow = peek(p)->op == OP_ARROW;

			p->i++;
			if (peek(p)->kind != T_IDENT)
				return syntax(p);
			*out = node(p, arrow ? N_ARROW : N_MEMBER, 0, *out, NULL);
			if (*out)
				(*out)->str = p->t[p->i++].str;
		} else if (accept(p, '(')) {
			rc = parse_call_args(p, out);
		} else if (is_op(p, OP_INC) || is_op(p, OP_DEC)) {
			*out = node(p, N_INCDEC, p->t[p->i++].op, *out, NULL);
		} else {
			break;
		}
		if (rc == 0 && !*out)
			rc = -ENOMEM;
	}
	return rc;
}

/* sizeof EXPR, sizeof(TYPE). */
static int parse_sizeof(struct parser *p, struct cx_node **out)
{
	const struct dw_type *t;
	size_t save = p->i;
	int rc;

	if (accept(p, '(')) {
		rc = parse_type(p, &t);
		if (rc == 0) {
			if (!accept(p, ')'))
				return syntax(p);
			*out = node(p, N_SIZEOF_TYPE, 0, NULL, NULL);
			if (!*out)
				return -ENOMEM;
			(*out)->type = t;
			return 0;
		}
		if (rc != -ENOENT)
			return rc;
		p->i = save;
	}
	rc = parse_unary(p, out);
	if (rc == 0 && !(*out = node(p, N_SIZEOF, 0, *out, NULL)))
		rc = -ENOMEM;
	return rc;
}

/* (TYPE) EXPR, or a parenthesized expression. */
static int parse_cast(struct parser *p, struct cx_node **out)
{
	const struct dw_type *t;
	size_t save = p->i;
	int rc;

	p->i++;
	rc = parse_type(p, &t);
	if (rc == -ENOENT) {
		p->i = save;
		return parse_postfix(p, out);
	}
	if (rc < 0)
		return rc;
	if (!accept(p, ')'))
		return syntax(p);
	rc = parse_unary(p, out);
	if (rc == 0 && !(*out = node(p, N_CAST, 0, *out, NULL)))
		return -ENOMEM;
	if (rc == 0)
		(*out)->type = t;
	return rc;
}

static int parse_unary(struct parser *p, struct cx_node **out)
{
	struct cx_token *t = peek(p);
	int rc, op;

	if (enter(p, 1) < 0)
		return -EINVAL;
	if (t->kind == T_IDENT && !strcmp(t->str, "sizeof")) {
		p->i++;
		rc = parse_sizeof(p, out);
	} else if (t->kind == T_PUNCT && strchr("*&-+!~", t->op) && t->op < 256) {
		op = t->op;
		p->i++;
		rc = parse_unary(p, out);
		if (rc == 0 && !(*out = node(p, N_UNARY, op, *out, NULL)))
			rc = -ENOMEM;
	} else if (t->kind == T_PUNCT && (t->op == OP_INC || t->op == OP_DEC)) {
		p->i++;
		rc = parse_unary(p, out);
		if (rc == 0 && !(*out = node(p, N_INCDEC, t->op, *out, NULL)))
			rc = -ENOMEM;
		if (rc == 0)
			(*out)->ival = 1;  /* prefix */
	} else if (is_op(p, '(')) {
		rc = parse_cast(p, out);
	} else {
		rc = parse_postfix(p, out);
	}
	p->depth--;
	return rc;
}

/* Binary operators' precedence (higher binds tighter), 0 if not one. */
static int precedence(struct parser *p)
{
	static const struct { int op, prec; } table[] = {
		{ OP_OR, 1 }, { OP_AND, 2 }, { '|', 3 }, { '^', 4 }, { '&', 5 },
		{ OP_EQ, 6 }, { OP_NE, 6 }, { '<', 7 }, { '>', 7 }, { OP_LE, 7 }, { OP_GE, 7 },
		{ OP_SHL, 8 }, { OP_SHR, 8 }, { '@', 9 }, { '+', 10 }, { '-', 10 },
		{ '*', 11 }, { '/', 11 }, { '%', 11 },
	};

	if (peek(p)->kind != T_PUNCT)
		return 0;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].op == peek(p)->op)
			return table[i].prec;
	return 0;
}

static int parse_binary(struct parser *p, int min, struct cx_node **out)
{
	int rc = parse_unary(p, out), prec;

	while (rc == 0 && (prec = precedence(p)) >= min) {
		int op = p->t[p->i++].op;
		struct cx_node *rhs;

		rc = parse_binary(p, prec + 1, &rhs);
		if (rc == 0 && !(*out = node(p, N_BINARY, op, *out, rhs)))
			rc = -ENOMEM;
	}
	return rc;
}

static int parse_cond(struct parser *p, struct cx_node **out)
{
	struct cx_node *a, *b;
	int rc = parse_binary(p, 1, out);

	if (rc < 0 || !accept(p, '?'))
		return rc;
	rc = parse_comma(p, &a);
	if (rc < 0)
		return rc;
	if (!accept(p, ':'))
		return syntax(p);
	rc = enter(p, NEST_WEIGHT);
	if (rc == 0)
		rc = parse_cond(p, &b);
	p->depth -= NEST_WEIGHT;
	if (rc < 0)
		return rc;
	*out = node(p, N_COND, 0, *out, a);
	if (!*out)
		return -ENOMEM;
	(*out)->c = b;
	return 0;
}

static int parse_assign(struct parser *p, struct cx_node **out)
{
	struct cx_node *rhs;
	int rc = parse_cond(p, out), op;

	if (rc < 0 || !(is_op(p, '=') || is_op(p, OP_ASSIGN_MOD)))
		return rc;
	op = is_op(p, '=') ? 0 : (int)peek(p)->ival;
	p->i++;
	rc = enter(p, NEST_WEIGHT);
	if (rc == 0)
		rc = parse_assign(p, &rhs);
	p->depth -= NEST_WEIGHT;
	if (rc == 0 && !(*out = node(p, N_ASSIGN, op, *out, rhs)))
		rc = -ENOMEM;
	return rc;
}

static int parse_comma(struct parser *p, struct cx_node **out)
{
	struct cx_node *rhs;
	int rc = enter(p, NEST_WEIGHT);

	if (rc == 0)
		rc = parse_assign(p, out);

	while (rc == 0 && accept(p, ',')) {
		rc = parse_assign(p, &rhs);
		if (rc == 0 && !(*out = node(p, N_BINARY, ',', *out, rhs)))
			rc = -ENOMEM;
	}
	p->depth -= NEST_WEIGHT;
	return rc;
}

/* GDB looks names up while it parses: an unknown one before a syntax
 * error is what it reports. */
static void unknown_before(struct parser *p, size_t end)
{
	for (size_t i = 0; i < end && i < p->n; i++) {
		struct cx_token *t = &p->t[i];
		struct cexpr_value *v = NULL;
		char err[64];

		if (t->kind != T_IDENT || is_type_word(t->str) || !strcmp(t->str, "sizeof") ||
		    (i && p->t[i - 1].kind == T_PUNCT &&
		     (p->t[i - 1].op == '.' || p->t[i - 1].op == OP_ARROW)) ||
		    (i && p->t[i - 1].kind == T_IDENT && is_type_word(p->t[i - 1].str)))
			continue;
		if (p->cx->env.type_named && p->cx->env.type_named(p->cx->env.ctx, t->str))
			continue;
		if (p->cx->env.lookup && p->cx->env.lookup(p->cx->env.ctx, p->cx, t->str, &v, err,
							   sizeof(err)) != -ENOENT)
			continue;
		cx_fail(p->cx, -ENOENT, "No symbol \"%s\" in current context.", t->str);
		return;
	}
}

struct cx_node *cx_parse(struct cexpr *cx, const char *text)
{
	struct parser p = { .cx = cx };
	struct cx_node *n = NULL;

	if (cx_lex(cx, text, &p.t, &p.n) < 0)
		return NULL;
	if (type_starts(&p)) {
		const struct dw_type *t;
		int rc = parse_type(&p, &t);

		/* GDB's grammar takes a type name only as the whole input. */
		if (rc == 0 && peek(&p)->kind == T_END) {
			cx_fail(cx, -EINVAL, "Attempt to use a type name as an expression");
			return NULL;
		}
		if (rc == 0 || rc != -ENOENT) {
			if (rc == 0)
				syntax(&p);
			return NULL;
		}
		p.i = 0;
	}
	if (parse_comma(&p, &n) < 0) {
		if (!strncmp(cx->err, "A syntax error", 14))
			unknown_before(&p, p.i);
		return NULL;
	}
	if (peek(&p)->kind != T_END) {
		int parens = 0;

		/* GDB's lexer ends the text at a ')' it has no '(' for. */
		for (size_t i = 0; i < p.i; i++)
			if (p.t[i].kind == T_PUNCT)
				parens += (p.t[i].op == '(') - (p.t[i].op == ')');
		if (is_op(&p, ')') && parens == 0)
			cx_fail(cx, -EINVAL, "Junk after end of expression.");
		else
			syntax(&p);
		return NULL;
	}
	return n;
}

int cx_parse_type_text(struct cexpr *cx, const char *text, const struct dw_type **out)
{
	struct parser p = { .cx = cx };
	int rc;

	cx->err[0] = 0;
	if (cx_lex(cx, text, &p.t, &p.n) < 0)
		return -ENOENT;
	rc = parse_type(&p, out);
	if (rc == 0 && peek(&p)->kind != T_END)
		return -ENOENT;
	return rc;
}
