/* replay/decode/unwind.c over made-up stacks: a memory of known and unknown bytes,
 * CFI rows and symbols from small tables. CFI chains up to main, a signal
 * frame read from its rt_sigframe, the prologue analysis without CFI, and
 * every reason to stop (main, an undefined return address, a zero pc, the
 * frame limit, memory not recorded, a register not known, CFI refused, an
 * identical and an inner frame), which frames show their address, and the
 * frames of inlined functions. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>
#include <sys/user.h>

#include "dwarf/dw_cfi.h"
#include "replay/decode/unwind.h"

#define GP(field) (offsetof(struct user_regs_struct, field) / 8)

/* ---- a made-up process ------------------------------------------------- */

#define MEM_BASE 0x7f0000ull
#define MEM_SIZE 0x2000
#define CODE_BASE 0x400000ull
#define TRAMP 0x500000ull

static uint8_t mem[MEM_SIZE], mem_known[MEM_SIZE];
static uint8_t code[0x200];      /* at CODE_BASE */

struct fn {
	uint64_t start, end;
	const char *name;
	unsigned line;               /* every address of the function: this line, */
	uint64_t line_start;         /* ... starting here */
	bool cfi;
	struct dw_cfi_row row;
};

static struct fn fns[8];
static size_t nfns;

static void put64(uint64_t addr, uint64_t v)
{
	assert_true(addr >= MEM_BASE && addr + 8 <= MEM_BASE + MEM_SIZE);
	memcpy(&mem[addr - MEM_BASE], &v, 8);
	memset(&mem_known[addr - MEM_BASE], 1, 8);
}

static int read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t n = 0;

	(void)ctx;
	for (; n < len; n++) {
		uint64_t a = addr + n;

		if (a >= MEM_BASE && a < MEM_BASE + MEM_SIZE && mem_known[a - MEM_BASE])
			p[n] = mem[a - MEM_BASE];
		else if (a >= CODE_BASE && a < CODE_BASE + sizeof(code))
			p[n] = code[a - CODE_BASE];
		else if (a >= TRAMP && a < TRAMP + 9)
			p[n] = (const uint8_t[]){ 0x48, 0xc7, 0xc0, 0x0f, 0, 0, 0, 0x0f, 0x05 }[a - TRAMP];
		else
			break;
	}
	return n ? (int)n : -EIO;
}

static const struct fn *fn_at(uint64_t pc)
{
	for (size_t i = 0; i < nfns; i++)
		if (pc >= fns[i].start && pc < fns[i].end)
			return &fns[i];
	return NULL;
}

static int cfi_at(void *ctx, uint64_t pc, struct dw_cfi_row *out)
{
	const struct fn *f = fn_at(pc);

	(void)ctx;
	if (!f)
		return -ESRCH;
	if (!f->cfi)
		return -ENOENT;
	*out = f->row;
	return 0;
}

static int sym_at(void *ctx, uint64_t pc, struct replay_symbol *out)
{
	const struct fn *f = fn_at(pc);

	(void)ctx;
	memset(out, 0, sizeof(*out));
	if (!f)
		return -ENOENT;
	out->function = f->name;
	out->start = f->start;
	out->file = "t.c";
	out->line = f->line;
	out->line_start = f->line_start;
	return 0;
}

static const struct replay_symbolizer sym = { sym_at, NULL, NULL };
static const struct replay_unwind_env env = { read_mem, NULL, cfi_at, NULL, &sym };

/* A function whose CFA is rsp + @cfa_off, return address at CFA - 8, and
 * (@rbp_saved) rbp at CFA - 16. */
static void add_fn(uint64_t start, uint64_t end, const char *name, int64_t cfa_off, bool rbp_saved)
{
	struct fn *f = &fns[nfns++];

	memset(f, 0, sizeof(*f));
	f->start = start;
	f->end = end;
	f->name = name;
	f->line = (unsigned)nfns * 10;
	f->line_start = start;
	f->cfi = true;
	f->row.cfa_reg = DW_CFI_RSP;
	f->row.cfa_offset = cfa_off;
	f->row.regs[DW_CFI_RA] = (struct dw_cfi_rule){ .kind = DW_CFI_OFFSET, .offset = -8 };
	if (rbp_saved)
		f->row.regs[6] = (struct dw_cfi_rule){ .kind = DW_CFI_OFFSET, .offset = -16 };
}

