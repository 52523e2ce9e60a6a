/*
 * replay/frontend_expr.c: registers, numbers, + -, casts and * over the
 * recording's past (see frontend_expr.h). A recursive-descent parser over
 * the string, one function per rule.
 */
#include "replay/frontend_expr.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_regs.h"
#include "replay/cursor.h"
#include "replay/frontend.h"
#include "replay/frontend_frame.h"

struct parser {
	struct replay_frontend *f;
	const char *s;
	char *err;
	size_t errsize;
	bool have_regs;
	bool no_pc;                /* ... all but the pc (replay_frontend_regs 1) */
	uint64_t gp[27];           /* the selected frame's (frontend_frame.h) */
	uint32_t known;            /* bit i: gp[i] is known there */
};

/* GDB's names for the pc, the stack and the frame pointer. */
static const struct { const char *name; enum rsp_reg reg; } aliases[] = {
	{ "pc", RSP_REG_RIP }, { "sp", RSP_REG_RSP }, { "fp", RSP_REG_RBP },
};

static const struct { const char *name; unsigned size; bool is_signed; } types[] = {
	{ "unsigned long long", 8, false }, { "long long", 8, true },
	{ "unsigned long", 8, false }, { "long", 8, true },
	{ "unsigned int", 4, false }, { "unsigned short", 2, false },
	{ "unsigned char", 1, false }, { "signed char", 1, true }, { "unsigned", 4, false },
	{ "int", 4, true }, { "short", 2, true }, { "char", 1, true },
	{ "int8_t", 1, true }, { "uint8_t", 1, false }, { "int16_t", 2, true },
	{ "uint16_t", 2, false }, { "int32_t", 4, true }, { "uint32_t", 4, false },
	{ "int64_t", 8, true }, { "uint64_t", 8, false }, { "size_t", 8, false },
	{ "void", 1, false },
};

static int fail(struct parser *p, int code, const char *fmt, const char *arg)
{
	snprintf(p->err, p->errsize, fmt, arg);
	return code;
}

static void skip(struct parser *p)
{
	while (isspace((unsigned char)*p->s))
		p->s++;
}

static bool word_at(const char *s, const char *w)
{
	size_t n = strlen(w);

	return !strncmp(s, w, n) && !isalnum((unsigned char)s[n]) && s[n] != '_';
}

static int expr(struct parser *p, struct replay_expr_value *v);

static void set_int(struct replay_expr_value *v, uint64_t x, unsigned size, bool is_signed,
		    const char *type)
{
	memset(v, 0, sizeof(*v));
	v->kind = REPLAY_EXPR_INT;
	v->v = x;
	v->size = size;
	v->is_signed = is_signed;
	snprintf(v->type, sizeof(v->type), "%s", type);
}

/* The register $@name reads (GDB's number): the 64-bit general ones, rip,
 * eflags, fs_base and gs_base, or an alias; -1 for any other. */
static int expr_reg(const char *name)
{
	int r = rsp_reg_find(name, strlen(name));

	for (size_t i = 0; r < 0 && i < sizeof(aliases) / sizeof(aliases[0]); i++)
		if (!strcmp(aliases[i].name, name))
			r = aliases[i].reg;
	if (r < 0 || (r > RSP_REG_EFLAGS && r != RSP_REG_FS_BASE && r != RSP_REG_GS_BASE))
		return -1;
	return r;
}

