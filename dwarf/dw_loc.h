/* dw_loc: the DWARF expression stack machine (DWARF 5, 2.5 and 2.6), for
 * the locations of variables and for call frame information alike.
 *
 * dw_loc_eval runs a variable's location expression for one frame and
 * says where the value is, as a list of pieces: memory at a runtime
 * address, a DWARF register, a value the expression computed
 * (DW_OP_stack_value), bytes of the expression (DW_OP_implicit_value), or
 * nothing (optimized out: an empty piece, an entry value, an implicit
 * pointer). A register or a CFA the frame does not know makes the result
 * unavailable, not an error and not a guess.
 *
 * x86-64 DWARF register numbers: 0 rax 1 rdx 2 rcx 3 rbx 4 rsi 5 rdi 6 rbp
 * 7 rsp 8-15 r8-r15 16 the return address (rip), 17-32 xmm0-15. The frame
 * knows 0..16 at most. Nothing here reads a process: memory comes through
 * a callback. Bad expressions (cut short, unknown operations, stack
 * underflow, endless loops) give a negative errno, never a crash. */
#ifndef DW_LOC_H
#define DW_LOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DW_LOC_NREGS 17      /* DWARF x86-64 0..15 and 16, the return address */
#define DW_LOC_MAX_PIECES 32

enum dw_loc_kind {
	DW_LOC_MEMORY,        /* at @addr (runtime address) */
	DW_LOC_REGISTER,      /* in DWARF register @reg (may be >= DW_LOC_NREGS: xmm) */
	DW_LOC_VALUE,         /* the value is @value (DW_OP_stack_value), little-endian */
	DW_LOC_IMPLICIT,      /* the value is @len bytes at @bytes (DW_OP_implicit_value) */
	DW_LOC_OPTIMIZED_OUT, /* gone: GDB's <optimized out> */
	DW_LOC_UNAVAILABLE,   /* needs a register, the CFA or memory the frame does not know */
};

struct dw_loc_piece {
	enum dw_loc_kind kind;
	uint64_t addr;          /* MEMORY */
	unsigned reg;           /* REGISTER */
	uint64_t value;         /* VALUE */
	const uint8_t *bytes;   /* IMPLICIT: into the expression */
	uint64_t len;           /* IMPLICIT: bytes at @bytes */
	uint64_t bit_size;      /* bits this piece holds; 0: the whole object (no DW_OP_piece) */
	uint64_t bit_offset;    /* DW_OP_bit_piece: bits to skip in the location, else 0 */
};

struct dw_loc {
	size_t npieces;         /* 1 or more after a successful dw_loc_eval */
	struct dw_loc_piece pieces[DW_LOC_MAX_PIECES];
	const char *message;    /* on -ENOTSUP: what GDB would say ("Cannot access
				 * thread-local variables ..."), else NULL */
};

/* What a frame offers an expression. @regs / @known: the frame's DWARF
 * registers 0..16 and which are known. @cfa: the frame's canonical frame
 * address (DW_OP_call_frame_cfa), when @cfa_known. @frame_base: the
 * function's DW_AT_frame_base expression (DW_OP_fbreg), may be NULL.
 * @bias: added to the file addresses of DW_OP_addr (runtime = file +
 * bias). @read: reads @len bytes at runtime address @addr into @buf;
 * returns 0 or a negative errno (memory not known, not mapped). */
struct dw_loc_env {
	const uint64_t *regs;
	const bool *known;
	bool cfa_known;
	uint64_t cfa;
	const uint8_t *frame_base;
	size_t frame_base_len;
	uint64_t bias;
	int (*read)(void *ctx, uint64_t addr, void *buf, size_t len);
	void *ctx;
};

/* DW_OP_entry_value for dw_loc_eval_entry: @value gives the value the
 * operation's block (@expr: gcc's is DW_OP_regN) had on entry to the
 * function, from the caller's call site (dw_image_call_value); 0, or
 * negative when unknown: then the piece is optimized out, as GDB says when
 * it cannot resolve one. */
struct dw_loc_entry {
	int (*value)(void *ctx, const uint8_t *expr, size_t len, uint64_t *out);
	void *ctx;
};

/* Runs the location expression @expr (@len bytes) for the frame @env.
 * An empty expression is optimized out. Returns 0 with *@out filled (its
 * pieces may be DW_LOC_UNAVAILABLE or DW_LOC_OPTIMIZED_OUT), -EINVAL for a
 * malformed expression (cut short, stack underflow, division by zero, a
 * branch outside, too many steps or pieces), -ENOTSUP for an operation this
 * evaluator does not do (thread-local storage: out->message says so;
 * typed-stack operations dw_loc_rewrite did not turn into plain ones,
 * DW_OP_call*), or @read's error when a
 * DW_OP_deref cannot read. */
int dw_loc_eval(const uint8_t *expr, size_t len, const struct dw_loc_env *env, struct dw_loc *out);
/* The same, entry values resolved through @entry (NULL: dw_loc_eval). */
int dw_loc_eval_entry(const uint8_t *expr, size_t len, const struct dw_loc_env *env,
		      const struct dw_loc_entry *entry, struct dw_loc *out);

/* Runs @expr as a DWARF expression whose value is the top of the stack
 * (CFI rules, DW_AT_frame_base given as a value), with @push on the stack
 * first when @has_push. Returns 0 with *@out, -EAGAIN when it needs a
 * register or CFA @env does not know, and dw_loc_eval's errors. */
int dw_loc_eval_value(const uint8_t *expr, size_t len, const struct dw_loc_env *env,
		      bool has_push, uint64_t push, uint64_t *out);

/* The size in bytes of the operation at @expr[@at] with its operands.
 * Returns it (>= 1), -EINVAL when the operation is cut short, -ENOTSUP for
 * an operation whose operands this reader does not know. */
int dw_loc_op_size(const uint8_t *expr, size_t len, size_t at);

/* What dw_loc_rewrite asks of the unit an expression comes from: @addr
 * gives .debug_addr entry @index; @base_type the size, signedness and
 * floatness of the base type DIE at unit offset @off. Either may be NULL. */
struct dw_loc_rewriter {
	int (*addr)(void *ctx, uint64_t index, uint64_t *addr);
	int (*base_type)(void *ctx, uint64_t off, unsigned *size, bool *is_signed, bool *is_float);
	void *ctx;
};

/* True for the operations dw_loc_rewrite turns into plain ones. */
bool dw_loc_needs_rewrite(uint8_t op);

/* Rewrites @expr into one that needs nothing of its unit: DW_OP_addrx and
 * DW_OP_GNU_addr_index become DW_OP_addr, DW_OP_constx / GNU_const_index
 * DW_OP_const8u; the typed-stack operations of integer base types
 * (DW_OP_convert, reinterpret, regval_type, deref_type, const_type and
 * their GNU forms) become generic-stack ones that truncate and
 * sign-extend to the type's size. What cannot be rewritten (floating
 * point) is kept, and dw_loc_eval says -ENOTSUP for it. *@out (malloc'ed,
 * the caller frees) and *@outlen. Returns 0, -ENOTSUP when the expression
 * also branches (targets would move), dw_loc_op_size's errors, a callback's
 * error, -ENOMEM. */
int dw_loc_rewrite(const uint8_t *expr, size_t len, const struct dw_loc_rewriter *rw,
		   uint8_t **out, size_t *outlen);

#endif
