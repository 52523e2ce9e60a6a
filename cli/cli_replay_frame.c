/*
 * cli/cli_replay_frame.c: `hindsight replay`'s frame commands, as GDB 13
 * prints them: backtrace, frame [N], up [N], down [N], info frame, finish
 * out of the selected frame, until / advance LOCATION; info threads and
 * thread N (the threads that exist at the current time). The selected
 * frame is replay/frontend/frontend_frame.h's (frame 0 after every move); print,
 * x and info registers read its registers.
 */
#include "cli/cli_replay_frame.h"
#include "cli/cli_replay_out.h"
#include "cli/cli_replay_stop.h"
#include "cli/cli_replay_until.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frontend/frontend.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend_break.h"
#include "replay/frontend/frontend_frame.h"
#include "replay/frontend/frontend_vars.h"
#include "replay/frontend/frontend_history.h"

#define BT_MAX 256              /* frames bt shows at most */

/* GDB's complaint for a stack that cannot be had; -1. */
static int no_stack(int rc)
{
	if (rc == -ENODATA)
		fprintf(stderr, "No stack: the recording has no registers (no state log).\n");
	else if (rc == -ERANGE)
		fprintf(stderr, "No stack: the registers are not known here (the state log was "
			"cut short before this position).\n");
	else if (rc == -ESRCH)
		fprintf(stderr, "No stack (the history does not know the pc here).\n");
	else
		fprintf(stderr, "No stack: %s.\n", strerror(-rc));
	return -1;
}

void cli_replay_print_frame_line(struct cli_session *s, const struct replay_frontend_frame *fr,
				 bool source)
{
	if (fr->frame.kind == REPLAY_FRAME_SIGTRAMP) {
		printf("#%-2zu <signal handler called>\n", fr->level);
		return;
	}
	printf("#%-2zu ", fr->level);
	if (fr->show_pc)
		printf("0x%016" PRIx64 " in ", fr->frame.pc);
	if (fr->frame.has_sym) {
		cli_replay_print_frame_func(s, &fr->sym, (long)fr->level);
	} else {
		if (!fr->show_pc)
			printf("0x%016" PRIx64 " in ", fr->frame.pc);
		printf("?? ()");
	}
	putchar('\n');
	if (source && fr->frame.has_sym && fr->sym.file)
		cli_replay_print_source_line(s, fr->sym.file, fr->sym.line);
	s->list_line = 0;
}

/* Selects @level (GDB's relative moves clamp at the edges) and prints it. */
static int select_and_print(struct cli_session *s, size_t level)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	int rc;

	if (!fr)
		return no_stack(-ENOMEM);
	rc = replay_frontend_frame_select(s->f, level);
	if (rc == 0)
		rc = replay_frontend_frame_get(s->f, level, fr);
	if (rc == -ENOENT)
		fprintf(stderr, "No frame at level %zu.\n", level);
	else if (rc < 0)
		no_stack(rc);
	else
		cli_replay_print_frame_line(s, fr, true);
	free(fr);
	return rc < 0 ? -1 : 0;
}

/* A count argument: @def when empty; false after GDB's message. */
static bool count_arg(const char *args, long def, long *out)
{
	char *end;

	*out = def;
	if (!*args)
		return true;
	*out = strtol(args, &end, 0);
	if (*end || *out < 0) {
		fprintf(stderr, "Invalid number \"%s\".\n", args);
		return false;
	}
	return true;
}

/* The outermost level there is: the last a get succeeds for. */
static size_t top_level(struct cli_session *s, size_t from, size_t want)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	size_t level = from;

	while (fr && level < want && replay_frontend_frame_get(s->f, level + 1, fr) == 0)
		level++;
	free(fr);
	return level;
}

