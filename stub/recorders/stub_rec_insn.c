/*
 * stub/recorders/stub_rec_insn.c: Zydis decoding to libipt's instruction classes,
 * and the by-address cache of decoded instructions.
 */
#include "stub/recorders/stub_rec_insn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STUB_REC_ICACHE_EMPTY UINT64_MAX

/* Map-0 opcodes (pt_ild.c's switch), for a legacy-encoded instruction. */
static enum stub_rec_class stub_rec_class_map0(const ZydisDecodedInstruction *in)
{
	uint8_t op = in->opcode, reg = in->raw.modrm.reg;

	if (op >= 0x70 && op <= 0x7f)
		return STUB_REC_COND;
	switch (op) {
	case 0xe0: case 0xe1: case 0xe2: case 0xe3:
		return STUB_REC_COND;                   /* LOOPcc, JrCXZ */
	case 0xe8:
		return STUB_REC_CALL;
	case 0xe9: case 0xeb:
		return STUB_REC_JUMP;
	case 0xc3: case 0xc2:
		return STUB_REC_RET;
	case 0x9a: case 0xea: case 0xcb: case 0xca: case 0xcf:
		return STUB_REC_FAR;                    /* far call/jmp/ret, IRET */
	case 0xcd: case 0xcc: case 0xce: case 0xf1:
		return STUB_REC_KERNEL;                 /* INT n, INT3, INTO, INT1 */
	case 0xff:
		if (reg == 2)
			return STUB_REC_CALL_IND;
		if (reg == 4)
			return STUB_REC_JUMP_IND;
		if (reg == 3 || reg == 5)
			return STUB_REC_FAR;
		return STUB_REC_OTHER;
	default:
		return STUB_REC_OTHER;
	}
}

/* Map-0F opcodes. SYSEXIT / SYSRET / VMLAUNCH... fault in user space (the
 * fault is reported as a signal); they are far returns to libipt. */
static enum stub_rec_class stub_rec_class_map0f(const ZydisDecodedInstruction *in)
{
	uint8_t op = in->opcode;

	if (op >= 0x80 && op <= 0x8f)
		return STUB_REC_COND;
	switch (op) {
	case 0x05: case 0x34:
		return STUB_REC_KERNEL;                 /* SYSCALL, SYSENTER */
	case 0x07: case 0x35:
		return STUB_REC_FAR;
	case 0x01:
		if (in->raw.modrm.mod == 3 && in->raw.modrm.reg == 0 &&
		    in->raw.modrm.rm == 1)
			return STUB_REC_KERNEL;         /* VMCALL (0f 01 c1) */
		return STUB_REC_OTHER;
	default:
		return STUB_REC_OTHER;
	}
}

/* Registers the state log diffs through GETREGS (general, flags, segment). */
static bool stub_rec_insn_gp_reg(ZydisRegister reg)
{
	switch (ZydisRegisterGetClass(reg)) {
	case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16: case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64: case ZYDIS_REGCLASS_FLAGS: case ZYDIS_REGCLASS_IP:
	case ZYDIS_REGCLASS_SEGMENT:
		return true;
	default:
		return false;
	}
}

/* Instructions that change x87 / vector state with no register operand. */
static bool stub_rec_insn_fp_implicit(ZydisMnemonic m)
{
	switch (m) {
	case ZYDIS_MNEMONIC_VZEROUPPER: case ZYDIS_MNEMONIC_VZEROALL:
	case ZYDIS_MNEMONIC_EMMS: case ZYDIS_MNEMONIC_FEMMS:
	case ZYDIS_MNEMONIC_FNINIT: case ZYDIS_MNEMONIC_FXRSTOR: case ZYDIS_MNEMONIC_FXRSTOR64:
	case ZYDIS_MNEMONIC_XRSTOR: case ZYDIS_MNEMONIC_XRSTOR64:
	case ZYDIS_MNEMONIC_XRSTORS: case ZYDIS_MNEMONIC_XRSTORS64:
	case ZYDIS_MNEMONIC_FRSTOR: case ZYDIS_MNEMONIC_FLDENV: case ZYDIS_MNEMONIC_FNSAVE:
	case ZYDIS_MNEMONIC_LDTILECFG: case ZYDIS_MNEMONIC_TILERELEASE:
		return true;
	default:
		return false;
	}
}

/* The state log's hints: a memory operand written (explicit or hidden:
 * push, call, string stores), a non-general register written. */
static void stub_rec_insn_hints(const ZydisDecoder *dec, const ZydisDecodedInstruction *in,
				struct stub_rec_insn *out)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	out->memw = false;
	out->fpw = stub_rec_insn_fp_implicit(in->mnemonic);
	if (ZYAN_FAILED(ZydisDecoderDecodeOperands(dec, NULL, in, ops, in->operand_count))) {
		out->memw = out->fpw = true;
		return;
	}
	for (unsigned i = 0; i < in->operand_count; i++) {
		if (!(ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE))
			continue;
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY)
			out->memw = true;
		else if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			 !stub_rec_insn_gp_reg(ops[i].reg.value))
			out->fpw = true;
	}
}

