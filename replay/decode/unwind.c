/*
 * replay/decode/unwind.c: the call stack from registers and memory: signal
 * frames, DWARF CFI, GDB's amd64 prologue analysis (see unwind.h).
 */
#include "replay/decode/unwind.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dwarf/dw_cfi.h"
#include "protocol/rsp_regs.h"

#define NREGS DW_CFI_NREGS
#define RA DW_CFI_RA
#define RSP DW_CFI_RSP
#define RBP 6

/* DWARF x86-64 numbers 0..16 and their slots in struct user_regs_struct. */
static const enum rsp_user_slot gp_slot[NREGS] = {
	RSP_USER_RAX, RSP_USER_RDX, RSP_USER_RCX, RSP_USER_RBX,
	RSP_USER_RSI, RSP_USER_RDI, RSP_USER_RBP, RSP_USER_RSP,
	RSP_USER_R8, RSP_USER_R9, RSP_USER_R10, RSP_USER_R11,
	RSP_USER_R12, RSP_USER_R13, RSP_USER_R14, RSP_USER_R15, RSP_USER_RIP,
};

/* struct sigcontext's offsets of the same registers (asm/sigcontext.h;
 * GDB's amd64_linux_sc_reg_offset), the sigcontext at the trampoline's
 * rsp + 40 (the ucontext's uc_mcontext). */
static const unsigned sc_offset[NREGS] = {
	13 * 8, 12 * 8, 14 * 8, 11 * 8, 9 * 8, 8 * 8, 10 * 8, 15 * 8,
	0 * 8, 1 * 8, 2 * 8, 3 * 8, 4 * 8, 5 * 8, 6 * 8, 7 * 8, 16 * 8,
};
#define SIGCONTEXT_AT 40

struct regs {
	uint64_t v[NREGS];
	bool known[NREGS];
};

/* Frame @f saved its caller's register @i at @addr. */
static void saved(struct replay_frame *f, unsigned i, uint64_t addr)
{
	f->saved_at[i] = addr;
	f->saved_mask |= 1u << i;
}

static int read8(const struct replay_unwind_env *env, uint64_t addr, uint64_t *out)
{
	uint8_t buf[8];

	if (env->read(env->read_ctx, addr, buf, 8) != 8)
		return -EIO;
	memcpy(out, buf, 8);
	return 0;
}

static int env_read8(void *ctx, uint64_t addr, uint64_t *out)
{
	return read8(ctx, addr, out);
}

/* `mov $0xf,%rax; syscall` (rt_sigreturn) at @pc, or @pc at its syscall:
 * GDB's amd64_linux_sigtramp_start. */
static bool sigtramp_code(const struct replay_unwind_env *env, uint64_t pc)
{
	static const uint8_t code[9] = { 0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00, 0x0f, 0x05 };
	uint8_t buf[9];

	if (env->read(env->read_ctx, pc, buf, 1) == 1 && buf[0] == 0x0f)
		pc -= 7;
	return env->read(env->read_ctx, pc, buf, sizeof(buf)) == (int)sizeof(buf) &&
	       memcmp(buf, code, sizeof(code)) == 0;
}

/* GDB's amd64_linux_sigtramp_p: by name when the function has one (that
 * is not sigaction's), else by the code. */
static bool is_sigtramp(const struct replay_unwind_env *env, const struct replay_frame *f)
{
	const char *name = f->has_sym ? f->sym.function : NULL;

	if (name && !strstr(name, "sigaction"))
		return !strcmp(name, "__restore_rt") && sigtramp_code(env, f->pc);
	return sigtramp_code(env, f->pc);
}

/* The registers interrupted by the signal, from the rt_sigframe. */
static int unwind_sigcontext(const struct replay_unwind_env *env, struct regs *r,
			     struct replay_frame *f, struct replay_unwind_end *end)
{
	struct regs caller;
	uint64_t sc;

