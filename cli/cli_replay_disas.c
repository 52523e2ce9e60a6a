/*
 * cli/cli_replay_disas.c: `hindsight replay`'s disassemble as GDB 13
 * prints it ("Dump of assembler code for function main:", "=> " at the
 * selected frame's pc, <+off> after each address, /r raw bytes), over
 * the recording's memory at the current time and Zydis's AT&T printer
 * (replay/frontend/frontend_insn.h: the instruction line x/i and display/i share).
 */
#include "cli/cli_replay_disas.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frontend/cexpr.h"
#include "cli/cli_replay_out.h"
#include "dwarf/dw_cfi.h"
#include "dwarf/dw_space.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_break.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_history.h"
#include "replay/frontend/frontend_insn.h"
#include "replay/frontend/frontend_line.h"
#include "replay/frontend/frontend_vars.h"

/* ---- disassemble ------------------------------------------------------- */

enum { DIS_RAW = 1, DIS_SOURCE = 2, DIS_OLD_SOURCE = 4 };

/* The selected frame's pc ("=> " marks it), or ~0. */
uint64_t cli_replay_selected_pc(struct cli_session *s)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	uint64_t pc = ~0ull;

	if (fr && replay_frontend_frame_get(s->f, replay_frontend_frame_selected(s->f), fr) == 0)
		pc = fr->frame.pc;
	else if (replay_frontend_pc(s->f, &pc) < 0)
		pc = ~0ull;
	free(fr);
	return pc;
}

/* GDB 13's /r column: the bytes, padded to x86's 7 bytes per line. */
static void print_raw(const uint8_t *raw, unsigned len)
{
	for (unsigned i = 0; i < len; i++)
		printf("%s%02x", i ? " " : "", raw[i]);
	for (unsigned i = len; i < 7; i++)
		printf(i > len ? "   " : "  ");
	putchar('\t');
}

/* The instructions from @lo to @hi; labels "<+off>" (@in_func) or
 * "<name+off>". 0, or -1 after "Cannot access memory". */
static int dump(struct cli_session *s, uint64_t lo, uint64_t hi, bool in_func, int flags)
{
	uint64_t pc = cli_replay_selected_pc(s);

	for (uint64_t a = lo; a < hi;) {
		char text[512];
		uint8_t raw[15];
		const char *name;
		uint64_t off;
		unsigned len;

		if (cli_replay_interrupted)
			return cli_replay_report_quit();
		printf("%s0x%016" PRIx64, a == pc ? "=> " : "   ", a);
		if (replay_frontend_addr_name(s->f, a, &name, &off) && in_func)
			printf(" <+%" PRIu64 ">", off);
		else if (replay_frontend_addr_name(s->f, a, &name, &off))
			printf(" <%s+%" PRIu64 ">", name, off);
		printf(":\t");
		if (replay_frontend_insn_text(s->f, a, text, sizeof(text), &len, raw) < 0) {
			printf("\n");
			fflush(stdout);
			fprintf(stderr, "Cannot access memory at address 0x%" PRIx64 "\n", a);
			return -1;
		}
		if (flags & DIS_RAW)
			print_raw(raw, len);
		printf("%s\n", text);
		a += len;
	}
	return 0;
}

/* Source lines @c->first..@c->last as GDB's print_source_lines shows
 * them, one call a line: a file not found is said once, on the first
 * line after another file (GDB's last_source_visited, the session's
 * disas.visited), then "N\tin FILE". */
static void source_lines(struct cli_session *s, const struct replay_frontend_src_chunk *c)
{
	for (unsigned l = c->first; l && l <= c->last; l++) {
		size_t len;
		const char *text = replay_source_line(&s->src, c->path, l, &len);
		bool same = s->disas.visited && !strcmp(s->disas.visited, c->path);

		if (!same) {
			free(s->disas.visited);
			s->disas.visited = strdup(c->path);
			s->disas.visited_error = !text;
		}
		if (text) {
			printf("%u\t%.*s\n", l, (int)len, text);
		} else if (!same || !s->disas.visited_error) {
			fflush(stdout);
			fprintf(stderr, "%u\t%s: No such file or directory.\n", l, c->file);
			s->disas.visited_error = true;
		} else {
			printf("%u\tin %s\n", l, c->file);
		}
	}
}

