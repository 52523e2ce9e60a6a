/* dw_cfi: .eh_frame and .debug_frame rows and CFI expressions; see
 * dw_cfi.h. One reader for both sections: they differ in the CIE id
 * (0 / all ones), in how an FDE names its CIE (backwards from itself /
 * from the section's start) and in .eh_frame's augmentations (pointer
 * encodings, 'S'). */
#include "dwarf/dw_cfi.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_loc.h"

#define MAX_STATES 16     /* DW_CFA_remember_state depth */

struct cfi_sec {
	const uint8_t *data;
	size_t size;
	uint64_t addr;      /* sh_addr: where pc-relative pointers count from */
	bool eh;            /* .eh_frame, else .debug_frame */
};

struct cfi_fde {
	uint64_t start, end;
	uint32_t sec;
	size_t cie;         /* offset of its CIE in the section */
	size_t instr, ninstr; /* its instructions */
};

struct dw_cfi {
	struct dw_elf *elf;
	bool indexed;
	struct cfi_sec secs[2];
	size_t nsecs;
	struct cfi_fde *fdes;
	size_t n;
};

/* A read position in a section; @bad once it ran past @end. */
struct rd {
	const struct cfi_sec *s;
	size_t at, end;
	bool bad;
};

struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned ra;
	uint8_t fde_enc;
	bool has_z;
	bool signal;
	size_t instr, ninstr;
};

static uint64_t rd_fixed(struct rd *r, size_t n)
{
	uint64_t v = 0;

	if (r->bad || r->end - r->at < n) {
		r->bad = true;
		return 0;
	}
	for (size_t i = 0; i < n; i++)
		v |= (uint64_t)r->s->data[r->at + i] << (8 * i);
	r->at += n;
	return v;
}

static uint64_t rd_uleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;

	for (;;) {
		uint8_t b = (uint8_t)rd_fixed(r, 1);

		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			return v;
	}
}

static int64_t rd_sleb(struct rd *r)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t b;

	do {
		b = (uint8_t)rd_fixed(r, 1);
		if (r->bad)
			return 0;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (shift < 64 && (b & 0x40))
		v |= ~0ull << shift;
	return (int64_t)v;
}

/* A pointer in encoding @enc (DW_EH_PE_*): absolute and pc-relative ones;
 * -ENOTSUP for text, data and function relative, aligned, or indirect. */
static int rd_pointer(struct rd *r, uint8_t enc, uint64_t *out)
{
	uint64_t where = r->s->addr + r->at, v;

	if (enc == 0xff) { /* DW_EH_PE_omit */
		*out = 0;
		return 0;
	}
	switch (enc & 0x0f) {
	case 0x00: v = rd_fixed(r, 8); break;
	case 0x01: v = rd_uleb(r); break;
	case 0x02: v = rd_fixed(r, 2); break;
	case 0x03: v = rd_fixed(r, 4); break;
	case 0x04: v = rd_fixed(r, 8); break;
	case 0x09: v = (uint64_t)rd_sleb(r); break;
	case 0x0a: v = (uint64_t)(int64_t)(int16_t)rd_fixed(r, 2); break;
	case 0x0b: v = (uint64_t)(int64_t)(int32_t)rd_fixed(r, 4); break;
	case 0x0c: v = rd_fixed(r, 8); break;
	default: return -ENOTSUP;
	}
	if (r->bad)
		return -EINVAL;
	switch (enc & 0x70) {
	case 0x00: break;
	case 0x10: v += where; break;
	default: return -ENOTSUP;
	}
	*out = v;
	return 0;
}

/* The length and id of the entry at @at: 0 with *@body (after the id),
 * *@next (the next entry) and *@id; 1 at a terminator or the end; -EINVAL. */
static int entry_head(const struct cfi_sec *s, size_t at, size_t *body, size_t *next,
		      uint64_t *id, bool *cie)
{
	struct rd r = { s, at, s->size, false };
	uint64_t len = rd_fixed(&r, 4);
	bool wide = len == 0xffffffffu;
	size_t idat;

	if (r.bad || len == 0)
		return 1;
	if (wide)
		len = rd_fixed(&r, 8);
	if (r.bad || len > s->size - r.at)
		return -EINVAL;
	*next = r.at + len;
	idat = r.at;
	r.end = *next;
	*id = rd_fixed(&r, wide ? 8 : 4);
	if (r.bad)
		return -EINVAL;
	*body = r.at;
	if (s->eh) {
		*cie = *id == 0;
		if (!*cie && *id > idat)
			return -EINVAL;
		*id = idat - *id; /* an FDE's CIE, backwards from the id */
	} else {
		*cie = wide ? *id == ~0ull : *id == 0xffffffffu;
	}
	return 0;
}

