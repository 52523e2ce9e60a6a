/* dw_loc: the DWARF expression stack machine; see dw_loc.h. One decoder of
 * operands (op_read) serves the evaluator, dw_loc_op_size and the index
 * rewriting; one machine (struct machine) runs location descriptions and
 * plain value expressions (CFI, frame bases). */
#include "dwarf/dw_loc.h"
#include "dwarf/dw_rd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define LOC_STACK 64
#define LOC_STEPS 10000   /* operations one expression may run (branches) */
#define LOC_DEPTH 4       /* DW_OP_fbreg inside a frame base inside ... */

/* A fixed-size operand, sign-extended when @sign. */
static uint64_t rd_const(struct dw_rd *r, size_t n, bool sign)
{
	uint64_t v = dw_rd_fixed(r, n);

	if (sign && n < 8 && (v >> (8 * n - 1)) & 1)
		v |= ~0ull << (8 * n);
	return v;
}

/* The operands of one operation. */
struct opnd {
	uint64_t u1, u2;
	int64_t s1;
	const uint8_t *blk;
	uint64_t blklen;
};

static void rd_block(struct dw_rd *r, struct opnd *o, uint64_t len)
{
	if (r->bad || len > r->end - r->at) {
		r->bad = true;
		return;
	}
	o->blk = r->p + r->at;
	o->blklen = len;
	r->at += (size_t)len;
}

/* Operations without operands. */
static bool op_bare(uint8_t op)
{
	return op == 0x06 || (op >= 0x12 && op <= 0x14) || (op >= 0x16 && op <= 0x22) ||
	       (op >= 0x24 && op <= 0x27) || (op >= 0x29 && op <= 0x2e) ||
	       (op >= 0x30 && op <= 0x6f) || op == 0x96 ||
	       op == 0x97 || op == 0x9b || op == 0x9c || op == 0x9f || op == 0xe0 || op == 0xf0;
}

/* Reads the operands of @op into *@o. Returns 0 (r->bad when cut short),
 * -ENOTSUP for an operation whose operands are not known here. */
static int op_read(struct dw_rd *r, uint8_t op, struct opnd *o)
{
	memset(o, 0, sizeof(*o));
	if (op_bare(op))
		return 0;
	if ((op >= 0x70 && op <= 0x8f) || op == 0x91 || op == 0x11) {
		o->s1 = dw_rd_sleb(r);
		o->u1 = (uint64_t)o->s1;
		return 0;
	}
	switch (op) {
	case 0x03: o->u1 = dw_rd_fixed(r, 8); break;
	case 0x08: case 0x09: o->u1 = rd_const(r, 1, op & 1); break;
	case 0x0a: case 0x0b: o->u1 = rd_const(r, 2, op & 1); break;
	case 0x0c: case 0x0d: o->u1 = rd_const(r, 4, op & 1); break;
	case 0x0e: case 0x0f: o->u1 = dw_rd_fixed(r, 8); break;
	case 0x15: case 0x94: case 0x95: o->u1 = dw_rd_fixed(r, 1); break;
	case 0x10: case 0x23: case 0x90: case 0x93: case 0xa1: case 0xa2: case 0xa8: case 0xa9:
	case 0xf7: case 0xf9: case 0xfb: case 0xfc:
		o->u1 = dw_rd_uleb(r);
		break;
	case 0x28: case 0x2f: o->s1 = (int64_t)rd_const(r, 2, true); break;
	case 0x92: o->u1 = dw_rd_uleb(r); o->s1 = dw_rd_sleb(r); break;
	case 0x9d: case 0xa5: case 0xf5: o->u1 = dw_rd_uleb(r); o->u2 = dw_rd_uleb(r); break;
	case 0x98: o->u1 = dw_rd_fixed(r, 2); break;
	case 0x99: case 0x9a: case 0xfa: case 0xfd: o->u1 = dw_rd_fixed(r, 4); break;
	case 0x9e: case 0xa3: case 0xf3: rd_block(r, o, dw_rd_uleb(r)); break;
	case 0xa0: case 0xf2: o->u1 = dw_rd_fixed(r, 4); o->s1 = dw_rd_sleb(r); break;
	case 0xa4: case 0xf4: o->u1 = dw_rd_uleb(r); rd_block(r, o, dw_rd_fixed(r, 1)); break;
	case 0xa6: case 0xa7: case 0xf6: o->u2 = dw_rd_fixed(r, 1); o->u1 = dw_rd_uleb(r); break;
	default: return -ENOTSUP;
	}
	return 0;
}