int cli_replay_cmd_frame(struct cli_session *s, const char *args, const struct command *c)
{
	size_t cur = replay_frontend_frame_selected(s->f);
	long n;

	if (!count_arg(args, -1, &n))
		return -1;
	switch (c->arg) {
	case CLI_FRAME_UP:
		if (!*args)
			n = 1;
		/* a count past the edge stops there; no count, an error */
		if (top_level(s, cur, cur + (size_t)n) == cur && n && !*args) {
			fprintf(stderr, "Initial frame selected; you cannot go up.\n");
			return -1;
		}
		return select_and_print(s, top_level(s, cur, cur + (size_t)n));
	case CLI_FRAME_DOWN:
		if (!*args)
			n = 1;
		if (cur == 0 && n && !*args) {
			fprintf(stderr, "Bottom (innermost) frame selected; you cannot go down.\n");
			return -1;
		}
		return select_and_print(s, (size_t)n > cur ? 0 : cur - (size_t)n);
	default:
		return select_and_print(s, n < 0 ? cur : (size_t)n);
	}
}

/* The stack from the recorded calls, for a recording without registers
 * (hardware traces, LLDB bundles, imports): what GDB's record btrace
 * shows, wrong after a longjmp or a signal handler. */
static int bt_from_calls(struct cli_session *s, long max)
{
	struct replay_frontend_call_frame frames[64];
	bool more;
	int n = replay_frontend_call_stack(s->f, frames, max > 0 && max < 64 ? (size_t)max : 64,
					   &more);

	if (n == -ESRCH) {
		fprintf(stderr, "No stack (the position is in a gap).\n");
		return -1;
	}
	if (n == -ECANCELED)
		return cli_replay_report_quit();
	if (n < 0) {
		fprintf(stderr, "No stack: %s.\n", strerror(-n));
		return -1;
	}
	for (int i = 0; i < n; i++) {
		printf("#%-2d ", i);
		/* frame 0 shows its address when mid-line, as GDB's does */
		if (i || !cli_replay_starts_line(s))
			printf("0x%016" PRIx64 " in ", frames[i].pc);
		cli_replay_print_func(&frames[i].sym);
		putchar('\n');
	}
	if (more)
		printf("(More stack frames follow...)\n");
	return 0;
}

int cli_replay_cmd_bt(struct cli_session *s, const char *args, const struct command *c)
{
	struct replay_frame frames[BT_MAX];
	struct replay_unwind_end end;
	long max = *args ? strtol(args, NULL, 0) : BT_MAX;
	char stopped[200];
	int n;

	(void)c;
	n = replay_frontend_backtrace(s->f, frames, max > 0 && max < BT_MAX ? (size_t)max : BT_MAX,
				      &end);
	if (n == -ENODATA)
		return bt_from_calls(s, max);
	if (n == -ESRCH) {
		fprintf(stderr, "No stack (the history does not know the pc here).\n");
		return -1;
	}
	if (n == -ERANGE) {
		fprintf(stderr, "No stack: the registers are not known here (the state log was "
			"cut short before this position).\n");
		return -1;
	}
	if (n < 0) {
		fprintf(stderr, "No stack: %s.\n", strerror(-n));
		return -1;
	}
	cli_replay_print_frame_lines(s, frames, n, 0, 0);
	if (end.stop == REPLAY_UNWIND_MORE)
		printf("(More stack frames follow...)\n");
	else if (replay_unwind_end_text(&end, stopped, sizeof(stopped)))
		printf("%s\n", stopped);
	return 0;
}

/* " Saved registers:" of info frame, in GDB's register order (rax rbx
 * rcx rdx rsi rdi rbp, r8 .. r15, rip; rsp never); the DWARF numbers of
 * that order. */
static void print_saved(const struct replay_frame *f)
{
	/* GDB's order (its numbering) of the DWARF registers a frame saves. */
	static const unsigned order[] = { 0, 3, 2, 1, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
	int count = 0;

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		unsigned i = order[k];

		if (!(f->saved_mask & (1u << i)))
			continue;
		printf("%s %s at 0x%" PRIx64, count++ ? "," : " Saved registers:\n ",
		       replay_unwind_reg_name(i), f->saved_at[i]);
	}
	if (count)
		putchar('\n');
}

