/*
 * replay/frontend/cexpr_dollar.c: $names: the value history ($, $N, $$, $$N), the
 * registers with GDB's names and types ($rax int64_t, $eax int32_t, $al
 * int8_t, $pc void (*)(), $sp and $fp void *, $eflags i386_eflags), and
 * unset convenience variables (void).
 */
#include "replay/frontend/cexpr_int.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reg_alias {
	const char *name, *full;   /* "eax" is the low 4 bytes of "rax" */
	unsigned shift, size;
	const char *type;
};

static const struct reg_alias regs[] = {
	{ "pc", "rip", 0, 8, "void (*)()" }, { "rip", "rip", 0, 8, "void (*)()" },
	{ "sp", "rsp", 0, 8, "void *" }, { "rsp", "rsp", 0, 8, "void *" },
	{ "fp", "rbp", 0, 8, "void *" }, { "rbp", "rbp", 0, 8, "void *" },
	{ "eflags", "eflags", 0, 4, "i386_eflags" },
	{ "fs_base", "fs_base", 0, 8, "long" }, { "gs_base", "gs_base", 0, 8, "long" },
	{ "orig_rax", "orig_rax", 0, 8, "long" },
	{ "cs", "cs", 0, 4, "int32_t" }, { "ss", "ss", 0, 4, "int32_t" },
	{ "ds", "ds", 0, 4, "int32_t" }, { "es", "es", 0, 4, "int32_t" },
	{ "fs", "fs", 0, 4, "int32_t" }, { "gs", "gs", 0, 4, "int32_t" },
	{ "ah", "rax", 8, 1, "int8_t" }, { "bh", "rbx", 8, 1, "int8_t" },
	{ "ch", "rcx", 8, 1, "int8_t" }, { "dh", "rdx", 8, 1, "int8_t" },
};

/* The general registers, their 32/16/8-bit names. */
static const char *const gp[][4] = {
	{ "rax", "eax", "ax", "al" }, { "rbx", "ebx", "bx", "bl" }, { "rcx", "ecx", "cx", "cl" },
	{ "rdx", "edx", "dx", "dl" }, { "rsi", "esi", "si", "sil" }, { "rdi", "edi", "di", "dil" },
	{ "rbp", "ebp", "bp", "bpl" }, { "rsp", "esp", "sp", "spl" },
};

/* @name as a register: 0 with *r filled, -ENOENT if it is none. */
static int find_reg(const char *name, struct reg_alias *r, char full[8])
{
	static const char *const types[] = { "int64_t", "int32_t", "int16_t", "int8_t" };
	static const unsigned sizes[] = { 8, 4, 2, 1 };
	static const char *const rsuffix[] = { "", "d", "w", "l" };

	for (size_t i = 0; i < sizeof(regs) / sizeof(regs[0]); i++)
		if (!strcmp(regs[i].name, name)) {
			*r = regs[i];
			return 0;
		}
	for (size_t i = 0; i < sizeof(gp) / sizeof(gp[0]); i++)
		for (int k = 0; k < 4; k++)
			if (!strcmp(gp[i][k], name)) {
				*r = (struct reg_alias){ name, gp[i][0], 0, sizes[k], types[k] };
				return 0;
			}
	for (unsigned n = 8; n <= 15; n++)
		for (int k = 0; k < 4; k++) {
			char cand[16];

			snprintf(cand, sizeof(cand), "r%u%s", n % 100, rsuffix[k]);
			if (!strcmp(cand, name)) {
				snprintf(full, 8, "r%u", n % 100);
				*r = (struct reg_alias){ name, full, 0, sizes[k], types[k] };
				return 0;
			}
		}
	return -ENOENT;
}

static int eval_reg(struct cexpr *cx, const char *name, struct cexpr_value **out)
{
	struct reg_alias r;
	char full[8], err[256] = "";
	uint64_t x;
	int rc;

	if (find_reg(name, &r, full) < 0 || !cx->env.reg)
		return -ENOENT;
	rc = cx->env.reg(cx->env.ctx, r.full, &x, err, sizeof(err));
	if (rc == -ENOENT)
		return -ENOENT;
	if (rc < 0)
		return cx_fail(cx, rc, "%s", err[0] ? err : "No registers.");
	x >>= r.shift;
	*out = cexpr_value_bytes(cx, cexpr_builtin_type(r.type), &x, NULL, name);
	return *out ? 0 : cx_fail(cx, -ENOMEM, "Out of memory.");
}

