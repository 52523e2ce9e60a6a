/*
 * cli/cli_replay_move.c: the moves of `hindsight replay`, both ways, as
 * GDB 13 makes them: step, next, stepi, nexti, finish, continue and their
 * reverse-* forms, and goto (a position of the history). Each move is the
 * session's (replay/frontend/frontend.h); here are the series (`step N`,
 * which Ctrl-C ends), finish out of the selected frame
 * (cli_replay_frame.c), continue with watchpoints (cli_replay_watch.c),
 * and the report of the stop (cli_replay_stop.c). Listed in cli_replay.c's
 * table.
 */
#include "cli/cli_replay_move.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_replay_frame.h"
#include "cli/cli_replay_out.h"
#include "cli/cli_replay_stop.h"
#include "cli/cli_replay_watch.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_history.h"

/* Between the N moves of `stepi N` / `step N`: Ctrl-C ends the series. */
static int next_of_series(int r)
{
	return r == REPLAY_FRONTEND_DONE && cli_replay_interrupted ? REPLAY_FRONTEND_INTERRUPTED : r;
}

int cli_replay_cmd_stepi(struct cli_session *s, const char *args, const struct command *c)
{
	long n = *args ? strtol(args, NULL, 0) : 1;
	const char *prev = cli_replay_current_function(s);
	int r = REPLAY_FRONTEND_DONE;

	if ((c->arg & CLI_MOVE_OVER) && cli_replay_need_calls(s) < 0)
		return -1;
	for (long i = 0; i < n && r == REPLAY_FRONTEND_DONE; i++)
		r = next_of_series(replay_frontend_stepi(s->f, c->arg & CLI_MOVE_REV,
							 (c->arg & CLI_MOVE_OVER) != 0));
	/* GDB shows the address unless the pc starts a row of the line table */
	return cli_replay_report_stop(s, r, prev, !cli_replay_starts_line(s));
}

int cli_replay_cmd_step(struct cli_session *s, const char *args, const struct command *c)
{
	long n = *args ? strtol(args, NULL, 0) : 1;
	const char *prev = cli_replay_current_function(s);
	int r = REPLAY_FRONTEND_DONE;

	if (cli_replay_need_calls(s) < 0)
		return -1;
	for (long i = 0; i < n && r == REPLAY_FRONTEND_DONE; i++)
		r = next_of_series(replay_frontend_step(s->f, c->arg & CLI_MOVE_REV,
							(c->arg & CLI_MOVE_OVER) != 0));
	return cli_replay_report_stop(s, r, prev, false);
}

int cli_replay_cmd_finish(struct cli_session *s, const char *args, const struct command *c)
{
	unsigned up;
	int r;

	(void)args;
	if (cli_replay_need_calls(s) < 0)
		return -1;
	/* out of the selected frame (cli_replay_frame.c) */
	if (cli_replay_finish_from(s, c->arg & CLI_MOVE_REV, &up) < 0)
		return -1;
	fflush(stdout);
	r = up && !(c->arg & CLI_MOVE_REV) ?
	    replay_frontend_finish_frame(s->f, replay_frontend_frame_selected(s->f)) :
	    replay_frontend_finish(s->f, c->arg & CLI_MOVE_REV);
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

int cli_replay_cmd_continue(struct cli_session *s, const char *args, const struct command *c)
{
	size_t from = s->f->current;
	int r;

	(void)args;
	printf("%s.\n", c->arg & CLI_MOVE_REV ? "Continuing backward" : "Continuing");
	fflush(stdout);
	r = cli_replay_watch_continue(s, c->arg & CLI_MOVE_REV);
	if (r >= 0)
		report_switch(s, from);
	return cli_replay_report_stop(s, r, NULL, false);
}

int cli_replay_cmd_goto(struct cli_session *s, const char *args, const struct command *c)
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
