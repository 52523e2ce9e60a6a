/*
 * cli/cli_replay_display.c: `hindsight replay`'s auto-display as GDB 13
 * prints it: display [/FMT] EXPR, display alone, undisplay, info display,
 * enable / disable display. After every stop (cli_replay_report_stop)
 * the enabled displays are shown in number order: "1: x = 5" through the
 * session's C evaluator, "2: /x x = 0x5" with a print format, and with a
 * memory format (a size letter, i or s) GDB's x: "3: x/i $pc" then the
 * instruction. A value that cannot be had shows "<error: ...>". As GDB's
 * innermost block, a display whose expression names locals of the frame
 * it was made in is shown only in a frame of that function where those
 * names are still visible.
 */
#include "cli/cli_replay_display.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "replay/frontend/cexpr.h"
#include "cli/cli_replay_disas.h"
#include "cli/cli_replay_out.h"
#include "dwarf/dw_space.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_insn.h"
#include "replay/frontend/frontend_vars.h"

#define MAX_BOUND 8                /* locals one display's scope remembers */
#define STRING_LIMIT 200           /* GDB's print elements */

struct cli_display {
	int num;
	bool enabled;
	char fmt;                  /* 0 or a format letter */
	char size;                 /* 0: print-like; b h w g: x-like */
	int count;
	char *expr;
	char *eval;                /* what is evaluated when not @expr (statics bound) */
	char *func;                /* NULL: any frame; else the function of its locals */
	char *bound[MAX_BOUND];    /* the locals it names */
	size_t nbound;
};

/* The selected frame's function (innermost inlined one) into @buf; false
 * when there is none. */
static bool frame_function(struct cli_session *s, char *buf, size_t size)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	bool ok = fr && replay_frontend_frame_get(s->f, replay_frontend_frame_selected(s->f),
						  fr) == 0 && fr->frame.has_sym && fr->sym.function;

	if (ok)
		snprintf(buf, size, "%s", fr->sym.ninlined ? fr->sym.inlined[0] : fr->sym.function);
	free(fr);
	return ok;
}

/* The selected frame's arguments and locals by name; a static local
 * (in an image's memory, not the frame's: a minimal symbol names it)
 * with its object spelled "(*(TYPE *)0xADDR)", which GDB's display keeps
 * evaluating outside the function as it bound the symbol when parsing. */
struct names {
	struct cli_session *s;
	char **v;
	char **subst;
	size_t n, cap;
};

static char *static_subst(struct cli_session *s, const struct cexpr_value *v)
{
	const char *sym;
	uint64_t off;
	char *type, *out = NULL;

	if (!v || v->lval != CEXPR_LVAL_MEMORY || v->bit_size ||
	    dw_space_msymbol(replay_frontend_space(s->f), v->addr, &sym, &off) < 0)
		return NULL;
	type = cexpr_format_type_name(v->type);
	if (type && asprintf(&out, "(*(%s *)0x%" PRIx64 ")", type, v->addr) < 0)
		out = NULL;
	free(type);
	return out;
}

static void collect_name(void *ctx, const char *name, const struct cexpr_value *v,
			 const char *err)
{
	struct names *o = ctx;

	(void)err;
	if (o->n == o->cap) {
		size_t cap = o->cap * 2 + 8;
		char **nv = realloc(o->v, cap * sizeof(*nv)), **ns;

		if (nv)
			o->v = nv;
		ns = nv ? realloc(o->subst, cap * sizeof(*ns)) : NULL;
		if (!ns)
			return;
		o->subst = ns;
		o->cap = cap;
	}
	o->v[o->n] = strdup(name);
	o->subst[o->n] = o->v[o->n] ? static_subst(o->s, v) : NULL;
	if (o->v[o->n])
		o->n++;
}

/* The names of the selected frame's arguments and locals. */
static void frame_names(struct cli_session *s, struct names *o)
{
	memset(o, 0, sizeof(*o));
	o->s = s;
	replay_frontend_frame_vars(s->f, true, collect_name, o);
	replay_frontend_frame_vars(s->f, false, collect_name, o);
}

static void names_free(struct names *o)
{
	for (size_t i = 0; i < o->n; i++) {
		free(o->v[i]);
		free(o->subst[i]);
	}
	free(o->v);
	free(o->subst);
}

