/*
 * replay/decode/history_format.c: GDB's record-history ranges, modifiers and
 * lines (see history_format.h).
 */
#include "replay/decode/history_format.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay/decode/insn.h"

int replay_history_modifiers(const char *m, bool calls, struct replay_history_opts *o, char *bad)
{
	for (m++; *m; m++) {
		switch (calls ? *m | 0x100 : *m) {
		case 'm': case 's': o->src = true; break;
		case 'r': o->raw = true; break;
		case 'f': o->nofunc = true; break;
		case 'p': o->noprefix = true; break;
		case 'i' | 0x100: o->insns = true; break;
		case 'l' | 0x100: o->lines = true; break;
		case 'c' | 0x100: o->indent = true; break;
		default:
			*bad = *m;
			return -EINVAL;
		}
	}
	return 0;
}

int replay_history_parse_u64(const char *s, uint64_t *out)
{
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	*out = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int range_msg(char *msg, size_t size, const char *fmt, const char *arg)
{
	snprintf(msg, size, fmt, arg);
	return -EINVAL;
}

/* "N,+K" / "N,-K" / "N,M" / ",M" once the first part is parsed. */
static int range_second(const char *first, const char *second, uint64_t n, uint64_t size,
			uint64_t *begin, uint64_t *end, char *msg, size_t msgsize)
{
	uint64_t m = 0;

	if (second[0] == '+' || second[0] == '-') {
		if (replay_history_parse_u64(second + 1, &m) < 0 || !m || !first[0])
			return range_msg(msg, msgsize, "Expected positive number, got: %s.", second);
		*begin = second[0] == '+' ? n : (n >= m ? n - m + 1 : 1);
		*end = second[0] == '+' ? n + m - 1 : n;
		return 0;
	}
	if (replay_history_parse_u64(second, &m) < 0)
		return range_msg(msg, msgsize, "Expected positive number, got: %s.", second);
	*begin = first[0] ? n : (m > size ? m - size + 1 : 1);
	*end = m;
	return 0;
}

int replay_history_range(const char *r, uint64_t size, uint64_t total, uint64_t last,
			 uint64_t *begin, uint64_t *end, char *msg, size_t msgsize)
{
	char first[64] = "", second[64] = "";
	const char *comma = strchr(r, ',');
	uint64_t n = 0;

	if (total == 0)
		return range_msg(msg, msgsize, "%s", "No trace.");
	if (!*r) {
		*end = last;
		*begin = last > size ? last - size + 1 : 1;
		return 0;
	}
	snprintf(first, sizeof(first), "%.*s", comma ? (int)(comma - r) : (int)strlen(r), r);
	if (comma)
		snprintf(second, sizeof(second), "%s", comma + 1);
	if ((first[0] && replay_history_parse_u64(first, &n) < 0) || (!first[0] && (!comma || !second[0])))
		return range_msg(msg, msgsize, "Expected positive number, got: %s.", r);
	if (!comma || !second[0]) {
		*begin = n;
		*end = n + size - 1;
	} else if (range_second(first, second, n, size, begin, end, msg, msgsize) < 0) {
		return -EINVAL;
	}
	if (*end < *begin)
		return range_msg(msg, msgsize, "%s", "Bad range.");
	if (*begin < 1)
		*begin = 1;
	if (*begin > total)
		return range_msg(msg, msgsize, "%s", "Range out of bounds.");
	if (*end > total)
		*end = total;
	return 0;
}

static void print_symbolic(FILE *out, const struct replay_symbolizer *s, uint64_t addr,
			   bool with_name, bool always_off)
{
	struct replay_symbol sym;

	if (s->lookup(s->ctx, addr, &sym) < 0 || !sym.function)
		return;
	fprintf(out, " <%s", with_name ? sym.function : "");
	if (always_off || addr != sym.start)
		fprintf(out, "+%" PRId64, (int64_t)(addr - sym.start));
	fprintf(out, ">");
}

void replay_history_src_release(struct replay_history_src *last)
{
	replay_source_release(&last->source);
}

/* GDB's /s header before a new line: FILE:LINE, then the line's text when
 * the source file is here. */
static void print_source(FILE *out, const struct replay_symbol *sym, struct replay_history_src *last)
{
	const char *text;
	size_t len;

	if (!sym->file || !sym->line ||
	    (last->file && !strcmp(last->file, sym->file) && last->line == sym->line))
		return;
	text = replay_source_line(&last->source, sym->file, sym->line, &len);
	if (text)
		fprintf(out, "%s:%u\t%.*s\n", sym->file, sym->line, (int)len, text);
	else
		fprintf(out, "%s:%u\n", sym->file, sym->line);
	last->file = sym->file;
	last->line = sym->line;
}

void replay_history_print_gap(FILE *out, int error, const char *text)
{
	if (error)
		fprintf(out, "[decode error (%d): %s]\n", error, text);
	else
		fprintf(out, "[%s]\n", text);
}

void replay_history_print_insn(FILE *out, const struct replay_symbolizer *sym,
			       const struct replay_history_opts *o, const struct replay_item *it,
			       bool current, struct replay_history_src *last)
{
	struct replay_symbol s;
	char text[256];

	replay_symbolizer_at(sym, it->time);
	if (o->src && sym->lookup(sym->ctx, it->insn.ip, &s) == 0)
		print_source(out, &s, last);
	fprintf(out, "%" PRIu64 "\t%s0x%016" PRIx64, it->index,
		o->noprefix ? "" : current ? "=> " : "   ", it->insn.ip);
	print_symbolic(out, sym, it->insn.ip, !o->nofunc, true);
	fprintf(out, ":\t");
	if (o->raw && it->insn.size) {
		for (unsigned i = 0; i < it->insn.size; i++)
			fprintf(out, "%s%02x", i ? " " : "", it->insn.raw[i]);
		fprintf(out, "\t");
	}
	if (!it->insn.size) {
		fprintf(out, "(unreadable)\n");
		return;
	}
	replay_insn_format(&it->insn, it->bits, o->intel ? REPLAY_SYNTAX_INTEL : REPLAY_SYNTAX_ATT,
			   text, sizeof(text));
	fprintf(out, "%s", text);
	if (it->insn.direct)
		print_symbolic(out, sym, it->insn.target, true, false);
	fprintf(out, "\n");
}

void replay_history_print_segment(FILE *out, const struct replay_history_opts *o,
				  uint64_t number, const struct replay_segment *g)
{
	fprintf(out, "%" PRIu64 "\t", number);
	if (g->gap) {
		replay_history_print_gap(out, g->error, g->text);
		return;
	}
	for (int i = 0; o->indent && i < g->level; i++)
		fprintf(out, "  ");
	fprintf(out, "%s", g->function ? g->function : "??");
	if (o->insns)
		fprintf(out, "\tinst %" PRIu64 ",%" PRIu64, g->first, g->last);
	if (o->lines) {
		fprintf(out, "\tat ");
		if (g->file && g->line_min) {
			fprintf(out, "%s:%u", g->file, g->line_min);
			if (g->line_max != g->line_min)
				fprintf(out, ",%u", g->line_max);
		}
	}
	fprintf(out, "\n");
}
