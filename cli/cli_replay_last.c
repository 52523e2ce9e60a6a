/*
 * cli/cli_replay_last.c: `last` (UDB's name), where a value came from.
 *
 *   last *PTR          the bytes PTR points to (its type's size):
 *                      last *(long *)0x404048, last *(int *)($rbp-20)
 *   last *PTR@N        N of them (GDB's artificial array): last *(char *)$rdi@16
 *   last $REG          the instruction that last changed a register
 *   last               on with the previous one: the write before the one
 *                      found, or after a load, the memory it loaded from
 *
 * Memory: the session goes to the instruction that last wrote any of the
 * bytes before the current time, in any thread (as `goto` does: the state
 * before it, memory holding the old value, where GDB's reverse-continue
 * with `watch -l` stops), and says the values before and after, where
 * (function, file:line, the line) and the call stack there. Asked again,
 * it finds the write before that one. A register: the instruction that
 * last changed it; when it loaded the value, from which address, which
 * the next `last` follows. The end of the history is said as such, with
 * the value the bytes had from the recording's start, or from the system
 * call that made them during it (brk's, mmap's zeros).
 *
 * What EXPR names, the write and the register's change are found in
 * replay/frontend/frontend_last.h; here the session moves there and says it.
 */
#include "cli/cli_replay_last.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_replay_out.h"
#include "replay/model/bundle.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_last.h"
#include "replay/frontend/frontend_origin.h"

#define STACK_MAX 16               /* frames shown at a write */

/* The session to position @position of thread @tid, the others to its
 * time. 0 or < 0. */
static int move_to(struct cli_session *s, int64_t tid, uint64_t position)
{
	for (size_t i = 0; i < s->f->nthreads; i++) {
		if (s->f->b->threads[i].tid != tid)
			continue;
		if (i != s->f->current)
			printf("[Switching to thread %zu (Thread %" PRId64 ".%" PRId64 ")]\n",
			       i + 1, s->f->b->pid, tid);
		s->f->current = i;
		return replay_frontend_goto(s->f, position);
	}
	return -ENOENT;
}

/* @n bytes as the value of @t, as GDB prints it. */
void cli_replay_print_target_value(struct cli_session *s, const struct replay_frontend_target *t,
				   const uint8_t *b, size_t n)
{
	char *text = replay_frontend_target_text(s->f, t, b, n);

	if (text)
		fputs(text, stdout);
	free(text);
}

/* " <sym+off>" for an address a symbol covers. The hook for the
 * variables reader: it will name globals and fields (table[2]->next). */
static void print_name(struct cli_session *s, uint64_t addr)
{
	struct replay_symbol sym;

	if (s->f->sym.lookup(s->f->sym.ctx, addr, &sym) == 0 && sym.function)
		printf(" <%s+%" PRIu64 ">", sym.function, addr - sym.start);
}

/* The location (frame 0 with its line) and the outer frames there. */
static void print_stack(struct cli_session *s)
{
	struct replay_frame frames[STACK_MAX];
	struct replay_unwind_end end;
	int n = replay_frontend_backtrace(s->f, frames, STACK_MAX, &end);

	printf("#0  ");
	cli_replay_print_location(s, NULL, true, !cli_replay_starts_line(s));
	cli_replay_print_frame_lines(s, frames, n, 1, 1);
	if (n > 0 && end.stop == REPLAY_UNWIND_MORE)
		printf("(More stack frames follow...)\n");
}

/* How far back the instruction of time @time is from the one about to
 * run after @now, in instructions of every thread. */
static void print_ago(uint64_t now, uint64_t time)
{
	uint64_t d = now >= time ? now + 1 - time : 0;

	printf("%" PRIu64 " instruction%s back", d, d == 1 ? "" : "s");
}