/* @name's index among @o, or -1. */
static ssize_t names_find(const struct names *o, const char *name, size_t len)
{
	for (size_t i = 0; i < o->n; i++)
		if (strlen(o->v[i]) == len && !strncmp(o->v[i], name, len))
			return (ssize_t)i;
	return -1;
}

static bool names_have(const struct names *o, const char *name, size_t len)
{
	return names_find(o, name, len) >= 0;
}

/* The next identifier of @expr from *@p that names a variable (not a
 * member after . or ->, not a $register): its start, *@len, and *@p past
 * it; NULL at the end. */
static const char *next_ident(const char *expr, const char **p, size_t *len)
{
	while (**p) {
		const char *b = *p, *q = *p;
		bool member = false;

		if (!isalpha((unsigned char)*b) && *b != '_') {
			(*p)++;
			continue;
		}
		while (isalnum((unsigned char)*q) || *q == '_')
			q++;
		*p = q;
		if (b > expr && (isalnum((unsigned char)b[-1]) || b[-1] == '$'))
			continue;
		for (const char *k = b; k > expr;) {
			k--;
			if (*k == ' ')
				continue;
			member = *k == '.' || (*k == '>' && k > expr && k[-1] == '-');
			break;
		}
		if (!member) {
			*len = (size_t)(q - b);
			return b;
		}
	}
	return NULL;
}

/* Binds @d to the selected frame: the locals it names that need the
 * frame (GDB's innermost block), the static ones by their address. */
static void bind_scope(struct cli_session *s, struct cli_display *d)
{
	struct names o;
	char fn[256], *text = NULL;
	const char *p = d->expr, *id, *from = d->expr;
	size_t len, tlen = 0;
	FILE *m;

	if (!frame_function(s, fn, sizeof(fn)))
		return;
	m = open_memstream(&text, &tlen);
	frame_names(s, &o);
	while ((id = next_ident(d->expr, &p, &len))) {
		ssize_t i = names_find(&o, id, len);

		if (i < 0)
			continue;
		if (o.subst[i]) {
			if (m)
				fprintf(m, "%.*s%s", (int)(id - from), from, o.subst[i]);
			from = p;
		} else if (d->nbound < MAX_BOUND) {
			d->bound[d->nbound++] = strndup(id, len);
		}
	}
	if (m) {
		fprintf(m, "%s", from);
		fclose(m);
		if (strcmp(text, d->expr))
			d->eval = text;
		else
			free(text);
	}
	if (d->nbound)
		d->func = strdup(fn);
	names_free(&o);
}

/* Whether @d can be evaluated in the selected frame (GDB's contained_in
 * the display's block). */
static bool in_scope(struct cli_session *s, const struct cli_display *d)
{
	struct names o;
	char fn[256];
	bool ok;

	if (!d->func)
		return true;
	if (!frame_function(s, fn, sizeof(fn)) || strcmp(fn, d->func))
		return false;
	frame_names(s, &o);
	ok = true;
	for (size_t i = 0; i < d->nbound && ok; i++)
		ok = names_have(&o, d->bound[i], strlen(d->bound[i]));
	names_free(&o);
	return ok;
}

/* "N: x/FMT EXPR" then GDB's x of the address the expression gives. */
static void show_examine(struct cli_session *s, const struct cli_display *d)
{
	struct cexpr *cx = replay_frontend_cexpr(s->f);
	struct cexpr_value *v = NULL;
	uint64_t addr, bad;
	int rc;

	printf("%d: x/", d->num);
	if (d->count != 1)
		printf("%d", d->count);
	printf("%c", d->fmt);
	if (d->fmt != 'i' && d->fmt != 's')
		printf("%c", d->size);
	printf(" %s%s", d->expr, d->count != 1 || d->fmt == 'i' ? "\n" : "  ");
	if (!cx || cexpr_eval(cx, d->eval ? d->eval : d->expr, &v) < 0) {
		printf("<error: %s>\n", cx ? cexpr_error(cx) : "Out of memory.");
		return;
	}
	rc = cexpr_value_address(v, &addr);
	cexpr_value_free(v);
	if (rc < 0) {
		printf("<error: Value can't be converted to integer.>\n");
		return;
	}
	rc = cli_replay_examine(s, d->fmt, d->size, d->count, addr, &bad);
	if (rc == -EIO)
		printf("<error: Cannot access memory at address 0x%" PRIx64 ">\n", bad);
}