int dw_loc_op_size(const uint8_t *expr, size_t len, size_t at)
{
	struct dw_rd r = { expr, at, len, false };
	struct opnd o;
	int rc;

	if (at >= len)
		return -EINVAL;
	rc = op_read(&r, (uint8_t)dw_rd_fixed(&r, 1), &o);
	if (rc < 0)
		return rc;
	return r.bad ? -EINVAL : (int)(r.at - at);
}

/* ---- the machine -------------------------------------------------------- */

enum mloc { M_MEMORY, M_REGISTER, M_VALUE, M_IMPLICIT };

struct machine {
	const struct dw_loc_env *env;
	const struct dw_loc_entry *entry;
	uint64_t v[LOC_STACK];
	size_t n;
	enum mloc loc;          /* what the current piece is, once an op said so */
	unsigned reg;
	struct opnd implicit;
	bool optout;            /* the current piece is gone (entry value, implicit pointer) */
	unsigned depth;
	const char *message;
};

static int push(struct machine *m, uint64_t v)
{
	if (m->n == LOC_STACK)
		return -EINVAL;
	m->v[m->n++] = v;
	return 0;
}

static int reg_value(struct machine *m, uint64_t reg, uint64_t *out)
{
	const struct dw_loc_env *env = m->env;

	if (reg >= DW_LOC_NREGS || !env->regs || !env->known || !env->known[reg])
		return -EAGAIN;
	*out = env->regs[reg];
	return 0;
}

static int run(struct machine *m, const uint8_t *expr, size_t len, struct dw_loc *out);

/* DW_OP_fbreg's base: the value of the frame base expression. */
static int frame_base(struct machine *m, uint64_t *out)
{
	struct machine fb = { .env = m->env, .entry = m->entry, .depth = m->depth + 1 };
	int rc;

	if (!m->env->frame_base || m->depth >= LOC_DEPTH)
		return -EINVAL;
	rc = run(&fb, m->env->frame_base, m->env->frame_base_len, NULL);
	if (rc < 0)
		return rc;
	if (fb.optout)
		return -EAGAIN;
	if (fb.loc == M_REGISTER)
		return reg_value(m, fb.reg, out);
	if (!fb.n)
		return -EINVAL;
	*out = fb.v[fb.n - 1];
	return 0;
}

/* A binary operation on the two top entries (a below b). */
static int binary(struct machine *m, uint8_t op)
{
	uint64_t b, a;
	int64_t sa, sb;

	if (m->n < 2)
		return -EINVAL;
	b = m->v[--m->n];
	a = m->v[m->n - 1];
	sa = (int64_t)a;
	sb = (int64_t)b;
	switch (op) {
	case 0x1a: a &= b; break;
	case 0x1b: if (!b) return -EINVAL;
		   /* INT64_MIN / -1 overflows (SIGFPE): it wraps, as GDB's does */
		   a = sb == -1 ? 0 - a : (uint64_t)(sa / sb); break;
	case 0x1c: a -= b; break;
	case 0x1d: if (!b) return -EINVAL; a %= b; break;
	case 0x1e: a *= b; break;
	case 0x21: a |= b; break;
	case 0x22: a += b; break;
	case 0x24: a = b < 64 ? a << b : 0; break;
	case 0x25: a = b < 64 ? a >> b : 0; break;
	case 0x26: a = (uint64_t)(b < 64 ? sa >> b : sa >> 63); break;
	case 0x27: a ^= b; break;
	case 0x29: a = sa == sb; break;
	case 0x2a: a = sa >= sb; break;
	case 0x2b: a = sa > sb; break;
	case 0x2c: a = sa <= sb; break;
	case 0x2d: a = sa < sb; break;
	case 0x2e: a = sa != sb; break;
	default: return -ENOTSUP;
	}
	m->v[m->n - 1] = a;
	return 0;
}

