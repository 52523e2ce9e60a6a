/*
 * cli/cli_replay_stop.c: what a move of `hindsight replay` ended with, as
 * GDB 13 says it (a breakpoint, a watched write, either end of the
 * history, a gap, Ctrl-C, or the new location), then the auto-displays.
 * The moves of cli_replay_move.c, cli_replay_frame.c and
 * cli_replay_until.c call it; it calls down into the files that say
 * their own stops (cli_replay_break.c, cli_replay_watch.c,
 * cli_replay_display.c) and the printer (cli_replay_out.c).
 */
#include "cli/cli_replay_stop.h"

#include <stdio.h>
#include <string.h>

#include "cli/cli_replay_break.h"
#include "cli/cli_replay_display.h"
#include "cli/cli_replay_out.h"
#include "cli/cli_replay_watch.h"
#include "replay/frontend/frontend.h"

/* What a move ended with, as GDB says it. */
static int report_stop(struct cli_session *s, int r, const char *prev, bool with_pc)
{
	if (r < 0) {
		fprintf(stderr, "%s.\n", strerror(-r));
		return -1;
	}
	switch (r) {
	case REPLAY_FRONTEND_BREAK:
		return cli_replay_report_break(s);  /* cli_replay_break.c */
	case REPLAY_FRONTEND_BEGIN:
		printf("\nNo more reverse-execution history.\n");
		cli_replay_print_location(s, NULL, true, false);
		return 0;
	case REPLAY_FRONTEND_END:
		printf("\nNo more reverse-execution history.\n");
		cli_replay_print_location(s, NULL, true, false);
		return 0;
	case REPLAY_FRONTEND_GAP:
		printf("\nStopped after a gap in the trace.\n");
		cli_replay_print_location(s, NULL, true, false);
		return 0;
	case REPLAY_FRONTEND_WATCH:
		return cli_replay_report_watch(s);
	case REPLAY_FRONTEND_INTERRUPTED:
		/* GDB's words for a replay stopped by Ctrl-C (record btrace),
		 * and its location: the address first unless it starts a
		 * line. */
		if (s->f->nthreads > 1)
			printf("\nThread %zu stopped.\n", s->f->current + 1);
		else
			printf("\nProgram stopped.\n");
		cli_replay_print_location(s, NULL, true, !cli_replay_starts_line(s));
		return 0;
	default:
		cli_replay_print_location(s, prev, false, with_pc);
		return 0;
	}
}

/* What a move ended with, then the auto-displays (cli_replay_display.c). */
int cli_replay_report_stop(struct cli_session *s, int r, const char *prev, bool with_pc)
{
	int rc = report_stop(s, r, prev, with_pc);

	if (r >= 0)
		cli_replay_do_displays(s);
	return rc;
}