/* "N: [/F ]EXPR = VALUE" through the C evaluator. */
static void show_print(struct cli_session *s, const struct cli_display *d)
{
	struct cexpr *cx = replay_frontend_cexpr(s->f);
	struct cexpr_value *v = NULL;
	char *text = NULL;

	printf("%d: ", d->num);
	if (d->fmt)
		printf("/%c ", d->fmt);
	printf("%s = ", d->expr);
	if (!cx || cexpr_eval(cx, d->eval ? d->eval : d->expr, &v) < 0) {
		printf("<error: %s>\n", cx ? cexpr_error(cx) : "Out of memory.");
		return;
	}
	if (!strchr("xduotacfsz", d->fmt ? d->fmt : 'x'))
		printf("<error: Undefined output format \"%c\".>\n", d->fmt);
	else if ((text = cexpr_format_value(cx, v, d->fmt)))
		printf("%s\n", text);
	else
		printf("<error: Out of memory.>\n");
	free(text);
	cexpr_value_free(v);
}

/* GDB's do_one_display: nothing when disabled or out of scope. */
static void show_one(struct cli_session *s, const struct cli_display *d)
{
	if (!d->enabled || !in_scope(s, d))
		return;
	if (d->size)
		show_examine(s, d);
	else
		show_print(s, d);
}

void cli_replay_do_displays(struct cli_session *s)
{
	for (size_t i = 0; i < s->displays.n && !cli_replay_interrupted; i++)
		show_one(s, &s->displays.d[i]);
}

/* /FMT of display: GDB's decode_format with no defaults. 0, or -1 after
 * GDB's message. */
static int parse_format(const char **args, struct cli_display *d)
{
	const char *p = *args + 1;

	d->count = 1;
	if (isdigit((unsigned char)*p))
		d->count = (int)strtol(p, (char **)&p, 10);
	for (; *p && *p != ' '; p++) {
		if (strchr("bhwg", *p)) {
			d->size = *p;
		} else if (*p >= 'a' && *p <= 'z') {
			d->fmt = *p;
		} else {
			fprintf(stderr, "Invalid number \"%.*s\".\n", (int)strcspn(p, " "), p);
			return -1;
		}
	}
	if (d->size && !d->fmt)
		d->fmt = 'x';
	if (d->fmt == 'i' || d->fmt == 's')
		d->size = 'b';
	while (*p == ' ')
		p++;
	*args = p;
	return 0;
}

/* Whether the expression is one a display can hold: GDB parses it (an
 * unknown name or a syntax error refuses it), evaluation errors come at
 * each stop. */
static int check_expr(struct cli_session *s, const char *expr)
{
	struct cexpr *cx = replay_frontend_cexpr(s->f);
	struct cexpr_value *v = NULL;
	int rc;

	if (!cx) {
		fprintf(stderr, "Out of memory.\n");
		return -1;
	}
	rc = cexpr_eval(cx, expr, &v);
	cexpr_value_free(v);
	if (rc == -ENOENT || (rc == -EINVAL && !strncmp(cexpr_error(cx), "A syntax error", 14))) {
		fprintf(stderr, "%s\n", cexpr_error(cx));
		return -1;
	}
	return 0;
}

int cli_replay_cmd_display(struct cli_session *s, const char *args, const struct command *c)
{
	struct cli_display d = { .enabled = true, .count = 1 }, *nd;

	(void)c;
	if (!*args) {
		cli_replay_do_displays(s);
		return 0;
	}
	if (*args == '/' && parse_format(&args, &d) < 0)
		return -1;
	if (!*args) {
		fprintf(stderr, "Argument required (expression to compute).\n");
		return -1;
	}
	if (check_expr(s, args) < 0)
		return -1;
	if (s->displays.n == s->displays.cap) {
		nd = realloc(s->displays.d, (s->displays.cap * 2 + 4) * sizeof(*nd));
		if (!nd)
			return -1;
		s->displays.d = nd;
		s->displays.cap = s->displays.cap * 2 + 4;
	}
	d.num = ++s->displays.next;
	d.expr = strdup(args);
	if (!d.expr)
		return -1;
	bind_scope(s, &d);
	s->displays.d[s->displays.n++] = d;
	if (s->from_tty)
		show_one(s, &s->displays.d[s->displays.n - 1]);
	return 0;
}

static void display_release(struct cli_display *d)
{
	free(d->expr);
	free(d->eval);
	free(d->func);
	for (size_t i = 0; i < d->nbound; i++)
		free(d->bound[i]);
}

