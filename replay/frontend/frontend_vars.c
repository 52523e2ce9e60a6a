/*
 * replay/frontend/frontend_vars.c: names, types, memory and registers of the
 * selected frame for the session's C evaluator (see frontend_vars.h).
 */
#include "replay/frontend/frontend_vars.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_loc.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_vars.h"
#include "protocol/rsp_regs.h"
#include "replay/frontend/cexpr.h"
#include "replay/decode/cursor.h"
#include "replay/decode/dwarf_symbols.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_images.h"
#include "replay/decode/unwind.h"

/* What the evaluator sees of the selected frame, unwound again at each
 * lookup (a move or `frame N` changes it). */
struct fv_frame {
	bool ok;                   /* a frame was had */
	size_t level;              /* its GDB level */
	uint64_t pc;               /* where its variables are looked up */
	size_t inline_level;
	uint64_t regs[DW_LOC_NREGS];
	bool known[DW_LOC_NREGS];
	uint64_t cfa;
	bool has_cfa;
};

struct fv_state {
	struct cexpr *cx;
	struct cexpr_env env;
	struct dw_scope *scope;    /* of scope_pc, kept between evaluations */
	bool has_scope_pc;
	uint64_t scope_pc;
	int scope_err;             /* dw_space_scope's answer for scope_pc */
};

static struct dw_space *fv_space(struct replay_frontend *f)
{
	return replay_frontend_space(f);
}

/* The selected frame's pc, inline level, DWARF registers and CFA. */
static void fv_frame_get(struct replay_frontend *f, struct fv_frame *out)
{
	struct replay_frontend_frame fr;
	struct replay_frontend_frame_regs regs;

	memset(out, 0, sizeof(*out));
	if (replay_frontend_frame_get(f, replay_frontend_frame_selected(f), &fr) < 0)
		return;
	out->ok = true;
	out->level = fr.level;
	out->pc = fr.frame.lookup_pc;
	out->inline_level = fr.inline_level;
	if (replay_frontend_frame_regs(f, &regs) < 0)
		return; /* no state log: locals are unavailable, globals are not */
	for (unsigned dw = 0; dw < DW_LOC_NREGS; dw++) {
		int slot = replay_unwind_user_slot(dw);

		out->known[dw] = slot >= 0 && (regs.known >> slot & 1);
		out->regs[dw] = out->known[dw] ? regs.gp[slot] : 0;
	}
	out->cfa = regs.cfa;
	out->has_cfa = regs.has_cfa;
}

/* The scope at @pc, cached. NULL with *@err when there is none. */
static struct dw_scope *fv_scope(struct replay_frontend *f, uint64_t pc, int *err)
{
	struct fv_state *st = f->vars;

	if (!st->has_scope_pc || st->scope_pc != pc) {
		dw_scope_free(st->scope);
		st->scope = NULL;
		st->has_scope_pc = true;
		st->scope_pc = pc;
		st->scope_err = dw_space_scope(fv_space(f), pc, &st->scope);
	}
	*err = st->scope_err;
	return st->scope;
}

static int fv_mem_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct replay_frontend *f = ctx;
	uint8_t *p = buf;

	while (len) {
		int got = replay_frontend_read(f, addr, p, len);

		if (got <= 0)
			return -EIO;
		addr += (uint64_t)got;
		p += got;
		len -= (size_t)got;
	}
	return 0;
}

/* One piece of a location into @buf / @state (@len bytes). */
static void fv_piece(struct replay_frontend *f, const struct fv_frame *fr,
		     const struct dw_loc_piece *pc, uint8_t *buf, uint8_t *state, size_t len)
{
	uint64_t v;

	switch (pc->kind) {
	case DW_LOC_MEMORY:
		if (fv_mem_read(f, pc->addr, buf, len) < 0)
			memset(state, CEXPR_BYTE_UNAVAILABLE, len);
		return;
	case DW_LOC_REGISTER:
		if (pc->reg >= DW_LOC_NREGS || !fr->known[pc->reg]) {
			memset(state, CEXPR_BYTE_UNAVAILABLE, len);
			return;
		}
		v = fr->regs[pc->reg];
		memcpy(buf, &v, len < 8 ? len : 8);
		return;
	case DW_LOC_VALUE:
		v = pc->value;
		memcpy(buf, &v, len < 8 ? len : 8);
		return;
	case DW_LOC_IMPLICIT:
		if (pc->len)
			memcpy(buf, pc->bytes, len < pc->len ? len : pc->len);
		return;
	case DW_LOC_OPTIMIZED_OUT:
		memset(state, CEXPR_BYTE_OPTIMIZED_OUT, len);
		return;
	default:
		memset(state, CEXPR_BYTE_UNAVAILABLE, len);
	}
}

