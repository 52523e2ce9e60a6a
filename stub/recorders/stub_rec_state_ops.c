/*
 * stub/recorders/stub_rec_state_ops.c: an instruction's memory writes from its
 * Zydis operands and the registers before it runs.
 */
#include "stub/recorders/stub_rec_state_ops.h"

#include <errno.h>
#include <string.h>

#define STUB_REC_DF (1ull << 10)   /* eflags direction flag */

static int stub_rec_span_add(struct stub_rec_span *out, size_t max, size_t *n,
			     uint64_t addr, uint64_t len)
{
	if (!len)
		return 0;
	if (*n >= max)
		return -E2BIG;
	out[*n] = (struct stub_rec_span){ .addr = addr, .len = len };
	(*n)++;
	return 0;
}

uint64_t stub_rec_gp(const struct user_regs_struct *r, ZydisRegister reg,
			    uint64_t next_ip)
{
	ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, reg);
	uint64_t v;

	if (reg == ZYDIS_REGISTER_RIP)
		return next_ip;
	if (reg == ZYDIS_REGISTER_EIP)
		return next_ip & 0xffffffffu;
	switch (big) {
	case ZYDIS_REGISTER_RAX: v = r->rax; break;
	case ZYDIS_REGISTER_RBX: v = r->rbx; break;
	case ZYDIS_REGISTER_RCX: v = r->rcx; break;
	case ZYDIS_REGISTER_RDX: v = r->rdx; break;
	case ZYDIS_REGISTER_RSI: v = r->rsi; break;
	case ZYDIS_REGISTER_RDI: v = r->rdi; break;
	case ZYDIS_REGISTER_RBP: v = r->rbp; break;
	case ZYDIS_REGISTER_RSP: v = r->rsp; break;
	case ZYDIS_REGISTER_R8: v = r->r8; break;
	case ZYDIS_REGISTER_R9: v = r->r9; break;
	case ZYDIS_REGISTER_R10: v = r->r10; break;
	case ZYDIS_REGISTER_R11: v = r->r11; break;
	case ZYDIS_REGISTER_R12: v = r->r12; break;
	case ZYDIS_REGISTER_R13: v = r->r13; break;
	case ZYDIS_REGISTER_R14: v = r->r14; break;
	case ZYDIS_REGISTER_R15: v = r->r15; break;
	default: return 0;
	}
	if (ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, reg) == 32)
		v &= 0xffffffffu;
	return v;
}

/* Element @e (@size bytes, sign-extended) of vector register @reg. */
static int64_t stub_rec_vec_elem(const uint8_t *xs, size_t xs_len, const struct stub_rec_xoff *xo,
				 ZydisRegister reg, unsigned e, unsigned size)
{
	unsigned n = (unsigned)ZydisRegisterGetId(reg), o = e * size;
	size_t off;
	int32_t v32;
	int64_t v64;

	if (n >= 16)
		off = xo->hi16_zmm + 64 * (n - 16) + o;
	else if (o < 16)
		off = 160 + 16 * n + o;
	else if (o < 32)
		off = xo->ymm + 16 * n + (o - 16);
	else
		off = xo->zmm_hi256 + 32 * n + (o - 32);
	if (off + size > xs_len)
		return 0;
	if (size == 4) {
		memcpy(&v32, xs + off, 4);
		return v32;
	}
	memcpy(&v64, xs + off, 8);
	return v64;
}

static bool stub_rec_vsib_qindex(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_VPSCATTERQD: case ZYDIS_MNEMONIC_VPSCATTERQQ:
	case ZYDIS_MNEMONIC_VSCATTERQPS: case ZYDIS_MNEMONIC_VSCATTERQPD:
		return true;
	default:
		return false;
	}
}

/* A VSIB scatter: one range per element (all of them: a superset of the
 * mask). The data operand gives the element count. */
static int stub_rec_vsib(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops,
			 const ZydisDecodedOperand *m, uint64_t base,
			 const uint8_t *xs, size_t xs_len, const struct stub_rec_xoff *xo,
			 struct stub_rec_span *out, size_t max, size_t *n)
{
	unsigned isz = stub_rec_vsib_qindex(in->mnemonic) ? 8 : 4, count = 0, esz = m->size / 8;

	for (unsigned i = 0; i < in->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ZydisRegisterGetClass(ops[i].reg.value) != ZYDIS_REGCLASS_MASK)
			count = ops[i].element_count;
	for (unsigned e = 0; e < count; e++) {
		int64_t idx = stub_rec_vec_elem(xs, xs_len, xo, m->mem.index, e, isz);
		uint64_t a = base + (uint64_t)(idx * m->mem.scale) + (uint64_t)m->mem.disp.value;
		int r = stub_rec_span_add(out, max, n, a, esz ? esz : 8);

		if (r < 0)
			return r;
	}
	return 0;
}