static int reg(struct parser *p, struct replay_expr_value *v)
{
	char name[16];
	size_t n = 0;
	int r;

	p->s++;
	while ((isalnum((unsigned char)*p->s) || *p->s == '_') && n + 1 < sizeof(name))
		name[n++] = *p->s++;
	name[n] = 0;
	if (!p->have_regs) {
		struct replay_frontend_frame_regs fr;
		int rc = replay_frontend_frame_regs(p->f, &fr);
		uint64_t pc;

		/* No state log (an import): the trace still says where it is,
		 * as `info registers` shows. */
		if (rc < 0 && (!strcmp(name, "pc") || !strcmp(name, "rip")) &&
		    replay_cursor_pc(replay_frontend_cursor(p->f), &pc) == 0) {
			set_int(v, pc, 8, true, "long");
			v->kind = REPLAY_EXPR_CODE;
			return 0;
		}
		if (rc == -ERANGE)
			return fail(p, -ENODATA, "$%s: not known here: the state log was cut "
				    "short before this position", name);
		if (rc < 0)
			return fail(p, -ENODATA, "$%s: the recording has no registers here "
				    "(no state log)", name);
		p->have_regs = true;
		p->no_pc = rc == 1;
		memcpy(p->gp, fr.gp, sizeof(p->gp));
		p->known = fr.known;
	}
	if (p->no_pc && (!strcmp(name, "pc") || !strcmp(name, "rip")))
		return fail(p, -ENODATA, "$%s: not known here: the trace does not say where the "
			    "thread went from its last instruction", name);
	r = expr_reg(name);
	if (r >= 0 && !(p->known & (1u << rsp_reg_descs[r].user)))
		return fail(p, -ENODATA, "%s", "<not saved>");
	if (r >= 0) {
		uint64_t x = p->gp[rsp_reg_descs[r].user];

		set_int(v, x, 8, true, "long");
		if (r == RSP_REG_RIP)
			v->kind = REPLAY_EXPR_CODE;
		else if (r == RSP_REG_RSP || r == RSP_REG_RBP)
			v->kind = REPLAY_EXPR_VOIDP;
		else if (r == RSP_REG_EFLAGS)
			set_int(v, x, 4, true, "int");
		return 0;
	}
	/* eax .. edi, r8d .. r15d: the low halves, as GDB's int. */
	if (n == 3 && name[0] == 'e') {
		char full[16];

		snprintf(full, sizeof(full), "r%s", name + 1);
		r = rsp_reg_find(full, strlen(full));
		if (r >= RSP_REG_RAX && r <= RSP_REG_R15) {
			set_int(v, p->gp[rsp_reg_descs[r].user] & 0xffffffffu, 4, true, "int");
			return 0;
		}
	}
	return fail(p, -EINVAL, "Invalid register `%s'", name);
}

static int number(struct parser *p, struct replay_expr_value *v)
{
	char *end;
	uint64_t x;

	errno = 0;
	x = strtoull(p->s, &end, 0);
	if (errno || end == p->s)
		return fail(p, -EINVAL, "Invalid number \"%s\".", p->s);
	p->s = end;
	while (*p->s == 'u' || *p->s == 'U' || *p->s == 'l' || *p->s == 'L')
		p->s++;
	if (x > 0x7fffffff)
		set_int(v, x, 8, true, "long");
	else
		set_int(v, x, 4, true, "int");
	return 0;
}

/* A type name and its stars at p->s: 1 (consumed, in @t), 0 if none. */
static int type_name(struct parser *p, struct replay_expr_value *t)
{
	const char *s = p->s;

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		if (!word_at(s, types[i].name))
			continue;
		set_int(t, 0, types[i].size, types[i].is_signed, types[i].name);
		s += strlen(types[i].name);
		while (isspace((unsigned char)*s) || *s == '*') {
			if (*s == '*')
				t->ptr++;
			s++;
		}
		if (!strcmp(types[i].name, "void") && !t->ptr)
			return 0;
		t->kind = t->ptr ? REPLAY_EXPR_POINTER : REPLAY_EXPR_INT;
		if (!strcmp(types[i].name, "void") && t->ptr == 1)
			t->kind = REPLAY_EXPR_VOIDP;
		p->s = s;
		return 1;
	}
	return 0;
}

static int unary(struct parser *p, struct replay_expr_value *v);