/* DW_OP_entry_value(DW_OP_regN) in the frame of GDB level @level: the
 * value its caller's call site gives the register (DWARF's
 * DW_TAG_call_site_parameter, run in the caller's frame, through the
 * caller's own entry values in turn), as GDB resolves it; only for a real
 * function's frame (not an inlined one) called from a normal frame. */
struct fv_entry {
	struct replay_frontend *f;
	size_t level;
};

/* The value of DWARF expression @x (a call site's value or target) in the
 * caller's frame @env, through @upper for its own entry values. */
static int fv_site_value(const uint8_t *x, size_t xl, const struct dw_loc_env *env,
			 const struct dw_loc_entry *upper, uint64_t *out)
{
	struct dw_loc l;
	int rc = dw_loc_eval_entry(x, xl, env, upper, &l);

	if (rc < 0 || l.npieces != 1)
		return rc < 0 ? rc : -ENOTSUP;
	if (l.pieces[0].kind == DW_LOC_MEMORY)
		*out = l.pieces[0].addr; /* a plain expression's value: the top of the stack */
	else if (l.pieces[0].kind == DW_LOC_VALUE)
		*out = l.pieces[0].value;
	else if (l.pieces[0].kind == DW_LOC_REGISTER && l.pieces[0].reg < DW_LOC_NREGS &&
		 env->known[l.pieces[0].reg])
		*out = env->regs[l.pieces[0].reg];
	else
		return -ENOENT;
	return 0;
}

/* Whether the call site returning to @return_pc calls @callee's function
 * itself, as GDB requires of an entry value (dwarf_expr_reg_to_entry_parameter:
 * "DW_OP_entry_value resolving expects callee"): a call site whose callee
 * tail-called this function gave its values to that callee, not to this
 * one; a target not known (an indirect call whose DW_AT_call_target cannot
 * be computed) is no answer either. */
static bool fv_site_calls(struct replay_frontend *f, uint64_t return_pc,
			  const struct replay_frontend_frame *callee, const struct dw_loc_env *env,
			  const struct dw_loc_entry *upper)
{
	struct dw_call_target t;
	const struct dw_type *type;
	uint64_t to;

	if (dw_space_call_target(fv_space(f), return_pc, &t, NULL) < 0)
		return false;
	if (t.kind == DW_CALL_TARGET_ADDR)
		to = t.addr;
	else if (t.kind == DW_CALL_TARGET_NAME)
		return dw_space_function(fv_space(f), return_pc - 1, t.name, &type, &to) == 0 &&
		       to == callee->sym.start;
	else if (t.kind != DW_CALL_TARGET_EXPR || fv_site_value(t.expr, t.len, env, upper, &to) < 0)
		return false;
	return to == callee->sym.start;
}

static int fv_entry_value(void *ctx, const uint8_t *e, size_t len, uint64_t *out)
{
	struct fv_entry *ec = ctx, up = { ec->f, 0 };
	const struct dw_loc_entry upper = { fv_entry_value, &up };
	struct replay_frontend_frame callee, caller;
	uint64_t regs[DW_LOC_NREGS];
	bool known[DW_LOC_NREGS];
	struct dw_loc_env env = { regs, known, false, 0, NULL, 0, 0, fv_mem_read, ec->f };
	const uint8_t *x;
	struct dw_scope *cs;
	unsigned reg;
	size_t xl;
	int rc;

	if (len == 1 && e[0] >= 0x50 && e[0] <= 0x6f)
		reg = e[0] - 0x50u;          /* DW_OP_reg0 .. reg31 */
	else if (len == 2 && e[0] == 0x90 && e[1] < 0x80)
		reg = e[1];                  /* DW_OP_regx */
	else
		return -ENOTSUP;
	if (replay_frontend_frame_get(ec->f, ec->level, &callee) < 0 ||
	    callee.frame.kind != REPLAY_FRAME_NORMAL ||
	    callee.inline_level + 1 != replay_frame_levels(&callee.frame) ||
	    replay_frontend_frame_get(ec->f, ec->level + 1, &caller) < 0 ||
	    caller.frame.kind != REPLAY_FRAME_NORMAL ||
	    dw_space_call_value(fv_space(ec->f), caller.frame.pc, reg, &x, &xl, &env.bias) < 0 ||
	    dw_space_scope(fv_space(ec->f), caller.frame.lookup_pc, &cs) < 0)
		return -ENOENT;
	for (unsigned i = 0; i < DW_LOC_NREGS; i++) {
		known[i] = caller.frame.regs_known >> i & 1;
		regs[i] = caller.frame.regs[i];
	}
	env.cfa_known = caller.frame.has_cfa;
	env.cfa = caller.frame.cfa;
	env.frame_base = cs->frame_base;
	env.frame_base_len = cs->frame_base_len;
	/* the caller's real function: its entry values are its own */
	up.level = caller.level + replay_frame_levels(&caller.frame) - 1 - caller.inline_level;
	rc = fv_site_calls(ec->f, caller.frame.pc, &callee, &env, &upper)
		     ? fv_site_value(x, xl, &env, &upper, out)
		     : -ENOENT;
	dw_scope_free(cs);
	return rc;
}