/* dump, with source lines for /s and /m (replay_frontend_disas_source's
 * pieces). 0, or -1 after the message. */
static int dump_mixed(struct cli_session *s, uint64_t lo, uint64_t hi, bool in_func, int flags)
{
	struct replay_frontend_src_chunk *c;
	uint64_t bad = 0;
	size_t n;
	int rc;

	if (!(flags & (DIS_SOURCE | DIS_OLD_SOURCE)))
		return dump(s, lo, hi, in_func, flags);
	rc = replay_frontend_disas_source(s->f, lo, hi, flags & DIS_OLD_SOURCE, &c, &n, &bad);
	if (rc == -EIO) {
		fprintf(stderr, "Cannot access memory at address 0x%" PRIx64 "\n", bad);
		return -1;
	}
	if (rc < 0) {
		fprintf(stderr, "%s.\n", strerror(-rc));
		return -1;
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		if (c[i].blank_before)
			putchar('\n');
		if (c[i].header)
			printf("%s:\n", c[i].header);
		source_lines(s, &c[i]);
		if (c[i].no_source)
			printf("--- no source info for this pc ---\n");
		rc = dump(s, c[i].lo, c[i].hi, in_func, flags);
		if (rc == 0 && c[i].blank_after)
			putchar('\n');
	}
	free(c);
	return rc;
}

/* The function holding @addr: its name and [*@lo, *@hi) (its minimal
 * symbol's extent: the instructions whose symbol is still it). false
 * when none. */
static bool function_at(struct cli_session *s, uint64_t addr, const char **fn, uint64_t *lo,
			uint64_t *hi)
{
	struct dw_cfi_row row;
	const char *name;
	uint64_t off, a, end = ~0ull;
	char text[512];
	unsigned len;

	if (!replay_frontend_addr_name(s->f, addr, fn, &off))
		return false;
	*lo = addr - off;
	/* a symbol without a size: its FDE's end (the padding after is none's) */
	if (dw_space_cfi_row(replay_frontend_space(s->f), *lo, &row) == 0 &&
	    row.end > *lo)
		end = row.end;
	for (a = *lo; a < end && replay_frontend_addr_name(s->f, a, &name, &off) && name == *fn &&
		      a - off == *lo;
	     a += len)
		if (replay_frontend_insn_text(s->f, a, text, sizeof(text), &len, NULL) < 0)
			break;
	*hi = a;
	return true;
}

/* @text's value as an address (GDB's value_as_address). 0, or -1 after
 * the evaluator's message. */
static int eval_addr(struct cli_session *s, const char *text, uint64_t *addr)
{
	struct cexpr *cx = replay_frontend_cexpr(s->f);
	struct cexpr_value *v = NULL;
	int rc = cx ? cexpr_eval(cx, text, &v) : -ENOMEM;

	if (rc == 0 && cexpr_value_address(v, addr) < 0) {
		fprintf(stderr, "Invalid cast.\n");
		rc = -EINVAL;
	} else if (rc < 0) {
		fprintf(stderr, "%s\n", cx ? cexpr_error(cx) : "Out of memory.");
	}
	cexpr_value_free(v);
	return rc < 0 ? -1 : 0;
}

