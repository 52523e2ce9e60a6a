/*
 * stub/recorders/stub_rec_next.c: an instruction's successor before it runs.
 */
#include "stub/recorders/stub_rec_next.h"

#include <unistd.h>

#include "stub/recorders/stub_rec_state_ops.h"

#define FL_CF (1u << 0)
#define FL_PF (1u << 2)
#define FL_ZF (1u << 6)
#define FL_SF (1u << 7)
#define FL_OF (1u << 11)

bool stub_rec_cc_holds(unsigned cc, uint64_t eflags)
{
	bool cf = eflags & FL_CF, pf = eflags & FL_PF, zf = eflags & FL_ZF;
	bool sf = eflags & FL_SF, of = eflags & FL_OF, r;

	switch (cc >> 1) {
	case 0: r = of; break;                 /* JO */
	case 1: r = cf; break;                 /* JB */
	case 2: r = zf; break;                 /* JE */
	case 3: r = cf || zf; break;           /* JBE */
	case 4: r = sf; break;                 /* JS */
	case 5: r = pf; break;                 /* JP */
	case 6: r = sf != of; break;           /* JL */
	default: r = zf || sf != of; break;    /* JLE */
	}
	return cc & 1 ? !r : r;                /* odd: the negation */
}

/* Whether conditional @insn is taken with @regs. */
static bool stub_rec_taken(const struct stub_rec_insn *insn, const struct user_regs_struct *regs)
{
	uint64_t cx = insn->addr32 ? regs->rcx & 0xffffffffu : regs->rcx;
	bool zf = regs->eflags & FL_ZF;

	switch (insn->cc) {
	case STUB_REC_CC_LOOPNE: return cx != 1 && !zf;
	case STUB_REC_CC_LOOPE: return cx != 1 && zf;
	case STUB_REC_CC_LOOP: return cx != 1;
	case STUB_REC_CC_JRCXZ: return cx == 0;
	default: return stub_rec_cc_holds(insn->cc, regs->eflags);
	}
}

static int stub_rec_read64(int mem_fd, uint64_t addr, uint64_t *out)
{
	return pread(mem_fd, out, 8, (off_t)addr) == 8;
}

/* The target of indirect jump / call @insn: its only explicit operand. */
static int stub_rec_indirect(const ZydisDecoder *dec, const struct stub_rec_insn *insn,
			     const struct user_regs_struct *regs, int mem_fd, uint64_t *out)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t next = insn->ip + insn->len;

	if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, insn->bytes, insn->len, &in, ops)) ||
	    !in.operand_count_visible)
		return 0;
	if (ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER) {
		*out = stub_rec_gp(regs, ops[0].reg.value, next);
		return 1;
	}
	if (ops[0].type != ZYDIS_OPERAND_TYPE_MEMORY || ops[0].mem.type != ZYDIS_MEMOP_TYPE_MEM)
		return 0;
	return stub_rec_read64(mem_fd, stub_rec_op_addr(&in, &ops[0], regs, next), out);
}

int stub_rec_next(const ZydisDecoder *dec, const struct stub_rec_insn *insn,
		  const struct user_regs_struct *regs, int mem_fd, uint64_t *out)
{
	uint64_t next = insn->ip + insn->len;

	switch (insn->cls) {
	case STUB_REC_COND:
		*out = stub_rec_taken(insn, regs) ? insn->target : next;
		return 1;
	case STUB_REC_JUMP:
	case STUB_REC_CALL:
		*out = insn->target;
		return 1;
	case STUB_REC_JUMP_IND:
	case STUB_REC_CALL_IND:
		return stub_rec_indirect(dec, insn, regs, mem_fd, out);
	case STUB_REC_RET:
		return stub_rec_read64(mem_fd, regs->rsp, out);
	case STUB_REC_FAR:
	case STUB_REC_KERNEL:
		return 0;
	default:
		*out = next;
		return 1;
	}
}