/* The value of variable @var in frame @fr (@bias: its image's load bias,
 * @frame_base: its function's), made by @cx. NULL with @err set. */
static struct cexpr_value *fv_value(struct replay_frontend *f, struct cexpr *cx,
				    const struct fv_frame *fr, const struct dw_var *var,
				    const struct dw_scope *scope, uint64_t bias, char *err,
				    size_t errsize)
{
	struct dw_loc_env env = { fr->regs, fr->known, fr->has_cfa, fr->cfa,
				  scope ? scope->frame_base : NULL,
				  scope ? scope->frame_base_len : 0, bias, fv_mem_read, f };
	size_t size = var->type ? dw_type_size(var->type) : 0, at = 0;
	struct fv_entry ec = { f, fr->level };
	const struct dw_loc_entry entry = { fv_entry_value, &ec };
	uint8_t *buf, *state;
	struct cexpr_value *v = NULL;
	struct dw_loc loc;
	int rc;

	if (!var->type) {
		snprintf(err, errsize, "'%s' has unknown type; cast it to its declared type",
			 var->name);
		return NULL;
	}
	if (var->where == DW_VAR_OPTIMIZED_OUT)
		return cexpr_value_missing(cx, var->type, CEXPR_BYTE_OPTIMIZED_OUT);
	if (var->where == DW_VAR_CONST) {
		buf = calloc(1, size ? size : 1);
		if (!buf)
			return NULL;
		if (var->nbytes)
			memcpy(buf, var->bytes, var->nbytes < size ? var->nbytes : size);
		v = cexpr_value_bytes(cx, var->type, buf, NULL, NULL);
		free(buf);
		return v;
	}
	rc = dw_loc_eval_entry(var->expr, var->exprlen, &env, scope ? &entry : NULL, &loc);
	if (rc < 0) {
		snprintf(err, errsize, "%s", loc.message && rc == -ENOTSUP ? loc.message :
			 "Unhandled dwarf expression opcode");
		return NULL;
	}
	if (loc.npieces == 1 && !loc.pieces[0].bit_size) {
		const struct dw_loc_piece *p = &loc.pieces[0];

		if (p->kind == DW_LOC_MEMORY)
			return cexpr_value_at(cx, var->type, p->addr);
		if (p->kind == DW_LOC_OPTIMIZED_OUT)
			return cexpr_value_missing(cx, var->type, CEXPR_BYTE_OPTIMIZED_OUT);
		if (p->kind == DW_LOC_UNAVAILABLE)
			return cexpr_value_missing(cx, var->type, CEXPR_BYTE_UNAVAILABLE);
	}
	buf = calloc(1, size ? size : 1);
	state = calloc(1, size ? size : 1);
	if (!buf || !state)
		goto out;
	for (size_t i = 0; i < loc.npieces && at < size; i++) {
		size_t len = loc.pieces[i].bit_size ? (size_t)(loc.pieces[i].bit_size + 7) / 8 : size - at;

		if (len > size - at)
			len = size - at;
		fv_piece(f, fr, &loc.pieces[i], buf + at, state + at, len);
		at += len;
	}
	if (at < size)
		memset(state + at, CEXPR_BYTE_OPTIMIZED_OUT, size - at);
	v = cexpr_value_bytes(cx, var->type, buf, state,
			      loc.npieces == 1 && loc.pieces[0].kind == DW_LOC_REGISTER ?
			      replay_unwind_reg_name(loc.pieces[0].reg) : NULL);
out:
	free(buf);
	free(state);
	return v;
}

