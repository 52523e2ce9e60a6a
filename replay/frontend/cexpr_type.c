/*
 * replay/frontend/cexpr_type.c: types as GDB 13's C type printer spells them, for
 * whatis (names: "node_t *", "int (*)[3]", "const char * const",
 * "union {...}") and ptype (the struct, union or enum at the root spelled
 * out, typedefs at the root resolved, anonymous members expanded,
 * bit-fields as "unsigned int flag : 1;"). GDB's `show' levels: > 0
 * expands named types, 0 expands only anonymous ones, < 0 expands none.
 */
#include "replay/frontend/cexpr_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

static void print_decl(struct cx_buf *b, const struct dw_type *t, const char *inner, int show,
		       int indent);

static void print_params(struct cx_buf *b, const struct dw_type *f)
{
	cx_puts(b, "(");
	for (size_t i = 0; i < f->nparams; i++) {
		if (i)
			cx_puts(b, ", ");
		print_decl(b, f->params[i], "", -1, 0);
	}
	if (f->varargs)
		cx_puts(b, f->nparams ? ", ..." : "...");
	else if (!f->nparams && f->prototyped)
		cx_puts(b, "void");
	cx_puts(b, ")");
}

static const char *tag(const struct dw_type *t)
{
	return t->kind == DW_TYPE_STRUCT ? "struct" : t->kind == DW_TYPE_UNION ? "union" : "enum";
}

static void print_enum_body(struct cx_buf *b, const struct dw_type *t)
{
	int64_t next = 0;

	cx_puts(b, "{");
	for (size_t i = 0; i < t->nenumerators; i++) {
		if (i)
			cx_puts(b, ", ");
		cx_puts(b, t->enumerators[i].name);
		if (t->enumerators[i].value != next)
			cx_printf(b, " = %" PRId64, t->enumerators[i].value);
		next = t->enumerators[i].value + 1;
	}
	cx_puts(b, "}");
}

static void print_members(struct cx_buf *b, const struct dw_type *t, int show, int indent)
{
	cx_puts(b, "{\n");
	if (!t->nmembers)
		cx_printf(b, "%*s%s\n", indent + 4, "",
			  t->declaration ? "<incomplete type>" : "<no data fields>");
	for (size_t i = 0; i < t->nmembers; i++) {
		const struct dw_member *m = &t->members[i];

		cx_printf(b, "%*s", indent + 4, "");
		print_decl(b, m->type, m->name ? m->name : "", show - 1, indent + 4);
		if (m->bit_size)
			cx_printf(b, " : %u", m->bit_size);
		cx_puts(b, ";\n");
	}
	cx_printf(b, "%*s}", indent, "");
}

/* GDB's spelling of DWARF's C base type names. */
static const char *base_name(const char *name)
{
	static const char *const map[][2] = {
		{ "long int", "long" }, { "long unsigned int", "unsigned long" },
		{ "short int", "short" }, { "short unsigned int", "unsigned short" },
		{ "long long int", "long long" },
		{ "long long unsigned int", "unsigned long long" },
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i][0], name))
			return map[i][1];
	return name;
}

/* The base of a declaration: a name, or a struct / union / enum body. */
static void print_base(struct cx_buf *b, const struct dw_type *t, int show, int indent)
{
	if (!t) {
		cx_puts(b, "void");
		return;
	}
	switch (t->kind) {
	case DW_TYPE_TYPEDEF:
		cx_puts(b, t->name ? t->name : "?");
		return;
	case DW_TYPE_STRUCT: case DW_TYPE_UNION: case DW_TYPE_ENUM:
		if (t == &cx_eflags_type || (t->name && show <= 0)) {
			if (t != &cx_eflags_type)
				cx_printf(b, "%s ", tag(t));
			cx_puts(b, t->name);
			return;
		}
		cx_printf(b, "%s %s%s", tag(t), t->name ? t->name : "", t->name ? " " : "");
		if (show < 0)
			cx_puts(b, "{...}");
		else if (t->kind == DW_TYPE_ENUM)
			print_enum_body(b, t);
		else
			print_members(b, t, show, indent);
		return;
	case DW_TYPE_VOID:
		cx_puts(b, "void");
		return;
	default:
		cx_puts(b, t->name ? base_name(t->name) : "?");
	}
}

static void print_decl(struct cx_buf *b, const struct dw_type *t, const char *inner, int show,
		       int indent)
{
	struct cx_buf in = { 0 };

	if (t && t->kind == DW_TYPE_TYPEDEF && show > 0) {
		print_decl(b, t->target, inner, show, indent);
		return;
	}
	if (t && t->kind == DW_TYPE_POINTER) {
		const struct dw_type *tt = t->target;
		bool paren = tt && (tt->kind == DW_TYPE_ARRAY || tt->kind == DW_TYPE_FUNCTION);

		cx_printf(&in, "%s*%s%s", paren ? "(" : "", inner, paren ? ")" : "");
		print_decl(b, tt, in.s ? in.s : "", show, indent);
	} else if (t && (t->kind == DW_TYPE_CONST || t->kind == DW_TYPE_VOLATILE ||
			 t->kind == DW_TYPE_RESTRICT)) {
		const char *q = t->kind == DW_TYPE_CONST ? "const" :
				t->kind == DW_TYPE_VOLATILE ? "volatile" : "restrict";

		if (t->target && t->target->kind == DW_TYPE_POINTER) {
			cx_printf(&in, " %s%s%s", q, *inner ? " " : "", inner);
			print_decl(b, t->target, in.s ? in.s : "", show, indent);
		} else {
			cx_printf(b, "%s ", q);
			print_decl(b, t->target, inner, show, indent);
		}
	} else if (t && t->kind == DW_TYPE_ARRAY) {
		if (t->count_known)
			cx_printf(&in, "%s[%" PRIu64 "]", inner, t->count);
		else
			cx_printf(&in, "%s[]", inner);
		print_decl(b, t->target, in.s ? in.s : "", show, indent);
	} else if (t && t->kind == DW_TYPE_FUNCTION) {
		cx_puts(&in, inner);
		print_params(&in, t);
		print_decl(b, t->target, in.s ? in.s : "", show, indent);
	} else {
		print_base(b, t, show, indent);
		if (*inner)
			cx_printf(b, " %s", inner);
	}
	free(in.s);
}

void cx_print_type_name(struct cx_buf *b, const struct dw_type *t, const char *inner)
{
	print_decl(b, t, inner, -1, 0);
}

char *cexpr_format_type_name(const struct dw_type *t)
{
	struct cx_buf b = { 0 };

	print_decl(&b, t, "", -1, 0);
	return cx_buf_take(&b);
}

char *cexpr_format_type_full(const struct dw_type *t)
{
	struct cx_buf b = { 0 };

	print_decl(&b, t, "", 1, 0);
	return cx_buf_take(&b);
}