static int parse_cie(const struct cfi_sec *s, size_t at, struct cie *c)
{
	struct rd r = { s, 0, 0, false };
	size_t body, next;
	uint64_t id;
	bool is_cie;
	const char *aug;
	uint8_t version;
	size_t auglen;
	int rc = entry_head(s, at, &body, &next, &id, &is_cie);

	if (rc != 0 || !is_cie)
		return -EINVAL;
	memset(c, 0, sizeof(*c));
	r.at = body;
	r.end = next;
	version = (uint8_t)rd_fixed(&r, 1);
	aug = (const char *)s->data + r.at;
	auglen = strnlen(aug, r.end - r.at);
	if (r.bad || auglen == r.end - r.at || (version != 1 && version != 3 && version != 4))
		return -EINVAL;
	r.at += auglen + 1;
	if (version == 4)
		rd_fixed(&r, 2); /* address size, segment selector size */
	c->code_align = rd_uleb(&r);
	c->data_align = rd_sleb(&r);
	c->ra = version == 1 ? (unsigned)rd_fixed(&r, 1) : (unsigned)rd_uleb(&r);
	if (aug[0] == 'z') {
		size_t end;

		c->has_z = true;
		end = (size_t)rd_uleb(&r);
		if (r.bad || end > r.end - r.at)
			return -EINVAL;
		end += r.at;
		for (size_t i = 1; i < auglen; i++) {
			uint64_t skip;

			switch (aug[i]) {
			case 'R': c->fde_enc = (uint8_t)rd_fixed(&r, 1); break;
			case 'L': rd_fixed(&r, 1); break;
			case 'P':
				/* only its size matters (indirect or not) */
				rc = rd_pointer(&r, (uint8_t)rd_fixed(&r, 1) & 0x7f, &skip);
				if (rc < 0)
					return rc;
				break;
			case 'S': c->signal = true; break;
			default: i = auglen; break; /* unknown: the rest is skipped by 'z' */
			}
		}
		r.at = end;
	} else if (auglen && strcmp(aug, "eh")) {
		return -ENOTSUP; /* without 'z' an unknown augmentation cannot be skipped */
	}
	if (r.bad || c->code_align == 0)
		return -EINVAL;
	c->instr = r.at;
	c->ninstr = r.end - r.at;
	return 0;
}