/* @name among @vars (@n of them), or NULL. */
static const struct dw_var *fv_find(const struct dw_var *vars, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (vars[i].name && !strcmp(vars[i].name, name))
			return &vars[i];
	return NULL;
}

/* The selected frame's scope level, or NULL. */
static const struct dw_scope_level *fv_level(struct replay_frontend *f, const struct fv_frame *fr,
					     struct dw_scope **scope)
{
	int err;

	*scope = fr->ok ? fv_scope(f, fr->pc, &err) : NULL;
	if (!*scope)
		return NULL;
	return &(*scope)->levels[fr->inline_level < (*scope)->nlevels ? fr->inline_level :
				 (*scope)->nlevels - 1];
}

/* A function known by its ELF symbol @name (libc's `free`, whose DWARF
 * says `__libc_free`): as GDB, the DWARF function starting there when
 * there is one. Without one, only for a breakpoint's *EXPR (f->msym_values):
 * an array of one byte at its address, which `*sym+4` and `*(&sym)+4`
 * count in bytes as GDB counts its <text variable, no debug info>. */
static int fv_msymbol(struct replay_frontend *f, struct cexpr *cx, uint64_t pc, const char *name,
		      struct cexpr_value **out)
{
	const struct dw_type *type;
	struct dw_location loc;
	uint64_t addr, entry;
	int rc = replay_frontend_msymbol_addr(f, name, &addr);

	if (rc < 0)
		return rc;
	if (dw_space_lookup(fv_space(f), addr, &loc, NULL) == 0 && loc.nframes &&
	    loc.frames[loc.nframes - 1].function &&
	    dw_space_function(fv_space(f), pc, loc.frames[loc.nframes - 1].function, &type,
			      &entry) == 0 && entry == addr) {
		*out = cexpr_value_at(cx, type, entry);
		return *out ? 0 : -ENOMEM;
	}
	if (!f->msym_values || cexpr_parse_type_within(cx, "char [1]", &type) < 0)
		return -ENOENT;
	*out = cexpr_value_at(cx, type, addr);
	return *out ? 0 : -ENOMEM;
}

static int fv_lookup(void *ctx, struct cexpr *cx, const char *name, struct cexpr_value **out,
		     char *err, size_t errsize)
{
	struct replay_frontend *f = ctx;
	const struct dw_scope_level *lv;
	const struct dw_type *type;
	struct dw_scope *scope;
	const struct dw_var *var = NULL;
	struct dw_var global;
	struct fv_frame fr;
	uint64_t bias = 0, entry;

	fv_frame_get(f, &fr);
	lv = fv_level(f, &fr, &scope);
	if (lv && !(var = fv_find(lv->locals, lv->nlocals, name)))
		var = fv_find(lv->args, lv->nargs, name);
	if (var)
		bias = scope->bias;
	else if (dw_space_global(fv_space(f), fr.pc, name, &global, &bias) == 0)
		var = &global;
	if (var) {
		*out = fv_value(f, cx, &fr, var, var == &global ? NULL : scope, bias, err, errsize);
		return *out ? 0 : (err[0] ? -EINVAL : -ENOMEM);
	}
	if (dw_space_function(fv_space(f), fr.pc, name, &type, &entry) == 0) {
		*out = cexpr_value_at(cx, type, entry);
		return *out ? 0 : -ENOMEM;
	}
	return fv_msymbol(f, cx, fr.pc, name, out);
}

static const struct dw_type *fv_type_named(void *ctx, const char *name)
{
	struct replay_frontend *f = ctx;
	const struct dw_type *t;
	struct fv_frame fr;

	fv_frame_get(f, &fr);
	return dw_space_type(fv_space(f), fr.pc, name, &t) == 0 ? t : NULL;
}

static int fv_read(void *ctx, uint64_t addr, void *buf, size_t len, uint8_t *state)
{
	(void)state;
	/* As GDB over serve --replay: memory the recording does not know is
	 * an error at its first byte, not a value. */
	return fv_mem_read(ctx, addr, buf, len);
}

