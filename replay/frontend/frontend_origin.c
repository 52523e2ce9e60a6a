/*
 * replay/frontend/frontend_origin.c: a bad address's way back, in words (see frontend_origin.h).
 *
 *   Where the address came from:
 *     the operand 0x10(%rax) = 0x4141414141414151: rax = 0x4141414141414141
 *     rax was loaded at origin.c:101 in walk, 3 instructions before the crash,
 *       from 0x7ffc2a3e1f28 (8 bytes)
 *     which walk wrote at origin.c:101, 12 instructions before the crash, from rax
 *     rax was loaded at origin.c:101 in walk, 14 instructions before the crash,
 *       from 0x55d0c2a1e0c8 (8 bytes)
 *     which __memset_avx2_unaligned_erms wrote, 1,204 instructions before the crash,
 *       called from clobber at origin.c:92, from clobbered at origin.c:110, ...
 *
 * Data addresses are named as C where the load read them (origin_name:
 * "table[2].next, e->next").
 */
#include "replay/frontend/frontend_origin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/decode/explain.h"
#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_vars.h"
#include "replay/decode/provenance.h"
#include "replay/decode/symbols.h"
#include "replay/decode/timeline.h"
#include "replay/decode/unwind.h"

#define CALLERS 4                  /* a writer's callers shown */

struct replay_cursor *replay_frontend_origin_cursor(void *ctx, int64_t tid)
{
	struct replay_frontend *f = ctx;

	for (size_t i = 0; i < f->nthreads; i++)
		if (f->b->threads[i].tid == tid)
			return f->cur[i];
	return NULL;
}

/* @v with thousands separated by commas. */
static const char *count(uint64_t v, char buf[32])
{
	char digits[24];
	int n = snprintf(digits, sizeof(digits), "%" PRIu64, v), k = 0;

	for (int i = 0; i < n; i++) {
		if (i && (n - i) % 3 == 0)
			buf[k++] = ',';
		buf[k++] = digits[i];
	}
	buf[k] = '\0';
	return buf;
}

static const char *base_name(const char *path)
{
	const char *s = path ? strrchr(path, '/') : NULL;

	return s ? s + 1 : path;
}

/* "at FILE:LINE in FUNC", "in FUNC" or "at 0xPC". */
static void print_at(FILE *out, struct replay_frontend *f, uint64_t pc)
{
	struct replay_symbol s;

	if (f->sym.lookup(f->sym.ctx, pc, &s) < 0 || !s.function)
		fprintf(out, "at 0x%" PRIx64, pc);
	else if (s.file)
		fprintf(out, "at %s:%u in %s", base_name(s.file), s.line, s.function);
	else
		fprintf(out, "in %s", s.function);
}

/* ", table[2].next, e->next": the @len bytes at @addr named as C where
 * the instruction at (@tid, @position) read them (replay/frontend/frontend_vars.h:
 * the global they are in, the frames' variables holding or pointing at
 * them). Moves @f there. */
static void origin_name(FILE *out, struct replay_frontend *f, int64_t tid, uint64_t position,
			uint64_t addr, uint64_t len)
{
	char name[512];

	for (size_t i = 0; i < f->nthreads; i++)
		if (f->b->threads[i].tid == tid) {
			f->current = i;
			if (replay_frontend_goto(f, position) == 0 &&
			    replay_frontend_name_address(f, addr, len, name, sizeof(name)) == 0)
				fprintf(out, ", %s", name);
		}
}

/* ", N instructions before the crash" (or "back"): from the instruction of
 * time @t to the one about to run after time @now. */
static void print_ago(FILE *out, uint64_t now, uint64_t t, bool crash)
{
	char buf[32];
	uint64_t d = now >= t ? now + 1 - t : 0;

	fprintf(out, ", %s instruction%s %s", count(d, buf), d == 1 ? "" : "s",
		crash ? "before the crash" : "back");
}

/* The callers of the instruction at (@tid, @position): "called from F at
 * FILE:LINE, from ...". Moves @f there. */