	if (!r->known[RSP]) {
		end->stop = REPLAY_UNWIND_REGISTER;
		return -1;
	}
	sc = r->v[RSP] + SIGCONTEXT_AT;
	f->cfa = r->v[RSP] + 8; /* GDB's id of a sigtramp frame: its base + 16 */
	f->has_cfa = true;
	for (size_t i = 0; i < NREGS; i++) {
		caller.known[i] = read8(env, sc + sc_offset[i], &caller.v[i]) == 0;
		saved(f, (unsigned)i, sc + sc_offset[i]);
		if (!caller.known[i] && i == RA) {
			end->stop = REPLAY_UNWIND_MEMORY;
			end->addr = sc + sc_offset[i];
			return -1;
		}
	}
	*r = caller;
	return 0;
}

static int fail_cfi(struct replay_unwind_end *end, const struct replay_frame *f, int err)
{
	if (err == -EIO) {
		end->stop = REPLAY_UNWIND_MEMORY;
		return -1;
	}
	end->stop = err == -EINVAL ? REPLAY_UNWIND_REGISTER : REPLAY_UNWIND_BAD_CFI;
	end->addr = f->lookup_pc;
	end->err = err;
	return -1;
}

/* The CFA of @row over @r. 0, or -1 with @end set. */
static int cfa_of(const struct replay_unwind_env *env, const struct dw_cfi_row *row,
		  const struct regs *r, const struct replay_frame *f, uint64_t *cfa,
		  struct replay_unwind_end *end)
{
	struct dw_cfi_env x = { r->v, r->known, env_read8, (void *)env };

	if (row->cfa_expr) {
		int rc = dw_cfi_expr_eval(row->expr, row->exprlen, &x, false, 0, cfa);

		return rc < 0 ? fail_cfi(end, f, rc) : 0;
	}
	if (row->cfa_reg >= NREGS || !r->known[row->cfa_reg]) {
		end->stop = row->cfa_reg >= NREGS ? REPLAY_UNWIND_BAD_CFI : REPLAY_UNWIND_REGISTER;
		end->addr = f->lookup_pc;
		end->err = -ENOTSUP;
		return -1;
	}
	*cfa = r->v[row->cfa_reg] + (uint64_t)row->cfa_offset;
	return 0;
}

/* The caller's registers from @row. 0, 1 when the return address is
 * undefined (the outermost frame), or -1 with @end set. */
static int unwind_cfi(const struct replay_unwind_env *env, const struct dw_cfi_row *row,
		      struct regs *r, struct replay_frame *f, struct replay_unwind_end *end)
{
	struct dw_cfi_env x = { r->v, r->known, env_read8, (void *)env };
	struct regs caller;
	uint64_t cfa;

	if (cfa_of(env, row, r, f, &cfa, end) < 0)
		return -1;
	f->cfa = cfa;
	f->has_cfa = true;
	if (row->regs[RA].kind == DW_CFI_UNDEFINED)
		return 1;
	for (size_t i = 0; i < NREGS; i++) {
		const struct dw_cfi_rule *u = &row->regs[i];
		uint64_t addr = 0;
		int rc = 0;

		caller.known[i] = true;
		switch (u->kind) {
		case DW_CFI_SAME:
			caller.v[i] = r->v[i];
			caller.known[i] = r->known[i];
			/* amd64's defaults (GDB's amd64_init_reg): rsp is the
			 * CFA, the return address column is rip */
			if (i == RSP) {
				caller.v[i] = cfa;
				caller.known[i] = true;
			}
			continue;
		case DW_CFI_UNDEFINED: caller.known[i] = false; continue;
		case DW_CFI_OFFSET: addr = cfa + (uint64_t)u->offset; break;
		case DW_CFI_VAL_OFFSET: caller.v[i] = cfa + (uint64_t)u->offset; continue;
		case DW_CFI_REGISTER:
			caller.known[i] = u->reg < NREGS && r->known[u->reg];
			caller.v[i] = caller.known[i] ? r->v[u->reg] : 0;
			continue;
		case DW_CFI_EXPR:
			rc = dw_cfi_expr_eval(u->expr, u->exprlen, &x, true, cfa, &addr);
			break;
		case DW_CFI_VAL_EXPR:
			rc = dw_cfi_expr_eval(u->expr, u->exprlen, &x, true, cfa, &caller.v[i]);
			caller.known[i] = rc == 0;
			if (rc < 0 && i == RA)
				return fail_cfi(end, f, rc);
			continue;
		}
		if (rc == 0) {
			saved(f, (unsigned)i, addr);
			rc = read8(env, addr, &caller.v[i]);
		}
		caller.known[i] = rc == 0;
		if (rc < 0 && i == RA) {
			end->addr = addr;
			return fail_cfi(end, f, rc);
		}
	}
	if (!caller.known[RA]) {
		end->stop = REPLAY_UNWIND_REGISTER;
		return -1;
	}
	*r = caller;
	return 0;
}