/* Operations on the stack alone: dup, drop, over, pick, swap, rot, unary. */
static int stack_op(struct machine *m, uint8_t op, const struct opnd *o)
{
	uint64_t v, *t;

	if (m->n == 0)
		return -EINVAL;
	t = &m->v[m->n - 1];
	switch (op) {
	case 0x12: return push(m, *t);
	case 0x13: m->n--; return 0;
	case 0x14: return m->n < 2 ? -EINVAL : push(m, m->v[m->n - 2]);
	case 0x15: return o->u1 >= m->n ? -EINVAL : push(m, m->v[m->n - 1 - o->u1]);
	case 0x16:
		if (m->n < 2)
			return -EINVAL;
		v = *t, *t = t[-1], t[-1] = v;
		return 0;
	case 0x17:
		if (m->n < 3)
			return -EINVAL;
		v = *t, *t = t[-1], t[-1] = t[-2], t[-2] = v;
		return 0;
	case 0x19: if ((int64_t)*t < 0) *t = -*t; return 0;
	case 0x1f: *t = -*t; return 0;
	case 0x20: *t = ~*t; return 0;
	case 0x23: *t += o->u1; return 0;
	default: return binary(m, op);
	}
}

/* DW_OP_deref, DW_OP_deref_size. */
static int deref(struct machine *m, uint64_t size)
{
	uint8_t buf[8] = { 0 };
	uint64_t v = 0;
	int rc;

	if (m->n == 0 || size == 0 || size > 8 || !m->env->read)
		return m->env->read ? -EINVAL : -EAGAIN;
	rc = m->env->read(m->env->ctx, m->v[m->n - 1], buf, (size_t)size);
	if (rc < 0)
		return rc;
	for (uint64_t i = 0; i < size; i++)
		v |= (uint64_t)buf[i] << (8 * i);
	m->v[m->n - 1] = v;
	return 0;
}

/* Operations that push from their operands, registers or the frame. */
static int push_op(struct machine *m, uint8_t op, const struct opnd *o)
{
	uint64_t v;
	int rc;

	if (op >= 0x30 && op <= 0x4f)
		return push(m, op - 0x30u);
	if ((op >= 0x70 && op <= 0x8f) || op == 0x92) {
		rc = reg_value(m, op == 0x92 ? o->u1 : op - 0x70u, &v);
		return rc < 0 ? rc : push(m, v + (uint64_t)o->s1);
	}
	switch (op) {
	case 0x03: return push(m, o->u1 + m->env->bias);
	case 0x91:
		rc = frame_base(m, &v);
		return rc < 0 ? rc : push(m, v + (uint64_t)o->s1);
	case 0x9c:
		if (!m->env->cfa_known)
			return -EAGAIN;
		return push(m, m->env->cfa);
	case 0xa5: case 0xf5: /* regval_type: a general register's value */
		rc = reg_value(m, o->u1, &v);
		return rc < 0 ? rc : push(m, v);
	default: /* literals: const*, constu, consts */
		return push(m, o->u1);
	}
}

