/*
 * replay/decode/insn.h: one x86 instruction, decoded and printed with Zydis.
 *
 * libipt's blocks give where a run of instructions starts and how many
 * there are; the instructions inside come from decoding their lengths
 * here, following direct jumps and calls as the block decoder does. The
 * printer writes GDB's (objdump's) layout: the mnemonic padded to six
 * columns then a space, operands separated by ",", AT&T by default. A
 * branch's target is left to the caller to symbolize. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_INSN_H
#define HINDSIGHT_REPLAY_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum replay_insn_kind {
	REPLAY_INSN_OTHER,
	REPLAY_INSN_CALL,          /* near call */
	REPLAY_INSN_RET,           /* near return */
	REPLAY_INSN_JUMP,          /* unconditional jump */
	REPLAY_INSN_COND,          /* conditional jump, loop, jrcxz */
	REPLAY_INSN_FAR,           /* far call / jump / return, syscall, interrupts */
};

struct replay_insn {
	uint64_t ip;
	uint8_t size;
	uint8_t raw[15];
	enum replay_insn_kind kind;
	bool direct;               /* a relative branch: target is known */
	uint64_t target;
};

enum replay_syntax { REPLAY_SYNTAX_ATT, REPLAY_SYNTAX_INTEL };

/* Decodes the instruction in @buf (@n bytes available) at @ip in a
 * @bits-bit code segment (64, 32 or 16). 0, or -EINVAL if the bytes are
 * not an instruction. */
int replay_insn_decode(struct replay_insn *in, const uint8_t *buf, size_t n, uint64_t ip,
		       int bits);

/* Where execution goes after @in if it is not a taken conditional or an
 * indirect branch: a direct jump's or call's target, else the next
 * instruction. */
uint64_t replay_insn_next_ip(const struct replay_insn *in);

/* Writes @in's text in @syntax into @out. 0, or -EINVAL. */
int replay_insn_format(const struct replay_insn *in, int bits, enum replay_syntax syntax,
		       char *out, size_t size);

#endif
