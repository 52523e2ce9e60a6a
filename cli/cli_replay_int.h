/*
 * cli/cli_replay_int.h: what the files of `hindsight replay` share: the
 * session, the command table's entry, and the printing of locations and
 * stops (cli/cli_replay.c). Each group of commands lives in a file of its
 * own (cli_replay_*.c) and is listed in cli_replay.c's one table.
 */
#ifndef HINDSIGHT_CLI_REPLAY_INT_H
#define HINDSIGHT_CLI_REPLAY_INT_H

#include <signal.h>
#include <stdbool.h>

#include "replay/frontend/frontend_report.h"  /* struct replay_source, struct replay_symbol */

struct replay_frame;
struct replay_frontend;

struct cli_session {
	struct replay_frontend *f;
	struct replay_source src;
	int nvalues;               /* $1, $2, ... */
	unsigned list_line;        /* the next line `list` shows, 0: around the position */
	const char *list_file;
	bool from_tty;             /* the command was typed at the prompt (GDB's from_tty) */
	bool quit;
};

struct command {
	const char *name;
	const char *alias;         /* or NULL */
	int (*run)(struct cli_session *s, const char *args, const struct command *c);
	int arg;                   /* a command-specific flag */
	const char *help;
};

/* Set by SIGINT; the moves and listings read it. */
extern volatile sig_atomic_t cli_replay_interrupted;

void cli_replay_print_source_line(struct cli_session *s, const char *file, unsigned line);
void cli_replay_print_func(const struct replay_symbol *sym);
/* Where the position is, as GDB shows a stop (see cli_replay.c). */
void cli_replay_print_location(struct cli_session *s, const char *prev_function, bool always,
			       bool with_pc);
bool cli_replay_starts_line(struct cli_session *s);
/* GDB's "Quit"; returns -1. */
int cli_replay_report_quit(void);
/* The call structure the moves need: 0, or -1 after "Quit". */
int cli_replay_need_calls(struct cli_session *s);
/* The current function's name, or NULL. */
const char *cli_replay_current_function(struct cli_session *s);
/* bt's lines of @frames[@from..@n), numbered from GDB level @level (a
 * level for each inlined function, one for a signal frame), with their
 * arguments; the next level. */
int cli_replay_print_frame_lines(struct cli_session *s, const struct replay_frame *frames,
				 int n, int from, int level);
/* What a move (an enum replay_frontend_stop or < 0) ended with, as GDB
 * says it; 0 or -1. */
int cli_replay_report_stop(struct cli_session *s, int r, const char *prev, bool with_pc);

#endif