int stub_rec_insn_decode(const ZydisDecoder *dec, const uint8_t *bytes, size_t len,
			 uint64_t ip, struct stub_rec_insn *out)
{
	ZydisDecodedInstruction in;
	enum stub_rec_class cls = STUB_REC_OTHER;

	if (ZYAN_FAILED(ZydisDecoderDecodeInstruction(dec, NULL, bytes, len, &in)))
		return -EINVAL;
	if (in.encoding == ZYDIS_INSTRUCTION_ENCODING_LEGACY) {
		if (in.opcode_map == ZYDIS_OPCODE_MAP_DEFAULT)
			cls = stub_rec_class_map0(&in);
		else if (in.opcode_map == ZYDIS_OPCODE_MAP_0F)
			cls = stub_rec_class_map0f(&in);
	}
	out->ip = ip;
	out->len = in.length;
	memset(out->bytes, 0, sizeof(out->bytes));
	memcpy(out->bytes, bytes, in.length);
	stub_rec_insn_hints(dec, &in, out);
	out->cls = (uint8_t)cls;
	/* pt_insn_proceed: no push for a call to the next instruction. */
	out->push = cls == STUB_REC_CALL_IND ||
		    (cls == STUB_REC_CALL && in.raw.imm[0].value.s != 0);
	out->cpuid = in.mnemonic == ZYDIS_MNEMONIC_CPUID;
	out->addr32 = in.address_width == 32;
	out->cc = 0;
	out->target = 0;
	if (cls == STUB_REC_COND || cls == STUB_REC_JUMP || cls == STUB_REC_CALL)
		out->target = ip + in.length + (uint64_t)in.raw.imm[0].value.s;
	if (cls == STUB_REC_COND)
		out->cc = in.opcode >= 0xe0 && in.opcode <= 0xe3 ?
			  (uint8_t)(STUB_REC_CC_LOOPNE + (in.opcode - 0xe0)) : in.opcode & 0xf;
	out->rep = (in.attributes & (ZYDIS_ATTRIB_HAS_REP | ZYDIS_ATTRIB_HAS_REPE |
				     ZYDIS_ATTRIB_HAS_REPNE)) &&
		   in.meta.category == ZYDIS_CATEGORY_STRINGOP;
	return 0;
}

int stub_rec_icache_init(struct stub_rec_icache *c)
{
	memset(c, 0, sizeof(*c));
	if (ZYAN_FAILED(ZydisDecoderInit(&c->dec, ZYDIS_MACHINE_MODE_LONG_64,
					 ZYDIS_STACK_WIDTH_64)))
		return -EINVAL;
	c->v = malloc(sizeof(*c->v) << STUB_REC_ICACHE_BITS);
	if (!c->v)
		return -ENOMEM;
	stub_rec_icache_clear(c);
	return 0;
}

void stub_rec_icache_release(struct stub_rec_icache *c)
{
	free(c->v);
	c->v = NULL;
}

void stub_rec_icache_clear(struct stub_rec_icache *c)
{
	for (size_t i = 0; i < ((size_t)1 << STUB_REC_ICACHE_BITS); i++)
		c->v[i].ip = STUB_REC_ICACHE_EMPTY;
}

static size_t stub_rec_icache_slot(uint64_t ip)
{
	return (size_t)((ip ^ (ip >> STUB_REC_ICACHE_BITS)) &
			((1u << STUB_REC_ICACHE_BITS) - 1));
}

int stub_rec_icache_get(struct stub_rec_icache *c, int mem_fd, uint64_t ip,
			struct stub_rec_insn *out)
{
	struct stub_rec_insn *e = &c->v[stub_rec_icache_slot(ip)];
	uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH];
	bool keep = !c->cacheable || c->cacheable(c->ctx, ip);
	ssize_t n;
	int r;

	if (keep && e->ip == ip) {
		c->hits++;
		*out = *e;
		return 0;
	}
	c->misses++;
	n = pread(mem_fd, bytes, sizeof(bytes), (off_t)ip);
	if (n <= 0) {
		/* The instruction may end just before an unmapped page. */
		size_t part = 4096 - (size_t)(ip & 4095);

		n = part < sizeof(bytes) ? pread(mem_fd, bytes, part, (off_t)ip) : -1;
		if (n <= 0)
			return -EIO;
	}
	r = stub_rec_insn_decode(&c->dec, bytes, (size_t)n, ip, out);
	if (r < 0)
		return r;
	if (keep)
		*e = *out;
	return 0;
}