static int fv_reg(void *ctx, const char *name, uint64_t *value, char *err, size_t errsize)
{
	struct replay_frontend *f = ctx;
	struct replay_frontend_frame_regs regs;
	int r = rsp_reg_find(name, strlen(name)), slot, rc;

	if (r < 0 || (slot = rsp_reg_descs[r].user) == RSP_USER_NONE)
		return -ENOENT;
	rc = replay_frontend_frame_regs(f, &regs);
	/* No state log (an import, a hardware trace): the trace still says
	 * where frame 0 is, as `info registers` shows. */
	if (rc < 0 && slot == RSP_USER_RIP && replay_frontend_frame_selected(f) == 0 &&
	    replay_cursor_pc(replay_frontend_cursor(f), value) == 0)
		return 0;
	if (rc == -ERANGE)
		snprintf(err, errsize, "$%s: not known here: the state log was cut short before "
			 "this position", name);
	else if (rc < 0)
		snprintf(err, errsize, "$%s: the recording has no registers here (no state log)",
			 name);
	else if (slot == RSP_USER_RIP && regs.no_pc) /* $pc and $rip alike */
		snprintf(err, errsize, "$pc: not known here: the trace does not say where the "
			 "thread went from its last instruction");
	else if (!(regs.known >> slot & 1))
		snprintf(err, errsize, "value is not available");
	else {
		*value = regs.gp[slot];
		return 0;
	}
	return -ENODATA;
}

static int fv_symbol(void *ctx, uint64_t addr, char *buf, size_t size)
{
	struct replay_frontend *f = ctx;
	const char *name;
	uint64_t off;

	if (dw_space_msymbol(fv_space(f), addr, &name, &off) < 0)
		return -ENOENT;
	if (off)
		snprintf(buf, size, "%s+%" PRIu64, name, off);
	else
		snprintf(buf, size, "%s", name);
	return 0;
}

struct cexpr *replay_frontend_cexpr(struct replay_frontend *f)
{
	struct fv_state *st = f->vars;

	if (st)
		return st->cx;
	st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->env = (struct cexpr_env){ f, fv_lookup, fv_type_named, fv_read, fv_reg, fv_symbol };
	st->cx = cexpr_new(&st->env);
	if (!st->cx) {
		free(st);
		return NULL;
	}
	f->vars = st;
	return st->cx;
}

void replay_frontend_cexpr_free(struct replay_frontend *f)
{
	struct fv_state *st = f->vars;

	if (!st)
		return;
	cexpr_free(st->cx);
	dw_scope_free(st->scope);
	free(st);
	f->vars = NULL;
}

int replay_frontend_frame_vars(struct replay_frontend *f, bool args,
			       void (*each)(void *ctx, const char *name,
					    const struct cexpr_value *v, const char *err),
			       void *ctx)
{
	struct cexpr *cx = replay_frontend_cexpr(f);
	const struct dw_scope_level *lv;
	const struct dw_var *vars;
	struct dw_scope *scope;
	struct fv_frame fr;
	size_t n;

	if (!cx)
		return -ENOMEM;
	fv_frame_get(f, &fr);
	if (!fr.ok)
		return -ENODATA;
	lv = fv_level(f, &fr, &scope);
	if (!lv)
		return -ENOENT;
	vars = args ? lv->args : lv->locals;
	n = args ? lv->nargs : lv->nlocals;
	for (size_t i = 0; i < n; i++) {
		char err[256] = "";
		struct cexpr_value *v = fv_value(f, cx, &fr, &vars[i], scope, scope->bias, err,
						 sizeof(err));

		if (v && cexpr_value_fetch(cx, v) < 0) {
			snprintf(err, sizeof(err), "%s", cexpr_error(cx));
			v = NULL;
		}
		each(ctx, vars[i].name, v, v ? NULL : err[0] ? err : "out of memory");
	}
	return (int)n;
}

int replay_frontend_cond_c(struct replay_frontend *f, const char *expr, bool *stop, char *err,
			   size_t errsize)
{
	struct cexpr *cx = replay_frontend_cexpr(f);
	struct cexpr_value *v;
	bool nonzero = false;
	int rc;

	if (!cx)
		return -ENOMEM;
	rc = cexpr_eval(cx, expr, &v);
	if (rc < 0) {
		snprintf(err, errsize, "%s", cexpr_error(cx));
		return rc;
	}
	for (size_t i = 0; i < v->size; i++)
		nonzero |= v->bytes[i] != 0;
	*stop = nonzero;
	cexpr_value_free(v);
	return 0;
}

/* ---- naming data --------------------------------------------------------- */

/* Appends to @buf the C path inside an object of type @t to the bytes at
 * offset @off: ".member", "[index]", down to the smallest part holding
 * [@off, @off + @len), or nothing more when a part does not hold them
 * whole (padding, a bit-field). */