/* " rip = PC in F (FILE:LINE); saved rip = CALLER" */
static void print_rip_line(struct cli_session *s, const struct replay_frontend_frame *fr)
{
	const struct replay_frame *f = &fr->frame;
	uint64_t caller;

	printf(" rip = 0x%" PRIx64, f->pc);
	if (f->kind == REPLAY_FRAME_SIGTRAMP && f->has_sym && f->sym.function)
		printf(" in %s", f->sym.function);
	else if (f->kind != REPLAY_FRAME_SIGTRAMP && f->has_sym && fr->sym.function)
		printf(" in %s", fr->sym.function);
	if (f->kind != REPLAY_FRAME_SIGTRAMP && f->has_sym && fr->sym.file)
		printf(" (%s:%u)", fr->sym.file, fr->sym.line);
	printf("; saved rip = ");
	if (fr->has_caller)
		printf("0x%" PRIx64 "\n", fr->caller_pc);
	else if ((f->saved_mask & (1u << REPLAY_UNWIND_RIP)) &&
		 replay_frontend_read(s->f, f->saved_at[REPLAY_UNWIND_RIP], &caller, 8) == 8)
		printf("0x%" PRIx64 "\n", caller);
	else
		printf("<not saved>\n");
}

/* " called by frame at X, caller of frame at Y" */
static void print_neighbours(const struct replay_frontend_frame *fr)
{
	size_t levels = replay_frame_levels(&fr->frame);
	bool inlined = fr->inline_level + 1 < levels, called = inlined || fr->has_caller;
	bool caller_of = fr->level > 0;

	if (inlined)
		printf(" inlined into frame %zu", fr->level + 1);
	else if (fr->has_caller)
		printf(" called by frame at 0x%" PRIx64, fr->caller_cfa);
	if (called && caller_of)
		putchar(',');
	/* the frame below: an inlined level's is this very frame's */
	if (caller_of)
		printf(" caller of frame at 0x%" PRIx64,
		       fr->inline_level ? fr->frame.cfa : fr->callee_cfa);
	if (called || caller_of)
		putchar('\n');
}

static int info_frame(struct cli_session *s)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	const struct replay_frame *f;
	int rc = fr ? replay_frontend_frame_get(s->f, replay_frontend_frame_selected(s->f), fr) :
		 -ENOMEM;

	if (rc < 0) {
		free(fr);
		return no_stack(rc);
	}
	f = &fr->frame;
	printf("Stack level %zu, frame at 0x%" PRIx64 ":\n", fr->level, f->cfa);
	print_rip_line(s, fr);
	print_neighbours(fr);
	if (f->kind != REPLAY_FRAME_SIGTRAMP && f->has_sym && fr->sym.file)
		printf(" source language %s.\n", strstr(fr->sym.file, ".c") ? "c" : "unknown");
	/* GDB's amd64 frame base finds none for a signal frame */
	if (f->has_base && f->kind != REPLAY_FRAME_SIGTRAMP) {
		char *args = replay_frontend_frame_args(s->f, fr->level);

		printf(" Arglist at 0x%" PRIx64 ", args: %s\n Locals at 0x%" PRIx64 ",", f->base,
		       args ? args : "", f->base);
		free(args);
	} else
		printf(" Arglist at unknown address.\n Locals at unknown address,");
	if (f->kind == REPLAY_FRAME_SIGTRAMP && (f->saved_mask & (1u << 7)))
		printf(" Previous frame's sp at 0x%" PRIx64 "\n", f->saved_at[7]);
	else
		printf(" Previous frame's sp is 0x%" PRIx64 "\n", f->cfa);
	print_saved(f);
	free(fr);
	return 0;
}

int cli_replay_info_frame(struct cli_session *s, const char *args)
{
	(void)args;
	return info_frame(s);
}

