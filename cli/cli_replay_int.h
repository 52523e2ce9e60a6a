/*
 * cli/cli_replay_int.h: what the files of `hindsight replay` share: the
 * session and the command table's entry. Each group of commands lives in
 * a file of its own (cli_replay_*.c) and is listed in cli_replay.c's one
 * table; calls go one way, from the table down through the command files
 * to the report of a stop (cli_replay_stop.c) and the printer
 * (cli_replay_out.c), which every file prints with.
 */
#ifndef HINDSIGHT_CLI_REPLAY_INT_H
#define HINDSIGHT_CLI_REPLAY_INT_H

#include <stdbool.h>

#include "replay/frontend/frontend_report.h"  /* struct replay_source, struct replay_symbol */

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

#endif
