/*
 * cli/cli_replay.c: `hindsight replay`, a debugger's front end over a
 * recording.
 *
 *   hindsight replay RECORDING [--batch] [-ex CMD]... [-x FILE]...
 *
 * GDB's command names and output where GDB has the same thing (docs/
 * replay-cli.md): stepping both ways at instruction and source level,
 * breakpoints, continue both ways, backtraces unwound from the recorded
 * registers and memory (replay/decode/unwind.h), registers and memory of the
 * past, history and calls listings, threads, C (replay/frontend/frontend_vars.h).
 * The session and its moves are replay/frontend/frontend.h; this file reads
 * commands (readline when interactive: history, completion of commands
 * and of the functions in the recorded calls), dispatches them through one
 * table, and prints; groups of commands live in cli_replay_*.c (break,
 * frame, print, last, watch, display, disas, solib, until).
 *
 * Ctrl-C (SIGINT sets a flag the front end and the cursor read) stops what
 * runs as GDB does: a move (continue, step, next, finish, stepi and their
 * reverses) ends with "Program stopped." and the location, anything else
 * (building the call structure, a history, calls or x listing) with
 * "Quit"; at the prompt it prints "Quit" and gives a new, empty prompt. It
 * never ends the program: in --batch the next command runs, as in
 * `gdb -batch`.
 */
#include "cli/cli_record.h"
#include "cli/cli_replay.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "cli/cli_history.h"
#include "cli/cli_replay_break.h"
#include "cli/cli_replay_disas.h"
#include "cli/cli_replay_display.h"
#include "cli/cli_replay_frame.h"
#include "cli/cli_replay_int.h"
#include "cli/cli_replay_last.h"
#include "cli/cli_replay_out.h"
#include "cli/cli_replay_print.h"
#include "cli/cli_replay_solib.h"
#include "cli/cli_replay_stop.h"
#include "cli/cli_replay_watch.h"
#include "protocol/rsp_buf.h"
#include "protocol/rsp_regs.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_report.h"
#include "replay/target/replay_monitor.h"

#define MAX_SCRIPT 64
#define BT_MAX 256              /* frames bt shows at most */

static struct cli_session *cli_replay_completing;

void cli_replay_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight replay RECORDING [--batch] [-ex CMD]... [-x FILE]...\n"
		"                        [--image-dir DIR]...\n"
		"\n"
		"Debug a recording (a hindsight bundle, an LLDB trace bundle or an\n"
		"import) with GDB's commands, forward and backward: break, continue,\n"
		"step, next, finish, stepi, nexti and their reverse-* forms, bt,\n"
		"print and x of registers and memory, info registers, history, calls,\n"
		"goto, list, thread. `help` in the session lists them.\n"
		"\n"
		"Options:\n"
		"  -ex CMD              run CMD (in order with -x)\n"
		"  -x FILE              run the commands in FILE\n"
		"  --batch              exit after the -ex / -x commands (status 1 if\n"
		"                       one of them failed)\n"
		"  --image-dir DIR      also look for the recording's images here (by\n"
		"                       build-id, then by name; repeatable)\n"
		"  -h, --help           show this help\n"
		"\n"
		"See docs/replay-cli.md.\n");
}

/* ---- commands --------------------------------------------------------- */

enum { FWD = 0, REV = 1 };

/* Between the N moves of `stepi N` / `step N`: Ctrl-C ends the series. */
static int next_of_series(int r)
{
	return r == REPLAY_FRONTEND_DONE && cli_replay_interrupted ? REPLAY_FRONTEND_INTERRUPTED : r;
}

static int cmd_stepi(struct cli_session *s, const char *args, const struct command *c)
{
	long n = *args ? strtol(args, NULL, 0) : 1;
	const char *prev = cli_replay_current_function(s);
	int r = REPLAY_FRONTEND_DONE;

	if ((c->arg & 2) && cli_replay_need_calls(s) < 0)
		return -1;
	for (long i = 0; i < n && r == REPLAY_FRONTEND_DONE; i++)
		r = next_of_series(replay_frontend_stepi(s->f, c->arg & REV, (c->arg & 2) != 0));
	/* GDB shows the address unless the pc starts a row of the line table */
	return cli_replay_report_stop(s, r, prev, !cli_replay_starts_line(s));
}