static int setup(void **state)
{
	(void)state;
	memset(mem, 0, sizeof(mem));
	memset(mem_known, 0, sizeof(mem_known));
	memset(code, 0x90, sizeof(code));
	nfns = 0;
	add_fn(0x401000, 0x401100, "leaf", 16, false);
	add_fn(0x402000, 0x402100, "middle", 32, true);
	add_fn(0x403000, 0x403100, "main", 16, false);
	add_fn(0x404000, 0x404100, "handler", 8, false);
	return 0;
}

static void regs(uint64_t gp[REPLAY_UNWIND_NGP], uint64_t rip, uint64_t rsp, uint64_t rbp)
{
	memset(gp, 0, REPLAY_UNWIND_NGP * sizeof(*gp));
	gp[GP(rip)] = rip;
	gp[GP(rsp)] = rsp;
	gp[GP(rbp)] = rbp;
}

/* leaf (CFA rsp+16) <- middle (CFA rsp+32, saves rbp) <- main. */
static void build_chain(uint64_t gp[REPLAY_UNWIND_NGP])
{
	uint64_t sp = MEM_BASE + 0x1000;

	regs(gp, 0x401010, sp, 0x1111);
	put64(sp + 8, 0x402020);            /* leaf's return address, at CFA - 8 */
	put64(sp + 40, 0x403030);           /* middle's (its CFA: sp + 16 + 32) */
	put64(sp + 32, 0x2222);             /* the rbp middle saved */
}

static void test_cfi_chain_to_main(void **state)
{
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP];
	char text[200];

	(void)state;
	build_chain(gp);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 3);
	assert_int_equal(end.stop, REPLAY_UNWIND_MAIN);
	assert_false(replay_unwind_end_text(&end, text, sizeof(text)));
	assert_string_equal(f[0].sym.function, "leaf");
	assert_int_equal(f[0].lookup_pc, 0x401010);
	assert_int_equal(f[0].cfa, MEM_BASE + 0x1010);
	assert_string_equal(f[1].sym.function, "middle");
	assert_int_equal(f[1].pc, 0x402020);
	assert_int_equal(f[1].lookup_pc, 0x40201f); /* the call, not the return address */
	assert_int_equal(f[1].cfa, MEM_BASE + 0x1030);
	assert_string_equal(f[2].sym.function, "main");
	assert_int_equal(f[2].pc, 0x403030);
	/* Frame 0 at its line's start shows no address, callers always do. */
	fns[0].line_start = 0x401010;
	assert_false(replay_frame_show_pc(&sym, f, 0));
	fns[0].line_start = 0x401008;
	assert_true(replay_frame_show_pc(&sym, f, 0));
	assert_true(replay_frame_show_pc(&sym, f, 1));
}

/* Each frame's registers, CFA and saved slots: a caller's rsp is its
 * callee's CFA, rip its pc, rbp what the callee saved (or kept), the
 * others as the callee had them; main's own CFA though it is last. */