int cli_replay_finish_from(struct cli_session *s, bool reverse, unsigned *up)
{
	struct replay_frontend_frame *fr = malloc(sizeof(*fr));
	size_t level = replay_frontend_frame_selected(s->f);
	int rc = fr ? replay_frontend_frame_get(s->f, level, fr) : -ENOMEM;

	*up = 0;
	if (rc < 0) {
		/* no registers: frame 0 from the history alone, as before */
		struct replay_symbol sym;
		uint64_t pc;

		free(fr);
		if (level == 0 && replay_frontend_where(s->f, &pc, &sym) == 0) {
			printf("Run %s #0  ", reverse ? "back to call of" : "till exit from");
			cli_replay_print_func(&sym);
			putchar('\n');
		}
		return level == 0 ? 0 : no_stack(rc);
	}
	if (fr->frame.kind == REPLAY_FRAME_SIGTRAMP || fr->outermost) {
		fprintf(stderr, "\"finish\" not meaningful in the outermost frame.\n");
		free(fr);
		return -1;
	}
	/* GDB's reverse-finish goes back to the call of the current
	 * function whatever frame is selected (finish_backward) */
	*up = reverse ? 0 : (unsigned)fr->index;
	if (rc == 0) {
		printf("Run %s ", reverse ? "back to call of" : "till exit from");
		cli_replay_print_frame_line(s, fr, false);
	}
	free(fr);
	return rc;
}

int cli_replay_cmd_advance(struct cli_session *s, const char *args, const struct command *c)
{
	uint64_t addrs[REPLAY_FRONTEND_MAX_ADDRS];
	int n, r;

	if (!*args && !c->arg)
		return cli_replay_until_next(s);  /* cli_replay_until.c */
	if (!*args) {
		fprintf(stderr, "Argument required (a location).\n");
		return -1;
	}
	n = replay_frontend_resolve(s->f, args, addrs, REPLAY_FRONTEND_MAX_ADDRS);
	if (n == -EINVAL) {
		fprintf(stderr, "Malformed location \"%s\".\n", args);
		return -1;
	}
	if (n <= 0) {
		fprintf(stderr, n == 0 ? "Function \"%s\" not defined.\n" : "%s: out of memory\n",
			args);
		return -1;
	}
	r = replay_frontend_advance(s->f, addrs, (size_t)n, c->arg == 0);
	return cli_replay_report_stop(s, r, NULL, r == REPLAY_FRONTEND_DONE &&
				      !cli_replay_starts_line(s));
}

/* --- threads --- */

int cli_replay_info_threads(struct cli_session *s)
{
	struct replay_frontend *f = s->f;
	size_t cur = f->current;

	printf("  Id   Target Id                     Frame \n");
	for (size_t i = 0; i < f->nthreads; i++) {
		struct replay_symbol sym;
		uint64_t pc;

		bool exited = replay_frontend_thread_exited(f, i);

		if (!exited && !replay_frontend_thread_exists(f, i))
			continue; /* created later in the recording */
		f->current = i;
		printf("%c %-4zu Thread %" PRId64 ".%" PRId64 " %-9s", i == cur ? '*' : ' ', i + 1,
		       f->b->pid, f->b->threads[i].tid, exited ? "(exited)" : "");
		if (replay_frontend_where(f, &pc, &sym) == 0 && sym.function) {
			cli_replay_print_func(&sym);
			putchar('\n');
		} else {
			printf("(no pc here)\n");
		}
	}
	f->current = cur;
	return 0;
}

int cli_replay_thread(struct cli_session *s, const char *args)
{
	char *end;
	long n;

	if (!*args) {
		printf("[Current thread is %zu (Thread %" PRId64 ".%" PRId64 ")]\n",
		       s->f->current + 1, s->f->b->pid, replay_frontend_tid(s->f));
		return 0;
	}
	n = strtol(args, &end, 10);
	/* (A thread that has exited is still there to look at, at its end.) */
	if (*end || n < 1 || (size_t)n > s->f->nthreads ||
	    !(replay_frontend_thread_exists(s->f, (size_t)n - 1) ||
	      replay_frontend_thread_exited(s->f, (size_t)n - 1))) {
		fprintf(stderr, "Invalid thread ID: %s\n", args);
		return -1;
	}
	s->f->current = (size_t)n - 1;
	s->f->frame = 0;
	printf("[Switching to thread %ld (Thread %" PRId64 ".%" PRId64 ")]\n#0  ", n, s->f->b->pid,
	       replay_frontend_tid(s->f));
	cli_replay_print_location(s, NULL, true, false);
	return 0;
}