static int last_memory(struct cli_session *s, struct replay_frontend_target *t)
{
	struct replay_frontend_write w;
	uint8_t old[REPLAY_FRONTEND_VALUE_MAX], now_b[REPLAY_FRONTEND_VALUE_MAX];
	bool known;
	int r = replay_frontend_last_write(s->f, t->addr, t->len, &w);

	if (r == -EOPNOTSUPP)
		return fprintf(stderr, "last: the recording has no state log (a hardware trace "
			       "records no writes).\n"), -1;
	if (r == -ENODATA) {
		fprintf(stderr, "last: the state log was cut short: a write after where it ends "
			"cannot be ruled out.\n");
		return -1;
	}
	if (r < 0) {
		struct replay_frontend_mapping m;

		printf("No earlier write to %zu byte%s at 0x%" PRIx64 " in the recording", t->len,
		       t->len == 1 ? "" : "s", t->addr);
		if (replay_frontend_last_mapping(s->f, t->addr, t->len, &m) == 0) {
			if (replay_frontend_read(s->f, t->addr, now_b, t->len) == (int)t->len) {
				printf(": they held ");
				cli_replay_print_target_value(s, t, now_b, t->len);
				printf(" since");
			} else {
				printf(": since");
			}
			printf(" %s gave them, %s, ", m.call ? m.call : "a system call", m.how);
			print_ago(m.now, m.time);
			for (size_t i = 0; i < s->f->nthreads; i++)
				if (s->f->b->threads[i].tid == m.tid)
					printf(" (the system call: thread %zu, position %" PRIu64 ")", i + 1,
					       m.position);
			printf(".\n");
			return 0;
		}
		if (replay_frontend_read(s->f, t->addr, now_b, t->len) == (int)t->len) {
			printf(": they held ");
			cli_replay_print_target_value(s, t, now_b, t->len);
			printf(" from its start.\n");
		} else {
			printf(", and it never saw their value.\n");
		}
		return 0;
	}
	if (move_to(s, w.tid, w.position) < 0) {
		fprintf(stderr, "last: position %" PRIu64 " is not in the history.\n", w.position);
		return -1;
	}
	printf("Last write to %zu byte%s at 0x%" PRIx64, t->len, t->len == 1 ? "" : "s", t->addr);
	print_name(s, t->addr);
	printf(" (%s): ", t->what);
	print_ago(w.now, w.time);
	printf(", thread %zu, position %" PRIu64 "\n", s->f->current + 1, w.position);
	/* the old bytes as memory has them here (the images' for bytes
	 * nothing wrote before), the new ones the write's over them */
	known = replay_frontend_read(s->f, t->addr, old, t->len) == (int)t->len;
	memcpy(now_b, old, t->len);
	for (size_t i = 0; i < t->len; i++)
		if (w.after_known[i])
			now_b[i] = w.after[i];
	printf("Old value = ");
	if (known)
		cli_replay_print_target_value(s, t, old, t->len);
	else
		printf("<not recorded>");
	printf("\nNew value = ");
	if (known)
		cli_replay_print_target_value(s, t, now_b, t->len);
	else
		cli_replay_print_target_value(s, t, w.after, t->len);
	putchar('\n');
	print_stack(s);
	s->last.prev = *t;
	s->last.have_prev = true;
	return 0;
}

static int last_register(struct cli_session *s, struct replay_frontend_target *t)
{
	struct replay_frontend_reg_change m;
	int r = replay_frontend_last_reg(s->f, t->slot, &m);

	if (r == -EOPNOTSUPP)
		return fprintf(stderr, "last: the recording has no registers (no state "
			       "log).\n"), -1;
	if (r == -ENOENT) {
		printf("$%s has held 0x%" PRIx64 " since the thread's first position.\n", m.name,
		       m.after);
		return 0;
	}
	if (r == -ECANCELED)
		return cli_replay_report_quit();
	if (r < 0) {
		fprintf(stderr, "last: the registers are not known here (%s).\n", strerror(-r));
		return -1;
	}
	if (move_to(s, replay_frontend_tid(s->f), m.position) < 0)
		return fprintf(stderr, "last: position %" PRIu64 " is not in the history.\n",
			       m.position), -1;
	printf("$%s last changed: ", m.name);
	if (m.has_time)
		print_ago(m.now, m.time);
	printf(", thread %zu, position %" PRIu64 "\n", s->f->current + 1, m.position);
	if (m.has_insn)
		printf("   0x%016" PRIx64 ":\t%s\n", m.ip, m.text);
	printf("Old value = 0x%" PRIx64 "\nNew value = 0x%" PRIx64 "\n", m.before, m.after);
	if (m.load) {
		printf("Loaded from %u bytes at 0x%" PRIx64, m.mem_len, m.mem_addr);
		print_name(s, m.mem_addr);
		printf(": `last` goes on with them.\n");
		s->last.prev = (struct replay_frontend_target){ .addr = m.mem_addr,
								.len = m.mem_len };
		snprintf(s->last.prev.what, sizeof(s->last.prev.what), "loaded by 0x%" PRIx64, m.ip);
	} else {
		s->last.prev = *t;
	}
	s->last.have_prev = true;
	print_stack(s);
	return 0;
}

int cli_replay_cmd_last(struct cli_session *s, const char *args, const struct command *c)
{
	struct replay_frontend_target t;
	char err[256];

	(void)c;
	if (!*args) {
		if (!s->last.have_prev) {
			fprintf(stderr, "Argument required (expression to follow back: *PTR, "
				"*PTR@N or $REG).\n");
			return -1;
		}
		t = s->last.prev;
	} else if (replay_frontend_target_parse(s->f, args, &t, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return t.reg ? last_register(s, &t) : last_memory(s, &t);
}

int cli_replay_cmd_origin(struct cli_session *s, const char *args, const struct command *c)
{
	(void)args;
	(void)c;
	fflush(stdout);
	return replay_frontend_origin_print(stdout, s->f, false);
}
