/*
 * cli/cli_replay_watch.c: write watchpoints in `hindsight replay`, in
 * both directions, from the state log (it has every write).
 *
 *   watch [-l | -location] EXPR   EXPR's bytes (*PTR, *PTR@N, as `last`
 *                                 takes them: an address, so -l changes
 *                                 nothing until C expressions come)
 *   rwatch / awatch               refused: reads are not recorded
 *
 * A watchpoint is a point of the timeline (replay_frontend_watch), numbered
 * with the breakpoints. continue and reverse-continue stop at the nearest
 * write to a watched range, in any thread; as GDB does, a write that
 * leaves the value as it was (the value at the last stop) does not stop,
 * and the stop says the old and the new value: forward the position after
 * the write, backward the writing instruction (memory still holds its old
 * value, which GDB calls the new one: it is the value now).
 */
#include "cli/cli_replay_watch.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_replay_last.h"
#include "cli/cli_replay_out.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_last.h"

struct cli_watch {
	int number;
	struct replay_frontend_target t;
	bool location;             /* -l */
	uint8_t val[REPLAY_FRONTEND_VALUE_MAX]; /* the value at the last stop */
	bool known;
	uint64_t hits;
};

/* The value of @w now into @buf; whether it is known. */
static bool read_value(struct cli_session *s, const struct cli_watch *w, uint8_t *buf)
{
	return replay_frontend_read(s->f, w->t.addr, buf, w->t.len) == (int)w->t.len;
}

static int add(struct cli_session *s, const struct replay_frontend_target *t, bool location)
{
	struct cli_watch *w;
	int number = s->f->next_break + 1, r;

	if (s->watch.n == s->watch.cap) {
		size_t cap = s->watch.cap ? s->watch.cap * 2 : 4;
		struct cli_watch *nw = realloc(s->watch.v, cap * sizeof(*nw));

		if (!nw)
			return -ENOMEM;
		s->watch.v = nw;
		s->watch.cap = cap;
	}
	r = replay_frontend_watch(s->f, t, number, true);
	if (r < 0)
		return r;
	s->f->next_break = number;
	w = &s->watch.v[s->watch.n++];
	memset(w, 0, sizeof(*w));
	w->number = number;
	w->t = *t;
	w->location = location;
	w->known = read_value(s, w, w->val);
	return number;
}

int cli_replay_cmd_watch(struct cli_session *s, const char *args, const struct command *c)
{
	struct replay_frontend_target t;
	bool location = false;
	char err[256];
	int n;

	if (c->arg) {
		fprintf(stderr, "Cannot %s: the recording logs every write but no read, so a "
			"read watchpoint cannot be answered (watch EXPR stops at writes).\n",
			c->arg == 1 ? "rwatch" : "awatch");
		return -1;
	}
	if (!strncmp(args, "-location ", 10) || !strncmp(args, "-l ", 3)) {
		location = true;
		args = strchr(args, ' ');
		while (*args == ' ')
			args++;
	}
	if (!*args) {
		fprintf(stderr, "Argument required (expression to compute).\n");
		return -1;
	}
	if (replay_frontend_target_parse(s->f, args, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	if (t.reg) {
		fprintf(stderr, "Cannot watch a register in the past: `last %s` finds what "
			"changed it.\n", args);
		return -1;
	}
	n = add(s, &t, location);
	if (n == -EOPNOTSUPP) {
		fprintf(stderr, "Cannot watch: the recording has no state log (a hardware trace "
			"records no writes).\n");
		return -1;
	}
	if (n < 0) {
		fprintf(stderr, "watch: %s.\n", strerror(-n));
		return -1;
	}
	printf("Hardware watchpoint %d: %s%s\n", n, location ? "-location " : "", args);
	return 0;
}

/* The first watchpoint whose value the last move changed, or NULL. */
static struct cli_watch *changed(struct cli_session *s)
{
	uint8_t now[REPLAY_FRONTEND_VALUE_MAX];

	for (size_t i = 0; i < s->watch.n; i++) {
		struct cli_watch *w = &s->watch.v[i];
		bool known = read_value(s, w, now);

		if (known != w->known || (known && memcmp(now, w->val, w->t.len)))
			return w;
	}
	return NULL;
}

int cli_replay_watch_continue(struct cli_session *s, bool reverse)
{
	for (;;) {
		int r = replay_frontend_continue(s->f, reverse);

		if (r != REPLAY_FRONTEND_WATCH)
			return r;
		s->watch.pending = changed(s);
		if (s->watch.pending)
			return r;
		if (cli_replay_interrupted)
			return REPLAY_FRONTEND_INTERRUPTED;
	}
}

int cli_replay_report_watch(struct cli_session *s)
{
	struct cli_watch *w = s->watch.pending;
	uint8_t now[REPLAY_FRONTEND_VALUE_MAX];
	bool known;

	if (!w) { /* not ours (deleted meanwhile): where it is */
		cli_replay_print_location(s, NULL, true, !cli_replay_starts_line(s));
		return 0;
	}
	known = read_value(s, w, now);
	printf("\nHardware watchpoint %d: %s%s\n\nOld value = ", w->number,
	       w->location ? "-location " : "", w->t.what);
	if (w->known)
		cli_replay_print_target_value(s, &w->t, w->val, w->t.len);
	else
		printf("<unreadable>");
	printf("\nNew value = ");
	if (known)
		cli_replay_print_target_value(s, &w->t, now, w->t.len);
	else
		printf("<unreadable>");
	putchar('\n');
	memcpy(w->val, now, w->t.len);
	w->known = known;
	w->hits++;
	s->watch.pending = NULL;
	cli_replay_print_location(s, NULL, true, !cli_replay_starts_line(s));
	return 0;
}

size_t cli_replay_info_watches(struct cli_session *s, bool header)
{
	if (header && s->watch.n)
		printf("Num     Type           Disp Enb Address            What\n");
	for (size_t i = 0; i < s->watch.n; i++) {
		const struct cli_watch *w = &s->watch.v[i];

		printf("%-7d hw watchpoint  keep y                      %s%s\n", w->number,
		       w->location ? "-location " : "", w->t.what);
		if (w->hits)
			printf("\tbreakpoint already hit %" PRIu64 " time%s\n", w->hits,
			       w->hits == 1 ? "" : "s");
	}
	return s->watch.n;
}

bool cli_replay_watch_delete(struct cli_session *s, int n)
{
	bool found = false;

	for (size_t i = 0; i < s->watch.n;) {
		struct cli_watch *w = &s->watch.v[i];

		if (n && w->number != n) {
			i++;
			continue;
		}
		replay_frontend_watch(s->f, &w->t, w->number, false);
		if (s->watch.pending == w)
			s->watch.pending = NULL;
		memmove(w, w + 1, (s->watch.n - i - 1) * sizeof(*w));
		s->watch.n--;
		found = true;
	}
	if (!s->watch.n)
		cli_replay_watch_release(s);
	return found;
}

void cli_replay_watch_release(struct cli_session *s)
{
	free(s->watch.v);
	s->watch.v = s->watch.pending = NULL;
	s->watch.n = s->watch.cap = 0;
}