static int deref(struct parser *p, struct replay_expr_value *v)
{
	uint8_t buf[8] = { 0 };
	unsigned size;
	char addr[32];
	int n;

	if (v->kind != REPLAY_EXPR_POINTER)
		return fail(p, -EINVAL, "%sAttempt to take contents of a non-pointer value.", "");
	size = v->ptr > 1 ? 8 : v->size;
	n = replay_frontend_read(p->f, v->v, buf, size);
	if (n < (int)size) {
		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)v->v);
		return fail(p, -EIO, "Cannot access memory at address %s", addr);
	}
	v->v = 0;
	memcpy(&v->v, buf, size);
	if (v->is_signed && size < 8 && (v->v >> (size * 8 - 1)) & 1)
		v->v |= ~0ull << (size * 8);
	v->ptr--;
	if (!v->ptr)
		v->kind = REPLAY_EXPR_INT;
	return 0;
}

static int cast_or_paren(struct parser *p, struct replay_expr_value *v)
{
	struct replay_expr_value t;
	int rc;

	p->s++;
	skip(p);
	if (type_name(p, &t)) {
		skip(p);
		if (*p->s != ')')
			return fail(p, -EINVAL, "A syntax error in expression, near `%s'.", p->s);
		p->s++;
		rc = unary(p, v);
		if (rc < 0)
			return rc;
		t.v = v->v;
		if (t.kind == REPLAY_EXPR_INT && t.size < 8) {
			t.v &= (1ull << (t.size * 8)) - 1;
			if (t.is_signed && (t.v >> (t.size * 8 - 1)) & 1)
				t.v |= ~0ull << (t.size * 8);
		}
		*v = t;
		return 0;
	}
	rc = expr(p, v);
	skip(p);
	if (rc == 0 && *p->s != ')')
		return fail(p, -EINVAL, "A syntax error in expression, near `%s'.", p->s);
	p->s++;
	return rc;
}

static int unary(struct parser *p, struct replay_expr_value *v)
{
	int rc;

	skip(p);
	if (*p->s == '*') {
		p->s++;
		rc = unary(p, v);
		return rc < 0 ? rc : deref(p, v);
	}
	if (*p->s == '-') {
		p->s++;
		rc = unary(p, v);
		v->v = -v->v;
		return rc;
	}
	if (*p->s == '(')
		return cast_or_paren(p, v);
	if (*p->s == '$')
		return reg(p, v);
	if (isdigit((unsigned char)*p->s))
		return number(p, v);
	if (!*p->s)
		return fail(p, -EINVAL, "%sA syntax error in expression, near `'.", "");
	return fail(p, -EINVAL, "No symbol \"%s\" in current context (hindsight replay reads "
		    "registers, addresses and casts, not C variables).", p->s);
}

static int expr(struct parser *p, struct replay_expr_value *v)
{
	int rc = unary(p, v);

	for (skip(p); rc == 0 && (*p->s == '+' || *p->s == '-'); skip(p)) {
		struct replay_expr_value r;
		char op = *p->s++;
		uint64_t scale = v->kind == REPLAY_EXPR_POINTER ? (v->ptr > 1 ? 8 : v->size) : 1;

		rc = unary(p, &r);
		if (rc == 0)
			v->v = op == '+' ? v->v + r.v * scale : v->v - r.v * scale;
		if (rc == 0 && v->kind == REPLAY_EXPR_INT && r.size > v->size)
			set_int(v, v->v, r.size, r.is_signed, r.type);
	}
	return rc;
}

int replay_frontend_eval(struct replay_frontend *f, const char *text,
			 struct replay_expr_value *out, char *err, size_t errsize)
{
	struct parser p = { f, text, err, errsize, false, false, { 0 }, 0 };
	int rc = expr(&p, out);

	skip(&p);
	if (rc == 0 && *p.s)
		return fail(&p, -EINVAL, "A syntax error in expression, near `%s'.", p.s);
	return rc;
}