/* Operations that say what the piece is rather than compute. */
static int kind_op(struct machine *m, uint8_t op, const struct opnd *o)
{
	if (op >= 0x50 && op <= 0x6f) {
		m->loc = M_REGISTER;
		m->reg = op - 0x50u;
		return 0;
	}
	switch (op) {
	case 0x90: m->loc = M_REGISTER; m->reg = o->u1 > 0xffff ? 0xffff : (unsigned)o->u1; return 0;
	case 0x9e: m->loc = M_IMPLICIT; m->implicit = *o; return 0;
	case 0x9f: m->loc = M_VALUE; return 0;
	case 0xa3: case 0xf3: { /* entry values: GDB's <optimized out> when unresolved */
		uint64_t v = 0;

		if (!m->entry || !m->entry->value ||
		    m->entry->value(m->entry->ctx, o->blk, (size_t)o->blklen, &v) < 0)
			m->optout = true;
		return push(m, v);
	}
	case 0xa0: case 0xf2: case 0xfa: case 0xf0: /* implicit pointer, parameter ref, uninit */
		m->optout = true;
		return op == 0xfa ? push(m, 0) : 0;
	case 0x9b: case 0xe0:
		m->message = "Cannot access thread-local variables in this context";
		return -ENOTSUP;
	default:
		return -ENOTSUP; /* calls, typed conversions, object address, xderef, indexes */
	}
}

static bool is_push_op(uint8_t op)
{
	return (op >= 0x03 && op <= 0x11 && op != 0x04 && op != 0x05 && op != 0x06 && op != 0x07) ||
	       (op >= 0x30 && op <= 0x4f) || (op >= 0x70 && op <= 0x8f) || op == 0x91 ||
	       op == 0x92 || op == 0x9c || op == 0xa5 || op == 0xf5;
}

static int piece_close(struct machine *m, struct dw_loc *out, uint64_t bits, uint64_t bit_off);

/* One operation; r->at moves past it (or to a branch's target). */
static int step(struct machine *m, struct dw_rd *r, struct dw_loc *out)
{
	uint8_t op = (uint8_t)dw_rd_fixed(r, 1);
	struct opnd o;
	int rc = op_read(r, op, &o);

	if (rc < 0 || r->bad)
		return rc < 0 ? rc : -EINVAL;
	if (is_push_op(op))
		return push_op(m, op, &o);
	if (op == 0x06 || op == 0x94)
		return deref(m, op == 0x06 ? 8 : o.u1);
	if (op == 0x28 || op == 0x2f) {
		if (op == 0x28 && m->n == 0)
			return -EINVAL;
		if (op == 0x28 && m->v[--m->n] == 0)
			return 0;
		if (o.s1 < 0 ? (size_t)-o.s1 > r->at : (size_t)o.s1 > r->end - r->at)
			return -EINVAL;
		r->at = (size_t)((int64_t)r->at + o.s1);
		return 0;
	}
	if (op == 0x93 || op == 0x9d)
		return out ? piece_close(m, out, op == 0x93 ? o.u1 * 8 : o.u1, op == 0x93 ? 0 : o.u2)
			   : -EINVAL;
	if (op == 0x96)
		return 0;
	if ((op >= 0x12 && op <= 0x27 && op != 0x18) || (op >= 0x29 && op <= 0x2e))
		return stack_op(m, op, &o);
	return kind_op(m, op, &o);
}

