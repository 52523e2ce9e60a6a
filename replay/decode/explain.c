/*
 * replay/decode/explain.c: the faulting instruction, its registers, the call
 * stack and the last lines of a recording that ended in a signal (see
 * explain.h).
 */
#include "replay/decode/explain.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#include "protocol/rsp_regs.h"
#include "replay/model/bundle.h"
#include "replay/decode/cursor.h"
#include "replay/decode/decode.h"
#include "replay/model/image.h"
#include "replay/decode/source.h"
#include "replay/decode/unwind.h"

#define CALLS_WINDOW (4u << 20)    /* items of history the call stack is built from */
#define LINES_WINDOW (1u << 20)    /* items walked back for the last lines */

/* Zydis's 64-bit registers and their slot in struct user_regs_struct. */
static const struct { ZydisRegister reg; enum rsp_user_slot gp; } gp_slots[] = {
	{ ZYDIS_REGISTER_RAX, RSP_USER_RAX }, { ZYDIS_REGISTER_RBX, RSP_USER_RBX },
	{ ZYDIS_REGISTER_RCX, RSP_USER_RCX }, { ZYDIS_REGISTER_RDX, RSP_USER_RDX },
	{ ZYDIS_REGISTER_RSI, RSP_USER_RSI }, { ZYDIS_REGISTER_RDI, RSP_USER_RDI },
	{ ZYDIS_REGISTER_RBP, RSP_USER_RBP }, { ZYDIS_REGISTER_RSP, RSP_USER_RSP },
	{ ZYDIS_REGISTER_R8, RSP_USER_R8 },   { ZYDIS_REGISTER_R9, RSP_USER_R9 },
	{ ZYDIS_REGISTER_R10, RSP_USER_R10 }, { ZYDIS_REGISTER_R11, RSP_USER_R11 },
	{ ZYDIS_REGISTER_R12, RSP_USER_R12 }, { ZYDIS_REGISTER_R13, RSP_USER_R13 },
	{ ZYDIS_REGISTER_R14, RSP_USER_R14 }, { ZYDIS_REGISTER_R15, RSP_USER_R15 },
};

static int gp_slot(ZydisRegister reg)
{
	reg = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
	for (size_t i = 0; i < sizeof(gp_slots) / sizeof(gp_slots[0]); i++)
		if (gp_slots[i].reg == reg)
			return (int)gp_slots[i].gp;
	return -1;
}

size_t replay_explain_thread(const struct replay_bundle *b, struct replay_state *st)
{
	uint64_t best = 0, time;
	size_t pick = 0;

	/* Threads run one at a time under the software recorder: the one
	 * that ran last is the one the signal killed. */
	for (size_t i = 0; st && i < b->nthreads; i++) {
		uint64_t last = replay_state_last_index(st, b->threads[i].tid);

		if (last && replay_state_time_at(st, b->threads[i].tid, last, &time) == 0 &&
		    time >= best) {
			best = time;
			pick = i;
		}
	}
	return pick;
}

uint64_t replay_explain_position(const struct replay_bundle *b, size_t thread,
				 struct replay_cursor *c)
{
	return replay_explain_position_of(b, thread, replay_cursor_index(c));
}

uint64_t replay_explain_position_of(const struct replay_bundle *b, size_t thread,
				    const struct replay_index *idx)
{
	uint64_t size = idx->nitems, n = b->threads[thread].instructions;

	/* The recorder's count excludes the faulting instruction; gaps take a
	 * number each. Without a count, the end of the decoded history. */
	if (!n)
		return size + 1;
	n += idx->ngaps + 1;
	return n > size + 1 ? size + 1 : n;
}