static void test_frame_registers(void **state)
{
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x1000;

	(void)state;
	build_chain(gp);
	gp[GP(rbx)] = 0x3333;
	put64(sp + 56, 0x403040);           /* main's return address (CFA sp + 64) */
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 3);
	assert_int_equal(f[0].regs_known, (1u << REPLAY_UNWIND_NREGS) - 1);
	assert_int_equal(f[0].regs[REPLAY_UNWIND_RIP], 0x401010);
	assert_int_equal(f[0].regs[7], sp);
	assert_int_equal(f[0].saved_mask, 1u << REPLAY_UNWIND_RIP);
	assert_int_equal(f[0].saved_at[REPLAY_UNWIND_RIP], sp + 8);
	assert_int_equal(f[1].regs[REPLAY_UNWIND_RIP], 0x402020);
	assert_int_equal(f[1].regs[7], sp + 16);     /* leaf's CFA */
	assert_int_equal(f[1].regs[6], 0x1111);      /* leaf did not save rbp */
	assert_int_equal(f[1].regs[3], 0x3333);      /* rbx: the same value */
	assert_int_equal(f[1].saved_mask, (1u << REPLAY_UNWIND_RIP) | (1u << 6));
	assert_int_equal(f[1].saved_at[6], sp + 32);
	assert_int_equal(f[2].regs[6], 0x2222);      /* middle saved it */
	assert_int_equal(f[2].regs[7], sp + 48);
	assert_true(f[2].has_cfa);
	assert_int_equal(f[2].cfa, sp + 64);         /* main's own */
	assert_int_equal(f[2].saved_at[REPLAY_UNWIND_RIP], sp + 56);
	/* A rule undefined: not known in the caller (GDB's <not saved>). */
	fns[0].row.regs[0] = (struct dw_cfi_rule){ .kind = DW_CFI_UNDEFINED };
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 3);
	assert_false(f[1].regs_known & 1u);
	assert_true(f[1].regs_known & (1u << 3));
	assert_int_equal(replay_unwind_user_slot(REPLAY_UNWIND_RIP), GP(rip));
	assert_int_equal(replay_unwind_dwarf_reg(GP(rbx)), 3);
	assert_int_equal(replay_unwind_dwarf_reg(GP(eflags)), -1);
	/* The x86-64 psABI's DWARF numbering, GDB's names. */
	assert_string_equal(replay_unwind_reg_name(0), "rax");
	assert_string_equal(replay_unwind_reg_name(1), "rdx");
	assert_string_equal(replay_unwind_reg_name(3), "rbx");
	assert_string_equal(replay_unwind_reg_name(7), "rsp");
	assert_string_equal(replay_unwind_reg_name(8), "r8");
	assert_string_equal(replay_unwind_reg_name(15), "r15");
	assert_string_equal(replay_unwind_reg_name(REPLAY_UNWIND_RIP), "rip");
	assert_null(replay_unwind_reg_name(REPLAY_UNWIND_NREGS));
}

static void test_frame_limit(void **state)
{
	struct replay_frame f[2];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP];

	(void)state;
	build_chain(gp);
	assert_int_equal(replay_unwind(gp, &env, f, 2, &end), 2);
	assert_int_equal(end.stop, REPLAY_UNWIND_MORE);
}

/* handler <- __restore_rt <- middle (interrupted at 0x402040) <- main. */
static void test_signal_frame(void **state)
{
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x800, tramp_sp = sp + 8;
	uint64_t sc = tramp_sp + 40, mid_sp = MEM_BASE + 0x1400;

	(void)state;
	regs(gp, 0x404010, sp, 0);
	put64(sp, TRAMP);                   /* the handler returns to the trampoline */
	put64(sc + 16 * 8, 0x402040);       /* sigcontext.rip */
	put64(sc + 15 * 8, mid_sp);         /* .rsp */
	put64(sc + 10 * 8, 0x3333);         /* .rbp */
	for (unsigned i = 0; i < 15; i++)
		if (i != 10)
			put64(sc + i * 8, i);
	put64(mid_sp + 24, 0x403050);       /* middle's return address (CFA - 8) */
	put64(mid_sp + 16, 0x4444);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 4);
	assert_int_equal(end.stop, REPLAY_UNWIND_MAIN);
	assert_int_equal(f[1].kind, REPLAY_FRAME_SIGTRAMP);
	assert_int_equal(f[1].pc, TRAMP);
	assert_int_equal(f[2].kind, REPLAY_FRAME_NORMAL);
	assert_int_equal(f[2].pc, 0x402040);
	assert_int_equal(f[2].lookup_pc, 0x402040); /* interrupted: the pc itself */
	assert_string_equal(f[3].sym.function, "main");
	assert_false(replay_frame_show_pc(&sym, f, 1));
	/* The interrupted frame shows its address only mid-line. */
	fns[1].line_start = 0x402040;
	assert_false(replay_frame_show_pc(&sym, f, 2));
	fns[1].line_start = 0x402000;
	assert_true(replay_frame_show_pc(&sym, f, 2));
}

/* A trampoline known only by its FDE's 'S' (no name, other code): glibc's
 * own rules, expressions over rsp into the sigcontext, as GDB's dwarf2
 * signal frame unwinder runs them. */
