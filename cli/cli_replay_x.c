/*
 * cli/cli_replay_x.c: memory and registers at the position in `hindsight
 * replay`, as GDB 13 prints them: x/NFU ADDR (the units in x d u o c;
 * x/i and x/s are GDB's examine layout, cli_replay_display.c's, which
 * display/i shares) and info registers (the selected frame's, GDB's
 * general group, what a state log cut short or a gap does not know said
 * as GDB says a register it cannot read). Listed in cli_replay.c's table.
 */
#include "cli/cli_replay_x.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_replay_display.h"
#include "cli/cli_replay_out.h"
#include "protocol/rsp_regs.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/cexpr.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_history.h"
#include "replay/frontend/frontend_line.h"
#include "replay/frontend/frontend_vars.h"

/* A byte as GDB prints a char between quotes: itself, a C escape (\n,
 * \\, \'), or three octal digits (\000, \310). */
static const char *gdb_char(uint8_t c, char out[8])
{
	static const char esc[] = "\a\b\f\n\r\t\v", let[] = "abfnrtv";
	const char *e = c ? strchr(esc, c) : NULL;

	if (c == '\\' || c == '\'')
		snprintf(out, 8, "\\%c", c);
	else if (e)
		snprintf(out, 8, "\\%c", let[e - esc]);
	else if (c >= 0x20 && c < 0x7f)
		snprintf(out, 8, "%c", c);
	else
		snprintf(out, 8, "\\%03o", c);
	return out;
}

/* The address x starts at: EXPR's value as GDB's x takes it (a pointer,
 * an integer, an array's or a function's address). 0 or -1 after GDB's
 * message. */
static int x_address(struct cli_session *s, const char *expr, uint64_t *addr)
{
	struct cexpr *cx = replay_frontend_cexpr(s->f);
	struct cexpr_value *v;
	int rc;

	if (!cx || cexpr_eval(cx, expr, &v) < 0) {
		fprintf(stderr, "%s\n", cx ? cexpr_error(cx) : "Out of memory.");
		return -1;
	}
	rc = cexpr_value_address(v, addr);
	cexpr_value_free(v);
	if (rc < 0)
		fprintf(stderr, "Invalid number \"%s\".\n", expr);
	return rc < 0 ? -1 : 0;
}

/* x/NFU ADDR: N units of size U (b h w g) in format F (x d u c i s). */
int cli_replay_cmd_x(struct cli_session *s, const char *args, const struct command *c)
{
	char ch[8];
	long count = 1;
	uint64_t addr;

	(void)c;
	if (!s->x.fmt) {           /* GDB's first x: x/xw */
		s->x.fmt = 'x';
		s->x.unit = 'w';
	}
	if (*args == '/') {
		char *end;

		args++;
		count = isdigit((unsigned char)*args) ? strtol(args, &end, 10) : 1;
		if (isdigit((unsigned char)*args))
			args = end;
		for (; *args && *args != ' '; args++) {
			if (strchr("bhwg", *args))
				s->x.unit = *args;
			else if (strchr("xduocis", *args))
				s->x.fmt = *args;
			else {
				fprintf(stderr, "Invalid number \"%c\".\n", *args);
				return -1;
			}
		}
		while (*args == ' ')
			args++;
	}
	if (x_address(s, args, &addr) < 0)
		return -1;
	if (s->x.fmt == 'i' || s->x.fmt == 's') {
		/* GDB's layout, shared with display/i (cli_replay_display.c) */
		uint64_t bad;
		int rc = cli_replay_examine(s, s->x.fmt, 'b', (int)count, addr, &bad);

		if (rc == -ECANCELED)
			return cli_replay_report_quit();
		if (rc < 0) {
			fflush(stdout);
			fprintf(stderr, "Cannot access memory at address 0x%" PRIx64 "\n", bad);
		} else if (count > 0) {
			replay_frontend_set_examined(s->f, bad, 1, NULL);  /* GDB's $_, $__ void */
		}
		return rc < 0 ? -1 : 0;
	}
	if (s->x.fmt == 's' || s->x.fmt == 'c')
		s->x.unit = 'b';
	{
		char u = s->x.unit;
		unsigned size = u == 'b' ? 1 : u == 'h' ? 2 : u == 'w' ? 4 : 8;
		unsigned per_line = size == 8 ? 2 : size == 4 ? 4 : 8;

		for (long i = 0; i < count; i++) {
			uint64_t val = 0;

			if (cli_replay_interrupted) {
				if (i)
					putchar('\n');
				return cli_replay_report_quit();
			}
			if (i % per_line == 0)
				printf("%s0x%" PRIx64 ":", i ? "\n" : "", addr);
			/* GDB prints the tab before it reads, the error after it */
			putchar('\t');
			if (replay_frontend_read(s->f, addr, &val, size) < (int)size) {
				fflush(stdout);
				fprintf(stderr, "Cannot access memory at address 0x%" PRIx64 "\n", addr);
				return -1;
			}
			if (s->x.fmt == 'x')
				printf("0x%0*" PRIx64, (int)size * 2, val);
			else if (s->x.fmt == 'u')
				printf("%" PRIu64, val);
			else if (s->x.fmt == 'c')
				printf("%d '%s'", (int)(int8_t)val, gdb_char((uint8_t)val, ch));
			else
				printf("%" PRId64, size == 8 ? (int64_t)val : size == 4 ?
				       (int64_t)(int32_t)val : size == 2 ? (int64_t)(int16_t)val :
				       (int64_t)(int8_t)val);
			addr += size;
			if (i == count - 1)   /* GDB's $_ and $__: the last unit */
				replay_frontend_set_examined(s->f, addr - size, size, &val);
		}
		putchar('\n');
	}
	return 0;
}