/* Registers and the memory operand of the instruction in @e. */
static void explain_operands(struct replay_explain *e)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, e->insn.raw, e->insn.size, &in, ops)))
		return;
	for (size_t i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		ZydisRegister used[2] = { ZYDIS_REGISTER_NONE, ZYDIS_REGISTER_NONE };

		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT) {
			used[0] = op->reg.value;
		} else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
			   op->mem.type == ZYDIS_MEMOP_TYPE_MEM) {
			int b = gp_slot(op->mem.base), x = gp_slot(op->mem.index);

			used[0] = op->mem.base;
			used[1] = op->mem.index;
			if (e->has_regs && !e->has_addr && (b >= 0 || x >= 0 || op->mem.base == ZYDIS_REGISTER_RIP)) {
				e->addr = (b >= 0 ? e->gp[b] : 0) +
					  (x >= 0 ? e->gp[x] * op->mem.scale : 0) +
					  (uint64_t)op->mem.disp.value;
				if (op->mem.base == ZYDIS_REGISTER_RIP)
					e->addr += e->pc + e->insn.size;
				if (op->mem.segment == ZYDIS_REGISTER_FS)
					e->addr += e->gp[RSP_USER_FS_BASE];
				if (op->mem.segment == ZYDIS_REGISTER_GS)
					e->addr += e->gp[RSP_USER_GS_BASE];
				e->has_addr = true;
				e->writes = (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
			}
		}
		for (size_t k = 0; k < 2; k++) {
			int slot = gp_slot(used[k]);
			const char *name = slot >= 0 ? ZydisRegisterGetString(
				ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, used[k])) : NULL;
			bool seen = false;

			for (size_t j = 0; name && j < e->nregs; j++)
				seen |= !strcmp(e->regs[j].name, name);
			if (name && !seen && e->nregs < REPLAY_EXPLAIN_REGS && e->has_regs)
				e->regs[e->nregs++] = (struct replay_explain_reg){ name, e->gp[slot] };
		}
	}
}

/* The faulting instruction's bytes, text and operands. */
static void explain_insn(struct replay_explain *e, struct replay_image *img)
{
	uint8_t buf[16];
	int n = replay_image_read(img, 0, e->pc, buf, sizeof(buf));

	if (n <= 0 || replay_insn_decode(&e->insn, buf, (size_t)n, e->pc, 64) < 0)
		return;
	e->has_insn = replay_insn_format(&e->insn, 64, REPLAY_SYNTAX_ATT, e->text,
					 sizeof(e->text)) == 0;
	explain_operands(e);
}

/* The segment holding item @pos, or the last one before it; -1 if none. */
static ptrdiff_t segment_of(const struct replay_calls *calls, uint64_t pos)
{
	for (size_t i = calls->n; i-- > 0;)
		if (calls->segs[i].first <= pos)
			return (ptrdiff_t)i;
	return -1;
}

size_t replay_explain_frames(const struct replay_calls *calls, struct replay_cursor *c,
			     const struct replay_symbolizer *sym, uint64_t pos, uint64_t pc,
			     struct replay_explain_frame *frames, size_t max, bool *more)
{
	ptrdiff_t k = segment_of(calls, pos);
	size_t n = 0;
	int level;

	*more = false;
	if (k < 0 || max == 0)
		return 0;
	level = calls->segs[k].level;
	memset(frames, 0, max * sizeof(*frames));
	frames[n].pc = pc;
	frames[n].position = pos;
	frames[n].show_pc = !replay_pc_starts_line(sym, pc);
	if (sym->lookup(sym->ctx, pc, &frames[n].sym) < 0)
		memset(&frames[n].sym, 0, sizeof(frames[n].sym));
	n++;
	for (ptrdiff_t j = k - 1; j >= 0 && level > 0; j--) {
		const struct replay_segment *g = &calls->segs[j];
		struct replay_explain_frame *f = &frames[n];

		if (g->gap || g->level >= level)
			continue;
		if (n == max) {
			*more = true;
			break;
		}
		level = g->level;
		f->position = g->last;
		f->show_pc = true;
		if (replay_cursor_item_ip(c, g->last, &f->pc) < 0)
			continue;
		if (sym->lookup(sym->ctx, f->pc, &f->sym) < 0)
			memset(&f->sym, 0, sizeof(f->sym));
		n++;
	}
	return n;
}

/* The call structure of the last CALLS_WINDOW items up to @pos, then the
 * frames: for a recording without registers. */
static int explain_stack_calls(struct replay_explain *e, const struct replay_bundle *b,
			       struct replay_cursor *c, const struct replay_symbolizer *sym)
{
	struct replay_calls calls = { 0 };
	struct replay_decoder *d = NULL;
	uint64_t item = e->position <= e->size ? e->position : e->size;
	uint64_t from = item > CALLS_WINDOW ? item - CALLS_WINDOW : 1;
	int rc = replay_decoder_new(b, e->thread, &d);

	if (rc == 0 && from > 1)
		rc = replay_index_seek(replay_cursor_index(c), d, from);
	if (rc == 0)
		rc = replay_calls_build(&calls, d, sym, NULL, NULL);
	replay_decoder_free(d);
	if (rc == 0)
		e->nframes = replay_explain_frames(&calls, c, sym, item, e->pc, e->frames,
						   REPLAY_EXPLAIN_FRAMES, &e->more_frames);
	/* Calls made before the window are not seen. */
	if (rc == 0 && from > 1)
		e->more_frames = true;
	replay_calls_release(&calls);
	return rc;
}

