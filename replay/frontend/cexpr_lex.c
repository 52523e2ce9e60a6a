/*
 * replay/frontend/cexpr_lex.c: the tokens of GDB's C expressions: numbers with
 * GDB's types (int, unsigned int, long, unsigned long; floats), character
 * and string literals with C escapes, identifiers, $names and operators.
 * Errors are GDB's ("Invalid number \"08\".", "Unterminated string in
 * expression.", "Invalid character '#' in expression.").
 */
#include "replay/frontend/cexpr_lex.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Operators of more than one character; compound assignments say their
 * operator in @base. */
static const struct { const char *s; int op, base; } puncts[] = {
	{ "<<=", OP_ASSIGN_MOD, OP_SHL }, { ">>=", OP_ASSIGN_MOD, OP_SHR },
	{ "->", OP_ARROW, 0 }, { "++", OP_INC, 0 }, { "--", OP_DEC, 0 }, { "<<", OP_SHL, 0 },
	{ ">>", OP_SHR, 0 }, { "<=", OP_LE, 0 }, { ">=", OP_GE, 0 }, { "==", OP_EQ, 0 },
	{ "!=", OP_NE, 0 }, { "&&", OP_AND, 0 }, { "||", OP_OR, 0 },
	{ "+=", OP_ASSIGN_MOD, '+' }, { "-=", OP_ASSIGN_MOD, '-' }, { "*=", OP_ASSIGN_MOD, '*' },
	{ "/=", OP_ASSIGN_MOD, '/' }, { "%=", OP_ASSIGN_MOD, '%' }, { "&=", OP_ASSIGN_MOD, '&' },
	{ "|=", OP_ASSIGN_MOD, '|' }, { "^=", OP_ASSIGN_MOD, '^' },
};

static unsigned hexval(char c)
{
	return isdigit((unsigned char)c) ? (unsigned)(c - '0') : (unsigned)((c | 32) - 'a' + 10);
}

/* One escape after a backslash at *s (moved past it): the byte. */
static int escape(const char **s)
{
	static const char from[] = "abefnrtv", to[] = "\a\b\033\f\n\r\t\v";
	const char *p = *s, *e;
	unsigned x = 0;
	int n = 0;

	if (*p >= '0' && *p <= '7') {
		for (; n < 3 && *p >= '0' && *p <= '7'; n++)
			x = x * 8 + (*p++ - '0');
		*s = p;
		return (int)(x & 0xff);
	}
	if (*p == 'x') {
		for (p++; isxdigit((unsigned char)*p); p++, n++)
			x = (x * 16 + hexval(*p)) & 0xfff;
		*s = p;
		return n ? (int)(x & 0xff) : -1;
	}
	if (!*p)
		return -1;
	e = strchr(from, *p);
	*s = p + 1;
	return e && *p ? (unsigned char)to[e - from] : (unsigned char)*p;
}

static int lex_char(struct cexpr *cx, const char **s, struct cx_token *t)
{
	const char *p = *s + 1;
	int c;

	if (*p == '\'')
		return cx_fail(cx, -EINVAL, "A character constant must contain at least one "
			       "character.");
	if (!*p)
		return cx_fail(cx, -EINVAL, "Unmatched single quote.");
	c = *p == '\\' ? (p++, escape(&p)) : (unsigned char)*p++;
	if (c < 0 || *p != '\'')
		return cx_fail(cx, -EINVAL, *p ? "Invalid character constant." :
			       "Unmatched single quote.");
	t->kind = T_CHAR;
	t->ival = (uint64_t)(int64_t)(int8_t)c;
	*s = p + 1;
	return 0;
}

static int lex_string(struct cexpr *cx, const char **s, struct cx_token *t)
{
	const char *p = *s + 1;
	size_t n = 0;
	char *out;

	out = cx_tree_alloc(cx, strlen(p) + 1);
	if (!out)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	while (*p && *p != '"') {
		int c = *p == '\\' ? (p++, escape(&p)) : (unsigned char)*p++;

		if (c < 0)
			return cx_fail(cx, -EINVAL, "Unterminated string in expression.");
		out[n++] = (char)c;
	}
	if (*p != '"')
		return cx_fail(cx, -EINVAL, "Unterminated string in expression.");
	t->kind = T_STRING;
	t->str = out;
	t->len = n;
	*s = p + 1;
	return 0;
}

/* The integer @x with suffix flags: GDB's type for it. */
static const char *int_type(uint64_t x, bool decimal, bool u, int longs)
{
	if (!u && !longs && x <= 0x7fffffff)
		return "int";
	if (!longs && x <= 0xffffffff && (u || !decimal))
		return "unsigned int";
	if (!u && x <= 0x7fffffffffffffffull)
		return longs == 2 ? "long long" : "long";
	return longs == 2 ? "unsigned long long" : "unsigned long";
}

