/*
 * replay/frontend/cexpr.c: the public face of replay/frontend/cexpr (see cexpr.h):
 * evaluating a string, the memory an lvalue names, type names, and the
 * print / output / ptype / whatis commands as GDB 13 answers them
 * (print's /FMT letters and its messages, the value history).
 */
#include "replay/frontend/cexpr_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A fresh evaluation: the last one's values and tree go. */
static void start(struct cexpr *cx)
{
	cx_pool_release(cx);
	cx_tree_release(cx);
	cx->err[0] = 0;
	cx->warning[0] = 0;
	cx->depth = 0;
	cx->types_only = false;
}

/* Evaluates @text into a pool-owned value, not read yet. */
static int eval_lazy(struct cexpr *cx, const char *text, struct cexpr_value **out)
{
	struct cx_node *n;

	start(cx);
	n = cx_parse(cx, text);
	if (!n)
		return strcmp(cx->err, "Out of memory.") ? -EINVAL : -ENOMEM;
	return cx_eval(cx, n, out);
}

/* Evaluates @text for its type only (whatis, ptype). */
static int eval_lazy_types(struct cexpr *cx, const char *text, struct cexpr_value **out)
{
	struct cx_node *n;

	start(cx);
	cx->types_only = true;
	n = cx_parse(cx, text);
	if (!n)
		return strcmp(cx->err, "Out of memory.") ? -EINVAL : -ENOMEM;
	return cx_eval(cx, n, out);
}

/* Evaluates and reads @text: a pool-owned value. */
static int eval_read(struct cexpr *cx, const char *text, struct cexpr_value **out)
{
	const struct dw_type *t;
	int rc = eval_lazy(cx, text, out);

	if (rc < 0)
		return rc;
	t = dw_type_strip((*out)->type);
	if (t->kind == DW_TYPE_FUNCTION || t->kind == DW_TYPE_VOID)
		return 0;
	return cx_fetch(cx, *out);
}

int cexpr_eval(struct cexpr *cx, const char *text, struct cexpr_value **out)
{
	struct cexpr_value *v;
	int rc = eval_read(cx, text, &v);

	if (rc < 0)
		return rc;
	*out = cexpr_value_copy(v);
	return *out ? 0 : cx_fail(cx, -ENOMEM, "Out of memory.");
}

int cexpr_lvalue(struct cexpr *cx, const char *text, uint64_t *addr, uint64_t *len)
{
	struct cexpr_value *v;
	int rc = eval_lazy(cx, text, &v);

	if (rc < 0)
		return rc;
	if (v->lval != CEXPR_LVAL_MEMORY)
		return cx_fail(cx, -EINVAL, "Not an lvalue in memory.");
	*addr = v->addr;
	*len = v->bit_size ? (v->bit_pos + v->bit_size + 7) / 8 : v->size;
	return 0;
}

int cexpr_value_address(const struct cexpr_value *v, uint64_t *addr)
{
	const struct dw_type *t = dw_type_strip(v->type);

	if ((t->kind == DW_TYPE_ARRAY || t->kind == DW_TYPE_FUNCTION) &&
	    v->lval == CEXPR_LVAL_MEMORY) {
		*addr = v->addr;
		return 0;
	}
	if ((t->kind != DW_TYPE_POINTER && !cx_is_integral(t)) || !v->bytes ||
	    cx_missing(v, 0, v->size))
		return -EINVAL;
	*addr = cx_as_int(v);
	return 0;
}

int cexpr_parse_type(struct cexpr *cx, const char *text, const struct dw_type **out)
{
	start(cx);
	return cx_parse_type_text(cx, text, out);
}

int cexpr_parse_type_within(struct cexpr *cx, const char *text, const struct dw_type **out)
{
	return cx_parse_type_text(cx, text, out);
}

/* print's "/FMT": the letter in *fmt (GDB's last one when none is
 * given: `print/r x` after `print/x y` is hex), @args moved past it.
 * A letter that is no format is only found out when printing. */
static int parse_format(struct cexpr *cx, const char **args, char *fmt, const char *cmd)
{
	const char *s = *args;
	char letter = 0;
	bool size = false;
	long count = 1;

	*fmt = 0;
	while (isspace((unsigned char)*s))
		s++;
	if (*s != '/') {
		*args = s;
		return 0;
	}
	for (s++; *s && !isspace((unsigned char)*s); s++) {
		if (isdigit((unsigned char)*s))
			count = strtol(s, (char **)&s, 10), s--;
		else if (strchr("bhwg", *s))
			size = true;
		else if (*s != 'r')
			letter = *s;
	}
	if (count != 1)
		return cx_fail(cx, -EINVAL, "Item count other than 1 is meaningless in \"%s\" "
			       "command.", cmd);
	if (size)
		return cx_fail(cx, -EINVAL, "Size letters are meaningless in \"%s\" command.",
			       cmd);
	if (letter == 'i')
		return cx_fail(cx, -EINVAL, "Format letter \"i\" is meaningless in \"%s\" "
			       "command.", cmd);
	if (!letter)
		letter = cx->last_format;
	cx->last_format = letter;
	*fmt = letter;
	while (isspace((unsigned char)*s))
		s++;
	*args = s;
	return 0;
}