/* Memory at the fault: the state log's at its time, else the images'
 * (code and data nothing wrote). */
struct explain_mem {
	struct replay_state *st;
	struct replay_image *img;
	uint64_t time;
};

static int explain_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct explain_mem *m = ctx;
	uint8_t known[64], *p = buf;
	size_t n = 0;

	if (len > sizeof(known))
		len = sizeof(known);
	replay_state_read_mem(m->st, m->time, addr, buf, len, known);
	for (; n < len; n++)
		if (!known[n] && replay_image_read(m->img, 0, addr + n, p + n, 1) != 1)
			break;
	return n ? (int)n : -EIO;
}

/* The stack unwound from the registers and memory at the fault. */
static int explain_stack_unwind(struct replay_explain *e, struct replay_image *img,
				struct replay_state *st, const struct replay_unwind_env *env0)
{
	struct explain_mem m = { st, img, 0 };
	struct replay_unwind_env env = *env0;
	struct replay_frame frames[REPLAY_EXPLAIN_FRAMES];
	int n;

	if (replay_state_time_at(st, e->tid, e->position, &m.time) < 0)
		return 0; /* no frames: said as such */
	env.read = explain_read;
	env.read_ctx = &m;
	n = replay_unwind(e->gp, &env, frames, REPLAY_EXPLAIN_FRAMES, &e->end);
	if (n < 0)
		return n;
	e->unwound = true;
	e->more_frames = e->end.stop == REPLAY_UNWIND_MORE;
	/* A frame per function inlined at a pc, as GDB shows them. */
	for (int i = 0; i < n; i++) {
		for (size_t j = 0; j < replay_frame_levels(&frames[i]); j++) {
			struct replay_explain_frame *f = &e->frames[e->nframes];

			if (e->nframes == REPLAY_EXPLAIN_FRAMES) {
				e->more_frames = true;
				return 0;
			}
			f->kind = frames[i].kind;
			f->pc = frames[i].pc;
			f->show_pc = j == 0 && replay_frame_show_pc(env.sym, frames, (size_t)i);
			if (frames[i].has_sym)
				f->sym = frames[i].sym;
			replay_frame_level(&frames[i], j, &f->shown);
			e->nframes++;
		}
	}
	return 0;
}

static bool file_here(const char *file)
{
	return file && access(file, R_OK) == 0;
}

/* The last REPLAY_EXPLAIN_LINES distinct lines before @e->position, of
 * files on this machine (any file if none is). */
static void explain_lines(struct replay_explain *e, struct replay_cursor *c,
			  const struct replay_symbolizer *sym, bool readable_only)
{
	struct replay_explain_line found[REPLAY_EXPLAIN_LINES];
	uint64_t stop = e->position > LINES_WINDOW ? e->position - LINES_WINDOW : 0;
	size_t n = 0;

	for (uint64_t i = e->position + 1; i-- > stop + 1 && i >= 1 && n < REPLAY_EXPLAIN_LINES;) {
		struct replay_symbol s;
		uint64_t ip;
		bool seen = false;

		if (i > e->size || replay_cursor_item_ip(c, i, &ip) < 0 ||
		    sym->lookup(sym->ctx, ip, &s) < 0 || !s.file || !s.line)
			continue;
		if (readable_only && !file_here(s.file))
			continue;
		for (size_t j = 0; j < n && !seen; j++)
			seen = found[j].line == s.line && !strcmp(found[j].file, s.file);
		if (!seen)
			found[n++] = (struct replay_explain_line){ s.file, s.line, s.function };
	}
	e->nlines = n;
	for (size_t j = 0; j < n; j++)
		e->lines[j] = found[n - 1 - j];
}

/* After rt_sigreturn the trace does not say where the thread went (the
 * decoder walks on past the syscall into __restore_rt's padding): the pc
 * is the one the kernel restored, the sigcontext's in the rt_sigframe at
 * rsp before the syscall (the ucontext at rsp, uc_mcontext 40 bytes in,
 * rip 128 into it). true when @e->pc is that. */