static void type_path(const struct dw_type *t, uint64_t off, uint64_t len, char *buf,
		      size_t size)
{
	for (int depth = 0; depth < 16; depth++) {
		const struct dw_type *s = dw_type_strip(t);
		size_t at = strlen(buf);

		if (!s)
			return;
		if (s->kind == DW_TYPE_ARRAY && s->count_known) {
			uint64_t es = dw_type_size(s->target);

			if (!es || off / es >= s->count || off % es + len > es)
				return;
			snprintf(buf + at, size - at, "[%" PRIu64 "]", off / es);
			off %= es;
			t = s->target;
			continue;
		}
		if (s->kind != DW_TYPE_STRUCT && s->kind != DW_TYPE_UNION)
			return;
		const struct dw_member *hit = NULL;

		for (size_t i = 0; i < s->nmembers && !hit; i++) {
			const struct dw_member *m = &s->members[i];

			if (!m->bit_size && off >= m->offset &&
			    off - m->offset + len <= dw_type_size(m->type))
				hit = m;
		}
		if (!hit)
			return;
		if (hit->name)
			snprintf(buf + at, size - at, ".%s", hit->name);
		off -= hit->offset;
		t = hit->type;
	}
}

#define NAMER_OBJECTS 256

struct namer {
	uint64_t addr, len;
	char *buf;
	size_t size;
	struct cexpr *cx;
	struct replay_frontend *f;
	/* the frames' variables in memory: [lo, hi) each */
	struct { uint64_t lo, hi; } obj[NAMER_OBJECTS];
	size_t nobj;
};

/* Adds ", NAME" (or NAME first) to the namer's text. */
static void namer_add(struct namer *n, const char *name)
{
	size_t at = strlen(n->buf);

	if (strstr(n->buf, name))
		return;
	snprintf(n->buf + at, n->size - at, "%s%s", at ? ", " : "", name);
}

/* Collects the memory variable @v of the frames as an object. */
static void collect_object(void *ctx, const char *name, const struct cexpr_value *v,
			   const char *err)
{
	struct namer *n = ctx;

	(void)name;
	(void)err;
	if (v && v->lval == CEXPR_LVAL_MEMORY && v->size && n->nobj < NAMER_OBJECTS) {
		n->obj[n->nobj].lo = v->addr;
		n->obj[n->nobj].hi = v->addr + v->size;
		n->nobj++;
	}
}

/* The heap block glibc's malloc gave that starts at @p, from its chunk
 * header (the size word before @p: a multiple of 16, and, but for an
 * mmapped chunk, the next chunk's "previous in use" bit set): the bytes
 * malloc_usable_size counts, [@p, *@end). */
static bool heap_block(struct replay_frontend *f, uint64_t p, uint64_t *end)
{
	uint64_t size, next;

	if (p % 16 || p < 16 || replay_frontend_read(f, p - 8, &size, 8) != 8)
		return false;
	if ((size & ~7ull) < 32 || (size & ~7ull) % 16 || (size & ~7ull) > (1ull << 40))
		return false;
	if (size & 2) {            /* IS_MMAPPED: the header is the chunk's own 16 bytes */
		*end = p + (size & ~7ull) - 16;
		return true;
	}
	size &= ~7ull;
	if (replay_frontend_read(f, p - 8 + size, &next, 8) != 8 || !(next & 1))
		return false;
	*end = p + size - 8;
	return true;
}

/* Whether the bytes asked lie in the object pointer value @p points
 * into: the global of its symbol (as GDB's `info symbol`), a variable of
 * the frames, or the heap block starting at @p; when @p's object is none
 * of these, only the element of @ts bytes it points at. An index past an
 * array's end does not name what lies beyond it. */
static bool same_object(struct namer *n, uint64_t p, uint64_t ts)
{
	struct dw_space *sp = fv_space(n->f);
	const char *ps, *as;
	uint64_t po, ao, end;

	if (dw_space_msymbol(sp, p, &ps, &po) == 0)
		return dw_space_msymbol(sp, n->addr, &as, &ao) == 0 && p - po == n->addr - ao &&
		       !strcmp(ps, as) && dw_space_msymbol(sp, n->addr + n->len - 1, &as, &ao) == 0 &&
		       p - po == n->addr + n->len - 1 - ao;
	for (size_t i = 0; i < n->nobj; i++)
		if (p >= n->obj[i].lo && p < n->obj[i].hi)
			return n->addr >= n->obj[i].lo && n->addr + n->len <= n->obj[i].hi;
	if (heap_block(n->f, p, &end))
		return n->addr + n->len <= end;
	return n->addr + n->len <= p + ts;
}

