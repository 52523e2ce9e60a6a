/*
 * replay/decode/insn.c: x86 instruction lengths, kinds and text with Zydis.
 */
#include "replay/decode/insn.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <Zydis/Zydis.h>

static void decoder_init(ZydisDecoder *d, int bits)
{
	if (bits == 32)
		ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LEGACY_32, ZYDIS_STACK_WIDTH_32);
	else if (bits == 16)
		ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LEGACY_16, ZYDIS_STACK_WIDTH_16);
	else
		ZydisDecoderInit(d, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
}

static enum replay_insn_kind kind_of(const ZydisDecodedInstruction *z)
{
	switch (z->mnemonic) {
	case ZYDIS_MNEMONIC_CALL:
		return z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR ? REPLAY_INSN_FAR : REPLAY_INSN_CALL;
	case ZYDIS_MNEMONIC_RET:
		return REPLAY_INSN_RET;
	case ZYDIS_MNEMONIC_JMP:
		return z->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR ? REPLAY_INSN_FAR : REPLAY_INSN_JUMP;
	default:
		break;
	}
	switch (z->meta.category) {
	case ZYDIS_CATEGORY_COND_BR:
		return REPLAY_INSN_COND;
	case ZYDIS_CATEGORY_SYSCALL:
	case ZYDIS_CATEGORY_SYSRET:
	case ZYDIS_CATEGORY_INTERRUPT:
	case ZYDIS_CATEGORY_RET:
	case ZYDIS_CATEGORY_CALL:
	case ZYDIS_CATEGORY_UNCOND_BR:
		return REPLAY_INSN_FAR;
	default:
		return REPLAY_INSN_OTHER;
	}
}

int replay_insn_decode(struct replay_insn *in, const uint8_t *buf, size_t n, uint64_t ip,
		       int bits)
{
	ZydisDecodedInstruction z;
	ZydisDecoderContext ctx;
	ZydisDecoder d;

	decoder_init(&d, bits);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeInstruction(&d, &ctx, buf, n, &z)))
		return -EINVAL;
	in->ip = ip;
	in->size = z.length;
	memcpy(in->raw, buf, z.length);
	in->kind = kind_of(&z);
	in->direct = false;
	in->target = 0;
	for (int i = 0; i < 2; i++) {
		if (z.raw.imm[i].is_relative &&
		    (in->kind == REPLAY_INSN_CALL || in->kind == REPLAY_INSN_JUMP ||
		     in->kind == REPLAY_INSN_COND)) {
			in->direct = true;
			in->target = ip + z.length + (uint64_t)z.raw.imm[i].value.s;
			if (bits == 32)
				in->target &= 0xffffffffu;
			else if (bits == 16)
				in->target &= 0xffffu;
		}
	}
	return 0;
}

uint64_t replay_insn_next_ip(const struct replay_insn *in)
{
	if (in->direct && (in->kind == REPLAY_INSN_CALL || in->kind == REPLAY_INSN_JUMP))
		return in->target;
	return in->ip + in->size;
}

static int formatter_init(ZydisFormatter *f, enum replay_syntax syntax)
{
	ZydisFormatterStyle style = syntax == REPLAY_SYNTAX_INTEL ? ZYDIS_FORMATTER_STYLE_INTEL
								   : ZYDIS_FORMATTER_STYLE_ATT;

	if (!ZYAN_SUCCESS(ZydisFormatterInit(f, style)))
		return -EINVAL;
	/* objdump's spelling: no zero padding, DWORD PTR in capitals. */
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_DISP_PADDING, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_IMM_PADDING, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_ADDR_PADDING_ABSOLUTE, ZYDIS_PADDING_DISABLED);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_FORCE_RELATIVE_RIPREL, ZYAN_TRUE);
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_HEX_UPPERCASE, ZYAN_FALSE);
	/* objdump's immediates: unsigned in the operand's size ($0xfffffffffffff000) */
	ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_IMM_SIGNEDNESS, ZYDIS_SIGNEDNESS_UNSIGNED);
	if (syntax == REPLAY_SYNTAX_INTEL)
		ZydisFormatterSetProperty(f, ZYDIS_FORMATTER_PROP_FORCE_SIZE, ZYAN_TRUE);
	return 0;
}

/* Appends @s to @out at *@len, keeping it terminated. */
static void put(char *out, size_t size, size_t *len, const char *s)
{
	size_t n = strlen(s);

	if (*len + n >= size)
		n = *len + 1 < size ? size - *len - 1 : 0;
	memcpy(out + *len, s, n);
	*len += n;
	out[*len] = 0;
}

/* Appends a typecast ("dword ptr ") in objdump's capitals. */
static void put_upper(char *out, size_t size, size_t *len, const char *s)
{
	char up[32];
	size_t i;

	for (i = 0; s[i] && i + 1 < sizeof(up); i++)
		up[i] = s[i] >= 'a' && s[i] <= 'z' ? (char)(s[i] - 'a' + 'A') : s[i];
	up[i] = 0;
	put(out, size, len, up);
}