/* History entry @num as GDB's access_value_history takes it: > 0 is $N,
 * 0 the last ($), < 0 that many before it ($$N). Copied into the pool. */
static int history(struct cexpr *cx, long num, struct cexpr_value **out)
{
	long abs = num <= 0 ? num + cx->nhist : num;
	struct cexpr_value *v;

	if (abs <= 0 && num == 0)
		return cx_fail(cx, -EINVAL, "The history is empty.");
	if (abs <= 0)
		return cx_fail(cx, -EINVAL, "History does not go back to $$%ld.", -num);
	if (abs > cx->nhist)
		return cx_fail(cx, -EINVAL, "History has not yet reached $%ld.", abs);
	v = cexpr_value_copy(cx->hist[abs - 1]);
	if (!v)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	v->next_in_pool = cx->pool;
	cx->pool = v;
	*out = v;
	return 0;
}

int cx_eval_dollar(struct cexpr *cx, const char *name, struct cexpr_value **out)
{
	const char *s = name + 1;
	int rc;

	if (!*s)
		return history(cx, 0, out);
	if (*s == '$' && (!s[1] || isdigit((unsigned char)s[1]))) {
		long back = s[1] ? strtol(s + 1, NULL, 10) : 1;

		return history(cx, back > 1000000000 ? -1000000000 : -back, out);
	}
	if (isdigit((unsigned char)*s)) {
		char *end;
		long n = strtol(s, &end, 10);

		if (*end)
			return cx_fail(cx, -EINVAL, "A syntax error in expression, near `%s'.",
				       end);
		return history(cx, n > 1000000000 ? 1000000000 : n, out);
	}
	if (*s == '$') {
		*out = cx_value_new(cx, &cx_void_type);
		return *out ? 0 : -ENOMEM;
	}
	rc = eval_reg(cx, s, out);
	if (rc != -ENOENT)
		return rc;
	for (size_t i = 0; i < cx->nconv; i++)
		if (!strcmp(cx->conv[i].name, name)) {
			struct cexpr_value *v = cexpr_value_copy(cx->conv[i].v);

			if (!v)
				return cx_fail(cx, -ENOMEM, "Out of memory.");
			v->next_in_pool = cx->pool;
			cx->pool = v;
			*out = v;
			return 0;
		}
	*out = cx_value_new(cx, &cx_void_type);
	return *out ? 0 : -ENOMEM;
}

bool cx_is_history(const char *name)
{
	const char *s = name + 1 + (name[1] == '$');

	if (name[0] != '$')
		return false;
	while (isdigit((unsigned char)*s))
		s++;
	return !*s;
}

bool cx_is_convenience(const char *name)
{
	struct reg_alias r;
	char full[8];

	if (name[0] != '$' || cx_is_history(name))
		return false;
	return find_reg(name + 1, &r, full) < 0;
}

int cx_convenience_set(struct cexpr *cx, const char *name, struct cexpr_value *v)
{
	struct cexpr_value *c;
	size_t i;
	int rc = cx_fetch(cx, v);

	if (rc < 0)
		return rc;
	c = cexpr_value_copy(v);
	if (!c)
		return cx_fail(cx, -ENOMEM, "Out of memory.");
	c->lval = CEXPR_NOT_LVAL;
	for (i = 0; i < cx->nconv && strcmp(cx->conv[i].name, name); i++)
		;
	if (i == cx->nconv) {
		struct cx_conv *n = realloc(cx->conv, (cx->nconv + 1) * sizeof(*n));

		if (!n || strlen(name) >= sizeof(n->name)) {
			if (n)
				cx->conv = n;
			cexpr_value_free(c);
			return cx_fail(cx, -ENOMEM, "Out of memory.");
		}
		cx->conv = n;
		snprintf(n[i].name, sizeof(n[i].name), "%s", name);
		n[i].v = NULL;
		cx->nconv++;
	}
	cexpr_value_free(cx->conv[i].v);
	cx->conv[i].v = c;
	return 0;
}