/* GDB's amd64_analyze_prologue and amd64_frame_cache: the frame's base
 * (where rbp was saved) is rbp after `push %rbp; mov %rsp,%rbp`, rsp
 * after the push alone, rsp - 8 when neither ran (the return address at
 * rsp). 0, or -1 when the register it needs is not known. */
static int prologue_base(const struct replay_unwind_env *env, const struct regs *r,
			 const struct replay_frame *f, uint64_t *base, bool *rbp_saved)
{
	static const uint8_t endbr64[4] = { 0xf3, 0x0f, 0x1e, 0xfa };
	uint64_t start = f->has_sym && f->sym.function ? f->sym.start : 0, pc = start;
	uint8_t code[4];
	int64_t sp_offset = -8;
	bool frameless = true;

	*rbp_saved = false;
	if (start && env->read(env->read_ctx, pc, code, 4) == 4 && !memcmp(code, endbr64, 4))
		pc += 4;
	if (start && f->pc > pc && env->read(env->read_ctx, pc, code, 4) == 4 && code[0] == 0x55) {
		sp_offset += 8;
		*rbp_saved = true;
		if (f->pc > pc + 1 && ((code[1] == 0x48 && code[2] == 0x89 && code[3] == 0xe5) ||
				       (code[1] == 0x48 && code[2] == 0x8b && code[3] == 0xec)))
			frameless = false;
	}
	if (!r->known[frameless ? RSP : RBP])
		return -1;
	*base = frameless ? r->v[RSP] + (uint64_t)sp_offset : r->v[RBP];
	return 0;
}

/* No CFI: the caller from the prologue analysis's base. */
static int unwind_prologue(const struct replay_unwind_env *env, struct regs *r,
			   struct replay_frame *f, struct replay_unwind_end *end)
{
	struct regs caller = *r;
	uint64_t base;
	bool rbp_saved;

	if (prologue_base(env, r, f, &base, &rbp_saved) < 0) {
		end->stop = REPLAY_UNWIND_REGISTER;
		return -1;
	}
	f->cfa = base + 16;
	f->has_cfa = true;
	if (read8(env, base + 8, &caller.v[RA]) < 0) {
		end->stop = REPLAY_UNWIND_MEMORY;
		end->addr = base + 8;
		return -1;
	}
	saved(f, RA, base + 8);
	if (rbp_saved) {
		caller.known[RBP] = read8(env, base, &caller.v[RBP]) == 0;
		saved(f, RBP, base);
	}
	caller.v[RSP] = base + 16;
	caller.known[RSP] = true;
	*r = caller;
	return 0;
}