static int run(struct machine *m, const uint8_t *expr, size_t len, struct dw_loc *out)
{
	struct dw_rd r = { expr, 0, len, false };

	for (unsigned steps = 0; r.at < r.end; steps++) {
		int rc;

		if (steps == LOC_STEPS)
			return -EINVAL;
		rc = step(m, &r, out);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* Ends the current piece (DW_OP_piece, DW_OP_bit_piece, or the end of a
 * lone location): appends what it is to @out. */
static int piece_close(struct machine *m, struct dw_loc *out, uint64_t bits, uint64_t bit_off)
{
	struct dw_loc_piece p = { .bit_size = bits, .bit_offset = bit_off };

	if (out->npieces == DW_LOC_MAX_PIECES)
		return -EINVAL;
	switch (m->loc) {
	case M_REGISTER:
		p.kind = DW_LOC_REGISTER;
		p.reg = m->reg;
		break;
	case M_IMPLICIT:
		p.kind = DW_LOC_IMPLICIT;
		p.bytes = m->implicit.blk;
		p.len = m->implicit.blklen;
		break;
	case M_VALUE:
		if (!m->n)
			return -EINVAL;
		p.kind = DW_LOC_VALUE;
		p.value = m->v[--m->n];
		break;
	case M_MEMORY:
		p.kind = m->n ? DW_LOC_MEMORY : DW_LOC_OPTIMIZED_OUT;
		if (m->n)
			p.addr = m->v[--m->n];
		break;
	}
	if (m->optout)
		p = (struct dw_loc_piece){ .kind = DW_LOC_OPTIMIZED_OUT, .bit_size = bits };
	out->pieces[out->npieces++] = p;
	m->loc = M_MEMORY;
	m->optout = false;
	return 0;
}

int dw_loc_eval(const uint8_t *expr, size_t len, const struct dw_loc_env *env, struct dw_loc *out)
{
	return dw_loc_eval_entry(expr, len, env, NULL, out);
}

int dw_loc_eval_entry(const uint8_t *expr, size_t len, const struct dw_loc_env *env,
		      const struct dw_loc_entry *entry, struct dw_loc *out)
{
	struct machine m = { .env = env, .entry = entry };
	int rc;

	memset(out, 0, sizeof(*out));
	if (!len) {
		out->npieces = 1;
		out->pieces[0].kind = DW_LOC_OPTIMIZED_OUT;
		return 0;
	}
	rc = run(&m, expr, len, out);
	if (rc == -EAGAIN) {
		memset(out, 0, sizeof(*out));
		out->npieces = 1;
		out->pieces[0].kind = DW_LOC_UNAVAILABLE;
		return 0;
	}
	out->message = rc == -ENOTSUP ? m.message : NULL;
	if (rc < 0)
		return rc;
	/* No DW_OP_piece: the whole expression is one location. */
	if (out->npieces == 0)
		return piece_close(&m, out, 0, 0);
	return 0;
}

int dw_loc_eval_value(const uint8_t *expr, size_t len, const struct dw_loc_env *env,
		      bool has_push, uint64_t push_value, uint64_t *out)
{
	struct machine m = { .env = env };
	int rc;

	if (has_push)
		push(&m, push_value);
	rc = run(&m, expr, len, NULL);
	if (rc < 0)
		return rc;
	if (m.optout)
		return -EAGAIN;
	if (m.loc == M_REGISTER)
		return reg_value(&m, m.reg, out);
	if (!m.n)
		return -EINVAL;
	*out = m.v[m.n - 1];
	return 0;
}

/* ---- rewriting indexes into addresses ----------------------------------- */

static int buf_put(uint8_t **b, size_t *n, size_t *cap, const void *p, size_t len)
{
	if (*n + len > *cap) {
		size_t nc = (*cap ? *cap * 2 : 32) + len;
		uint8_t *nb = realloc(*b, nc);

		if (!nb)
			return -ENOMEM;
		*b = nb;
		*cap = nc;
	}
	memcpy(*b + *n, p, len);
	*n += len;
	return 0;
}

bool dw_loc_needs_rewrite(uint8_t op)
{
	switch (op) {
	case 0xa1: case 0xa2: case 0xfb: case 0xfc: /* indexes */
	case 0xa4: case 0xa5: case 0xa6: case 0xa8: case 0xa9: /* typed stack */
	case 0xf4: case 0xf5: case 0xf6: case 0xf7: case 0xf9:
		return true;
	default:
		return false;
	}
}

static void put_u64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* A conversion to the base type at @type_off: to its size, sign-extended
 * when signed (const1u k, shl, const1u k, shr/shra). 0 bytes for the
 * generic type and 8-byte integers; -ENOTSUP for floating point. */
static int conv_ops(const struct dw_loc_rewriter *rw, uint64_t type_off, uint8_t *enc, size_t *n)
{
	unsigned size;
	bool sign, flt;
	int rc;

	*n = 0;
	if (type_off == 0)
		return 0;
	rc = rw->base_type ? rw->base_type(rw->ctx, type_off, &size, &sign, &flt) : -ENOTSUP;
	if (rc < 0 || flt || size == 0 || size > 8)
		return rc < 0 ? rc : -ENOTSUP;
	if (size == 8)
		return 0;
	enc[0] = 0x08, enc[1] = (uint8_t)(64 - 8 * size), enc[2] = 0x24;
	enc[3] = 0x08, enc[4] = (uint8_t)(64 - 8 * size), enc[5] = sign ? 0x26 : 0x25;
	*n = 6;
	return 0;
}

/* The generic-stack form of one operation that needs a rewrite. */
static int rewrite_op(const uint8_t *expr, size_t len, size_t at,
		      const struct dw_loc_rewriter *rw, uint8_t *enc, size_t *n)
{
	struct dw_rd r = { expr, at + 1, len, false };
	uint8_t op = expr[at];
	struct opnd o;
	uint64_t v = 0;
	size_t k;
	int rc = op_read(&r, op, &o);

	if (rc < 0 || r.bad)
		return rc < 0 ? rc : -EINVAL;
	switch (op) {
	case 0xa1: case 0xa2: case 0xfb: case 0xfc:
		rc = rw->addr ? rw->addr(rw->ctx, o.u1, &v) : -ENOTSUP;
		enc[0] = op == 0xa1 || op == 0xfb ? 0x03 : 0x0e;
		put_u64(enc + 1, v);
		*n = 9;
		return rc;
	case 0xa8: case 0xa9: case 0xf7: case 0xf9: /* convert, reinterpret */
		return conv_ops(rw, o.u1, enc, n);
	case 0xa5: case 0xf5: /* regval_type: bregx reg 0, converted */
		k = 0;
		enc[k++] = 0x92;
		do {
			enc[k++] = (uint8_t)((o.u1 & 0x7f) | (o.u1 > 0x7f ? 0x80 : 0));
			o.u1 >>= 7;
		} while (o.u1 && k < 11);
		enc[k++] = 0;
		rc = conv_ops(rw, o.u2, enc + k, n);
		*n += k;
		return rc;
	case 0xa6: case 0xf6: /* deref_type: deref_size, converted */
		enc[0] = 0x94, enc[1] = (uint8_t)o.u2;
		rc = conv_ops(rw, o.u1, enc + 2, n);
		*n += 2;
		return rc;
	default: /* const_type: the bytes as a number, converted */
		if (o.blklen > 8)
			return -ENOTSUP;
		for (uint64_t i = 0; i < o.blklen; i++)
			v |= (uint64_t)o.blk[i] << (8 * i);
		enc[0] = 0x0e;
		put_u64(enc + 1, v);
		rc = conv_ops(rw, o.u1, enc + 9, n);
		*n += 9;
		return rc;
	}
}

int dw_loc_rewrite(const uint8_t *expr, size_t len, const struct dw_loc_rewriter *rw,
		   uint8_t **out, size_t *outlen)
{
	uint8_t *b = NULL;
	size_t n = 0, cap = 0, at = 0;
	bool branches = false, rewrites = false;
	int rc = 0;

	for (size_t i = 0; i < len;) {
		int size = dw_loc_op_size(expr, len, i);

		if (size < 0)
			return size;
		branches |= expr[i] == 0x28 || expr[i] == 0x2f;
		rewrites |= dw_loc_needs_rewrite(expr[i]);
		i += (size_t)size;
	}
	if (branches && rewrites)
		return -ENOTSUP; /* longer operations would move the branches' targets */
	while (at < len && rc == 0) {
		int size = dw_loc_op_size(expr, len, at);
		uint8_t enc[32];
		size_t k = 0;

		if (!dw_loc_needs_rewrite(expr[at])) {
			rc = buf_put(&b, &n, &cap, expr + at, (size_t)size);
		} else {
			rc = rewrite_op(expr, len, at, rw, enc, &k);
			/* what cannot be rewritten stays: dw_loc_eval says -ENOTSUP */
			if (rc == -ENOTSUP)
				rc = buf_put(&b, &n, &cap, expr + at, (size_t)size);
			else if (rc == 0 && k)
				rc = buf_put(&b, &n, &cap, enc, k);
		}
		at += (size_t)size;
	}
	if (rc < 0) {
		free(b);
		return rc;
	}
	*out = b;
	*outlen = n;
	return 0;
}
