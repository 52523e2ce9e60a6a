/*
 * cli/cli_replay_break.c: `hindsight replay`'s breakpoint commands, as
 * GDB 13 prints them: break and tbreak (LOCATION [if COND]), enable,
 * disable, condition, ignore, info breakpoints, and the report of a stop
 * at one. Conditions are evaluated at each hit by the front end's one
 * evaluator (replay_frontend.cond_eval, replay/frontend/frontend.h).
 */
#include "cli/cli_replay_break.h"
#include "cli/cli_replay_display.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_replay_out.h"
#include "cli/cli_replay_watch.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_break.h"
#include "replay/frontend/frontend_line.h"

static struct replay_frontend_break *find(struct cli_session *s, long n)
{
	for (size_t i = 0; i < s->f->nbreaks; i++)
		if (s->f->breaks[i].number == n)
			return &s->f->breaks[i];
	return NULL;
}

/* A breakpoint number at *@p (moved past it and the blanks after): the
 * number, or -1 after GDB's message. */
static long number_arg(const char **p)
{
	char *end;
	long n = strtol(*p, &end, 10);

	if (end == *p || (*end && !isspace((unsigned char)*end)) || n <= 0) {
		fprintf(stderr, "Bad breakpoint argument: '%s'\n", *p);
		return -1;
	}
	for (*p = end; isspace((unsigned char)**p); (*p)++)
		;
	return n;
}

/* The location of `break LOC if COND` into @spec, the condition into
 * *@cond (NULL: none). */
static void split_if(const char *args, char *spec, size_t size, const char **cond)
{
	const char *at = NULL;

	for (const char *p = args; *p; p++)
		if ((p == args || isspace((unsigned char)p[-1])) && !strncmp(p, "if", 2) &&
		    (!p[2] || isspace((unsigned char)p[2]) || p[2] == '(')) {
			at = p;
			break;
		}
	*cond = NULL;
	snprintf(spec, size, "%.*s", at ? (int)(at - args) : (int)strlen(args), args);
	for (size_t n = strlen(spec); n && isspace((unsigned char)spec[n - 1]);)
		spec[--n] = 0;
	if (at) {
		for (at += 2; isspace((unsigned char)*at); at++)
			;
		*cond = at;
	}
}

int cli_replay_cmd_break(struct cli_session *s, const char *args, const struct command *c)
{
	uint64_t addrs[REPLAY_FRONTEND_MAX_ADDRS], pc;
	struct replay_symbol sym;
	const char *cond;
	char spec[512];
	int n, number;

	split_if(args, spec, sizeof(spec), &cond);
	if (!*spec) {
		if (replay_frontend_where(s->f, &pc, &sym) == -ENODATA) {
			fprintf(stderr, "No default breakpoint address now.\n");
			return -1;
		}
		snprintf(spec, sizeof(spec), "*0x%" PRIx64, pc);
	}
	n = replay_frontend_resolve(s->f, spec, addrs, REPLAY_FRONTEND_MAX_ADDRS);
	if (n == -EINVAL) {
		fprintf(stderr, "Malformed location \"%s\".\n", spec);
		return -1;
	}
	if (n == -E2BIG) {
		fprintf(stderr, "%s: more than %d locations.\n", spec, REPLAY_FRONTEND_MAX_ADDRS);
		return -1;
	}
	if (n <= 0) {
		fprintf(stderr, n == 0 ? "Function \"%s\" not defined.\n" : "%s: out of memory\n",
			spec);
		return -1;
	}
	number = replay_frontend_break_add(s->f, spec, addrs, (size_t)n);
	if (number < 0 || (cond && !(find(s, number)->cond = strdup(cond)))) {
		fprintf(stderr, "out of memory\n");
		return -1;
	}
	find(s, number)->temporary = c->arg == CLI_BREAK_TEMPORARY;
	printf("%s %d at 0x%" PRIx64, c->arg == CLI_BREAK_TEMPORARY ? "Temporary breakpoint" :
	       "Breakpoint", number, addrs[0]);
	if (n > 1) /* GDB: the location as typed, and how many */
		printf(": %s. (%d locations)\n", spec, n);
	else if (s->f->sym.lookup(s->f->sym.ctx, addrs[0], &sym) == 0 && sym.file)
		printf(": file %s, line %u.\n", sym.file, sym.line);
	else
		printf("\n");
	return 0;
}

int cli_replay_cmd_enable(struct cli_session *s, const char *args, const struct command *c)
{
	bool on = c->arg == CLI_BREAK_ENABLE;
	int failed = 0;

	if (!strncmp(args, "display", 7) && (!args[7] || args[7] == ' '))
		return cli_replay_display_enable(s, args + 7, on);
	if (!*args)
		return replay_frontend_break_enable(s->f, 0, on) < 0 ? -1 : 0;
	while (*args) {
		long n = number_arg(&args);

		if (n < 0)
			return -1;
		if (replay_frontend_break_enable(s->f, (int)n, on) == -ENOENT) {
			fprintf(stderr, "No breakpoint number %ld.\n", n);
			failed = -1;
		}
	}
	return failed;
}

int cli_replay_cmd_condition(struct cli_session *s, const char *args, const struct command *c)
{
	struct replay_frontend_break *bp;
	char *cond = NULL;
	long n;

	(void)c;
	if (!*args) {
		fprintf(stderr, "Argument required (breakpoint number).\n");
		return -1;
	}
	n = number_arg(&args);
	if (n < 0)
		return -1;
	bp = find(s, n);
	if (!bp) {
		fprintf(stderr, "No breakpoint number %ld.\n", n);
		return -1;
	}
	if (*args && !(cond = strdup(args))) {
		fprintf(stderr, "out of memory\n");
		return -1;
	}
	free(bp->cond);
	bp->cond = cond;
	return 0;
}