static bool explain_after_sigreturn(struct replay_explain *e, struct replay_cursor *c,
				    struct replay_image *img, struct replay_state *st)
{
	uint64_t prev, gp[REPLAY_STATE_NGP], time, rip;
	uint8_t insn[2], known[8];

	if (!st || e->position < 2 || replay_cursor_item_ip(c, e->position - 1, &prev) < 0 ||
	    replay_image_read(img, 0, prev, insn, 2) != 2 || insn[0] != 0x0f || insn[1] != 0x05 ||
	    replay_state_raw_at(st, e->tid, e->position - 1, gp, NULL, NULL) < 0 ||
	    gp[RSP_USER_RAX] != 15 || replay_state_time_at(st, e->tid, e->position, &time) < 0 ||
	    replay_state_read_mem(st, time, gp[RSP_USER_RSP] + 40 + 128, &rip, 8, known) < 0)
		return false;
	e->pc = rip;
	e->has_pc = true;
	return true;
}

int replay_explain_build(const struct replay_bundle *b, size_t thread, struct replay_cursor *c,
			 struct replay_image *img, struct replay_state *st,
			 const struct replay_symbolizer *sym,
			 int (*cfi)(void *ctx, uint64_t pc, struct dw_cfi_row *out), void *cfi_ctx,
			 struct replay_explain *e)
{
	struct replay_unwind_env env = { NULL, NULL, cfi, cfi_ctx, sym };
	int r;

	memset(e, 0, sizeof(*e));
	e->thread = thread;
	e->tid = b->threads[thread].tid;
	e->size = replay_cursor_size(c);
	e->position = replay_explain_position(b, thread, c);
	if (replay_cursor_goto(c, e->position) == 0)
		e->has_pc = replay_cursor_pc(c, &e->pc) == 0;
	e->after_sigreturn = explain_after_sigreturn(e, c, img, st);
	r = st ? replay_state_raw_at(st, e->tid, e->position, e->gp, NULL, NULL) : -ENOENT;
	e->regs_cut = r == -ENODATA;
	if (r == 0) {
		e->has_regs = true;
		if (!e->has_pc) {
			e->pc = e->gp[RSP_USER_RIP];
			e->has_pc = true;
		}
		e->gp[RSP_USER_RIP] = e->pc;
	}
	if (e->has_pc)
		explain_insn(e, img);
	explain_lines(e, c, sym, true);
	if (!e->nlines)
		explain_lines(e, c, sym, false);
	if (e->has_regs)
		return explain_stack_unwind(e, img, st, &env);
	return explain_stack_calls(e, b, c, sym);
}

/* ---- printing ---------------------------------------------------------- */

static void print_where(FILE *out, const struct replay_symbol *s)
{
	if (s->ninlined)
		fprintf(out, "%s () [inlined into %s]", s->inlined[0], s->function);
	else
		fprintf(out, "%s ()", s->function ? s->function : "??");
	if (s->file)
		fprintf(out, " at %s:%u", s->file, s->line);
}

static void print_text(FILE *out, struct replay_source *src, const char *file, unsigned line,
		       const char *prefix)
{
	size_t len;
	const char *text = file ? replay_source_line(src, file, line, &len) : NULL;

	if (text)
		fprintf(out, "%s%u\t%.*s\n", prefix, line, (int)len, text);
}

/* A signal the instruction itself raises, rather than one sent (abort,
 * kill, raise: the signal arrives after the system call that sent it). */
static bool is_fault(int signo)
{
	return signo == SIGSEGV || signo == SIGBUS || signo == SIGFPE || signo == SIGILL ||
	       signo == SIGTRAP;
}

static void print_insn(FILE *out, const struct replay_explain *e, struct replay_source *src,
		       int signo)
{
	const struct replay_symbol *s = e->nframes ? &e->frames[0].sym : NULL;

	fprintf(out, is_fault(signo) ?
		"The faulting instruction, number %" PRIu64 " of thread %" PRId64 "'s history:\n" :
		"The signal arrived before instruction number %" PRIu64 " of thread %" PRId64
		"'s history (after the system call that sent it):\n", e->position, e->tid);
	if (e->after_sigreturn)
		fprintf(out, "(after the rt_sigreturn of a signal handler: its pc is the one the "
			"kernel restored from the signal frame; the trace does not hold it)\n");
	fprintf(out, "   0x%016" PRIx64, e->pc);
	if (s && s->function)
		fprintf(out, " <%s+%" PRIu64 ">", s->function, e->pc - s->start);
	fprintf(out, ":\t%s\n", e->has_insn ? e->text : "(its bytes are not in the recording)");
	if (s && s->function) {
		print_where(out, s);
		fputc('\n', out);
		print_text(out, src, s->file, s->line, "");
	}
}