static int cmd_step(struct cli_session *s, const char *args, const struct command *c)
{
	long n = *args ? strtol(args, NULL, 0) : 1;
	const char *prev = cli_replay_current_function(s);
	int r = REPLAY_FRONTEND_DONE;

	if (cli_replay_need_calls(s) < 0)
		return -1;
	for (long i = 0; i < n && r == REPLAY_FRONTEND_DONE; i++)
		r = next_of_series(replay_frontend_step(s->f, c->arg & REV, (c->arg & 2) != 0));
	return cli_replay_report_stop(s, r, prev, false);
}

static int cmd_finish(struct cli_session *s, const char *args, const struct command *c)
{
	unsigned up;
	int r;

	(void)args;
	if (cli_replay_need_calls(s) < 0)
		return -1;
	/* out of the selected frame (cli_replay_frame.c) */
	if (cli_replay_finish_from(s, c->arg & REV, &up) < 0)
		return -1;
	fflush(stdout);
	r = up && !(c->arg & REV) ?
	    replay_frontend_finish_frame(s->f, replay_frontend_frame_selected(s->f)) :
	    replay_frontend_finish(s->f, c->arg & REV);
	if (r == -ENODATA) {
		fprintf(stderr, "\"finish\" not meaningful here: the history has no call structure.\n");
		return -1;
	}
	return cli_replay_report_stop(s, r, NULL, r == REPLAY_FRONTEND_DONE &&
				      !cli_replay_starts_line(s));
}

/* The stop is in another thread than the move's: GDB says so first. */
static void report_switch(struct cli_session *s, size_t from)
{
	if (s->f->current != from)
		printf("[Switching to thread %zu (Thread %" PRId64 ".%" PRId64 ")]\n",
		       s->f->current + 1, s->f->b->pid, replay_frontend_tid(s->f));
}

static int cmd_continue(struct cli_session *s, const char *args, const struct command *c)
{
	size_t from = s->f->current;
	int r;

	(void)args;
	printf("%s.\n", c->arg & REV ? "Continuing backward" : "Continuing");
	fflush(stdout);
	r = cli_replay_watch_continue(s, c->arg & REV);
	if (r >= 0)
		report_switch(s, from);
	return cli_replay_report_stop(s, r, NULL, false);
}

static int cmd_goto(struct cli_session *s, const char *args, const struct command *c)
{
	uint64_t n;
	char *end;

	(void)c;
	if (!strcmp(args, "begin") || !strcmp(args, "start")) {
		n = 1;
	} else if (!strcmp(args, "end")) {
		n = replay_frontend_size(s->f) + 1;
	} else {
		errno = 0;
		n = strtoull(args, &end, 0);
		if (!*args || errno || *end) {
			fprintf(stderr, "goto: expected a position, begin or end, got '%s'.\n", args);
			return -1;
		}
	}
	if (replay_frontend_goto(s->f, n) < 0) {
		fprintf(stderr, "Target insn not found (the history has positions 1 to %" PRIu64 ").\n",
			replay_frontend_size(s->f) + 1);
		return -1;
	}
	printf("#0  ");
	cli_replay_print_location(s, NULL, true, false);
	return 0;
}

static int cmd_delete(struct cli_session *s, const char *args, const struct command *c)
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

/* The stack from the recorded calls, for a recording without registers
 * (hardware traces, LLDB bundles, imports): what GDB's record btrace
 * shows, wrong after a longjmp or a signal handler. */