/* Frame @f (its pc in @r) as itself: kind, lookup pc, symbol. */
static void describe(const struct replay_unwind_env *env, struct replay_frame *f, bool exact,
		     const struct regs *r, struct dw_cfi_row *row, int *cfi_rc)
{
	memset(f, 0, sizeof(*f));
	f->pc = r->v[RA];
	f->lookup_pc = exact || f->pc == 0 ? f->pc : f->pc - 1;
	f->has_sym = env->sym->lookup(env->sym->ctx, f->pc, &f->sym) == 0;
	*cfi_rc = env->cfi(env->cfi_ctx, f->lookup_pc, row);
	if (is_sigtramp(env, f) || (*cfi_rc == 0 && row->signal_frame)) {
		f->kind = REPLAY_FRAME_SIGTRAMP;
		f->lookup_pc = f->pc;
		if (*cfi_rc == 0 && row->signal_frame)
			*cfi_rc = env->cfi(env->cfi_ctx, f->pc, row);
		return;
	}
	if (f->lookup_pc != f->pc)
		f->has_sym = env->sym->lookup(env->sym->ctx, f->lookup_pc, &f->sym) == 0;
}

/* Frame @f's registers are @r; its base from them. */
static void keep_regs(const struct replay_unwind_env *env, struct replay_frame *f,
		      const struct regs *r)
{
	bool rbp_saved;

	for (unsigned i = 0; i < NREGS; i++) {
		f->regs[i] = r->known[i] ? r->v[i] : 0;
		if (r->known[i])
			f->regs_known |= 1u << i;
	}
	f->has_base = prologue_base(env, r, f, &f->base, &rbp_saved) == 0;
}

int replay_unwind_user_slot(unsigned dw)
{
	return dw < NREGS ? (int)gp_slot[dw] : -1;
}

const char *replay_unwind_reg_name(unsigned dw)
{
	if (dw >= NREGS)
		return NULL;
	for (size_t r = 0; r < RSP_REG_COUNT; r++)
		if (rsp_reg_descs[r].user == gp_slot[dw])
			return rsp_reg_descs[r].name;
	return NULL;
}

int replay_unwind_dwarf_reg(int slot)
{
	for (unsigned i = 0; i < NREGS; i++)
		if ((int)gp_slot[i] == slot)
			return (int)i;
	return -1;
}

static bool is_main(const struct replay_frame *f)
{
	return f->kind == REPLAY_FRAME_NORMAL && f->has_sym && f->sym.function &&
	       !strcmp(f->sym.function, "main");
}

/* Whether @a and @b are the same frame (GDB's frame id: the CFA and the
 * function). */
static bool same_id(const struct replay_frame *a, const struct replay_frame *b)
{
	uint64_t fa = a->has_sym ? a->sym.start : a->pc, fb = b->has_sym ? b->sym.start : b->pc;

	return a->cfa == b->cfa && fa == fb && a->kind == b->kind;
}

/* The caller of @f into @r. 0, 1 outermost, -1 with @end set. */
static int unwind_one(const struct replay_unwind_env *env, struct replay_frame *f, struct regs *r,
		      const struct dw_cfi_row *row, int cfi_rc, struct replay_unwind_end *end)
{
	if (f->kind == REPLAY_FRAME_SIGTRAMP && (cfi_rc < 0 || !row->signal_frame))
		return unwind_sigcontext(env, r, f, end);
	if (cfi_rc == 0)
		return unwind_cfi(env, row, r, f, end);
	if (cfi_rc != -ENOENT && cfi_rc != -ESRCH)
		return fail_cfi(end, f, cfi_rc);
	return unwind_prologue(env, r, f, end);
}

int replay_unwind(const uint64_t gp[REPLAY_UNWIND_NGP], const struct replay_unwind_env *env,
		  struct replay_frame *frames, size_t max, struct replay_unwind_end *end)
{
	struct regs r;
	size_t n = 0;