static bool known_format(char fmt)
{
	return !fmt || strchr("xoduftcazs", fmt);
}

int cexpr_cmd_print(struct cexpr *cx, const char *args, char **out)
{
	struct cexpr_value *v;
	struct cx_buf b = { 0 };
	char fmt;
	int rc, n;

	start(cx);
	rc = parse_format(cx, &args, &fmt, "print");
	if (rc < 0)
		return rc;
	rc = *args ? eval_read(cx, args, &v) : cx_eval_dollar(cx, "$", &v);
	if (rc < 0)
		return rc;
	n = cexpr_history_add(cx, v);
	if (n < 0)
		return cx_fail(cx, n, "Out of memory.");
	if (cx->warning[0])
		cx_printf(&b, "warning: %s\n", cx->warning);
	cx_printf(&b, "$%d = ", n);
	if (known_format(fmt))
		cx_print_value(cx, &b, v, fmt, true);
	else  /* GDB has printed "$N = " when it finds out */
		cx_printf(&b, "Undefined output format \"%c\".", fmt);
	*out = cx_buf_take(&b);
	return *out ? 0 : cx_fail(cx, -ENOMEM, "Out of memory.");
}

int cexpr_cmd_output(struct cexpr *cx, const char *args, char **out)
{
	struct cexpr_value *v;
	char fmt;
	int rc;

	start(cx);
	rc = parse_format(cx, &args, &fmt, "output");
	if (rc < 0)
		return rc;
	if (!*args)
		return cx_fail(cx, -EINVAL, "Argument required (expression to compute).");
	rc = eval_read(cx, args, &v);
	if (rc < 0)
		return rc;
	if (!known_format(fmt))
		return cx_fail(cx, -EINVAL, "Undefined output format \"%c\".", fmt);
	if (cx->warning[0]) {
		struct cx_buf b = { 0 };
		char *s = cexpr_format_value(cx, v, fmt);

		cx_printf(&b, "warning: %s\n", cx->warning);
		cx_puts(&b, s ? s : "");
		free(s);
		*out = cx_buf_take(&b);
	} else {
		*out = cexpr_format_value(cx, v, fmt);
	}
	return *out ? 0 : cx_fail(cx, -ENOMEM, "Out of memory.");
}

/* The type ptype or whatis shows for @args (a type name or an expression);
 * *named: it was a type name. */
static int type_of(struct cexpr *cx, const char *args, const struct dw_type **t, bool *named)
{
	struct cexpr_value *v;
	int rc;

	while (isspace((unsigned char)*args))
		args++;
	if (*args == '/')
		return cx_fail(cx, -EINVAL, "ptype and whatis flags are not supported here.");
	rc = cexpr_parse_type(cx, args, t);
	*named = rc == 0;
	if (rc != -ENOENT)
		return rc;
	/* GDB evaluates without side effects here: nothing is read, so
	 * `whatis p->next` answers even when p points nowhere. */
	if (!*args)
		rc = cx_eval_dollar(cx, "$", &v);
	else if ((rc = eval_lazy_types(cx, args, &v)) == 0)
		cx->types_only = false;
	if (rc == 0)
		*t = v->type;
	return rc;
}

static int type_cmd(struct cexpr *cx, const char *args, char **out, bool full)
{
	struct cx_buf b = { 0 };
	const struct dw_type *t;
	bool named = false;
	int rc = type_of(cx, args, &t, &named);

	if (rc < 0)
		return rc;
	if (cx->warning[0])
		cx_printf(&b, "warning: %s\n", cx->warning);
	cx_puts(&b, "type = ");
	if (full) {
		char *s = cexpr_format_type_full(t);

		cx_puts(&b, s ? s : "");
		free(s);
	} else {
		cx_print_type_name(&b, named && t->kind == DW_TYPE_TYPEDEF ? t->target : t, "");
	}
	*out = cx_buf_take(&b);
	return *out ? 0 : cx_fail(cx, -ENOMEM, "Out of memory.");
}

int cexpr_cmd_ptype(struct cexpr *cx, const char *args, char **out)
{
	return type_cmd(cx, args, out, true);
}

int cexpr_cmd_whatis(struct cexpr *cx, const char *args, char **out)
{
	return type_cmd(cx, args, out, false);
}

int cexpr_set_convenience(struct cexpr *cx, const char *name, struct cexpr_value *v)
{
	if (!cx_is_convenience(name))
		return cx_fail(cx, -EINVAL, "%s is not a convenience variable.", name);
	return cx_convenience_set(cx, name, v);
}
