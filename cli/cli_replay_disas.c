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

#include "dwarf/dw_cfi.h"
#include "dwarf/dw_space.h"
#include "replay/frontend/frontend.h"

/* ---- disassemble ------------------------------------------------------- */

enum { DIS_RAW = 1, DIS_SOURCE = 2 };

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
			else if (*p == 'm' || *p == 's')
				*flags |= DIS_SOURCE;
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
	if (dump(s, lo, hi, false, flags) < 0)
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
	if (flags & DIS_SOURCE) {
		fprintf(stderr, "disassemble /m and /s are not supported yet.\n");
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
	if (dump(s, lo, hi, true, flags) < 0)
		return -1;
	printf("End of assembler dump.\n");
	return 0;
}
