/*
 * replay/frontend/frontend_line.c: GDB 13's line table of a compilation
 * unit rebuilt from the DWARF rows (dwarf/dw_unit.h), and what `info
 * line`, `disassemble /s` and `/m` read from it; $_ and $__ after x, info
 * line and info breakpoints. See frontend_line.h for GDB's rules.
 */
#include "replay/frontend/frontend_line.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frontend/cexpr.h"
#include "dwarf/dw_debug.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_space.h"
#include "dwarf/dw_unit.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_history.h"
#include "replay/frontend/frontend_insn.h"
#include "replay/frontend/frontend_vars.h"

/* ---- GDB's line table --------------------------------------------------- */

struct fl_entry {
	uint64_t pc;
	unsigned line;             /* 0: the end of a run of this file's entries */
	bool stmt;
	size_t ord;                /* recording order: the sort is stable */
};

/* One file's entries (GDB's subfile / symtab). */
struct fl_sub {
	const char *path;          /* as the unit joins it (bfd's), to read it */
	const char *gdb;           /* as GDB joins it: what tells files apart */
	const char *file;          /* as GDB shows it */
	struct fl_entry *e;
	size_t n, cap;
};

struct fl_table {
	struct fl_sub *subs;
	size_t nsubs;
	size_t ord;
	int err;
};

static void fl_free(struct fl_table *t)
{
	for (size_t i = 0; i < t->nsubs; i++)
		free(t->subs[i].e);
	free(t->subs);
	memset(t, 0, sizeof(*t));
}

/* GDB's name for @path (as GDB joins it): the unit's own DW_AT_name for
 * its primary file, else @path. */
static const char *fl_display(const struct dw_unit *u, const char *path)
{
	size_t lc;

	if (!u->name || !path)
		return path;
	if (!strcmp(path, u->name))
		return u->name;
	lc = u->comp_dir ? strlen(u->comp_dir) : 0;
	/* buildsym's start_subfile: an absolute name is the unit's own file
	 * when it is the compilation directory joined to DW_AT_name */
	if (path[0] == '/' && u->name[0] != '/' && lc && !strncmp(path, u->comp_dir, lc) &&
	    path[lc] == '/' &&
	    !strcmp(path + lc + 1, u->name))
		return u->name;
	return path;
}

/* The file of row @r: its GDB name in *@gdb, the unit's path returned. */
static const char *fl_row_file(const struct dw_unit *u, const struct dw_row *r,
			       const char **gdb)
{
	const char *path = dw_unit_row_file(u, r, false);
	uint32_t idx = r->default_file && u->line_version >= 5 ? 1 : r->file;

	*gdb = u->gdb_files && idx < u->nfiles && u->gdb_files[idx] ? u->gdb_files[idx] : path;
	return path;
}

static long fl_sub_get(struct fl_table *t, const struct dw_unit *u, const char *path,
		       const char *gdb)
{
	struct fl_sub *n;

	for (size_t i = 0; i < t->nsubs; i++)
		if (!strcmp(t->subs[i].gdb, gdb))
			return (long)i;
	n = realloc(t->subs, (t->nsubs + 1) * sizeof(*n));
	if (!n) {
		t->err = -ENOMEM;
		return -1;
	}
	t->subs = n;
	n[t->nsubs] = (struct fl_sub){ .path = path, .gdb = gdb, .file = fl_display(u, gdb) };
	return (long)t->nsubs++;
}

/* buildsym's record_line: an end marker (line 0) first takes away the
 * entries at its address, and is not added after nothing or another. */
static void fl_record(struct fl_table *t, long sub, unsigned line, uint64_t pc, bool stmt)
{
	struct fl_sub *s;

	if (sub < 0)
		return;
	s = &t->subs[sub];
	if (line == 0) {
		long last_line = -1;

		while (s->n) {
			last_line = s->e[s->n - 1].line;
			if (s->e[s->n - 1].pc != pc)
				break;
			s->n--;
		}
		if (last_line <= 0)
			return;
	}
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct fl_entry *e = realloc(s->e, cap * sizeof(*e));

		if (!e) {
			t->err = -ENOMEM;
			return;
		}
		s->e = e;
		s->cap = cap;
	}
	s->e[s->n++] = (struct fl_entry){ pc, line, stmt, t->ord++ };
}

