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
 * and of the functions in the recorded calls) and dispatches them through
 * one table; the commands live in cli_replay_*.c (move, break, frame,
 * print, x, list, last, watch, display, disas, solib, until), which call
 * down to the report of a stop (cli_replay_stop.c) and the printer
 * (cli_replay_out.c), never back up here.
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
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

#include "replay/frontend/cexpr.h"
#include "cli/cli_history.h"
#include "cli/cli_replay_break.h"
#include "cli/cli_replay_disas.h"
#include "cli/cli_replay_display.h"
#include "cli/cli_replay_frame.h"
#include "cli/cli_replay_int.h"
#include "cli/cli_replay_last.h"
#include "cli/cli_replay_list.h"
#include "cli/cli_replay_move.h"
#include "cli/cli_replay_out.h"
#include "cli/cli_replay_print.h"
#include "cli/cli_replay_solib.h"
#include "replay/frontend/frontend_break.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_history.h"
#include "replay/frontend/frontend_insn.h"
#include "replay/frontend/frontend_line.h"
#include "replay/frontend/frontend_vars.h"
#include "cli/cli_replay_watch.h"
#include "cli/cli_replay_x.h"
#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_report.h"
#include "replay/target/replay_monitor.h"

#define MAX_SCRIPT 64

/* The session Tab completes in: readline's completion functions take no
 * argument of ours, so it is the one file-wide pointer left. */
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
		return cli_replay_info_registers(s, rest);
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
	{ "delete", "d", cli_replay_cmd_delete, 0, "delete [N]          delete breakpoint N (all without N)" },
	{ "continue", "c", cli_replay_cmd_continue, CLI_MOVE_FWD, "continue            run forward to a breakpoint or the end" },
	{ "reverse-continue", "rc", cli_replay_cmd_continue, CLI_MOVE_REV, "reverse-continue    run backward to a breakpoint or the beginning" },
	{ "step", "s", cli_replay_cmd_step, CLI_MOVE_FWD, "step [N]            to the next line, into calls" },
	{ "next", "n", cli_replay_cmd_step, CLI_MOVE_FWD | CLI_MOVE_OVER, "next [N]            to the next line, over calls" },
	{ "stepi", "si", cli_replay_cmd_stepi, CLI_MOVE_FWD, "stepi [N]           one instruction" },
	{ "nexti", "ni", cli_replay_cmd_stepi, CLI_MOVE_FWD | CLI_MOVE_OVER, "nexti [N]           one instruction, over calls" },
	{ "finish", "fin", cli_replay_cmd_finish, CLI_MOVE_FWD, "finish              until the current function returns" },
	{ "reverse-step", "rs", cli_replay_cmd_step, CLI_MOVE_REV, "reverse-step [N]    back to the previous line, into calls" },
	{ "reverse-next", "rn", cli_replay_cmd_step, CLI_MOVE_REV | CLI_MOVE_OVER, "reverse-next [N]    back to the previous line, over calls" },
	{ "reverse-stepi", "rsi", cli_replay_cmd_stepi, CLI_MOVE_REV, "reverse-stepi [N]   one instruction back" },
	{ "reverse-nexti", "rni", cli_replay_cmd_stepi, CLI_MOVE_REV | CLI_MOVE_OVER, "reverse-nexti [N]   one instruction back, over calls" },
	{ "until", "u", cli_replay_cmd_advance, 0, "until [LOCATION]    next, not back in a loop; or to LOCATION in this frame" },
	{ "advance", NULL, cli_replay_cmd_advance, 1, "advance LOCATION    forward to LOCATION in any frame, or until this one returns" },
	{ "reverse-finish", NULL, cli_replay_cmd_finish, CLI_MOVE_REV, "reverse-finish      back to the call of the current function" },
	{ "goto", NULL, cli_replay_cmd_goto, 0, "goto N | begin | end  move to position N of the history" },
	{ "backtrace", "bt", cli_replay_cmd_bt, 0, "backtrace [N]       the call stack, unwound at the position" },
	{ "where", NULL, cli_replay_cmd_bt, 0, "where               the same as backtrace" },
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
	{ "x", NULL, cli_replay_cmd_x, 0, "x/NFU ADDR          memory: N units (b h w g) as x d u c i" },
	{ "info", "i", cmd_info, 0, "info record | breakpoints | registers [REG...] | threads | frame | locals | args | line LOC" },
	{ "history", NULL, cli_replay_cmd_history, 0, "history [RANGE] [/m /s /r /f /p]  record instruction-history" },
	{ "calls", NULL, cli_replay_cmd_history, 1, "calls [RANGE] [/i /l /c]  record function-call-history" },
	{ "list", "l", cli_replay_cmd_list, 0, "list [FUNC | FILE:LINE]  source around the position" },
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
	cli_replay_display_release(&s);
	cli_replay_watch_release(&s);
	cli_replay_disas_release(&s);
	replay_frontend_free(s.f);
	return failed ? 1 : 0;
}
