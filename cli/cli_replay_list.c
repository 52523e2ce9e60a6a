/*
 * cli/cli_replay_list.c: the listings of `hindsight replay`: history and
 * calls (GDB's record instruction-history and function-call-history, with
 * their ranges and modifiers, replay/frontend/frontend_report.h's; Ctrl-C
 * stops a long one with "Quit") and list (the source around the position
 * or a function, on from where the last one ended). Listed in
 * cli_replay.c's table.
 */
#include "cli/cli_replay_list.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli_replay_out.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_report.h"
#include "replay/frontend/frontend_break.h"
#include "replay/frontend/frontend_history.h"

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
int cli_replay_cmd_history(struct cli_session *s, const char *args, const struct command *c)
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

int cli_replay_cmd_list(struct cli_session *s, const char *args, const struct command *c)
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