static void test_signal_frame_by_cfi(void **state)
{
	static const uint8_t cfa[] = { 0x77, 0xa0, 0x01, 0x06 }; /* *(rsp + 160) */
	static const uint8_t rip[] = { 0x77, 0xa8, 0x01 };       /* rsp + 168 */
	static const uint8_t rbp[] = { 0x77, 0x78 };             /* rsp + 120 */
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x800, tramp_sp = sp + 8;
	uint64_t sc = tramp_sp + 40, mid_sp = MEM_BASE + 0x1400;
	struct fn *t = &fns[nfns++];

	(void)state;
	memset(t, 0, sizeof(*t));
	*t = (struct fn){ .start = 0x5fffff, .end = 0x600010, .name = NULL, .cfi = true };
	t->row.cfa_expr = true;
	t->row.expr = cfa;
	t->row.exprlen = sizeof(cfa);
	t->row.signal_frame = true;
	t->row.regs[DW_CFI_RA] = (struct dw_cfi_rule){ .kind = DW_CFI_EXPR, .expr = rip, .exprlen = 3 };
	t->row.regs[6] = (struct dw_cfi_rule){ .kind = DW_CFI_EXPR, .expr = rbp, .exprlen = 2 };
	regs(gp, 0x404010, sp, 0);
	put64(sp, 0x600000);
	put64(sc + 16 * 8, 0x402040);
	put64(sc + 15 * 8, mid_sp);
	put64(sc + 10 * 8, 0x3333);
	put64(mid_sp + 24, 0x403050);
	put64(mid_sp + 16, 0x4444);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 4);
	assert_int_equal(end.stop, REPLAY_UNWIND_MAIN);
	assert_int_equal(f[1].kind, REPLAY_FRAME_SIGTRAMP);
	assert_int_equal(f[1].cfa, mid_sp);
	assert_int_equal(f[2].pc, 0x402040);
	assert_int_equal(f[2].lookup_pc, 0x402040);
	assert_int_equal(f[2].cfa, mid_sp + 32); /* rsp from the CFA */
	assert_string_equal(f[3].sym.function, "main");
}

/* The sigcontext's rip was never recorded: said, not guessed. */
static void test_memory_not_recorded(void **state)
{
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x800;
	char text[200];

	(void)state;
	regs(gp, 0x404010, sp, 0);
	put64(sp, TRAMP);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_int_equal(end.stop, REPLAY_UNWIND_MEMORY);
	assert_int_equal(end.addr, sp + 8 + 40 + 16 * 8);
	assert_true(replay_unwind_end_text(&end, text, sizeof(text)));
	assert_non_null(strstr(text, "Backtrace stopped: Cannot access memory at address 0x7f08b0"));

	/* A return address below the CFA that nothing wrote. */
	regs(gp, 0x401010, MEM_BASE + 0x1800, 0);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 1);
	assert_int_equal(end.stop, REPLAY_UNWIND_MEMORY);
	assert_int_equal(end.addr, MEM_BASE + 0x1808);
}

/* No CFI: `push %rbp; mov %rsp,%rbp` at the function's start. */
static void test_prologue_analysis(void **state)
{
	static const uint8_t prologue[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x55, 0x48, 0x89, 0xe5 };
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x1000, rbp = MEM_BASE + 0x1100;

	(void)state;
	memcpy(code, prologue, sizeof(prologue));
	fns[nfns++] = (struct fn){ .start = CODE_BASE, .end = CODE_BASE + 0x100, .name = "nocfi",
				   .line = 90, .line_start = CODE_BASE, .cfi = false };
	/* Past the mov: the frame at rbp. */
	regs(gp, CODE_BASE + 0x20, sp, rbp);
	put64(rbp, 0x5555);
	put64(rbp + 8, 0x403010);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_int_equal(end.stop, REPLAY_UNWIND_MAIN);
	assert_int_equal(f[1].pc, 0x403010);
	assert_int_equal(f[0].cfa, rbp + 16);
	/* Between the push and the mov: rbp at rsp, the return address above. */
	regs(gp, CODE_BASE + 5, sp, 0x9999);
	put64(sp, 0x6666);
	put64(sp + 8, 0x403020);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_int_equal(f[1].pc, 0x403020);
	assert_int_equal(f[0].cfa, sp + 16);
	/* At the first instruction, or in no known function: at rsp. */
	regs(gp, 0x900000, sp, 0);
	put64(sp, 0x403030);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_false(f[0].has_sym);
	assert_int_equal(f[1].pc, 0x403030);
}