/* Variable @name with value @v names the bytes when it holds them, or
 * points at an object that does ("e->next", "*p", "p[3]"). */
static void name_by_var(void *ctx, const char *name, const struct cexpr_value *v, const char *err)
{
	struct namer *n = ctx;
	const struct dw_type *t = v ? dw_type_strip(v->type) : NULL, *to;
	char path[256];
	uint64_t p = 0, ts;

	(void)err;
	if (!t)
		return;
	if (v->lval == CEXPR_LVAL_MEMORY && n->addr >= v->addr && n->addr - v->addr < v->size) {
		snprintf(path, sizeof(path), "%s", name);
		type_path(v->type, n->addr - v->addr, n->len, path, sizeof(path));
		namer_add(n, path);
		return;
	}
	if (t->kind != DW_TYPE_POINTER || v->size != 8 || v->state || !v->bytes)
		return;
	memcpy(&p, v->bytes, 8);
	to = dw_type_strip(t->target);
	ts = dw_type_size(t->target);
	if (!to || !ts || n->addr < p || n->addr - p >= ts * 64 || !same_object(n, p, ts))
		return;
	if (n->addr - p < ts && (to->kind == DW_TYPE_STRUCT || to->kind == DW_TYPE_UNION)) {
		snprintf(path, sizeof(path), "%s", name);
		type_path(t->target, n->addr - p, n->len, path, sizeof(path));
		if (strlen(path) > strlen(name) && path[strlen(name)] == '.') {
			memmove(path + strlen(name) + 2, path + strlen(name) + 1,
				strlen(path + strlen(name) + 1) + 1);
			memcpy(path + strlen(name), "->", 2);
			namer_add(n, path);
		}
		return;
	}
	if ((n->addr - p) % ts == 0 && n->len <= ts) {
		if (n->addr == p)
			snprintf(path, sizeof(path), "*%s", name);
		else
			snprintf(path, sizeof(path), "%s[%" PRIu64 "]", name, (n->addr - p) / ts);
		namer_add(n, path);
	}
}

int replay_frontend_name_address(struct replay_frontend *f, uint64_t addr, uint64_t len,
				 char *buf, size_t size)
{
	struct namer n = { addr, len, buf, size, replay_frontend_cexpr(f), f, { { 0, 0 } }, 0 };
	size_t selected = replay_frontend_frame_selected(f);
	const struct dw_type *t;
	struct dw_var var;
	struct fv_frame fr;
	const char *sym;
	uint64_t off, bias;

	buf[0] = 0;
	if (!n.cx)
		return -ENOMEM;
	/* a global the bytes are in, by the symbol that covers them */
	fv_frame_get(f, &fr);
	if (dw_space_msymbol(fv_space(f), addr, &sym, &off) == 0) {
		char path[256];

		snprintf(path, sizeof(path), "%s", sym);
		if (dw_space_global(fv_space(f), fr.pc, sym, &var, &bias) == 0 && (t = var.type))
			type_path(t, off, len, path, sizeof(path));
		else if (off)
			snprintf(path, sizeof(path), "%s+%" PRIu64, sym, off);
		namer_add(&n, path);
	}
	/* the locals and arguments of the innermost frames, and what they
	 * point at (within the object they point into) */
	for (size_t level = 0; level < 4; level++) {
		if (replay_frontend_frame_select(f, level) < 0)
			break;
		replay_frontend_frame_vars(f, false, collect_object, &n);
		replay_frontend_frame_vars(f, true, collect_object, &n);
	}
	for (size_t level = 0; level < 4; level++) {
		if (replay_frontend_frame_select(f, level) < 0)
			break;
		replay_frontend_frame_vars(f, false, name_by_var, &n);
		replay_frontend_frame_vars(f, true, name_by_var, &n);
	}
	replay_frontend_frame_select(f, selected);
	return buf[0] ? 0 : -ENOENT;
}

/* ---- frame lines --------------------------------------------------------- */

/* A growing string. */
struct text {
	char *s;
	size_t len, cap;
	bool failed;
};

static void text_add(struct text *t, const char *s)
{
	size_t n = strlen(s);

	if (t->failed)
		return;
	if (t->len + n + 1 > t->cap) {
		size_t cap = (t->len + n + 1) * 2;
		char *grown = realloc(t->s, cap);

		if (!grown) {
			t->failed = true;
			return;
		}
		t->s = grown;
		t->cap = cap;
	}
	memcpy(t->s + t->len, s, n + 1);
	t->len += n;
}