static void print_callers(FILE *out, struct replay_frontend *f, int64_t tid, uint64_t position)
{
	struct replay_frame frames[CALLERS + 1];
	struct replay_unwind_end end;
	int n = -1;

	for (size_t i = 0; i < f->nthreads; i++)
		if (f->b->threads[i].tid == tid) {
			f->current = i;
			if (replay_frontend_goto(f, position) == 0)
				n = replay_frontend_backtrace(f, frames, CALLERS + 1, &end);
		}
	for (int i = 1; i < n; i++) {
		struct replay_symbol s;

		replay_frame_level(&frames[i], 0, &s);
		fprintf(out, "%s %s", i == 1 ? ",\n      called from" : ", from",
			s.function ? s.function : "??");
		if (s.file)
			fprintf(out, " at %s:%u", base_name(s.file), s.line);
	}
	if (n > CALLERS)
		fprintf(out, ", ...");
}

static void print_reg_link(FILE *out, struct replay_frontend *f, const struct replay_prov_link *k,
			   uint64_t now, bool crash)
{
	const struct replay_prov_reg *m = &k->reg;
	const char *name = replay_prov_reg_name(m->slot);
	uint64_t t;

	fprintf(out, "  %s = 0x%" PRIx64 " was %s ", name, m->after,
		k->kind == REPLAY_PROV_LOAD ? "loaded" : k->kind == REPLAY_PROV_MOVE ? "copied" :
		"computed");
	print_at(out, f, m->ip);
	if (replay_state_time_at(f->st, k->tid, m->position + 1, &t) == 0)
		print_ago(out, now, t, crash);
	if (k->kind == REPLAY_PROV_LOAD) {
		fprintf(out, ",\n      from 0x%" PRIx64 " (%u bytes)", m->mem_addr, m->mem_len);
		origin_name(out, f, k->tid, m->position, m->mem_addr, m->mem_len);
	} else if (k->kind == REPLAY_PROV_MOVE) {
		fprintf(out, " from %s", replay_prov_reg_name(m->op.src));
	} else if (m->has_insn) {
		fprintf(out, ": %s", m->text);
		/* arithmetic with a memory operand: not a load of the value */
		if (m->op.has_mem && m->op.reads && m->op.dest == m->slot && m->op.len) {
			fprintf(out, ",\n      from ");
			if (m->op.dest_reads)
				fprintf(out, "%s = 0x%" PRIx64 " together with ", name, m->before);
			fprintf(out, "the %u bytes at 0x%" PRIx64, m->op.len, m->op.addr);
			origin_name(out, f, k->tid, m->position, m->op.addr, m->op.len);
		}
	}
	fputc('\n', out);
}

static void print_store_link(FILE *out, struct replay_frontend *f,
			     const struct replay_prov_link *k, uint64_t now, bool crash)
{
	struct replay_symbol s;

	fprintf(out, "  which ");
	if (k->store_ip && f->sym.lookup(f->sym.ctx, k->store_ip, &s) == 0 && s.function) {
		fprintf(out, "%s wrote", s.function);
		if (s.file)
			fprintf(out, " at %s:%u", base_name(s.file), s.line);
	} else {
		fprintf(out, "the instruction at 0x%" PRIx64 " wrote", k->store_ip);
	}
	print_ago(out, now, k->store.time, crash);
	if (k->store_op.src >= 0)
		fprintf(out, ", from %s", replay_prov_reg_name(k->store_op.src));
	print_callers(out, f, k->tid, k->store.position);
	fputc('\n', out);
}

/* "which brk gave, zero-filled by the kernel, no instruction changed it
 * since: the system call at FILE:LINE in FUNC, N instructions before the
 * crash, called from ...": memory a system call made. */