static void test_outermost_and_zero_pc(void **state)
{
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x1000;

	(void)state;
	fns[0].row.regs[DW_CFI_RA].kind = DW_CFI_UNDEFINED; /* leaf is _start */
	regs(gp, 0x401010, sp, 0);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 1);
	assert_int_equal(end.stop, REPLAY_UNWIND_OUTERMOST);

	setup(NULL);
	regs(gp, 0x402010, sp, 0);
	put64(sp + 24, 0);                  /* middle returns to 0 */
	put64(sp + 16, 0);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_int_equal(end.stop, REPLAY_UNWIND_ZERO_PC);
	assert_int_equal(f[1].pc, 0);
}

static void test_corrupt_stacks(void **state)
{
	struct replay_frame f[8];
	struct replay_unwind_end end;
	uint64_t gp[REPLAY_UNWIND_NGP], sp = MEM_BASE + 0x1000;
	char text[200];

	(void)state;
	/* middle returns into middle with the same CFA: identical. */
	fns[1].row.cfa_reg = 6;             /* rbp + 16 */
	fns[1].row.cfa_offset = 16;
	regs(gp, 0x402010, sp, sp);
	put64(sp + 8, 0x402030);
	put64(sp, sp);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 1);
	assert_int_equal(end.stop, REPLAY_UNWIND_SAME);
	assert_true(replay_unwind_end_text(&end, text, sizeof(text)));
	assert_string_equal(text, "Backtrace stopped: previous frame identical to this frame "
			    "(corrupt stack?)");
	/* ... with a lower CFA: inner. */
	put64(sp, sp - 0x100);
	put64(sp - 0x100 + 8, 0x403000);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_int_equal(end.stop, REPLAY_UNWIND_INNER);
	/* A CFA on a register never known (rax's value lost). */
	fns[1].row.cfa_reg = 0;
	fns[0].row.regs[0].kind = DW_CFI_UNDEFINED;
	regs(gp, 0x401010, sp, 0);
	put64(sp + 8, 0x402020);
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 2);
	assert_int_equal(end.stop, REPLAY_UNWIND_REGISTER);
	/* CFI this reader refuses. */
	regs(gp, 0x402010, sp, 0);
	fns[1].row.cfa_expr = true;
	fns[1].row.expr = (const uint8_t[]){ 0xe0 }; /* DW_OP_lo_user */
	fns[1].row.exprlen = 1;
	assert_int_equal(replay_unwind(gp, &env, f, 8, &end), 1);
	assert_int_equal(end.stop, REPLAY_UNWIND_BAD_CFI);
	assert_int_equal(end.err, -ENOTSUP);
}

/* A frame with two functions inlined at its pc: three levels, the outer
 * ones at their call sites. */
static void test_inlined_levels(void **state)
{
	struct replay_frame f = { .kind = REPLAY_FRAME_NORMAL, .pc = 0x401010, .has_sym = true };
	struct replay_symbol l;

	(void)state;
	f.sym = (struct replay_symbol){ .function = "outer", .start = 0x401000, .file = "a.h",
					.line = 7, .line_start = 0x401010, .ninlined = 2,
					.inlined = { "inner", "middle" },
					.call_file = { "a.h", "t.c" }, .call_line = { 12, 18 } };
	assert_int_equal(replay_frame_levels(&f), 3);
	replay_frame_level(&f, 0, &l);
	assert_string_equal(l.function, "inner");
	assert_int_equal(l.line, 7);
	assert_int_equal(l.ninlined, 0);
	replay_frame_level(&f, 1, &l);
	assert_string_equal(l.function, "middle");
	assert_int_equal(l.line, 12);
	replay_frame_level(&f, 2, &l);
	assert_string_equal(l.function, "outer");
	assert_string_equal(l.file, "t.c");
	assert_int_equal(l.line, 18);
	f.kind = REPLAY_FRAME_SIGTRAMP;
	assert_int_equal(replay_frame_levels(&f), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_cfi_chain_to_main, setup),
		cmocka_unit_test_setup(test_frame_registers, setup),
		cmocka_unit_test_setup(test_frame_limit, setup),
		cmocka_unit_test_setup(test_signal_frame, setup),
		cmocka_unit_test_setup(test_signal_frame_by_cfi, setup),
		cmocka_unit_test_setup(test_memory_not_recorded, setup),
		cmocka_unit_test_setup(test_prologue_analysis, setup),
		cmocka_unit_test_setup(test_outermost_and_zero_pc, setup),
		cmocka_unit_test_setup(test_corrupt_stacks, setup),
		cmocka_unit_test(test_inlined_levels),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