/* /r /m /s before the location: 0, or -1 after GDB's message. */
static int modifiers(const char **args, int *flags)
{
	const char *p = *args;

	while (*p == '/') {
		for (p++; *p && !isspace((unsigned char)*p); p++) {
			if (*p == 'r' || *p == 'b')
				*flags |= DIS_RAW;
			else if (*p == 's')
				*flags |= DIS_SOURCE;
			else if (*p == 'm')
				*flags |= DIS_OLD_SOURCE;
			else {
				fprintf(stderr, "Invalid disassembly modifier.\n");
				return -1;
			}
		}
		while (isspace((unsigned char)*p))
			p++;
	}
	*args = p;
	return 0;
}

/* A range START,END or START,+LEN. */
static int dump_range(struct cli_session *s, const char *args, const char *comma, int flags)
{
	char start[512];
	uint64_t lo, hi;
	const char *end = comma + 1;

	snprintf(start, sizeof(start), "%.*s", (int)(comma - args), args);
	while (isspace((unsigned char)*end))
		end++;
	if (eval_addr(s, start, &lo) < 0 || eval_addr(s, end + (*end == '+'), &hi) < 0)
		return -1;
	if (*end == '+')
		hi += lo;
	printf("Dump of assembler code from 0x%" PRIx64 " to 0x%" PRIx64 ":\n", lo, hi);
	if (dump_mixed(s, lo, hi, false, flags) < 0)
		return -1;
	printf("End of assembler dump.\n");
	return 0;
}

int cli_replay_cmd_disassemble(struct cli_session *s, const char *args, const struct command *c)
{
	const char *fn, *comma;
	uint64_t pc, lo, hi;
	int flags = 0;

	(void)c;
	if (modifiers(&args, &flags) < 0)
		return -1;
	if ((flags & DIS_SOURCE) && (flags & DIS_OLD_SOURCE)) {
		fprintf(stderr, "Cannot specify both /m and /s.\n");
		return -1;
	}
	comma = strchr(args, ',');
	if (comma)
		return dump_range(s, args, comma, flags);
	if (*args) {
		if (eval_addr(s, args, &pc) < 0)
			return -1;
	} else if ((pc = cli_replay_selected_pc(s)) == ~0ull) {
		fprintf(stderr, "No frame selected.\n");
		return -1;
	}
	if (!function_at(s, pc, &fn, &lo, &hi)) {
		fprintf(stderr, "No function contains specified address.\n");
		return -1;
	}
	printf("Dump of assembler code for function %s:\n", fn);
	if (dump_mixed(s, lo, hi, true, flags) < 0)
		return -1;
	printf("End of assembler dump.\n");
	return 0;
}

/* ---- info line ------------------------------------------------------------ */

/* GDB's print_address: "0x40113b <main+4>", or the address alone. */
static void print_address(struct cli_session *s, uint64_t addr)
{
	char name[256];

	replay_frontend_addr_symbol(s->f, addr, name, sizeof(name));
	printf("0x%" PRIx64 "%s%s", addr, name[0] ? " " : "", name);
}

/* What info line found, in GDB's words; $_ to the line's start. */
static int print_info_line(struct cli_session *s, const struct replay_frontend_info_line *il)
{
	switch (il->kind) {
	case REPLAY_INFO_LINE_NO_INFO:
		printf("No line number information available for address ");
		print_address(s, il->start);
		putchar('\n');
		return 0;
	case REPLAY_INFO_LINE_OUT_OF_RANGE:
		printf("Line number %u is out of range for \"%s\".\n", il->line, il->file);
		return 0;
	case REPLAY_INFO_LINE_EMPTY:
		printf("Line %u of \"%s\" is at address ", il->line, il->file);
		print_address(s, il->start);
		printf(" but contains no code.\n");
		break;
	case REPLAY_INFO_LINE_RANGE:
		printf("Line %u of \"%s\" starts at address ", il->line, il->file);
		print_address(s, il->start);
		printf(" and ends at ");
		print_address(s, il->end);
		printf(".\n");
		break;
	}
	if (replay_frontend_set_last_address(s->f, il->start) < 0)
		fprintf(stderr, "Out of memory.\n");
	return 0;
}