/* Whether `info registers` shows register @r: GDB's general ones, those
 * the state log has but orig_rax (GDB's system group). */
static bool info_reg_shown(int r)
{
	return rsp_reg_descs[r].user != RSP_USER_NONE && r != RSP_REG_ORIG_RAX;
}

static void print_eflags(uint64_t v)
{
	static const struct { int bit; const char *name; } flags[] = {
		{ 0, "CF" }, { 2, "PF" }, { 4, "AF" }, { 6, "ZF" }, { 7, "SF" },
		{ 8, "TF" }, { 9, "IF" }, { 10, "DF" }, { 11, "OF" },
	};

	printf("[ ");
	for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (v & (1ull << flags[i].bit))
			printf("%s ", flags[i].name);
	printf("]");
}

/* One line of `info registers`: register @r with value @v. */
static void print_reg(struct cli_session *s, int r, uint64_t v)
{
	const char *name = rsp_reg_descs[r].name;

	printf("%-15s0x%-18" PRIx64, name, v);
	if (!strcmp(name, "eflags")) {
		print_eflags(v);
	} else if (!strcmp(name, "rip") || !strcmp(name, "rbp") || !strcmp(name, "rsp")) {
		struct replay_symbol sym;

		printf("0x%" PRIx64, v);
		if (!strcmp(name, "rip") && s->f->sym.lookup(s->f->sym.ctx, v, &sym) == 0 &&
		    sym.function)
			printf(" <%s+%" PRIu64 ">", sym.function, v - sym.start);
	} else if (r >= RSP_REG_CS && r <= RSP_REG_GS) {
		printf("%" PRIu64, v);
	} else {
		printf("%" PRId64, (int64_t)v);
	}
	putchar('\n');
}

/* One register of `info registers`: past a state log cut short (@cut)
 * only rip is known, where the trace does not say the pc (@nopc) all but
 * rip; what is not known shows as GDB shows registers it cannot read. */
static void info_reg(struct cli_session *s, int r, const uint64_t *gp, bool cut, bool nopc,
		     uint32_t known)
{
	if (r == RSP_REG_RIP ? nopc : cut)
		printf("%-15s<unavailable>\n", rsp_reg_descs[r].name);
	else if (!(known & (1u << rsp_reg_descs[r].user)))
		printf("%-15s<not saved>\n", rsp_reg_descs[r].name);
	else
		print_reg(s, r, gp[rsp_reg_descs[r].user]);
}

int cli_replay_info_registers(struct cli_session *s, const char *args)
{
	struct replay_frontend_frame_regs fr;
	uint64_t *gp = fr.gp, pc;
	int rc = replay_frontend_frame_regs(s->f, &fr);  /* the selected frame's */
	bool cut = rc == -ERANGE, nopc = rc == 1;

	if (rc < 0 && replay_frontend_pc(s->f, &pc) < 0) {
		fprintf(stderr, "The registers are not known here.\n");
		return -1;
	}
	if (rc < 0 && !cut) {
		/* Without a state log only rip is known. */
		printf("%-15s0x%-18" PRIx64 "0x%" PRIx64 "\n", "rip", pc, pc);
		return 0;
	}
	if (cut) {
		gp[RSP_USER_RIP] = pc;
		fprintf(stderr, "The state log was cut short before this position: only rip is "
			"known.\n");
	}
	if (!*args) {
		for (int r = 0; r < RSP_REG_COUNT; r++)
			if (info_reg_shown(r))
				info_reg(s, r, gp, cut, nopc, cut ? ~0u : fr.known);
		return 0;
	}
	/* The registers named, in the order given (GDB's). */
	for (const char *a = args; *a;) {
		size_t n;
		int r;

		a += *a == '$';
		n = strcspn(a, " ");
		r = rsp_reg_find(a, n);
		if (r < 0 || !info_reg_shown(r)) {
			fprintf(stderr, "Invalid register `%.*s'\n", (int)n, a);
			return -1;
		}
		info_reg(s, r, gp, cut, nopc, cut ? ~0u : fr.known);
		a += n;
		while (*a == ' ')
			a++;
	}
	return 0;
}