static int add_fde(struct dw_cfi *c, size_t *cap, const struct cfi_fde *f)
{
	if (c->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 256;
		struct cfi_fde *n = realloc(c->fdes, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		c->fdes = n;
		*cap = ncap;
	}
	c->fdes[c->n++] = *f;
	return 0;
}

/* Every FDE of section @si; a malformed entry ends the section's index. */
static int index_section(struct dw_cfi *c, uint32_t si, size_t *cap)
{
	const struct cfi_sec *s = &c->secs[si];
	size_t at = 0, body, next;

	while (at < s->size) {
		struct cfi_fde f = { .sec = si };
		struct rd r = { s, 0, 0, false };
		struct cie cie;
		uint64_t id, range;
		bool is_cie;

		if (entry_head(s, at, &body, &next, &id, &is_cie) != 0)
			break;
		at = next;
		if (is_cie || id >= s->size || parse_cie(s, (size_t)id, &cie) < 0)
			continue;
		r.at = body;
		r.end = next;
		if (rd_pointer(&r, cie.fde_enc, &f.start) < 0 ||
		    rd_pointer(&r, cie.fde_enc & 0x0f, &range) < 0)
			continue;
		if (cie.has_z)
			r.at += (size_t)rd_uleb(&r);
		if (r.bad || r.at > r.end || range == 0 || f.start == 0)
			continue; /* discarded code (a zeroed FDE) */
		f.end = f.start + range;
		f.cie = (size_t)id;
		f.instr = r.at;
		f.ninstr = r.end - r.at;
		if (add_fde(c, cap, &f) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int cmp_fde(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;

	return x->start < y->start ? -1 : x->start > y->start;
}

static void add_section(struct dw_cfi *c, const char *name, bool eh)
{
	size_t idx = dw_elf_find(c->elf, name);
	const void *data;
	size_t size;

	if (!idx || !dw_elf_has_data(c->elf, name) || dw_elf_load(c->elf, idx, &data, &size) < 0)
		return;
	c->secs[c->nsecs++] = (struct cfi_sec){ data, size, c->elf->sections[idx].addr, eh };
}

static int cfi_index(struct dw_cfi *c)
{
	size_t cap = 0;

	if (c->indexed)
		return 0;
	c->indexed = true;
	/* .debug_frame first: where both describe a function, GDB finds the
	 * same rules in either. */
	add_section(c, ".debug_frame", false);
	add_section(c, ".eh_frame", true);
	for (uint32_t i = 0; i < c->nsecs; i++)
		if (index_section(c, i, &cap) < 0)
			return -ENOMEM;
	if (c->n)
		qsort(c->fdes, c->n, sizeof(*c->fdes), cmp_fde);
	return 0;
}

int dw_cfi_open(struct dw_elf *elf, struct dw_cfi **out)
{
	*out = calloc(1, sizeof(**out));
	if (!*out)
		return -ENOMEM;
	(*out)->elf = elf;
	return 0;
}

void dw_cfi_free(struct dw_cfi *c)
{
	if (!c)
		return;
	free(c->fdes);
	free(c);
}

/* The FDE holding @addr (the last starting at or below it that covers it). */
static const struct cfi_fde *find_fde(const struct dw_cfi *c, uint64_t addr)
{
	size_t lo = 0, hi = c->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->fdes[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i-- > 0 && lo - i <= 4;)
		if (c->fdes[i].start <= addr && addr < c->fdes[i].end)
			return &c->fdes[i];
	return NULL;
}

/* ---- running the instructions ---------------------------------------- */

struct run {
	const struct cie *cie;
	const struct dw_cfi_row *init; /* after the CIE's instructions */
	uint64_t target, loc;
	struct dw_cfi_row states[MAX_STATES];
	size_t nstates;
};

/* Rules of registers past DW_CFI_NREGS (vector registers) are dropped. */
static void set_rule(struct dw_cfi_row *row, uint64_t reg, enum dw_cfi_rule_kind kind,
		     int64_t off, unsigned other)
{
	if (reg < DW_CFI_NREGS)
		row->regs[reg] = (struct dw_cfi_rule){ .kind = kind, .offset = off, .reg = other };
}

static void restore(struct dw_cfi_row *row, const struct dw_cfi_row *init, uint64_t reg)
{
	if (reg < DW_CFI_NREGS)
		row->regs[reg] = init->regs[reg];
}

static void set_expr(struct rd *r, struct dw_cfi_row *row, uint64_t reg, enum dw_cfi_rule_kind kind)
{
	uint64_t len = rd_uleb(r);

	if (r->bad || len > r->end - r->at) {
		r->bad = true;
		return;
	}
	if (reg < DW_CFI_NREGS)
		row->regs[reg] = (struct dw_cfi_rule){ .kind = kind, .expr = r->s->data + r->at,
						       .exprlen = len };
	r->at += len;
}

/* Advances the location; true when it passed the target (stop). */
static bool advance(struct run *u, uint64_t delta)
{
	u->loc += delta * u->cie->code_align;
	return u->loc > u->target;
}

/* One instruction. 1 to stop (the target passed), 0, or < 0. */
static int step(struct run *u, struct rd *r, struct dw_cfi_row *row)
{
	uint8_t op = (uint8_t)rd_fixed(r, 1), low = op & 0x3f;
	int64_t da = u->cie->data_align;
	uint64_t reg, v;

	switch (op & 0xc0) {
	case 0x40: return advance(u, low);
	case 0x80: set_rule(row, low, DW_CFI_OFFSET, (int64_t)rd_uleb(r) * da, 0); return 0;
	case 0xc0: restore(row, u->init, low); return 0;
	}
	switch (op) {
	case 0x00: return 0;
	case 0x01:
		if (rd_pointer(r, u->cie->fde_enc, &v) < 0)
			return -EINVAL;
		u->loc = v;
		return u->loc > u->target;
	case 0x02: return advance(u, rd_fixed(r, 1));
	case 0x03: return advance(u, rd_fixed(r, 2));
	case 0x04: return advance(u, rd_fixed(r, 4));
	case 0x05: reg = rd_uleb(r); set_rule(row, reg, DW_CFI_OFFSET, (int64_t)rd_uleb(r) * da, 0); return 0;
	case 0x06: restore(row, u->init, rd_uleb(r)); return 0;
	case 0x07: set_rule(row, rd_uleb(r), DW_CFI_UNDEFINED, 0, 0); return 0;
	case 0x08: set_rule(row, rd_uleb(r), DW_CFI_SAME, 0, 0); return 0;
	case 0x09: reg = rd_uleb(r); set_rule(row, reg, DW_CFI_REGISTER, 0, (unsigned)rd_uleb(r)); return 0;
	case 0x0a:
		if (u->nstates == MAX_STATES)
			return -ENOTSUP;
		u->states[u->nstates++] = *row;
		return 0;
	case 0x0b:
		/* The whole row comes back, the CFA with it (libgcc and GDB
		 * read it so; GCC's epilogues rely on it). */
		if (!u->nstates)
			return -EINVAL;
		*row = u->states[--u->nstates];
		return 0;
	case 0x0c: row->cfa_expr = false; row->cfa_reg = (unsigned)rd_uleb(r); row->cfa_offset = (int64_t)rd_uleb(r); return 0;
	case 0x0d: row->cfa_expr = false; row->cfa_reg = (unsigned)rd_uleb(r); return 0;
	case 0x0e: row->cfa_offset = (int64_t)rd_uleb(r); return 0;
	case 0x0f: {
		uint64_t len = rd_uleb(r);

		if (r->bad || len > r->end - r->at)
			return -EINVAL;
		row->cfa_expr = true;
		row->expr = r->s->data + r->at;
		row->exprlen = len;
		r->at += len;
		return 0;
	}
	case 0x10: reg = rd_uleb(r); set_expr(r, row, reg, DW_CFI_EXPR); return 0;
	case 0x11: reg = rd_uleb(r); set_rule(row, reg, DW_CFI_OFFSET, rd_sleb(r) * da, 0); return 0;
	case 0x12: row->cfa_expr = false; row->cfa_reg = (unsigned)rd_uleb(r); row->cfa_offset = rd_sleb(r) * da; return 0;
	case 0x13: row->cfa_offset = rd_sleb(r) * da; return 0;
	case 0x14: reg = rd_uleb(r); set_rule(row, reg, DW_CFI_VAL_OFFSET, (int64_t)rd_uleb(r) * da, 0); return 0;
	case 0x15: reg = rd_uleb(r); set_rule(row, reg, DW_CFI_VAL_OFFSET, rd_sleb(r) * da, 0); return 0;
	case 0x16: reg = rd_uleb(r); set_expr(r, row, reg, DW_CFI_VAL_EXPR); return 0;
	case 0x2e: rd_uleb(r); return 0; /* DW_CFA_GNU_args_size */
	case 0x2f: reg = rd_uleb(r); set_rule(row, reg, DW_CFI_OFFSET, -(int64_t)rd_uleb(r) * da, 0); return 0;
	default: return -ENOTSUP;
	}
}

static int run_range(struct run *u, const struct cfi_sec *s, size_t at, size_t n,
		     struct dw_cfi_row *row)
{
	struct rd r = { s, at, at + n, false };

	while (r.at < r.end) {
		int rc = step(u, &r, row);

		if (r.bad)
			return -EINVAL;
		if (rc != 0)
			return rc < 0 ? rc : 0;
	}
	return 0;
}

int dw_cfi_row_at(struct dw_cfi *c, uint64_t addr, struct dw_cfi_row *out)
{
	const struct cfi_fde *f;
	struct dw_cfi_row init;
	struct cie cie;
	struct run *u;
	int rc = cfi_index(c);

	if (rc < 0)
		return rc;
	f = find_fde(c, addr);
	if (!f)
		return -ENOENT;
	rc = parse_cie(&c->secs[f->sec], f->cie, &cie);
	if (rc < 0)
		return rc;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	memset(&init, 0, sizeof(init));
	*u = (struct run){ .cie = &cie, .init = &init, .target = addr, .loc = f->start };
	rc = run_range(u, &c->secs[f->sec], cie.instr, cie.ninstr, &init);
	if (rc == 0) {
		*out = init;
		u->loc = f->start;
		u->nstates = 0;
		rc = run_range(u, &c->secs[f->sec], f->instr, f->ninstr, out);
	}
	free(u);
	if (rc < 0)
		return rc;
	/* The return address column: x86-64's is 16 everywhere. */
	if (cie.ra != DW_CFI_RA)
		return -ENOTSUP;
	out->signal_frame = cie.signal;
	out->start = f->start;
	out->end = f->end;
	return 0;
}

/* ---- expressions ------------------------------------------------------- */

/* dw_loc reads any number of bytes; a CFI environment reads words. */
static int cfi_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct dw_cfi_env *env = ctx;
	uint64_t v;
	int rc = env->read(env->ctx, addr, &v);

	if (rc < 0)
		return rc;
	memcpy(buf, &v, len < 8 ? len : 8);
	return 0;
}

int dw_cfi_expr_eval(const uint8_t *expr, size_t len, const struct dw_cfi_env *env,
		     bool has_push, uint64_t push_value, uint64_t *out)
{
	struct dw_loc_env x = { .regs = env->regs, .known = env->known, .read = cfi_read,
				.ctx = (void *)env };
	int rc = dw_loc_eval_value(expr, len, &x, has_push, push_value, out);

	return rc == -EAGAIN ? -EINVAL : rc;
}