int cli_replay_cmd_ignore(struct cli_session *s, const char *args, const struct command *c)
{
	struct replay_frontend_break *bp;
	char *end;
	long n, count;

	(void)c;
	if (!*args) {
		fprintf(stderr, "Argument required (a breakpoint number).\n");
		return -1;
	}
	n = number_arg(&args);
	if (n < 0)
		return -1;
	bp = find(s, n);
	if (!bp) {
		fprintf(stderr, "No breakpoint number %ld.\n", n);
		return -1;
	}
	count = strtol(args, &end, 0);
	if (!*args || *end) {
		fprintf(stderr, "Second argument (specified ignore-count) is missing.\n");
		return -1;
	}
	bp->ignore = count > 0 ? (uint64_t)count : 0;
	if (count <= 0)
		printf("Will stop next time breakpoint %ld is reached.\n", n);
	else if (count == 1)
		printf("Will ignore next crossing of breakpoint %ld.\n", n);
	else
		printf("Will ignore next %ld crossings of breakpoint %ld.\n", count, n);
	return 0;
}

int cli_replay_cmd_delete(struct cli_session *s, const char *args, const struct command *c)
{
	char *end;
	long n = *args ? strtol(args, &end, 10) : 0;
	bool watched;

	(void)c;
	if (!strncmp(args, "display", 7) && (!args[7] || args[7] == ' '))
		return cli_replay_cmd_undisplay(s, args, c);
	if (*args && (*end || n <= 0)) {
		fprintf(stderr, "Convenience variable must have integer value.\n"
			"Args must be numbers or '$' variables.\n");
		return -1;
	}
	watched = cli_replay_watch_delete(s, (int)n);
	if (replay_frontend_break_delete(s->f, (int)n) < 0 && !watched) {
		fprintf(stderr, "No breakpoint number %ld.\n", n);
		return -1;
	}
	return 0;
}

/* What a location is, as GDB's What column says it. */
static void print_what(struct cli_session *s, const struct replay_frontend_break *bp,
		       uint64_t addr)
{
	struct replay_frontend *f = s->f;
	struct replay_symbol sym;
	bool known = f->sym.lookup(f->sym.ctx, addr, &sym) == 0 && sym.function;

	if (known && sym.file)
		printf("in %s at %s:%u\n", sym.function, sym.file, sym.line);
	else if (known) /* no lines: GDB's <func+off> */
		printf("<%s+%" PRIu64 ">\n", sym.function, addr - sym.start);
	else
		printf("%s\n", bp->spec);
}

/* One breakpoint's lines of info breakpoints: with several locations,
 * GDB's <MULTIPLE> line, then one line each (N.1, N.2, ...). */
static void info_break(struct cli_session *s, const struct replay_frontend_break *bp)
{
	printf("%-7d breakpoint     %-4s %c   ", bp->number, bp->temporary ? "del" : "keep",
	       bp->enabled ? 'y' : 'n');
	if (bp->naddrs > 1) {
		printf("%-18s \n", "<MULTIPLE>");
	} else {
		printf("0x%016" PRIx64 " ", bp->naddrs ? bp->addrs[0] : 0);
		print_what(s, bp, bp->naddrs ? bp->addrs[0] : 0);
	}
	if (bp->cond)
		printf("\tstop only if %s\n", bp->cond);
	if (bp->hits)
		printf("\tbreakpoint already hit %" PRIu64 " time%s\n", bp->hits,
		       bp->hits == 1 ? "" : "s");
	if (bp->ignore)
		printf("\tignore next %" PRIu64 " hits\n", bp->ignore);
	for (size_t k = 0; bp->naddrs > 1 && k < bp->naddrs; k++) {
		char num[32];

		snprintf(num, sizeof(num), "%d.%zu", bp->number, k + 1);
		printf("%-28s%c   0x%016" PRIx64 " ", num, 'y', bp->addrs[k]);
		print_what(s, bp, bp->addrs[k]);
	}
}

int cli_replay_info_breaks(struct cli_session *s)
{
	if (!s->f->nbreaks) {
		if (!cli_replay_info_watches(s, true))
			printf("No breakpoints or watchpoints.\n");
		return 0;
	}
	printf("Num     Type           Disp Enb Address            What\n");
	for (size_t i = 0; i < s->f->nbreaks; i++)
		info_break(s, &s->f->breaks[i]);
	cli_replay_info_watches(s, false);
	/* GDB's $_: the last breakpoint's address */
	for (size_t i = s->f->nbreaks; i--;)
		if (s->f->breaks[i].naddrs) {
			replay_frontend_set_last_address(s->f, s->f->breaks[i].addrs[0]);
			break;
		}
	return 0;
}

int cli_replay_report_break(struct cli_session *s)
{
	struct replay_frontend_break *bp = find(s, s->f->stopped_break);
	int number = bp ? bp->number : 0;
	bool temporary = bp && bp->temporary;

	if (bp && bp->cond_error[0]) {
		fflush(stdout);
		fprintf(stderr, "Error in testing breakpoint condition:\n%s\n", bp->cond_error);
	}
	printf("\n%s %d, ", temporary ? "Temporary breakpoint" : "Breakpoint", number);
	cli_replay_print_location(s, NULL, true, false);
	/* every temporary one that said stop here goes (GDB's disposition del) */
	for (size_t i = 0; i < s->f->nbreaks;) {
		bp = &s->f->breaks[i];
		if (bp->temporary && bp->stopped)
			replay_frontend_break_delete(s->f, bp->number);
		else
			i++;
	}
	return 0;
}