/* When frame 0 has no source here (a library), the innermost frame that
 * has: where the program's own code was. */
static void print_own_frame(FILE *out, const struct replay_explain *e, struct replay_source *src)
{
	if (!e->nframes || file_here(e->frames[0].sym.file))
		return;
	for (size_t i = 1; i < e->nframes; i++) {
		const struct replay_explain_frame *f = &e->frames[i];

		if (file_here(f->sym.file)) {
			fprintf(out, "called from #%zu ", i);
			print_where(out, &f->sym);
			fputc('\n', out);
			print_text(out, src, f->sym.file, f->sym.line, "");
			return;
		}
	}
}

static void print_regs(FILE *out, const struct replay_explain *e)
{
	if (!e->has_regs) {
		fprintf(out, e->regs_cut ? "\nRegisters: not known here (the state log was cut "
			"short before this position).\n" :
			"\nRegisters: not in this recording (no state log).\n");
		return;
	}
	fprintf(out, "\nRegisters:\n  rip 0x%" PRIx64 "  rsp 0x%" PRIx64 "\n", e->pc,
		e->gp[RSP_USER_RSP]);
	for (size_t i = 0; i < e->nregs; i++) {
		if (strcmp(e->regs[i].name, "rsp"))
			fprintf(out, "  %s 0x%" PRIx64 " (%" PRId64 ")\n", e->regs[i].name,
				e->regs[i].value, (int64_t)e->regs[i].value);
	}
	if (e->has_addr)
		fprintf(out, "  memory operand: 0x%" PRIx64 " (%s)%s\n", e->addr,
			e->writes ? "written" : "read",
			e->addr < 4096 ? ": in the first page, a null or corrupted pointer" : "");
}

static void print_frames(FILE *out, const struct replay_explain *e)
{
	char stopped[200];

	fprintf(out, e->has_regs ? "\nCall stack:\n" :
		"\nCall stack (from the recorded calls: no registers to unwind with, "
		"wrong after a longjmp or a signal handler):\n");
	for (size_t i = 0; i < e->nframes; i++) {
		fprintf(out, "#%-2zu ", i);
		if (e->frames[i].kind == REPLAY_FRAME_SIGTRAMP) {
			fprintf(out, "<signal handler called>\n");
			continue;
		}
		if (e->frames[i].show_pc)
			fprintf(out, "0x%016" PRIx64 " in ", e->frames[i].pc);
		print_where(out, e->unwound ? &e->frames[i].shown : &e->frames[i].sym);
		fputc('\n', out);
	}
	if (e->more_frames)
		fprintf(out, "(more frames above)\n");
	else if (e->unwound && replay_unwind_end_text(&e->end, stopped, sizeof(stopped)))
		fprintf(out, "%s\n", stopped);
	if (!e->nframes)
		fprintf(out, e->has_regs ? "(not known: the state log has no time for this "
			"position)\n" : "(no calls in the history)\n");
}

static void print_lines(FILE *out, const struct replay_explain *e, struct replay_source *src)
{
	fprintf(out, "\nThe last lines executed, oldest first:\n");
	for (size_t i = 0; i < e->nlines; i++) {
		const struct replay_explain_line *l = &e->lines[i];
		size_t len;
		const char *text = replay_source_line(src, l->file, l->line, &len);
		const char *base = strrchr(l->file, '/');

		fprintf(out, "  %s:%u", base ? base + 1 : l->file, l->line);
		if (l->function)
			fprintf(out, " (%s)", l->function);
		if (text)
			fprintf(out, "\t%.*s", (int)len, text);
		fputc('\n', out);
	}
}

void replay_explain_print(FILE *out, const struct replay_explain *e, int signo)
{
	struct replay_source src = { 0 };
	const char *abbrev = sigabbrev_np(signo);

	fprintf(out, "\nProgram terminated with signal SIG%s, %s.\n", abbrev ? abbrev : "?",
		strsignal(signo));
	if (!e->has_pc)
		fprintf(out, "The faulting instruction is not known (the history ends in a gap).\n");
	else
		print_insn(out, e, &src, signo);
	print_own_frame(out, e, &src);
	print_regs(out, e);
	print_frames(out, e);
	print_lines(out, e, &src);
	replay_source_release(&src);
}