/* info line FUNC: each function's entry (its minimal symbol's start). */
static int info_line_func(struct cli_session *s, const char *spec)
{
	uint64_t addrs[REPLAY_FRONTEND_MAX_ADDRS];
	struct replay_frontend_info_line il;
	int n = replay_frontend_resolve(s->f, spec, addrs, REPLAY_FRONTEND_MAX_ADDRS);

	if (n <= 0) {
		fprintf(stderr, "Function \"%s\" not defined.\n", spec);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		const char *name;
		uint64_t off = 0;

		if (replay_frontend_addr_name(s->f, addrs[i], &name, &off))
			addrs[i] -= off;
		if (replay_frontend_info_line_addr(s->f, addrs[i], &il) < 0) {
			fprintf(stderr, "Out of memory.\n");
			return -1;
		}
		print_info_line(s, &il);
	}
	return 0;
}

/* The selected frame's line (a caller's looked up at pc - 1), its pc in
 * *@pc; false when not known. */
static bool here(struct cli_session *s, struct replay_frontend_sal *sal, uint64_t *pc)
{
	bool caller = replay_frontend_frame_selected(s->f) > 0;

	*pc = cli_replay_selected_pc(s);
	return *pc != ~0ull && replay_frontend_line_at(s->f, *pc - caller, sal) == 0;
}

/* info line [FILE:]LINE; LINE alone in the selected frame's file. */
static int info_line_number(struct cli_session *s, const char *file, unsigned line)
{
	struct replay_frontend_info_line il;
	struct replay_frontend_sal sal;
	uint64_t pc;
	int rc = replay_frontend_info_line_file(s->f, file ? file : here(s, &sal, &pc) ? sal.path :
						NULL, line, &il);

	if (rc == -ENOENT && file)
		fprintf(stderr, "No source file named %s.\n", file);
	else if (rc == -ENOENT)
		fprintf(stderr, "No line number information available.\n");
	else if (rc < 0)
		fprintf(stderr, "%s.\n", strerror(-rc));
	return rc < 0 ? -1 : print_info_line(s, &il);
}

/* The line `info line` without an argument shows: the selected frame's
 * (looked up at pc - 1 in a caller), then the next one each time while
 * the frame stays where it is. */
static int info_line_here(struct cli_session *s)
{
	struct replay_frontend_sal sal;
	uint64_t pc;

	if (!here(s, &sal, &pc)) {
		fprintf(stderr, "No line number information available.\n");
		return -1;
	}
	if (!s->disas.line_known || pc != s->disas.line_pc)
		s->disas.line_next = sal.line;
	s->disas.line_known = true;
	s->disas.line_pc = pc;
	return info_line_number(s, sal.path, s->disas.line_next++);
}

void cli_replay_disas_release(struct cli_session *s)
{
	free(s->disas.visited);
	s->disas.visited = NULL;
}

int cli_replay_info_line(struct cli_session *s, const char *args)
{
	const char *colon = strrchr(args, ':');
	char *end;
	unsigned long line;
	uint64_t addr;

	if (!*args)
		return info_line_here(s);
	if (*args == '*') {
		struct replay_frontend_info_line il;

		if (eval_addr(s, args + 1, &addr) < 0)
			return -1;
		if (replay_frontend_info_line_addr(s->f, addr, &il) < 0) {
			fprintf(stderr, "Out of memory.\n");
			return -1;
		}
		return print_info_line(s, &il);
	}
	line = strtoul(colon ? colon + 1 : args, &end, 10);
	if (!*end && end != (colon ? colon + 1 : args) && line <= 0xffffffffu) {
		char file[512];

		if (!colon)
			return info_line_number(s, NULL, (unsigned)line);
		snprintf(file, sizeof(file), "%.*s", (int)(colon - args), args);
		return info_line_number(s, file, (unsigned)line);
	}
	return info_line_func(s, args);
}