static bool stub_rec_is_xsave(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_XSAVE: case ZYDIS_MNEMONIC_XSAVE64:
	case ZYDIS_MNEMONIC_XSAVEC: case ZYDIS_MNEMONIC_XSAVEC64:
	case ZYDIS_MNEMONIC_XSAVEOPT: case ZYDIS_MNEMONIC_XSAVEOPT64:
	case ZYDIS_MNEMONIC_XSAVES: case ZYDIS_MNEMONIC_XSAVES64:
		return true;
	default:
		return false;
	}
}

/* Bytes operand @m writes at @addr, or where it starts (*@addr moved). */
static uint64_t stub_rec_op_len(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *m,
				const struct stub_rec_insn *insn,
				const struct user_regs_struct *r, uint32_t xsave_size,
				uint64_t *addr)
{
	uint64_t size = m->size / 8, count;

	if (stub_rec_is_xsave(in->mnemonic))
		return xsave_size;
	if (in->mnemonic == ZYDIS_MNEMONIC_ENTER) {
		uint64_t level = in->raw.imm[1].value.u & 31;

		size = 8 * (level ? level + 1 : 1);
		*addr = r->rsp - size;
		return size;
	}
	if (m->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
	    m->mem.base == ZYDIS_REGISTER_RSP &&
	    (in->meta.category == ZYDIS_CATEGORY_PUSH || in->meta.category == ZYDIS_CATEGORY_CALL)) {
		*addr = r->rsp - size;         /* push, pushf, call */
		return size;
	}
	if (in->meta.category == ZYDIS_CATEGORY_STRINGOP && m->mem.base != ZYDIS_REGISTER_NONE) {
		count = insn->rep ? (in->address_width == 32 ? r->rcx & 0xffffffffu : r->rcx) : 1;
		if (r->eflags & STUB_REC_DF)
			*addr -= (count - 1) * size;
		return count * size;
	}
	return size ? size : 64;
}

uint64_t stub_rec_op_base(const ZydisDecodedOperand *m, const struct user_regs_struct *regs,
			  uint64_t next_ip)
{
	uint64_t addr = stub_rec_gp(regs, m->mem.base, next_ip);

	if (m->mem.segment == ZYDIS_REGISTER_FS)
		addr += regs->fs_base;
	else if (m->mem.segment == ZYDIS_REGISTER_GS)
		addr += regs->gs_base;
	return addr;
}

uint64_t stub_rec_op_addr(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *m,
			  const struct user_regs_struct *regs, uint64_t next_ip)
{
	uint64_t addr = stub_rec_op_base(m, regs, next_ip) +
			stub_rec_gp(regs, m->mem.index, next_ip) * m->mem.scale +
			(uint64_t)m->mem.disp.value;

	return in->address_width == 32 ? addr & 0xffffffffu : addr;
}

int stub_rec_state_ops(const ZydisDecoder *dec, const struct stub_rec_insn *insn,
		       const struct user_regs_struct *regs, const uint8_t *xs, size_t xs_len,
		       const struct stub_rec_xoff *xo, uint32_t xsave_size, unsigned actions,
		       struct stub_rec_span *out, size_t max)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	uint64_t next = insn->ip + insn->len;
	size_t n = 0;

	if (ZYAN_FAILED(ZydisDecoderDecodeFull(dec, insn->bytes, insn->len, &in, ops)))
		return -EINVAL;
	for (unsigned i = 0; i < in.operand_count; i++) {
		const ZydisDecodedOperand *m = &ops[i];
		uint64_t addr, len;
		int r;

		if (m->type != ZYDIS_OPERAND_TYPE_MEMORY || !(m->actions & actions))
			continue;
		if (m->mem.type == ZYDIS_MEMOP_TYPE_VSIB) {
			r = stub_rec_vsib(&in, ops, m, stub_rec_op_base(m, regs, next), xs, xs_len,
					  xo, out, max, &n);
		} else if (m->mem.type == ZYDIS_MEMOP_TYPE_MEM) {
			addr = stub_rec_op_addr(&in, m, regs, next);
			len = stub_rec_op_len(&in, m, insn, regs, xsave_size, &addr);
			r = stub_rec_span_add(out, max, &n, addr, len);
		} else {
			r = 0;                 /* lea, MIB: no access */
		}
		if (r < 0)
			return r;
	}
	return (int)n;
}