/* objdump's names for condition codes Zydis spells otherwise. */
static const char *const cc_names[][2] = {
	{ "nle", "g" }, { "nl", "ge" }, { "nbe", "a" }, { "nb", "ae" }, { "nz", "ne" }, { "z", "e" },
};

/* Appends mnemonic @m as objdump spells it. */
static void put_mnemonic(char *out, size_t size, size_t *len, const char *m, bool att)
{
	static const char *const stems[] = { "cmov", "set", "j" };
	char buf[32];

	static const char *const att_names[][2] = {
		{ "movsxdl", "movslq" }, { "cdqe", "cltq" }, { "cwde", "cwtl" }, { "cqo", "cqto" },
		{ "cdq", "cltd" }, { "cbw", "cbtw" }, { "cwd", "cwtd" },
	};

	for (size_t i = 0; att && i < sizeof(att_names) / sizeof(att_names[0]); i++)
		if (!strcmp(m, att_names[i][0]))
			m = att_names[i][1];
	for (size_t s = 0; s < sizeof(stems) / sizeof(stems[0]); s++) {
		size_t n = strlen(stems[s]);

		if (strncmp(m, stems[s], n))
			continue;
		for (size_t c = 0; c < sizeof(cc_names) / sizeof(cc_names[0]); c++) {
			if (strcmp(m + n, cc_names[c][0]))
				continue;
			snprintf(buf, sizeof(buf), "%s%s", stems[s], cc_names[c][1]);
			put(out, size, len, buf);
			return;
		}
		break;
	}
	put(out, size, len, m);
}

/* Rebuilds Zydis's tokens in objdump's layout: prefixes and mnemonic,
 * padding to column 6 and a space, operands with bare commas. */
static void layout(const ZydisFormatterToken *tok, bool att, bool star, char *out, size_t size)
{
	bool operands = false, comma = false;
	size_t len = 0;

	out[0] = 0;
	while (tok) {
		ZydisTokenType type;
		ZyanConstCharPointer value;

		ZydisFormatterTokenGetValue(tok, &type, &value);
		if (!operands && type != ZYDIS_TOKEN_PREFIX && type != ZYDIS_TOKEN_MNEMONIC &&
		    type != ZYDIS_TOKEN_WHITESPACE) {
			operands = true;
			while (len && out[len - 1] == ' ')
				out[--len] = 0;
			while (len < 6 && len + 1 < size)
				put(out, size, &len, " ");
			put(out, size, &len, " ");
			if (star && value[0] != '*')
				put(out, size, &len, "*");
		}
		if (type == ZYDIS_TOKEN_MNEMONIC) {
			put_mnemonic(out, size, &len, value, att);
		} else if (type == ZYDIS_TOKEN_WHITESPACE) {
			if (operands && !comma)
				put(out, size, &len, value);
			else if (!operands && len)
				put(out, size, &len, " ");
		} else if (type == ZYDIS_TOKEN_TYPECAST) {
			put_upper(out, size, &len, value);
		} else if (type == ZYDIS_TOKEN_DELIMITER) {
			put(out, size, &len, strcmp(value, ", ") ? value : ",");
		} else {
			put(out, size, &len, value);
		}
		comma = type == ZYDIS_TOKEN_DELIMITER && value[0] == ',';
		if (!ZYAN_SUCCESS(ZydisFormatterTokenNext((ZydisFormatterTokenConst **)&tok)))
			break;
	}
	while (len && out[len - 1] == ' ')
		out[--len] = 0;
}

/* objdump's AT&T names of the sign and zero extensions, both sizes in
 * them: movzbl, movsbq, movswl, movslq (Zydis: movzx, movsxb). */
static void att_extend_name(const ZydisDecodedInstruction *z, const ZydisDecodedOperand *ops,
			    char *out, size_t size)
{
	static const char sizes[] = "bwlq";
	char name[16], rest[256];
	const char *ops_text;
	int src, dst;

	if ((z->mnemonic != ZYDIS_MNEMONIC_MOVZX && z->mnemonic != ZYDIS_MNEMONIC_MOVSX &&
	     z->mnemonic != ZYDIS_MNEMONIC_MOVSXD) || z->operand_count_visible < 2)
		return;
	src = ops[1].size == 8 ? 0 : ops[1].size == 16 ? 1 : ops[1].size == 32 ? 2 : 3;
	dst = ops[0].size == 8 ? 0 : ops[0].size == 16 ? 1 : ops[0].size == 32 ? 2 : 3;
	ops_text = out + strcspn(out, " ");
	ops_text += strspn(ops_text, " ");
	snprintf(rest, sizeof(rest), "%s", ops_text);
	snprintf(name, sizeof(name), "mov%c%c%c", z->mnemonic == ZYDIS_MNEMONIC_MOVZX ? 'z' : 's',
		 sizes[src], sizes[dst]);
	snprintf(out, size, "%-6s %s", name, rest);
}