static void print_map_link(FILE *out, struct replay_frontend *f, const struct replay_prov_link *k,
			   uint64_t now, bool crash)
{
	struct replay_cursor *c = replay_frontend_origin_cursor(f, k->tid);
	const char *how = replay_prov_map_how(k->map.how), *call = replay_prov_syscall_name(k->syscall);
	uint64_t ip;

	if (call)
		fprintf(out, "  which %s gave, %s, no instruction changed it since:\n      ",
			call, how);
	else if (k->syscall >= 0)
		fprintf(out, "  which system call %" PRId64 " made, %s, no instruction changed it "
			"since:\n      ", k->syscall, how);
	else
		fprintf(out, "  which a system call made, %s, no instruction changed it since:\n      ",
			how);
	fprintf(out, "the system call ");
	if (c && replay_cursor_item_ip(c, k->map.index, &ip) == 0)
		print_at(out, f, ip);
	else
		fprintf(out, "of thread %" PRId64 "'s instruction %" PRIu64, k->tid, k->map.index);
	print_ago(out, now, k->map.time, crash);
	print_callers(out, f, k->tid, k->map.index);
	fputc('\n', out);
}

static void print_end(FILE *out, const struct replay_frontend *f,
		      const struct replay_prov_origin *o)
{
	if (o->end == -ENOENT && f->b->start && !strcmp(f->b->start, "window"))
		fprintf(out, "  (no earlier write or change: the value was there where the "
			"history starts,\n   a window of the run: `hindsight rebuild` rebuilds "
			"the whole)\n");
	else if (o->end == -ENOENT)
		fprintf(out, "  (no earlier write or change: the value was there when the "
			"recording started)\n");
	else if (o->end == -ENODATA)
		fprintf(out, "  (the state log was cut short: the rest is not known)\n");
	else if (o->end == -E2BIG)
		fprintf(out, "  (and so on: the chain is longer than %d steps)\n",
			REPLAY_PROV_LINKS);
}

int replay_frontend_origin_print(FILE *out, struct replay_frontend *f, bool crash)
{
	struct replay_prov_env env = { f->st, f->img, replay_frontend_origin_cursor, f,
				       f->interrupt };
	struct replay_cursor *c = replay_frontend_cursor(f);
	uint64_t pos = replay_cursor_position(c), now;
	size_t thread = f->current;
	struct replay_prov_origin *o;
	int r;

	if (!f->st || replay_timeline_time(f->tl, &now) < 0)
		return fprintf(out, "No origin: the recording has no state log.\n"), -1;
	o = malloc(sizeof(*o));
	if (!o)
		return fprintf(out, "No origin: out of memory.\n"), -1;
	r = replay_prov_address_origin(&env, replay_frontend_tid(f), pos, o);
	if (r < 0) {
		fprintf(out, "No origin: %s.\n", r == -ENOENT ?
			"the instruction here has no memory operand with a register" :
			r == -ENODATA ? "the registers are not known here" :
			"the instruction here is not known");
		free(o);
		return -1;
	}
	fprintf(out, "\nWhere the address came from:\n  the operand is 0x%" PRIx64 ": %s = 0x%"
		PRIx64 "\n", o->op.addr, o->reg_name, o->reg_value);
	for (size_t i = 0; i < o->nlinks; i++) {
		if (o->links[i].kind == REPLAY_PROV_STORE)
			print_store_link(out, f, &o->links[i], now, crash);
		else if (o->links[i].kind == REPLAY_PROV_MAPPED)
			print_map_link(out, f, &o->links[i], now, crash);
		else
			print_reg_link(out, f, &o->links[i], now, crash);
	}
	print_end(out, f, o);
	free(o);
	f->current = thread;
	replay_frontend_goto(f, pos);
	return 0;
}

int replay_frontend_origin_explain(FILE *out, const char *dir)
{
	struct replay_frontend *f = NULL;
	char err[512];
	size_t t;
	int r;

	if (replay_frontend_open(dir, &f, err, sizeof(err)) < 0)
		return fprintf(out, "No origin: %s\n", err), -1;
	if (!f->st) {
		replay_frontend_free(f);
		return 0; /* no state log: explain said what it could */
	}
	t = replay_explain_thread(f->b, f->st);
	f->current = t;
	r = replay_frontend_goto(f, replay_explain_position(f->b, t, f->cur[t]));
	r = r < 0 ? r : replay_frontend_origin_print(out, f, true);
	replay_frontend_free(f);
	return r < 0 ? -1 : 0;
}
