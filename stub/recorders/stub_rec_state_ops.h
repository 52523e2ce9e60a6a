/*
 * stub/recorders/stub_rec_state_ops.h: where an instruction or a syscall is about to
 * write memory, computed from the registers before it runs.
 *
 * Instructions: every memory operand Zydis marks as written (explicit or
 * hidden): base + index * scale + displacement (+ fs / gs base, rip
 * relative from the next instruction), push / call / pushf below rsp,
 * enter's frame, rep stos / movs over RCX elements either way (DF), VSIB
 * scatters element by element from the index vector, the xsave family
 * with the size CPUID 0xD gives. Masked AVX-512 stores give the whole
 * operand: a superset is right as long as old and new bytes are read
 * (unwritten bytes read the same).
 * Syscalls are stub/recorders/stub_rec_state_sys.h.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_STATE_OPS_H
#define HINDSIGHT_STUB_STUB_REC_STATE_OPS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/user.h>

#include "stub/recorders/stub_rec_state.h"

#define STUB_REC_SPANS 80          /* most ranges one step can give */

enum stub_rec_span_kind {
	STUB_REC_SPAN_WRITE,       /* old and new bytes are logged */
	STUB_REC_SPAN_VOLATILE,    /* the kernel writes it later, unseen */
};

struct stub_rec_span {
	uint64_t addr, len;
	uint8_t kind;              /* enum stub_rec_span_kind */
	uint8_t trim;              /* syscalls: len = min(len, ret * trim); 0: no */
};

/* XSAVE offsets of the components vector registers live in (CPUID 0xD). */
struct stub_rec_xoff {
	uint32_t ymm, zmm_hi256, hi16_zmm;
};

/* The ranges instruction @insn accesses when run with @regs and XSAVE
 * area @xs (@xs_len bytes, for VSIB indices): its memory operands with
 * one of @actions (ZYDIS_OPERAND_ACTION_MASK_WRITE for the writes, | _READ
 * for every access). Count, or -EINVAL if it does not decode, -E2BIG if
 * more than @max. */
int stub_rec_state_ops(const ZydisDecoder *dec, const struct stub_rec_insn *insn,
		       const struct user_regs_struct *regs, const uint8_t *xs, size_t xs_len,
		       const struct stub_rec_xoff *xo, uint32_t xsave_size, unsigned actions,
		       struct stub_rec_span *out, size_t max);

/* General register @reg of @regs at any width (rip / eip: @next_ip). */
uint64_t stub_rec_gp(const struct user_regs_struct *regs, ZydisRegister reg, uint64_t next_ip);
/* Segment base (fs / gs) plus base register of memory operand @m. */
uint64_t stub_rec_op_base(const ZydisDecodedOperand *m, const struct user_regs_struct *regs,
			  uint64_t next_ip);
/* The address memory operand @m of @in refers to (not VSIB). */
uint64_t stub_rec_op_addr(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *m,
			  const struct user_regs_struct *regs, uint64_t next_ip);

#endif
