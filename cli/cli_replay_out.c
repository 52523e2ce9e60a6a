/*
 * cli/cli_replay_out.c: what the command files of `hindsight replay`
 * print with, as GDB 13 prints it: the position after a stop or a
 * `frame`, a frame's "func (args) at file:line", bt's lines, a source
 * line; GDB's "Quit" after Ctrl-C, whose flag lives here since every
 * file reads it. The lowest file of the REPL: cli_replay.c's table and
 * each command file (cli_replay_*.c) call down into it, it calls none
 * of them, only the session (replay/frontend/frontend.h).
 */
#include "cli/cli_replay_out.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_history.h"
#include "replay/frontend/frontend_insn.h"
#include "replay/frontend/frontend_vars.h"

volatile sig_atomic_t cli_replay_interrupted;

void cli_replay_print_source_line(struct cli_session *s, const char *file, unsigned line)
{
	size_t len;
	const char *text = file ? replay_source_line(&s->src, file, line, &len) : NULL;

	if (text)
		printf("%u\t%.*s\n", line, (int)len, text);
	else if (file)
		printf("%u\tin %s\n", line, file);
}

void cli_replay_print_func(const struct replay_symbol *sym)
{
	printf("%s ()", sym->ninlined ? sym->inlined[0] : sym->function ? sym->function : "??");
	if (sym->file)
		printf(" at %s:%u", sym->file, sym->line);
}

void cli_replay_print_frame_func(struct cli_session *s, const struct replay_symbol *sym,
				 long level)
{
	char *args = level >= 0 ? replay_frontend_frame_args(s->f, (size_t)level) : NULL;

	printf("%s (%s)", sym->ninlined ? sym->inlined[0] : sym->function ? sym->function : "??",
	       args ? args : "");
	free(args);
	if (sym->file)
		printf(" at %s:%u", sym->file, sym->line);
}

/* Where the position is, as GDB shows a stop: "func () at file:line" and
 * the line when the function changed (@always: every time), else the line
 * alone; the address first when mid-line (@with_pc). */
void cli_replay_print_location(struct cli_session *s, const char *prev_function, bool always,
			       bool with_pc)
{
	struct replay_symbol sym;
	uint64_t pc;
	int rc = replay_frontend_where(s->f, &pc, &sym);

	if (rc == -ENODATA) {
		printf(replay_frontend_position(s->f) == replay_frontend_size(s->f) + 1 ?
		       "(the end of the history: the trace does not say where the thread went "
		       "from its last instruction)\n" : "(the position is in a gap: no pc)\n");
		return;
	}
	if (rc < 0 || !sym.function) {
		printf("0x%016" PRIx64 " in ?? ()\n", pc);
		return;
	}
	if (always || !prev_function || strcmp(prev_function, sym.function)) {
		if (with_pc)
			printf("0x%016" PRIx64 " in ", pc);
		cli_replay_print_frame_func(s, &sym, 0);
		putchar('\n');
	} else if (with_pc && sym.file) {
		printf("0x%016" PRIx64 "\t", pc);
	}
	if (sym.file)
		cli_replay_print_source_line(s, sym.file, sym.line);
	else if (!always && prev_function && !strcmp(prev_function, sym.function))
		printf("0x%016" PRIx64 " in %s ()\n", pc, sym.function);
	s->list_line = 0;
}

int cli_replay_print_frame_lines(struct cli_session *s, const struct replay_frame *frames,
				 int n, int from, int level)
{
	for (int i = from; i < n; i++) {
		if (frames[i].kind == REPLAY_FRAME_SIGTRAMP) {
			printf("#%-2d <signal handler called>\n", level++);
			continue;
		}
		/* the functions inlined there first, as GDB shows them */
		for (size_t j = 0; j < replay_frame_levels(&frames[i]); j++) {
			struct replay_symbol ls;

			replay_frame_level(&frames[i], j, &ls);
			printf("#%-2d ", level++);
			if (j == 0 && replay_frame_show_pc(&s->f->sym, frames, (size_t)i))
				printf("0x%016" PRIx64 " in ", frames[i].pc);
			cli_replay_print_frame_func(s, &ls, level - 1);
			putchar('\n');
		}
	}
	return level;
}

/* Whether the pc starts a line, as GDB decides whether a stop shows the
 * address: code without lines never does; else the pc is where a row of
 * the line table starts (replay_pc_starts_line). */
bool cli_replay_starts_line(struct cli_session *s)
{
	return replay_frontend_here_starts_line(s->f);
}

/* GDB's answer to Ctrl-C in anything but a move; the command failed. */
int cli_replay_report_quit(void)
{
	fflush(stdout);
	fprintf(stderr, "Quit\n");
	return -1;
}

/* The call structure the source-level moves need (the first time it is
 * built, which Ctrl-C can stop): 0, or -1 after "Quit". Other failures are
 * left to the moves, which then work without call depths. */
int cli_replay_need_calls(struct cli_session *s)
{
	const struct replay_calls *calls;

	return replay_frontend_calls(s->f, &calls) == -ECANCELED ? cli_replay_report_quit() : 0;
}

const char *cli_replay_current_function(struct cli_session *s)
{
	struct replay_symbol sym;
	uint64_t pc;

	return replay_frontend_where(s->f, &pc, &sym) == 0 ? sym.function : NULL;
}