void cli_replay_display_release(struct cli_session *s)
{
	for (size_t i = 0; i < s->displays.n; i++)
		display_release(&s->displays.d[i]);
	free(s->displays.d);
	memset(&s->displays, 0, sizeof(s->displays));
}

static struct cli_display *find_display(struct cli_session *s, int num)
{
	for (size_t i = 0; i < s->displays.n; i++)
		if (s->displays.d[i].num == num)
			return &s->displays.d[i];
	return NULL;
}

/* Calls @each for every display number or range N-M of @args, as GDB's
 * map_display_numbers. */
static void map_numbers(struct cli_session *s, const char *args,
			void (*each)(struct cli_session *s, struct cli_display *d, bool on),
			bool on)
{
	while (*args) {
		const char *tok = args;
		char *end;
		long lo = strtol(args, &end, 10), hi = lo;

		if (end == args || lo <= 0) {
			fflush(stdout);
			fprintf(stderr, "warning: bad display number at or near '%s'\n", tok);
			return;
		}
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long n = lo; n <= hi; n++) {
			struct cli_display *d = find_display(s, (int)n);

			if (d)
				each(s, d, on);
			else
				printf("No display number %ld.\n", n);
		}
		args = end;
		while (*args == ' ')
			args++;
	}
}

static void delete_one(struct cli_session *s, struct cli_display *d, bool on)
{
	size_t i = (size_t)(d - s->displays.d);

	(void)on;
	display_release(d);
	memmove(d, d + 1, (s->displays.n - i - 1) * sizeof(*d));
	s->displays.n--;
}

static void enable_one(struct cli_session *s, struct cli_display *d, bool on)
{
	(void)s;
	d->enabled = on;
}

int cli_replay_cmd_undisplay(struct cli_session *s, const char *args, const struct command *c)
{
	(void)c;
	if (!strncmp(args, "display", 7) && (!args[7] || args[7] == ' '))
		for (args += 7; *args == ' '; args++)
			;
	if (*args) {
		map_numbers(s, args, delete_one, false);
		return 0;
	}
	printf("Delete all auto-display expressions? (y or n) ");
	if (s->from_tty && isatty(STDIN_FILENO)) {
		int ch = getchar(), skip = ch;

		while (skip != '\n' && skip != EOF)
			skip = getchar();
		if (ch != 'y' && ch != 'Y')
			return 0;
	} else {
		printf("[answered Y; input not from terminal]\n");
	}
	{
		int next = s->displays.next;  /* GDB's numbers go on */

		cli_replay_display_release(s);
		s->displays.next = next;
	}
	return 0;
}

int cli_replay_display_enable(struct cli_session *s, const char *args, bool on)
{
	while (*args == ' ')
		args++;
	if (!*args) {
		for (size_t i = 0; i < s->displays.n; i++)
			s->displays.d[i].enabled = on;
		return 0;
	}
	map_numbers(s, args, enable_one, on);
	return 0;
}

int cli_replay_info_display(struct cli_session *s)
{
	if (!s->displays.n) {
		printf("There are no auto-display expressions now.\n");
		return 0;
	}
	printf("Auto-display expressions now in effect:\nNum Enb Expression\n");
	for (size_t i = 0; i < s->displays.n; i++) {
		const struct cli_display *d = &s->displays.d[i];

		printf("%d:   %c  ", d->num, d->enabled ? 'y' : 'n');
		if (d->size)
			printf("/%d%c%c ", d->count, d->size, d->fmt);
		else if (d->fmt)
			printf("/%c ", d->fmt);
		printf("%s%s\n", d->expr,
		       in_scope(s, d) ? "" : " (cannot be evaluated in the current context)");
	}
	return 0;
}

/* ---- GDB's x ----------------------------------------------------------- */

/* "ADDR <sym+off>:" starting a line of x. */
static void examine_label(struct cli_session *s, uint64_t addr)
{
	char name[256];

	replay_frontend_addr_symbol(s->f, addr, name, sizeof(name));
	printf("0x%" PRIx64 "%s%s:", addr, name[0] ? " " : "", name);
}

/* A string at @addr as GDB's x/s: "text" with C escapes, at most
 * STRING_LIMIT characters then "...". Its length with the NUL, or -EIO. */