static int bt_from_calls(struct cli_session *s, long max)
{
	struct replay_frontend_call_frame frames[64];
	bool more;
	int n = replay_frontend_call_stack(s->f, frames, max > 0 && max < 64 ? (size_t)max : 64,
					   &more);

	if (n == -ESRCH) {
		fprintf(stderr, "No stack (the position is in a gap).\n");
		return -1;
	}
	if (n == -ECANCELED)
		return cli_replay_report_quit();
	if (n < 0) {
		fprintf(stderr, "No stack: %s.\n", strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		printf("#%-2d ", i);
		/* frame 0 shows its address when mid-line, as GDB's does */
		if (i || !cli_replay_starts_line(s))
			printf("0x%016" PRIx64 " in ", frames[i].pc);
		cli_replay_print_func(&frames[i].sym);
		putchar('\n');
	}
	if (more)
		printf("(More stack frames follow...)\n");
	return 0;
}

static int cmd_bt(struct cli_session *s, const char *args, const struct command *c)
{
	struct replay_frame frames[BT_MAX];
	struct replay_unwind_end end;
	long max = *args ? strtol(args, NULL, 0) : BT_MAX;
	char stopped[200];
	int n;

	(void)c;
	n = replay_frontend_backtrace(s->f, frames, max > 0 && max < BT_MAX ? (size_t)max : BT_MAX,
				      &end);
	if (n == -ENODATA)
		return bt_from_calls(s, max);
	if (n == -ESRCH) {
		fprintf(stderr, "No stack (the history does not know the pc here).\n");
		return -1;
	}
	if (n == -ERANGE) {
		fprintf(stderr, "No stack: the registers are not known here (the state log was "
			"cut short before this position).\n");
		return -1;
	}
	if (n < 0) {
		fprintf(stderr, "No stack: %s.\n", strerror(-n));
		return -1;
	}
	cli_replay_print_frame_lines(s, frames, n, 0, 0);
	if (end.stop == REPLAY_UNWIND_MORE)
		printf("(More stack frames follow...)\n");
	else if (replay_unwind_end_text(&end, stopped, sizeof(stopped)))
		printf("%s\n", stopped);
	return 0;
}

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
static int cmd_x(struct cli_session *s, const char *args, const struct command *c)
{
	static char fmt = 'x', unit = 'w';
	char ch[8];
	long count = 1;
	uint64_t addr;

	(void)c;
	if (*args == '/') {
		char *end;

		args++;
		count = isdigit((unsigned char)*args) ? strtol(args, &end, 10) : 1;
		if (isdigit((unsigned char)*args))
			args = end;
		for (; *args && *args != ' '; args++) {
			if (strchr("bhwg", *args))
				unit = *args;
			else if (strchr("xduocis", *args))
				fmt = *args;
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
	if (fmt == 'i' || fmt == 's') {
		/* GDB's layout, shared with display/i (cli_replay_display.c) */
		uint64_t bad;
		int rc = cli_replay_examine(s, fmt, 'b', (int)count, addr, &bad);

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
	if (fmt == 's' || fmt == 'c')
		unit = 'b';
	{
		unsigned size = unit == 'b' ? 1 : unit == 'h' ? 2 : unit == 'w' ? 4 : 8;
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
			if (fmt == 'x')
				printf("0x%0*" PRIx64, (int)size * 2, val);
			else if (fmt == 'u')
				printf("%" PRIu64, val);
			else if (fmt == 'c')
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

static int cmd_info_regs(struct cli_session *s, const char *args)
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

static int cmd_thread(struct cli_session *s, const char *args, const struct command *c)
{
	(void)c;
	return cli_replay_thread(s, args);
}

/* `info record` through the monitor's command. */
static int monitor(struct cli_session *s, const char *cmd)
{
	struct replay_monitor_ctx m = { s->f->b, s->f->cur, s->f->current, &s->f->sym, s->f->st,
					 s->f->tl };
	struct rsp_buf out;
	int rc;

	rsp_buf_init(&out);
	rc = replay_monitor_run(&m, cmd, &out);
	if (rc == 0 && out.len)
		fwrite(out.data, 1, out.len, stdout);
	rsp_buf_release(&out);
	if (rc < 0)
		fprintf(stderr, "%s: %s\n", cmd, strerror(-rc));
	return rc < 0 ? -1 : 0;
}

#define LISTING_SIZE 10

/* A listing's arguments: the range into @range, the modifiers into @o.
 * 0, or -1 after GDB's message. */
static int listing_args(const char *args, bool calls, char *range, size_t size,
			struct replay_history_opts *o)
{
	char buf[512], *save = NULL, *w, bad = 0;

	snprintf(buf, sizeof(buf), "%s", args);
	memset(o, 0, sizeof(*o));
	range[0] = 0;
	for (w = strtok_r(buf, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		size_t len = strlen(range);

		if (w[0] != '/')
			snprintf(range + len, size - len, "%s", w);
		else if (replay_history_modifiers(w, calls, o, &bad) < 0) {
			fprintf(stderr, "Invalid modifier: %c.\n", bad);
			return -1;
		}
	}
	return 0;
}

/* Items @begin .. @end of the current thread, printed as they are decoded
 * (a big range is printed whole; Ctrl-C stops it). */
static int list_history(struct cli_session *s, const struct replay_history_opts *o, uint64_t begin,
			uint64_t end)
{
	int rc = replay_frontend_history(s->f, o, begin, end, stdout);

	if (rc == -ECANCELED)
		return cli_replay_report_quit();
	if (rc < 0) {
		fprintf(stderr, "history: %s.\n", strerror(-rc));
		return -1;
	}
	return 0;
}

/* history [RANGE] [/m /s /r /f /p] and calls [RANGE] [/i /l /c]: GDB's
 * record instruction-history and function-call-history. */
static int cmd_history(struct cli_session *s, const char *args, const struct command *c)
{
	uint64_t size = replay_frontend_size(s->f), pos = replay_frontend_position(s->f), begin, end;
	struct replay_history_opts o;
	const struct replay_calls *calls;
	char range[512], msg[160];
	int rc;

	if (listing_args(args, c->arg, range, sizeof(range), &o) < 0)
		return -1;
	if (!c->arg) {
		if (replay_history_range(range, LISTING_SIZE, size, pos > size ? size : pos, &begin,
					 &end, msg, sizeof(msg)) < 0) {
			fprintf(stderr, "%s\n", msg);
			return -1;
		}
		return list_history(s, &o, begin, end);
	}
	rc = replay_frontend_calls(s->f, &calls);
	if (rc == -ECANCELED)
		return cli_replay_report_quit();
	if (rc < 0) {
		fprintf(stderr, "calls: %s.\n", strerror(-rc));
		return -1;
	}
	if (replay_history_range(range, LISTING_SIZE, calls->n, calls->n, &begin, &end, msg,
				 sizeof(msg)) < 0) {
		fprintf(stderr, "%s\n", msg);
		return -1;
	}
	for (uint64_t i = begin; i <= end && !cli_replay_interrupted; i++)
		replay_history_print_segment(stdout, &o, i, &calls->segs[i - 1]);
	return cli_replay_interrupted ? cli_replay_report_quit() : 0;
}

static int cmd_info(struct cli_session *s, const char *args, const struct command *c)
{
	const char *rest = args + strcspn(args, " ");
	size_t n = (size_t)(rest - args);

	(void)c;
	while (*rest == ' ')
		rest++;
	if (n && !strncmp(args, "record", n))
		return monitor(s, "record-info");
	if (n && !strncmp(args, "breakpoints", n))
		return cli_replay_info_breaks(s);
	if (n && (!strncmp(args, "registers", n) || !strncmp(args, "all-registers", n)))
		return cmd_info_regs(s, rest);
	if (n && !strncmp(args, "threads", n))
		return cli_replay_info_threads(s);
	if (n && !strncmp(args, "frame", n))
		return cli_replay_info_frame(s, rest);
	if (n && !strncmp(args, "locals", n))
		return cli_replay_info_vars(s, false);
	if (n && !strncmp(args, "args", n))
		return cli_replay_info_vars(s, true);
	if (n && !strncmp(args, "display", n))
		return cli_replay_info_display(s);
	if (n && !strncmp(args, "line", n))
		return cli_replay_info_line(s, rest);
	if (n && (!strncmp(args, "sharedlibrary", n) || !strncmp(args, "dll", n)))
		return cli_replay_info_sharedlibrary(s, rest);
	fprintf(stderr, "Undefined info command: \"%s\".  Try \"help info\".\n", args);
	return -1;
}

static int cmd_list(struct cli_session *s, const char *args, const struct command *c)
{
	uint64_t addrs[REPLAY_FRONTEND_MAX_ADDRS]; /* the first (lowest) of them is listed */
	struct replay_symbol sym;
	uint64_t pc;
	unsigned first;

	(void)c;
	if (*args) {
		if (replay_frontend_resolve(s->f, args, addrs, REPLAY_FRONTEND_MAX_ADDRS) <= 0 ||
		    s->f->sym.lookup(s->f->sym.ctx, addrs[0], &sym) < 0 || !sym.file) {
			fprintf(stderr, "Function \"%s\" not defined.\n", args);
			return -1;
		}
		s->list_file = sym.file;
		s->list_line = sym.line > 5 ? sym.line - 5 : 1;
	} else if (!s->list_line) {
		if (replay_frontend_where(s->f, &pc, &sym) < 0 || !sym.file) {
			fprintf(stderr, "No symbol table is loaded.  Use the \"file\" command.\n");
			return -1;
		}
		s->list_file = sym.file;
		s->list_line = sym.line > 5 ? sym.line - 5 : 1;
	}
	first = s->list_line;
	for (unsigned l = first; l < first + 10; l++) {
		size_t len;
		const char *text = replay_source_line(&s->src, s->list_file, l, &len);

		if (!text && l == first && !s->src.text) {
			/* GDB's words for a source not on this machine */
			fprintf(stderr, "%u\t%s: No such file or directory.\n", l, s->list_file);
			return -1;
		}
		if (!text && l == first) {
			fprintf(stderr, "Line number %u out of range; \"%s\" has %zu lines.\n", l,
				s->list_file, s->src.nlines);
			return -1;
		}
		if (!text)
			break;
		printf("%u\t%.*s\n", l, (int)len, text);
		s->list_line = l + 1;
	}
	return 0;
}

static int cmd_quit(struct cli_session *s, const char *args, const struct command *c)
{
	(void)args;
	(void)c;
	s->quit = true;
	return 0;
}

/* GDB's echo: the text with C escapes (\n \t \\ \" \a \e \0NN), no
 * newline of its own; scripts use it to mark their output. */
static int cmd_echo(struct cli_session *s, const char *args, const struct command *c)
{
	static const char esc[] = "ntvbfra\\\"'e", val[] = "\n\t\v\b\f\r\a\\\"'\033";

	(void)s;
	(void)c;
	for (const char *p = args; *p; p++) {
		const char *e;

		if (*p != '\\' || !p[1]) {
			if (*p != '\\')
				putchar(*p);
			continue;
		}
		p++;
		if (*p >= '0' && *p <= '7') {
			int v = 0;

			for (int i = 0; i < 3 && *p >= '0' && *p <= '7'; i++)
				v = v * 8 + *p++ - '0';
			p--;
			putchar(v);
		} else {
			e = strchr(esc, *p);
			putchar(e ? val[e - esc] : *p);
		}
	}
	return 0;
}

static int cmd_help(struct cli_session *s, const char *args, const struct command *c);

static const struct command commands[] = {
	{ "break", "b", cli_replay_cmd_break, 0, "break FUNC | FILE:LINE | LINE | *ADDR [if COND]  set a breakpoint" },
	{ "tbreak", NULL, cli_replay_cmd_break, CLI_BREAK_TEMPORARY, "tbreak LOCATION [if COND]  a breakpoint deleted once it stops" },
	{ "enable", NULL, cli_replay_cmd_enable, CLI_BREAK_ENABLE, "enable [N...]       enable breakpoints (all without N)" },
	{ "disable", NULL, cli_replay_cmd_enable, CLI_BREAK_DISABLE, "disable [N...]      disable breakpoints (all without N)" },
	{ "condition", NULL, cli_replay_cmd_condition, 0, "condition N [EXPR]  stop at breakpoint N only if EXPR is nonzero" },
	{ "ignore", NULL, cli_replay_cmd_ignore, 0, "ignore N COUNT      do not stop at breakpoint N the next COUNT times" },
	{ "watch", NULL, cli_replay_cmd_watch, 0, "watch [-l] *PTR[@N]  stop where a write changes it (both directions)" },
	{ "rwatch", NULL, cli_replay_cmd_watch, 1, "rwatch              (reads are not recorded: refused)" },
	{ "awatch", NULL, cli_replay_cmd_watch, 2, "awatch              (reads are not recorded: refused)" },
	{ "delete", "d", cmd_delete, 0, "delete [N]          delete breakpoint N (all without N)" },
	{ "continue", "c", cmd_continue, FWD, "continue            run forward to a breakpoint or the end" },
	{ "reverse-continue", "rc", cmd_continue, REV, "reverse-continue    run backward to a breakpoint or the beginning" },
	{ "step", "s", cmd_step, FWD, "step [N]            to the next line, into calls" },
	{ "next", "n", cmd_step, FWD | 2, "next [N]            to the next line, over calls" },
	{ "stepi", "si", cmd_stepi, FWD, "stepi [N]           one instruction" },
	{ "nexti", "ni", cmd_stepi, FWD | 2, "nexti [N]           one instruction, over calls" },
	{ "finish", "fin", cmd_finish, FWD, "finish              until the current function returns" },
	{ "reverse-step", "rs", cmd_step, REV, "reverse-step [N]    back to the previous line, into calls" },
	{ "reverse-next", "rn", cmd_step, REV | 2, "reverse-next [N]    back to the previous line, over calls" },
	{ "reverse-stepi", "rsi", cmd_stepi, REV, "reverse-stepi [N]   one instruction back" },
	{ "reverse-nexti", "rni", cmd_stepi, REV | 2, "reverse-nexti [N]   one instruction back, over calls" },
	{ "until", "u", cli_replay_cmd_advance, 0, "until [LOCATION]    next, not back in a loop; or to LOCATION in this frame" },
	{ "advance", NULL, cli_replay_cmd_advance, 1, "advance LOCATION    forward to LOCATION in any frame, or until this one returns" },
	{ "reverse-finish", NULL, cmd_finish, REV, "reverse-finish      back to the call of the current function" },
	{ "goto", NULL, cmd_goto, 0, "goto N | begin | end  move to position N of the history" },
	{ "backtrace", "bt", cmd_bt, 0, "backtrace [N]       the call stack, unwound at the position" },
	{ "where", NULL, cmd_bt, 0, "where               the same as backtrace" },
	{ "frame", "f", cli_replay_cmd_frame, CLI_FRAME_SELECT, "frame [N]           select frame N and show it" },
	{ "up", NULL, cli_replay_cmd_frame, CLI_FRAME_UP, "up [N]              select the frame N levels up" },
	{ "down", "do", cli_replay_cmd_frame, CLI_FRAME_DOWN, "down [N]            select the frame N levels down" },
	{ "last", NULL, cli_replay_cmd_last, 0, "last [*PTR[@N] | $REG]  back to what last wrote it (again: the write before)" },
	{ "origin", NULL, cli_replay_cmd_origin, 0, "origin              where the address the instruction here uses came from" },
	{ "print", "p", cli_replay_cmd_print, CLI_PRINT_PRINT, "print[/FMT] [EXPR]  a C expression in the selected frame: locals, globals, $rax, $1" },
	{ "output", NULL, cli_replay_cmd_print, CLI_PRINT_OUTPUT, "output[/FMT] EXPR   its value alone, no newline" },
	{ "ptype", NULL, cli_replay_cmd_print, CLI_PRINT_PTYPE, "ptype EXPR | TYPE   the type, spelled out" },
	{ "whatis", NULL, cli_replay_cmd_print, CLI_PRINT_WHATIS, "whatis EXPR | TYPE  the type's name" },
	{ "display", NULL, cli_replay_cmd_display, 0, "display[/FMT] [EXPR]  show EXPR after every stop (all again without one)" },
	{ "undisplay", NULL, cli_replay_cmd_undisplay, 0, "undisplay [N...]    stop showing display N (all without N)" },
	{ "disassemble", NULL, cli_replay_cmd_disassemble, 0, "disassemble [/r /s /m] [FUNC | ADDR | START,END | START,+LEN]  the function's instructions" },
	{ "x", NULL, cmd_x, 0, "x/NFU ADDR          memory: N units (b h w g) as x d u c i" },
	{ "info", "i", cmd_info, 0, "info record | breakpoints | registers [REG...] | threads | frame | locals | args | line LOC" },
	{ "history", NULL, cmd_history, 0, "history [RANGE] [/m /s /r /f /p]  record instruction-history" },
	{ "calls", NULL, cmd_history, 1, "calls [RANGE] [/i /l /c]  record function-call-history" },
	{ "list", "l", cmd_list, 0, "list [FUNC | FILE:LINE]  source around the position" },
	{ "thread", NULL, cmd_thread, 0, "thread [N]          switch to thread N" },
	{ "echo", NULL, cmd_echo, 0, "echo TEXT           print TEXT (C escapes: \\n)" },
	{ "help", "h", cmd_help, 0, "help                this list" },
	{ "quit", "q", cmd_quit, 0, "quit                leave" },
};

#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static int cmd_help(struct cli_session *s, const char *args, const struct command *c)
{
	(void)s;
	(void)args;
	(void)c;
	printf("Commands (GDB's names; aliases in parentheses):\n");
	for (size_t i = 0; i < NCOMMANDS; i++)
		printf("  %s%s%s%s\n    %s\n", commands[i].name, commands[i].alias ? " (" : "",
		       commands[i].alias ? commands[i].alias : "", commands[i].alias ? ")" : "",
		       commands[i].help);
	printf("print and x take registers ($rax, $pc, $sp, $eax ...), numbers, + and -,\n"
	       "casts to scalar types and pointers, and * (not C variables).\n");
	return 0;
}

/* The command named by @word: exact name, alias, or a unique prefix. */
static const struct command *find_command(const char *word, size_t n)
{
	const struct command *hit = NULL;
	int hits = 0;

	for (size_t i = 0; i < NCOMMANDS; i++) {
		if ((strlen(commands[i].name) == n && !strncmp(commands[i].name, word, n)) ||
		    (commands[i].alias && strlen(commands[i].alias) == n &&
		     !strncmp(commands[i].alias, word, n)))
			return &commands[i];
		if (!strncmp(commands[i].name, word, n)) {
			hit = &commands[i];
			hits++;
		}
	}
	return hits == 1 ? hit : NULL;
}

/* Runs one command line: 0, or -1 after an error message. */
static int run_line(struct cli_session *s, const char *line)
{
	char buf[1024], *p, *end;
	const struct command *c;
	size_t n;
	int rc;

	snprintf(buf, sizeof(buf), "%s", line);
	for (p = buf; isspace((unsigned char)*p); p++)
		;
	end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		*--end = 0;
	if (!*p || *p == '#')
		return 0;
	n = strcspn(p, " /");
	c = find_command(p, n);
	if (!c) {
		fprintf(stderr, "Undefined command: \"%.*s\".  Try \"help\".\n", (int)n, p);
		return -1;
	}
	p += n;
	while (*p == ' ')
		p++;
	cli_replay_interrupted = 0;
	rc = c->run(s, p, c);
	fflush(stdout);
	return rc;
}

/* ---- reading commands -------------------------------------------------- */

static int run_file(struct cli_session *s, const char *path)
{
	char line[1024];
	FILE *f = fopen(path, "re");
	int failed = 0;

	if (!f) {
		fprintf(stderr, "%s: %s.\n", path, strerror(errno));
		return -1;
	}
	while (!s->quit && fgets(line, sizeof(line), f))
		failed |= run_line(s, line) < 0;
	fclose(f);
	return failed ? -1 : 0;
}

static void on_sigint(int sig)
{
	(void)sig;
	cli_replay_interrupted = 1;
}

/* Ctrl-C at the prompt, as GDB: "Quit" after what was typed, then a new
 * empty prompt. Readline calls this once it has handled the signal (its
 * own handler passes it on to on_sigint) and goes on reading. */
static int on_prompt_signal(void)
{
	if (!cli_replay_interrupted)
		return 0;
	cli_replay_interrupted = 0;
	rl_point = rl_end;
	rl_redisplay();
	fputs("Quit\n", rl_outstream ? rl_outstream : stdout);
	rl_replace_line("", 0);
	rl_on_new_line();
	rl_redisplay();
	return 0;
}

/* The commands starting with @text (the first word of the line). */
static char *complete_command(const char *text, int state)
{
	static size_t i;
	size_t len = strlen(text);

	if (!state)
		i = 0;
	for (; i < NCOMMANDS; i++)
		if (!strncmp(commands[i].name, text, len))
			return strdup(commands[i++].name);
	return NULL;
}

/* The functions of the recorded calls starting with @text, each once. */
static char *complete_function(const char *text, int state)
{
	static size_t seg;
	const struct replay_calls *calls;
	size_t len = strlen(text);

	if (!state)
		seg = 0;
	if (!cli_replay_completing ||
	    replay_frontend_calls(cli_replay_completing->f, &calls) < 0)
		return NULL;
	for (; seg < calls->n; seg++) {
		const char *fn = calls->segs[seg].function;
		bool dup = false;

		if (!fn || strncmp(fn, text, len))
			continue;
		for (size_t k = 0; k < seg && !dup; k++)
			dup = calls->segs[k].function && !strcmp(calls->segs[k].function, fn);
		if (!dup)
			return strdup(calls->segs[seg++].function);
	}
	return NULL;
}

/* Tab: a command for the first word, else a function name. Building the
 * call structure for the names can take minutes on a long history: Ctrl-C
 * comes to on_sigint meanwhile (readline would only note it until the
 * next key), which stops the build; then the completion is dropped and
 * the prompt starts anew, as after Ctrl-C at the prompt. */
static char **complete(const char *text, int start, int end)
{
	struct sigaction ours, theirs;
	char **m;

	(void)end;
	rl_attempted_completion_over = 1;
	if (start == 0)
		return rl_completion_matches(text, complete_command);
	memset(&ours, 0, sizeof(ours));
	ours.sa_handler = on_sigint;
	ours.sa_flags = SA_RESTART;
	sigemptyset(&ours.sa_mask);
	sigaction(SIGINT, &ours, &theirs);
	m = rl_completion_matches(text, complete_function);
	sigaction(SIGINT, &theirs, NULL);
	if (!cli_replay_interrupted)
		return m;
	for (size_t i = 0; m && m[i]; i++)
		free(m[i]);
	free(m);
	on_prompt_signal();
	return NULL;
}

static int interactive(struct cli_session *s)
{
	bool tty = isatty(STDIN_FILENO);
	char line[1024], *l;
	int failed = 0;

	cli_replay_completing = s;
	rl_readline_name = "hindsight";
	rl_attempted_completion_function = complete;
	if (tty) {
		rl_signal_event_hook = on_prompt_signal;
		rl_initialize();
		/* GDB shows no ^C before its "Quit". */
		rl_variable_bind("echo-control-characters", "off");
	}
	while (!s->quit) {
		fflush(stdout);
		if (tty) {
			l = readline("(hindsight) ");
			if (!l)
				break;
			if (*l)
				add_history(l);
			s->from_tty = true;
			failed = run_line(s, l) < 0;
			s->from_tty = false;
			free(l);
		} else {
			if (!fgets(line, sizeof(line), stdin))
				break;
			failed = run_line(s, line) < 0;
		}
	}
	if (tty && !s->quit)
		printf("quit\n");
	return failed;
}

/* ---- the command line -------------------------------------------------- */

struct replay_args {
	const char *dir;
	bool batch;
	const char *script[MAX_SCRIPT]; /* "-ex" then CMD, or "-x" then FILE, in order */
	bool is_file[MAX_SCRIPT];
	size_t n;
	const char *image_dirs[REPLAY_REPORT_IMAGE_DIRS_MAX];  /* --image-dir */
	size_t nimage_dirs;
};

/* GDB's single-dash options, so not getopt: 0, 1 for --help, 2 (after a
 * message) for a bad command line. */
static int parse(int argc, char **argv, struct replay_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];

		if (!strcmp(o, "-h") || !strcmp(o, "--help"))
			return 1;
		if (!strcmp(o, "--batch") || !strcmp(o, "-batch")) {
			a->batch = true;
		} else if (!strcmp(o, "-ex") || !strcmp(o, "--ex") || !strcmp(o, "-x") ||
			   !strcmp(o, "--x")) {
			if (i + 1 >= argc) {
				fprintf(stderr, "hindsight: %s wants an argument\n", o);
				return 2;
			}
			if (a->n == MAX_SCRIPT) {
				fprintf(stderr, "hindsight: at most %d -ex and -x; put the commands "
					"in a file for -x\n", MAX_SCRIPT);
				return 2;
			}
			a->is_file[a->n] = strstr(o, "x") && !strstr(o, "ex");
			a->script[a->n++] = argv[++i];
		} else if (!strcmp(o, "--image-dir")) {
			if (i + 1 >= argc || a->nimage_dirs == REPLAY_REPORT_IMAGE_DIRS_MAX) {
				fprintf(stderr, "hindsight: --image-dir needs a directory (at most %d)\n",
					REPLAY_REPORT_IMAGE_DIRS_MAX);
				return 2;
			}
			a->image_dirs[a->nimage_dirs++] = argv[++i];
		} else if (o[0] == '-' && o[1]) {
			fprintf(stderr, "hindsight: unknown option '%s'\nTry 'hindsight replay --help'.\n", o);
			return 2;
		} else if (!a->dir) {
			a->dir = o;
		} else {
			fprintf(stderr, "hindsight: replay takes one recording ('%s' is a second)\n", o);
			return 2;
		}
	}
	if (!a->dir) {
		fprintf(stderr, "hindsight: replay wants a recording\nTry 'hindsight replay --help'.\n");
		return 2;
	}
	return 0;
}

int cli_replay_main(int argc, char **argv)
{
	struct replay_args a;
	struct cli_session s;
	struct sigaction sa;
	char err[512] = "";
	int rc = parse(argc, argv, &a), failed = 0;

	if (rc == 1) {
		cli_replay_usage(stdout);
		return 0;
	}
	if (rc)
		return rc;
	memset(&s, 0, sizeof(s));
	replay_report_image_dirs(a.image_dirs, a.nimage_dirs);
	if (cli_rebuild_pending(a.dir) < 0)
		return 1;
	rc = replay_frontend_open(a.dir, &s.f, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "hindsight: cannot open the recording %s: %s\n", a.dir,
			err[0] ? err : strerror(-rc));
		return 1;
	}
	cli_say_notes(s.f->b);
	s.f->interrupt = &cli_replay_interrupted;
	/* Ctrl-C only sets the flag: reads and writes go on (SA_RESTART). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	/* Where it stands, as GDB says when it connects. */
	cli_replay_print_location(&s, NULL, true, !cli_replay_starts_line(&s));
	for (size_t i = 0; i < a.n && !s.quit; i++)
		failed |= (a.is_file[i] ? run_file(&s, a.script[i]) : run_line(&s, a.script[i])) < 0;
	if (!a.batch && !s.quit)
		failed = interactive(&s);
	fflush(stdout);
	replay_source_release(&s.src);
	cli_replay_display_free();
	replay_frontend_free(s.f);
	return failed ? 1 : 0;
}