/* objdump's AT&T for what Zydis spells otherwise around a memory operand:
 * the multi-byte nop with its one operand and size (nopl 0x0(%rax)), no
 * size suffix on SSE instructions (movsd, not movsdq; cvtsi2sd keeps its),
 * an encoded zero displacement shown (0x0(%rax,%rax,1), 0x0(,%rax,8)). */
static void att_memory(const ZydisDecodedInstruction *z, const ZydisDecodedOperand *ops,
		       char *out, size_t size)
{
	const char *base = ZydisMnemonicGetString(z->mnemonic), *paren;
	char buf[256], name[32];
	size_t blen = base ? strlen(base) : 0, nlen = strcspn(out, " ");
	bool vec = false, zero_disp = false;
	int mem = -1;

	for (int i = 0; i < z->operand_count_visible; i++) {
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		    ops[i].reg.value >= ZYDIS_REGISTER_XMM0 &&
		    ops[i].reg.value <= ZYDIS_REGISTER_ZMM31)
			vec = true;
		if (ops[i].type == ZYDIS_OPERAND_TYPE_MEMORY && mem < 0)
			mem = i;
	}
	if (mem < 0 || !base || nlen >= sizeof(name))
		return;
	zero_disp = ops[mem].mem.disp.has_displacement && !ops[mem].mem.disp.value &&
		    ops[mem].mem.base != ZYDIS_REGISTER_RIP;
	snprintf(name, sizeof(name), "%.*s", (int)nlen, out);
	if (z->mnemonic == ZYDIS_MNEMONIC_NOP)
		snprintf(name, sizeof(name), "nop%c", ops[mem].size == 16 ? 'w' : 'l');
	else if (vec && nlen == blen + 1 && !strncmp(out, base, blen) && strncmp(base, "cvtsi2", 6))
		name[blen] = 0;
	paren = strchr(out + nlen, '(');
	if (z->mnemonic == ZYDIS_MNEMONIC_NOP && paren) {
		snprintf(buf, sizeof(buf), "%s%s", zero_disp ? "0x0" : "", paren);
	} else {
		const char *ops_text = out + nlen + strspn(out + nlen, " ");
		size_t at = paren && zero_disp ? (size_t)(paren - ops_text) : 0;

		snprintf(buf, sizeof(buf), "%.*s%s%s", (int)at, ops_text,
			 paren && zero_disp ? "0x0" : "", ops_text + at);
	}
	snprintf(out, size, "%-6s %s", name, buf);
}

/* objdump's comment after a rip-relative operand: "        # 0x601028". */
static void riprel_comment(const ZydisDecodedInstruction *z, const ZydisDecodedOperand *ops,
			   uint64_t ip, char *out, size_t size)
{
	for (int i = 0; i < z->operand_count_visible; i++) {
		ZyanU64 addr;
		size_t len = strlen(out);

		if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY || ops[i].mem.base != ZYDIS_REGISTER_RIP)
			continue;
		if (ZYAN_SUCCESS(ZydisCalcAbsoluteAddress(z, &ops[i], ip, &addr)))
			snprintf(out + len, size - len, "        # 0x%llx", (unsigned long long)addr);
		return;
	}
}

int replay_insn_format(const struct replay_insn *in, int bits, enum replay_syntax syntax,
		       char *out, size_t size)
{
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	ZydisDecodedInstruction z;
	const ZydisFormatterToken *tok;
	ZydisFormatter f;
	ZydisDecoder d;
	char buf[512];

	if (!size)
		return -EINVAL;
	decoder_init(&d, bits);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&d, in->raw, in->size, &z, ops)) ||
	    formatter_init(&f, syntax) < 0 ||
	    !ZYAN_SUCCESS(ZydisFormatterTokenizeInstruction(&f, &z, ops, z.operand_count_visible,
							     buf, sizeof(buf), in->ip,
							     (ZydisFormatterTokenConst **)&tok, NULL))) {
		snprintf(out, size, "(bad)");
		return -EINVAL;
	}
	layout(tok, syntax == REPLAY_SYNTAX_ATT,
	       syntax == REPLAY_SYNTAX_ATT && !in->direct &&
	       (in->kind == REPLAY_INSN_JUMP || in->kind == REPLAY_INSN_CALL), out, size);
	if (syntax == REPLAY_SYNTAX_ATT) {
		att_extend_name(&z, ops, out, size);
		att_memory(&z, ops, out, size);
	}
	riprel_comment(&z, ops, in->ip, out, size);
	return 0;
}
