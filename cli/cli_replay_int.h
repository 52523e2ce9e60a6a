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
#include <stddef.h>
#include <stdint.h>

#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_last.h"    /* struct replay_frontend_target */
#include "replay/frontend/frontend_report.h"  /* struct replay_source, struct replay_symbol */

struct cli_watch;                  /* cli_replay_watch.c's */
struct cli_display;                /* cli_replay_display.c's */

struct cli_session {
	struct replay_frontend *f;
	struct replay_source src;
	int nvalues;               /* $1, $2, ... */
	unsigned list_line;        /* the next line `list` shows, 0: around the position */
	const char *list_file;
	bool from_tty;             /* the command was typed at the prompt (GDB's from_tty) */
	bool quit;

	/* What the commands keep from one to the next, each part read and
	 * written by the file named alone; all zero in a new session, and
	 * each file's _release frees its part at the end. */
	struct {                   /* cli_replay_watch.c */
		struct cli_watch *v;
		size_t n, cap;
		struct cli_watch *pending;      /* the one the last stop reports */
	} watch;
	struct {                   /* cli_replay_display.c */
		struct cli_display *d;
		size_t n, cap;
		int next;                       /* the last number, which undisplay keeps */
	} displays;
	struct {                   /* cli_replay_last.c */
		struct replay_frontend_target prev;  /* what `last` alone goes on with */
		bool have_prev;
	} last;
	struct {                   /* cli_replay_disas.c */
		char *visited;                  /* GDB's last_source_visited */
		bool visited_error;             /* it could not be read */
		bool line_known;                /* `info line` alone ran, */
		uint64_t line_pc;               /* the selected frame's pc then, */
		unsigned line_next;             /* the line it shows next there */
	} disas;
	struct {                   /* cli_replay_x.c: x's last format and unit */
		char fmt, unit;                 /* 0 before the first x (GDB's x/xw) */
	} x;
};

struct command {
	const char *name;
	const char *alias;         /* or NULL */
	int (*run)(struct cli_session *s, const char *args, const struct command *c);
	int arg;                   /* a command-specific flag */
	const char *help;
};

#endif