static int64_t examine_string(struct cli_session *s, uint64_t addr)
{
	static const char esc[] = "\a\b\f\n\r\t\v\"\\", let[] = "abfnrtv\"\\";
	uint64_t n = 0;
	uint8_t ch = 1;

	examine_label(s, addr);
	putchar('\t');
	if (replay_frontend_read(s->f, addr, &ch, 1) < 1)
		return -EIO;
	putchar('"');
	for (; n < STRING_LIMIT; n++) {
		const char *e;

		if (replay_frontend_read(s->f, addr + n, &ch, 1) < 1) {
			printf("\"\n");
			return -EIO;
		}
		if (!ch)
			break;
		e = strchr(esc, ch);
		if (e)
			printf("\\%c", let[e - esc]);
		else if (ch >= 0x20 && ch < 0x7f)
			putchar(ch);
		else
			printf("\\%03o", ch);
	}
	printf(ch && n == STRING_LIMIT ? "\"...\n" : "\"\n");
	return (int64_t)n + 1;
}

/* One unit @val of @size bytes in @fmt, after its tab. */
static void examine_unit(struct cli_session *s, char fmt, unsigned size, uint64_t val)
{
	unsigned bits = size * 8;
	int64_t sv = bits == 64 ? (int64_t)val : (int64_t)(val << (64 - bits)) >> (64 - bits);
	char name[256];

	switch (fmt) {
	case 'd':
		printf("\t%" PRId64, sv);
		break;
	case 'u':
		printf("\t%" PRIu64, val);
		break;
	case 'o':
		printf(val ? "\t0%" PRIo64 : "\t0", val);
		break;
	case 't':
		putchar('\t');
		for (unsigned b = bits; b-- > 0;)
			putchar(val >> b & 1 ? '1' : '0');
		break;
	case 'c':
		printf("\t%d '", (int)(int8_t)val);
		if ((uint8_t)val >= 0x20 && (uint8_t)val < 0x7f && val != '\\' && val != '\'')
			printf("%c'", (int)val);
		else
			printf("\\%03o'", (unsigned)(uint8_t)val);
		break;
	case 'a':
		replay_frontend_addr_symbol(s->f, val, name, sizeof(name));
		printf("\t0x%" PRIx64 "%s%s", val, name[0] ? " " : "", name);
		break;
	default:
		printf("\t0x%0*" PRIx64, (int)size * 2, val);
	}
}

static int examine_insns(struct cli_session *s, int count, uint64_t addr, uint64_t *bad)
{
	uint64_t pc = cli_replay_selected_pc(s);

	for (int i = 0; i < count; i++) {
		char text[512], name[256];
		unsigned len;

		if (cli_replay_interrupted)
			return -ECANCELED;
		replay_frontend_addr_symbol(s->f, addr, name, sizeof(name));
		printf("%s0x%" PRIx64 "%s%s:\t", addr == pc ? "=> " : "   ", addr,
		       name[0] ? " " : "", name);
		if (replay_frontend_insn_text(s->f, addr, text, sizeof(text), &len, NULL) < 0) {
			*bad = addr;
			return -EIO;
		}
		printf("%s\n", text);
		*bad = addr;   /* the last one examined */
		addr += len;
	}
	return 0;
}

int cli_replay_examine(struct cli_session *s, char fmt, char size, int count, uint64_t addr,
		       uint64_t *bad)
{
	unsigned usize = size == 'b' ? 1 : size == 'h' ? 2 : size == 'w' ? 4 : 8;
	unsigned per_line = usize == 8 ? 2 : usize == 4 ? 4 : 8;

	if (fmt == 'i')
		return examine_insns(s, count, addr, bad);
	for (int i = 0; i < count; i++) {
		uint64_t val = 0;

		if (cli_replay_interrupted)
			return -ECANCELED;
		if (fmt == 's') {
			int64_t n = examine_string(s, addr);

			if (n < 0) {
				*bad = addr;
				return -EIO;
			}
			*bad = addr;
			addr += (uint64_t)n;
			continue;
		}
		if (i % per_line == 0) {
			if (i)
				putchar('\n');
			examine_label(s, addr);
		}
		if (replay_frontend_read(s->f, addr, &val, usize) < (int)usize) {
			putchar('\t');
			*bad = addr;
			return -EIO;
		}
		examine_unit(s, fmt, usize, val);
		*bad = addr;
		addr += usize;
	}
	if (fmt != 's')
		putchar('\n');
	return 0;
}