	memset(end, 0, sizeof(*end));
	for (size_t i = 0; i < NREGS; i++) {
		r.v[i] = gp[gp_slot[i]];
		r.known[i] = true;
	}
	for (;;) {
		struct dw_cfi_row row;
		struct replay_frame *f = &frames[n], *callee = n ? &frames[n - 1] : NULL;
		int cfi_rc, rc;

		if (n == max) {
			end->stop = REPLAY_UNWIND_MORE;
			return (int)n;
		}
		describe(env, f, !callee || callee->kind == REPLAY_FRAME_SIGTRAMP, &r, &row, &cfi_rc);
		keep_regs(env, f, &r);
		n++;
		if (callee && f->pc == 0 && f->kind == REPLAY_FRAME_NORMAL &&
		    callee->kind == REPLAY_FRAME_NORMAL) {
			end->stop = REPLAY_UNWIND_ZERO_PC;
			return (int)n;
		}
		if (is_main(f)) {
			/* its own CFA and saved registers, not its caller */
			struct regs scratch = r;
			struct replay_unwind_end ignored;

			unwind_one(env, f, &scratch, &row, cfi_rc, &ignored);
			end->stop = REPLAY_UNWIND_MAIN;
			return (int)n;
		}
		rc = unwind_one(env, f, &r, &row, cfi_rc, end);
		if (callee && same_id(f, callee)) {
			end->stop = REPLAY_UNWIND_SAME;
			return (int)n - 1;
		}
		if (rc != 0) {
			if (rc > 0)
				end->stop = REPLAY_UNWIND_OUTERMOST;
			return (int)n;
		}
		if (callee && f->kind == REPLAY_FRAME_NORMAL && callee->kind == REPLAY_FRAME_NORMAL &&
		    f->cfa < callee->cfa) {
			end->stop = REPLAY_UNWIND_INNER;
			return (int)n;
		}
	}
}

bool replay_unwind_end_text(const struct replay_unwind_end *end, char *buf, size_t size)
{
	switch (end->stop) {
	case REPLAY_UNWIND_SAME:
		snprintf(buf, size, "Backtrace stopped: previous frame identical to this frame "
			 "(corrupt stack?)");
		return true;
	case REPLAY_UNWIND_INNER:
		snprintf(buf, size, "Backtrace stopped: previous frame inner to this frame "
			 "(corrupt stack?)");
		return true;
	case REPLAY_UNWIND_MEMORY:
		snprintf(buf, size, "Backtrace stopped: Cannot access memory at address 0x%" PRIx64
			 " (not in the recording)", end->addr);
		return true;
	case REPLAY_UNWIND_REGISTER:
		snprintf(buf, size, "Backtrace stopped: Not enough registers or memory available "
			 "to unwind further");
		return true;
	case REPLAY_UNWIND_BAD_CFI:
		snprintf(buf, size, "Backtrace stopped: the call frame information at 0x%" PRIx64
			 " cannot be used (%s)", end->addr, strerror(-end->err));
		return true;
	default:
		return false;
	}
}

bool replay_pc_starts_line(const struct replay_symbolizer *sym, uint64_t pc)
{
	struct replay_symbol here, prev;

	if (sym->lookup(sym->ctx, pc, &here) < 0 || !here.file)
		return false;
	if (here.line_start)
		return pc == here.line_start;
	if (pc == here.start || sym->lookup(sym->ctx, pc - 1, &prev) < 0)
		return true;
	return prev.start != here.start || prev.line != here.line || !prev.file ||
	       strcmp(prev.file, here.file);
}

bool replay_frame_show_pc(const struct replay_symbolizer *sym, const struct replay_frame *frames,
			  size_t i)
{
	if (frames[i].kind == REPLAY_FRAME_SIGTRAMP)
		return false;
	if (i == 0 || frames[i - 1].kind == REPLAY_FRAME_SIGTRAMP)
		return !replay_pc_starts_line(sym, frames[i].pc);
	return true;
}

size_t replay_frame_levels(const struct replay_frame *f)
{
	return f->has_sym && f->kind == REPLAY_FRAME_NORMAL ? 1 + f->sym.ninlined : 1;
}

void replay_frame_level(const struct replay_frame *f, size_t level, struct replay_symbol *out)
{
	const struct replay_symbol *s = &f->sym;

	*out = *s;
	out->ninlined = 0;
	if (!f->has_sym || !s->ninlined)
		return;
	out->function = level < s->ninlined ? s->inlined[level] : s->function;
	if (level == 0)
		return;
	out->file = s->call_file[level - 1];
	out->line = s->call_line[level - 1];
	out->line_start = 0;
}
