/*
 * cli/cli_replay_out.h: what every command file of `hindsight replay`
 * prints with (cli/cli_replay_out.c): the position as GDB shows a stop,
 * a frame's line, the source line, GDB's "Quit", and the Ctrl-C flag the
 * moves and listings read. The lowest file of the REPL: it calls no other
 * cli_replay_*.c.
 */
#ifndef HINDSIGHT_CLI_REPLAY_OUT_H
#define HINDSIGHT_CLI_REPLAY_OUT_H

#include <signal.h>
#include <stdbool.h>

#include "cli/cli_replay_int.h"

struct replay_frame;

/* Set by SIGINT; the moves and listings read it. */
extern volatile sig_atomic_t cli_replay_interrupted;

/* "12\tthe text" (or "12\tin FILE" when the source is not here). */
void cli_replay_print_source_line(struct cli_session *s, const char *file, unsigned line);
/* "func () at file.c:12", without arguments (the calls' frames). */
void cli_replay_print_func(const struct replay_symbol *sym);
/* "func (a=1, p=0x4052a0, s=...) at file.c:12": @sym's function with the
 * arguments of GDB frame @level (-1: none shown), as GDB's frame lines
 * and stops show them. */
void cli_replay_print_frame_func(struct cli_session *s, const struct replay_symbol *sym,
				 long level);
/* Where the position is, as GDB shows a stop: "func () at file:line" and
 * the line when the function changed (@always: every time), else the line
 * alone; the address first when mid-line (@with_pc). */
void cli_replay_print_location(struct cli_session *s, const char *prev_function, bool always,
			       bool with_pc);
/* bt's lines of @frames[@from..@n), numbered from GDB level @level (a
 * level for each inlined function, one for a signal frame), with their
 * arguments; the next level. */
int cli_replay_print_frame_lines(struct cli_session *s, const struct replay_frame *frames,
				 int n, int from, int level);
/* Whether the pc starts a line (then a stop shows no address). */
bool cli_replay_starts_line(struct cli_session *s);
/* GDB's "Quit"; returns -1. */
int cli_replay_report_quit(void);
/* The call structure the moves need: 0, or -1 after "Quit". */
int cli_replay_need_calls(struct cli_session *s);
/* The current function's name, or NULL. */
const char *cli_replay_current_function(struct cli_session *s);

#endif