/* The value parameter @arg had on entry to the function of frame @level,
 * as GDB's read_variable_at_entry finds it: its location at the
 * function's first instruction must be a register (DW_OP_regN), whose
 * value the caller's call site gives. NULL when not known. */
static struct cexpr_value *entry_arg(struct replay_frontend *f, struct cexpr *cx, size_t level,
				     const struct dw_scope *entry, const struct dw_var *arg)
{
	const struct dw_scope_level *top = &entry->levels[entry->nlevels - 1];
	struct fv_entry ec = { f, level };
	uint64_t v;

	if (!arg->type || dw_type_size(arg->type) > 8)
		return NULL;
	for (size_t i = 0; i < top->nargs; i++) {
		const struct dw_var *a = &top->args[i];

		if (a->die != arg->die || a->where != DW_VAR_EXPR ||
		    fv_entry_value(&ec, a->expr, a->exprlen, &v) < 0)
			continue;
		return cexpr_value_bytes(cx, arg->type, &v, NULL, NULL);
	}
	return NULL;
}

/* Whether every byte of @v is known. */
static bool known(const struct cexpr_value *v)
{
	for (size_t i = 0; v->state && i < v->size; i++)
		if (v->state[i] != CEXPR_BYTE_KNOWN)
			return false;
	return v->bytes != NULL;
}

/* One argument of a frame line, GDB's `print entry-values default`:
 * "x=x@entry=5" when the value at entry is known and the same, "x=6,
 * x@entry=5" when it differs, else "x=5". */
static void frame_arg(struct text *t, struct cexpr *cx, const char *name,
		      struct cexpr_value *v, const char *err, struct cexpr_value *at_entry)
{
	char *vs = v ? cexpr_format_frame_arg(cx, v) : NULL;
	char *es = at_entry ? cexpr_format_frame_arg(cx, at_entry) : NULL;
	bool same = vs && es && known(v) && v->size == at_entry->size &&
		    !memcmp(v->bytes, at_entry->bytes, v->size);

	text_add(t, t->len ? ", " : "");
	text_add(t, name);
	text_add(t, "=");
	if (same) {
		text_add(t, name);
		text_add(t, "@entry=");
	}
	if (vs) {
		text_add(t, vs);
	} else {
		text_add(t, "<error: ");
		text_add(t, err ? err : "out of memory");
		text_add(t, ">");
	}
	if (es && !same) {
		text_add(t, ", ");
		text_add(t, name);
		text_add(t, "@entry=");
		text_add(t, es);
	}
	free(vs);
	free(es);
}

char *replay_frontend_frame_args(struct replay_frontend *f, size_t level)
{
	struct cexpr *cx = replay_frontend_cexpr(f);
	size_t selected = replay_frontend_frame_selected(f);
	struct replay_frontend_frame ff;
	const struct dw_scope_level *lv;
	struct dw_scope *scope, *entry = NULL;
	struct text t = { NULL, 0, 0, false };
	struct fv_frame fr;

	text_add(&t, "");
	if (!cx || replay_frontend_frame_select(f, level) < 0)
		return t.s;
	fv_frame_get(f, &fr);
	lv = fv_level(f, &fr, &scope);
	/* entry values: a real function's frame only, as GDB */
	if (lv && replay_frontend_frame_get(f, level, &ff) == 0 &&
	    ff.frame.kind == REPLAY_FRAME_NORMAL &&
	    ff.inline_level + 1 == replay_frame_levels(&ff.frame) && ff.sym.start &&
	    dw_space_scope(fv_space(f), ff.sym.start, &entry) < 0)
		entry = NULL;
	for (size_t i = 0; lv && i < lv->nargs; i++) {
		char err[256] = "";
		struct cexpr_value *v = fv_value(f, cx, &fr, &lv->args[i], scope, scope->bias, err,
						 sizeof(err));

		if (v && cexpr_value_fetch(cx, v) < 0) {
			snprintf(err, sizeof(err), "%s", cexpr_error(cx));
			v = NULL;
		}
		frame_arg(&t, cx, lv->args[i].name ? lv->args[i].name : "?", v, err,
			  entry ? entry_arg(f, cx, level, entry, &lv->args[i]) : NULL);
	}
	dw_scope_free(entry);
	replay_frontend_frame_select(f, selected);
	if (t.failed) {
		free(t.s);
		return NULL;
	}
	return t.s;
}