/* One sequence, as dwarf2/read.c's lnp_state_machine records it. */
static void fl_sequence(struct fl_table *t, const struct dw_unit *u, const struct dw_seq *q,
			uint64_t bias)
{
	long last_sub = -1, sub;
	unsigned last_line = 0, state_line = 1;
	bool disc = false;

	for (size_t i = q->first; i + 1 < q->first + q->count && !t->err; i++) {
		const struct dw_row *r = &u->rows[i];
		const char *gdb, *path = fl_row_file(u, r, &gdb);

		disc = (r->line != state_line ? false : disc) || r->discriminator;
		state_line = r->line;
		if (r->line == 0 || !path)
			continue;
		if ((sub = fl_sub_get(t, u, path, gdb)) < 0)
			return;
		if (sub != last_sub)
			fl_record(t, last_sub, 0, r->addr + bias, true);
		if (sub != last_sub || r->line != last_line || !disc)
			fl_record(t, sub, r->line, r->addr + bias, r->is_stmt);
		last_sub = sub;
		last_line = r->line;
	}
	fl_record(t, last_sub, 0, u->rows[q->first + q->count - 1].addr + bias, true);
}

static int fl_entry_cmp(const void *a, const void *b)
{
	const struct fl_entry *x = a, *y = b;

	if (x->pc == y->pc && (x->line == 0) != (y->line == 0))
		return x->line == 0 ? -1 : 1;
	if (x->pc != y->pc)
		return x->pc < y->pc ? -1 : 1;
	return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* GDB's order of a unit's files, which decides between entries at one
 * address: the unit's own file first, the others in the reverse of the
 * order they were met in (buildsym prepends each new subfile). */
static void fl_order(struct fl_table *t, const struct dw_unit *u)
{
	const char *base = u->name ? strrchr(u->name, '/') : NULL;
	long main_sub = -1, alias = -1, nalias = 0;
	struct fl_sub x;

	for (size_t i = 0, j = t->nsubs; i + 1 < j--; i++) {
		x = t->subs[i];
		t->subs[i] = t->subs[j];
		t->subs[j] = x;
	}
	base = base ? base + 1 : u->name;
	for (size_t i = 0; i < t->nsubs; i++) {
		const char *b = strrchr(t->subs[i].gdb, '/');

		if (t->subs[i].file == u->name)
			main_sub = (long)i;
		else if (base && !strcmp(b ? b + 1 : t->subs[i].gdb, base) && nalias++ == 0)
			alias = (long)i;
	}
	/* buildsym's watch_main_source_file_lossage: a file of the unit's
	 * base name alone stands for it */
	if (main_sub < 0 && nalias == 1)
		main_sub = alias;
	if (main_sub <= 0)
		return;
	x = t->subs[main_sub];
	memmove(&t->subs[1], &t->subs[0], (size_t)main_sub * sizeof(x));
	t->subs[0] = x;
}

static int fl_build(struct fl_table *t, const struct dw_unit *u, uint64_t bias)
{
	memset(t, 0, sizeof(*t));
	for (size_t i = 0; i < u->nseqs && !t->err; i++)
		fl_sequence(t, u, &u->seqs[i], bias);
	for (size_t i = 0; i < t->nsubs; i++)
		qsort(t->subs[i].e, t->subs[i].n, sizeof(struct fl_entry), fl_entry_cmp);
	fl_order(t, u);
	if (t->err)
		fl_free(t);
	return t->err;
}

/* ---- the unit of an address --------------------------------------------- */

struct fl_cands {
	uint32_t unit[16];
	size_t n;
};

static int fl_cand(const struct dw_range *r, void *arg)
{
	struct fl_cands *c = arg;

	if (c->n < sizeof(c->unit) / sizeof(c->unit[0]))
		c->unit[c->n++] = r->owner;
	return 0;
}

/* The unit whose line table covers @addr (a runtime address), its image's
 * bias in *@bias; NULL when none. */
static struct dw_unit *fl_unit_at(struct replay_frontend *f, uint64_t addr, uint64_t *bias)
{
	struct dw_image *img;
	struct dw_debug *d;
	struct fl_cands c = { .n = 0 };
	uint64_t a;

	if (dw_space_image_at(replay_frontend_space(f), addr, &img, bias) < 0 ||
	    !(d = dw_image_dwarf(img)))
		return NULL;
	a = addr - *bias;
	dw_ranges_each(d->ranges, d->nranges, a, fl_cand, &c);
	for (size_t i = 0; i < c.n; i++) {
		struct dw_unit *u = &d->units[c.unit[i]];

		if (dw_unit_load_lines(d, u) == 0 && u->lines_state > 0 && dw_unit_row(u, a))
			return u;
	}
	for (size_t i = 0; i < d->nunits; i++) {
		struct dw_unit *u = &d->units[i];

		if (dw_unit_load_lines(d, u) == 0 && u->lines_state > 0 && dw_unit_row(u, a))
			return u;
	}
	return NULL;
}

/* ---- find_pc_line ------------------------------------------------------- */

/* The first entry of @s above @pc. */
static size_t fl_upper(const struct fl_sub *s, uint64_t pc)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->e[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* symtab.c's find_pc_sect_line over the files of @t. */
static void fl_find(const struct fl_table *t, uint64_t pc, struct replay_frontend_sal *out)
{
	const struct fl_entry *best = NULL, *alt = NULL;
	const struct fl_sub *best_sub = NULL;
	uint64_t best_end = 0;

	for (size_t k = 0; k < t->nsubs; k++) {
		const struct fl_sub *s = &t->subs[k];
		const struct fl_entry *prev = NULL;
		size_t item;

		if (!s->n)
			continue;
		if (s->e[0].pc > pc && (!alt || s->e[0].pc < alt->pc))
			alt = &s->e[0];
		item = fl_upper(s, pc);
		if (item)
			prev = &s->e[item - 1];
		/* GDB 13.1 ends the range at the next entry even when it is a
		 * non-statement of the same line (libc's printf: GDB's answer) */
		if (prev && (!best || prev->pc > best->pc)) {
			const struct fl_entry *tmp = prev;

			/* a statement at the same address is preferred */
			while (tmp > s->e && tmp[-1].pc == tmp->pc && tmp[-1].line && !tmp->stmt)
				tmp--;
			best = tmp->stmt ? tmp : prev;
			best_sub = s;
			if (best_end <= best->pc)
				best_end = 0;
		}
		if (best && item < s->n && s->e[item].pc > best->pc &&
		    (!best_end || best_end > s->e[item].pc))
			best_end = s->e[item].pc;
	}
	memset(out, 0, sizeof(*out));
	out->pc = pc;
	if (!best || !best->line)
		return;
	out->file = best_sub->file;
	out->path = best_sub->path;
	out->line = best->line;
	out->pc = best->pc;
	out->end = best_end && (!alt || best_end < alt->pc) ? best_end : alt ? alt->pc : 0;
}

/* The table of the unit holding @addr: 0, -ENOENT, -ENOMEM. */
static int fl_table_at(struct replay_frontend *f, uint64_t addr, struct fl_table *t)
{
	uint64_t bias;
	struct dw_unit *u = fl_unit_at(f, addr, &bias);

	if (!u) {
		memset(t, 0, sizeof(*t));
		return -ENOENT;
	}
	return fl_build(t, u, bias);
}


int replay_frontend_unit_line(const struct dw_unit *u, uint64_t bias, uint64_t addr,
			      struct replay_frontend_sal *out)
{
	struct fl_table t;
	int rc = fl_build(&t, u, bias);

	memset(out, 0, sizeof(*out));
	out->pc = addr;
	if (rc < 0)
		return rc;
	fl_find(&t, addr, out);
	fl_free(&t);
	return out->file ? 0 : -ENOENT;
}

int replay_frontend_line_at(struct replay_frontend *f, uint64_t addr,
			    struct replay_frontend_sal *out)
{
	uint64_t bias;
	struct dw_unit *u = fl_unit_at(f, addr, &bias);

	if (u)
		return replay_frontend_unit_line(u, bias, addr, out);
	memset(out, 0, sizeof(*out));
	out->pc = addr;
	return -ENOENT;
}

/* ---- info line ------------------------------------------------------------ */

int replay_frontend_info_line_addr(struct replay_frontend *f, uint64_t addr,
				   struct replay_frontend_info_line *out)
{
	struct replay_frontend_sal sal;
	int rc = replay_frontend_line_at(f, addr, &sal);

	memset(out, 0, sizeof(*out));
	if (rc == -ENOMEM)
		return rc;
	if (rc < 0 || !sal.end) {
		out->kind = REPLAY_INFO_LINE_NO_INFO;
		out->start = addr;
		return 0;
	}
	out->kind = REPLAY_INFO_LINE_RANGE;
	out->file = sal.file;
	out->line = sal.line;
	out->start = sal.pc;
	out->end = sal.end;
	return 0;
}

/* symtab.c's find_line_common: the first statement of @line, else of the
 * smallest line after it; -1 when none. */
static long fl_line_entry(const struct fl_sub *s, unsigned line)
{
	long best = -1;

	for (size_t i = 0; i < s->n; i++) {
		if (!s->e[i].stmt || !s->e[i].line)
			continue;
		if (s->e[i].line == line)
			return (long)i;
		if (s->e[i].line > line && (best < 0 || s->e[i].line < s->e[best].line))
			best = (long)i;
	}
	return best;
}

/* The file @want names among @t's: equal, or its path ends with "/@want". */
static const struct fl_sub *fl_sub_named(const struct fl_table *t, const char *want)
{
	size_t lw = strlen(want);

	for (size_t i = 0; i < t->nsubs; i++) {
		const char *p = t->subs[i].path;
		size_t lp = strlen(p);

		if (!strcmp(p, want) || !strcmp(t->subs[i].file, want) ||
		    (lp > lw && p[lp - lw - 1] == '/' && !strcmp(p + lp - lw, want)))
			return &t->subs[i];
	}
	return NULL;
}

/* find_line_pc_range over @s of @t: *@out for @line. */
static void fl_line_range(const struct fl_table *t, const struct fl_sub *s, unsigned line,
			  struct replay_frontend_info_line *out)
{
	long i = fl_line_entry(s, line);
	struct replay_frontend_sal sal;

	out->file = s->file;
	out->line = line;
	if (i < 0) {
		out->kind = REPLAY_INFO_LINE_OUT_OF_RANGE;
		return;
	}
	fl_find(t, s->e[i].pc, &sal);
	out->start = sal.pc;
	out->end = sal.line == line ? sal.end : sal.pc;
	out->kind = out->start == out->end ? REPLAY_INFO_LINE_EMPTY : REPLAY_INFO_LINE_RANGE;
}

/* The file @file names in the units of the images, as a table: 0 with
 * *@s, -ENOENT, -ENOMEM. */
static int fl_table_of_file(struct replay_frontend *f, const char *file, struct fl_table *t,
			    const struct fl_sub **s)
{
	struct dw_image *img;
	uint64_t bias;

	for (size_t k = 0; dw_space_image(replay_frontend_space(f), k, &img, &bias) == 0; k++) {
		struct dw_debug *d = dw_image_dwarf(img);

		for (size_t i = 0; d && i < d->nunits; i++) {
			struct dw_unit *u = &d->units[i];
			int rc;

			if (dw_unit_load_lines(d, u) < 0 || u->lines_state <= 0)
				continue;
			if ((rc = fl_build(t, u, bias)) < 0)
				return rc;
			if ((*s = fl_sub_named(t, file)))
				return 0;
			fl_free(t);
		}
	}
	return -ENOENT;
}

int replay_frontend_info_line_file(struct replay_frontend *f, const char *file, unsigned line,
				   struct replay_frontend_info_line *out)
{
	struct fl_table t;
	const struct fl_sub *s = NULL;
	struct replay_frontend_sal sal;
	uint64_t pc;
	int rc;

	memset(out, 0, sizeof(*out));
	if (file) {
		rc = fl_table_of_file(f, file, &t, &s);
	} else if (replay_frontend_pc(f, &pc) < 0) {
		return -ENOENT;
	} else if ((rc = fl_table_at(f, pc, &t)) == 0) {
		fl_find(&t, pc, &sal);
		s = sal.file ? fl_sub_named(&t, sal.path) : NULL;
		rc = s ? 0 : -ENOENT;
	}
	if (rc == 0)
		fl_line_range(&t, s, line, out);
	fl_free(&t);
	return rc;
}

/* ---- disassemble /s and /m ------------------------------------------------ */

struct fl_chunks {
	struct replay_frontend_src_chunk *c;
	size_t n, cap;
	int err;
};

static struct replay_frontend_src_chunk *fl_chunk_add(struct fl_chunks *cs)
{
	if (cs->n == cs->cap) {
		size_t cap = cs->cap ? cs->cap * 2 : 32;
		struct replay_frontend_src_chunk *c = realloc(cs->c, cap * sizeof(*c));

		if (!c) {
			cs->err = -ENOMEM;
			return NULL;
		}
		cs->c = c;
		cs->cap = cap;
	}
	memset(&cs->c[cs->n], 0, sizeof(cs->c[0]));
	return &cs->c[cs->n++];
}

/* The end of the instructions from @pc up to @end (GDB's dump_insns: the
 * last may cross @end); @end itself when one cannot be read. */
static uint64_t fl_insns_end(struct replay_frontend *f, uint64_t pc, uint64_t end)
{
	char text[256];
	unsigned len;

	while (pc < end) {
		if (replay_frontend_insn_text(f, pc, text, sizeof(text), &len, NULL) < 0)
			return end;
		pc += len;
	}
	return pc;
}

/* The lines that hold instructions of [lo, hi): GDB's dis_line_table
 * (files by their table's path, one pointer each). */
struct fl_line {
	const char *path;
	unsigned line;
};

struct fl_lines {
	struct fl_line *l;
	size_t n, cap;
};

static bool fl_lines_has(const struct fl_lines *l, const char *path, unsigned line)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->l[i].line == line && l->l[i].path == path)
			return true;
	return false;
}

