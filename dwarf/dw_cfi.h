/* dw_cfi: call frame information of one ELF file (.eh_frame, and
 * .debug_frame when the file has one): for a file address, the rules that
 * give the caller's registers (the CFA, where each register was saved, the
 * return address), as the DWARF standard (6.4) and the LSB's .eh_frame
 * define them. x86-64 only: DWARF registers 0..16 (rax rdx rcx rbx rsi rdi
 * rbp rsp r8..r15, and 16, the return address column); rules of other
 * registers are read and dropped.
 *
 * The FDEs are indexed (sorted by start) on the first question; a row is
 * computed by running the CIE's and the FDE's instructions up to the
 * address. Expressions (DW_CFA_def_cfa_expression, DW_CFA_expression,
 * DW_CFA_val_expression) are returned as byte ranges inside the section,
 * and dw_cfi_expr_eval runs them over the caller's registers and memory.
 * Nothing here reads a process: memory comes through a callback. */
#ifndef DW_CFI_H
#define DW_CFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_elf;
struct dw_cfi;

#define DW_CFI_NREGS 17  /* DWARF x86-64 0..15 and the return address, 16 */
#define DW_CFI_RA 16
#define DW_CFI_RSP 7

enum dw_cfi_rule_kind {
	DW_CFI_SAME,       /* unspecified or DW_CFA_same_value: the callee's value */
	DW_CFI_UNDEFINED,  /* not recoverable (an RA undefined: the outermost frame) */
	DW_CFI_OFFSET,     /* saved at CFA + offset */
	DW_CFI_VAL_OFFSET, /* the value is CFA + offset */
	DW_CFI_REGISTER,   /* in register @reg */
	DW_CFI_EXPR,       /* saved at the address the expression gives (CFA pushed first) */
	DW_CFI_VAL_EXPR,   /* the value is the expression's */
};

struct dw_cfi_rule {
	enum dw_cfi_rule_kind kind;
	unsigned reg;
	int64_t offset;
	const uint8_t *expr;    /* into the section, valid as long as the dw_cfi */
	size_t exprlen;
};

struct dw_cfi_row {
	bool cfa_expr;          /* the CFA is @expr's value, else @cfa_reg + @cfa_offset */
	unsigned cfa_reg;
	int64_t cfa_offset;
	const uint8_t *expr;
	size_t exprlen;
	struct dw_cfi_rule regs[DW_CFI_NREGS];
	bool signal_frame;      /* the CIE's 'S': a signal trampoline */
	uint64_t start, end;    /* the FDE's range (file addresses) */
};

/* Memory and registers for dw_cfi_expr_eval: @read fills 8 bytes at
 * @addr (0, or a negative errno); @regs are the DWARF registers of the
 * frame the rules belong to, @known which of them are. */
struct dw_cfi_env {
	const uint64_t *regs;
	const bool *known;
	int (*read)(void *ctx, uint64_t addr, uint64_t *out);
	void *ctx;
};

/* The CFI of @elf (borrowed, must outlive it). Returns 0, -ENOMEM; a file
 * with no CFI gives an empty table (every question -ENOENT). */
int dw_cfi_open(struct dw_elf *elf, struct dw_cfi **out);
void dw_cfi_free(struct dw_cfi *c);

/* The rules at file address @addr. Returns 0, -ENOENT when no FDE covers
 * it, -EINVAL when its CIE or instructions are malformed, -ENOTSUP for an
 * instruction or encoding this reader does not know, -ENOMEM. */
int dw_cfi_row_at(struct dw_cfi *c, uint64_t addr, struct dw_cfi_row *out);

/* Runs the DWARF expression @expr, with @push (when @has_push) on the
 * stack first; the top of the stack into *@out. Returns 0, -EINVAL for a
 * malformed expression or one that needs a register @env does not know,
 * -ENOTSUP for an operation this evaluator does not know, or @read's
 * error. */
int dw_cfi_expr_eval(const uint8_t *expr, size_t len, const struct dw_cfi_env *env,
		     bool has_push, uint64_t push, uint64_t *out);

#endif