static int lex_float(struct cexpr *cx, const char *start, size_t n, struct cx_token *t)
{
	char buf[128], *end;
	const char *tname = "double";

	if (n >= sizeof(buf))
		return cx_fail(cx, -EINVAL, "Invalid number \"%.*s\".", (int)n, start);
	memcpy(buf, start, n);
	buf[n] = 0;
	bool hex = buf[0] == '0' && (buf[1] | 32) == 'x';

	if (n && (buf[n - 1] == 'f' || buf[n - 1] == 'F') && !hex)
		tname = "float", buf[--n] = 0;
	else if (n && (buf[n - 1] == 'l' || buf[n - 1] == 'L'))
		tname = "long double", buf[--n] = 0;
	t->fval = strtold(buf, &end);
	if (*end || end == buf)
		return cx_fail(cx, -EINVAL, "Invalid number \"%.*s\".", (int)n, start);
	t->kind = T_FLOAT;
	t->type = cexpr_builtin_type(tname);
	return 0;
}

static int lex_number(struct cexpr *cx, const char **s, struct cx_token *t)
{
	const char *p = *s, *start = *s;
	bool hex = p[0] == '0' && (p[1] | 32) == 'x', flt = false, u = false;
	int longs = 0, base = hex ? 16 : *p == '0' ? 8 : 10;
	uint64_t x = 0;
	const char *q;

	for (q = p; isalnum((unsigned char)*q) || *q == '.' || *q == '_' ||
	     ((*q == '+' || *q == '-') && ((q[-1] | 32) == (hex ? 'p' : 'e'))); q++) {
		if (*q == '.') {
			if (flt)
				break;
			flt = true;
		}
		if (!hex && (*q | 32) == 'e')
			flt = true;
		if (hex && (*q | 32) == 'p')
			flt = true;
	}
	*s = q;
	if (flt)
		return lex_float(cx, start, q - start, t);
	p += hex ? 2 : 0;
	if (hex && !isxdigit((unsigned char)*p))
		return cx_fail(cx, -EINVAL, "Invalid number \"%.*s\".", (int)(q - start), start);
	for (; p < q && isxdigit((unsigned char)*p) && (base == 16 || isdigit((unsigned char)*p));
	     p++) {
		unsigned d = hexval(*p);

		if (d >= (unsigned)base)
			return cx_fail(cx, -EINVAL, "Invalid number \"%.*s\".", (int)(q - start),
				       start);
		if (x > (UINT64_MAX - d) / base)
			return cx_fail(cx, -ERANGE, "Numeric constant too large.");
		x = x * base + d;
	}
	for (; p < q; p++) {
		if ((*p | 32) == 'u' && !u)
			u = true;
		else if ((*p | 32) == 'l' && longs < 2)
			longs++;
		else
			return cx_fail(cx, -EINVAL, "Invalid number \"%.*s\".", (int)(q - start),
				       start);
	}
	t->kind = T_INT;
	t->ival = x;
	t->type = cexpr_builtin_type(int_type(x, base == 10, u, longs));
	return 0;
}

static int lex_word(struct cexpr *cx, const char **s, struct cx_token *t, bool dollar)
{
	const char *p = *s + dollar;
	size_t n;

	while (isalnum((unsigned char)*p) || *p == '_' || (dollar && *p == '$'))
		p++;
	n = p - *s;
	t->str = cx_tree_alloc(cx, n + 1);
	if (!t->str)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	memcpy(t->str, *s, n);
	t->kind = dollar ? T_DOLLAR : T_IDENT;
	*s = p;
	return 0;
}

static int lex_one(struct cexpr *cx, const char **s, struct cx_token *t)
{
	const char *p = *s;

	if (isdigit((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
		return lex_number(cx, s, t);
	if (*p == '\'')
		return lex_char(cx, s, t);
	if (*p == '"')
		return lex_string(cx, s, t);
	if (isalpha((unsigned char)*p) || *p == '_')
		return lex_word(cx, s, t, false);
	if (*p == '$')
		return lex_word(cx, s, t, true);
	for (size_t i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
		size_t n = strlen(puncts[i].s);

		if (!strncmp(p, puncts[i].s, n)) {
			t->kind = T_PUNCT;
			t->op = puncts[i].op;
			t->ival = (uint64_t)puncts[i].base;
			*s = p + n;
			return 0;
		}
	}
	if (strchr("+-*/%<>=!~&|^?:,.()[]@{}", *p)) {
		t->kind = T_PUNCT;
		t->op = (unsigned char)*p;
		*s = p + 1;
		return 0;
	}
	return cx_fail(cx, -EINVAL, "Invalid character '%c' in expression.", *p);
}

int cx_lex(struct cexpr *cx, const char *text, struct cx_token **out, size_t *count)
{
	size_t n = 0, cap = strlen(text) + 2;
	struct cx_token *toks = cx_tree_alloc(cx, cap * sizeof(*toks));
	const char *s = text;
	int rc;

	if (!toks)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		toks[n].start = s;
		if (!*s)
			break;
		rc = lex_one(cx, &s, &toks[n]);
		if (rc == -ENOMEM)
			return rc;
		if (rc < 0) {
			toks[n].kind = T_ERROR;
			toks[n].str = cx_tree_alloc(cx, strlen(cx->err) + 1);
			if (!toks[n].str)
				return cx_fail(cx, -ENOMEM, "Out of memory.");
			strcpy(toks[n].str, cx->err);
			toks[++n].start = s + strlen(s);
			break;
		}
		n++;
	}
	toks[n].kind = T_END;
	*out = toks;
	*count = n;
	return 0;
}