static int fl_lines_collect(struct replay_frontend *f, const struct fl_table *t, uint64_t lo,
			    uint64_t hi, struct fl_lines *l, uint64_t *bad)
{
	struct replay_frontend_sal sal;

	for (uint64_t pc = lo; pc < hi;) {
		char text[256];
		unsigned len;

		fl_find(t, pc, &sal);
		/* GDB's first pass reads every instruction: an error before any output */
		if (replay_frontend_insn_text(f, pc, text, sizeof(text), &len, NULL) < 0) {
			*bad = pc;
			return -EIO;
		}
		pc += len;
		if (!sal.file || fl_lines_has(l, sal.path, sal.line))
			continue;
		if (l->n == l->cap) {
			size_t cap = l->cap ? l->cap * 2 : 32;
			struct fl_line *n = realloc(l->l, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			l->l = n;
			l->cap = cap;
		}
		l->l[l->n++] = (struct fl_line){ sal.path, sal.line };
	}
	return 0;
}

/* The first line GDB may print before the first instruction's (its
 * first_le: the file's first entry in [lo, hi), an opening brace whose
 * code the prologue took), or 0. */
static unsigned fl_first_line(const struct fl_sub *s, uint64_t lo, uint64_t hi)
{
	size_t i = 0;

	while (i < s->n && s->e[i].pc < lo)
		i++;
	return i < s->n && s->e[i].pc < hi ? s->e[i].line : 0;
}

/* disasm.c's do_mixed_source_and_assembly: source lines in address order. */
static int fl_disas_s(struct replay_frontend *f, const struct fl_table *t,
		      const struct fl_sub *main_sub, uint64_t lo, uint64_t hi,
		      struct fl_chunks *cs, uint64_t *bad)
{
	struct fl_lines l = { 0 };
	const char *last_path = NULL;
	unsigned last_line = 0, first_le = fl_first_line(main_sub, lo, hi);
	int rc = fl_lines_collect(f, t, lo, hi, &l, bad);

	for (uint64_t pc = lo; pc < hi && rc == 0;) {
		struct replay_frontend_src_chunk *c;
		struct replay_frontend_sal sal;
		unsigned from = 0;
		bool new_line = false;

		fl_find(t, pc, &sal);
		if (!(c = fl_chunk_add(cs))) {
			rc = cs->err;
			break;
		}
		if (!sal.path != !last_path || (sal.path && strcmp(sal.path, last_path))) {
			new_line = true;
			if (!last_line && first_le && sal.file && first_le < sal.line)
				from = first_le;
		} else if (sal.file) {
			if (sal.line > last_line + 1 && last_line) {
				unsigned k = sal.line - 1;

				while (k > last_line && !fl_lines_has(&l, sal.path, k))
					k--;
				if (k < sal.line - 1)
					from = k + 1;
			}
			new_line = sal.line != last_line;
		}
		if (new_line) {
			c->blank_before = pc > lo;
			if (!sal.path != !last_path || (sal.path && strcmp(sal.path, last_path)))
				c->header = sal.file ? sal.file : "unknown";
			c->file = sal.file;
			c->path = sal.path;
			c->first = sal.file ? (from ? from : sal.line) : 0;
			c->last = sal.line;
			c->no_source = !sal.file;
		}
		c->lo = pc;
		c->hi = sal.end ? (sal.end < hi ? sal.end : hi) : pc + 1;
		pc = c->hi = fl_insns_end(f, pc, c->hi);
		last_path = sal.path;
		last_line = sal.line;
	}
	free(l.l);
	return rc;
}

/* One line's addresses in /m (GDB's deprecated_dis_line_entry). */
struct fl_mle {
	unsigned line;
	uint64_t start, end;
};

/* disasm.c's line_is_less_than: by line then address; an end marker
 * (line 0: the entry after a function's last) by address. */
static int fl_mle_cmp(const void *a, const void *b)
{
	const struct fl_mle *x = a, *y = b;

	if (x->line && y->line && x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->line < y->line ? -1 : x->line > y->line;
}

/* The /m entries of [lo, hi): @s's entries there, in line order. */
static struct fl_mle *fl_mles(const struct fl_table *t, const struct fl_sub *s, uint64_t lo,
			      uint64_t hi, size_t *n)
{
	struct fl_mle *m = malloc((s->n + 1) * sizeof(*m));
	const struct fl_entry *e = s->e;
	bool out_of_order = false;
	size_t i = 0;

	*n = 0;
	if (!m)
		return NULL;
	while (i + 1 < s->n && e[i].pc < lo)
		i++;
	for (; i + 1 < s->n && e[i].pc < hi; i++) {
		if ((e[i].line == e[i + 1].line && e[i].pc == e[i + 1].pc) || !e[i].line)
			continue;
		out_of_order |= e[i].line > e[i + 1].line;
		m[(*n)++] = (struct fl_mle){ e[i].line, e[i].pc, e[i + 1].pc };
	}
	if (s->n && i == s->n - 1 && e[i].pc < hi) {
		struct replay_frontend_sal sal;

		fl_find(t, e[i].pc, &sal);
		m[(*n)++] = (struct fl_mle){ e[i].line, e[i].pc, sal.end };
	}
	if (out_of_order)
		qsort(m, *n, sizeof(*m), fl_mle_cmp);
	return m;
}

/* disasm.c's do_mixed_source_and_assembly_deprecated: source line order. */
static int fl_disas_m(const struct fl_table *t, const struct fl_sub *s, uint64_t lo, uint64_t hi,
		      struct fl_chunks *cs)
{
	size_t n;
	struct fl_mle *m = fl_mles(t, s, lo, hi, &n);
	unsigned next_line = 0;

	if (!m)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct replay_frontend_src_chunk *c = fl_chunk_add(cs);

		if (!c)
			break;
		c->file = s->file;
		c->path = s->path;
		if (m[i].line >= next_line) {
			c->first = next_line ? next_line : m[i].line;
			c->last = m[i].line;
			next_line = m[i].line + 1;
		}
		c->lo = m[i].start;
		c->hi = m[i].end;
		c->blank_after = i == n - 1 || m[i + 1].line > m[i].line;
	}
	free(m);
	return cs->err;
}

int replay_frontend_disas_source(struct replay_frontend *f, uint64_t lo, uint64_t hi, bool old_m,
				 struct replay_frontend_src_chunk **out, size_t *n, uint64_t *bad)
{
	struct fl_chunks cs = { 0 };
	struct replay_frontend_sal sal;
	const struct fl_sub *s = NULL;
	struct fl_table t;
	int rc = fl_table_at(f, lo, &t);

	if (rc == 0) {
		fl_find(&t, lo, &sal);
		s = sal.file ? fl_sub_named(&t, sal.path) : NULL;
	}
	if (rc == -ENOMEM)
		return rc;
	if (!s) {
		struct replay_frontend_src_chunk *c = fl_chunk_add(&cs);

		if (c) {
			c->lo = lo;
			c->hi = hi;
		}
	} else {
		cs.err = old_m ? fl_disas_m(&t, s, lo, hi, &cs)
			       : fl_disas_s(f, &t, s, lo, hi, &cs, bad);
	}
	fl_free(&t);
	if (cs.err < 0) {
		free(cs.c);
		return cs.err;
	}
	*out = cs.c;
	*n = cs.n;
	return 0;
}

/* ---- $_ and $__ ------------------------------------------------------------ */

/* Convenience variable @name to a value of type @t made of @bytes (the
 * value is the evaluator's, in its pool). */
static int fl_set(struct cexpr *cx, const char *name, const struct dw_type *t, const void *bytes)
{
	static const uint8_t none[1];
	struct cexpr_value *v = t ? cexpr_value_bytes(cx, t, bytes ? bytes : none, NULL, NULL)
				  : NULL;

	return v ? cexpr_set_convenience(cx, name, v) : -ENOMEM;
}

int replay_frontend_set_last_address(struct replay_frontend *f, uint64_t addr)
{
	struct cexpr *cx = replay_frontend_cexpr(f);

	return cx ? fl_set(cx, "$_", cexpr_builtin_type("void *"), &addr) : -ENOMEM;
}

int replay_frontend_set_examined(struct replay_frontend *f, uint64_t addr, unsigned size,
				 const void *bytes)
{
	static const char *const names[] = { "int8_t", "int16_t", "int32_t", "int64_t" };
	struct cexpr *cx = replay_frontend_cexpr(f);
	const struct dw_type *t;
	int rc;

	if (!cx)
		return -ENOMEM;
	t = cexpr_builtin_type(names[size >= 8 ? 3 : size >= 4 ? 2 : size >= 2 ? 1 : 0]);
	rc = fl_set(cx, "$_", cexpr_pointer_to(cx, t), &addr);
	if (rc == 0)
		rc = fl_set(cx, "$__", bytes ? t : cexpr_builtin_type("void"), bytes);
	return rc;
}
