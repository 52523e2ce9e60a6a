/*
 * stub/recorders/stub_rec_insn.h: x86-64 instructions classified as libipt does.
 *
 * The classes follow libipt's pt_ild.c (pt_instruction_decode): only
 * legacy-encoded instructions of opcode maps 0 and 0F are branches (VEX /
 * EVEX never are); Jcc, JrCXZ and LOOP* are conditional; E8 is a direct call
 * (pushing a return address unless its displacement is 0), FF/2 an indirect
 * call; E9 / EB direct jumps, FF/4 an indirect jump; C3 / C2 near returns;
 * far calls, jumps, returns, IRET, SYSCALL, SYSENTER, INT n / INT3 / INT1 /
 * INTO are far transfers. Here the far transfers that enter the kernel are
 * told apart from those that stay in user space. Decoding uses Zydis;
 * decoded instructions are cached by address (direct-mapped) until the
 * cache is cleared (after a change of executable mappings).
 * Lifetime: stub_rec_icache_init / stub_rec_icache_release.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_INSN_H
#define HINDSIGHT_STUB_STUB_REC_INSN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <Zydis/Zydis.h>

enum stub_rec_class {
	STUB_REC_OTHER,      /* no branch: no packet */
	STUB_REC_COND,       /* ptic_cond_jump: a TNT bit */
	STUB_REC_JUMP,       /* direct ptic_jump: no packet */
	STUB_REC_JUMP_IND,   /* indirect ptic_jump: TIP */
	STUB_REC_CALL,       /* direct ptic_call: push (if displacement != 0) */
	STUB_REC_CALL_IND,   /* indirect ptic_call: push, TIP */
	STUB_REC_RET,        /* ptic_return: TNT (compressed) or TIP */
	STUB_REC_FAR,        /* far transfer staying in user space: TIP */
	STUB_REC_KERNEL,     /* far transfer into the kernel: TIP.PGD */
};

/* The conditions of E0-E3 (after Jcc's 0-15). */
enum { STUB_REC_CC_LOOPNE = 16, STUB_REC_CC_LOOPE, STUB_REC_CC_LOOP, STUB_REC_CC_JRCXZ };

struct stub_rec_insn {
	uint64_t ip;
	uint8_t len;
	uint8_t cls;         /* enum stub_rec_class */
	bool push;           /* a call that pushes ip + len */
	bool rep;            /* rep-prefixed string instruction */
	bool memw;           /* may write memory (an operand, explicit or not) */
	bool fpw;            /* may write x87 / SSE / AVX / AVX-512 state */
	bool cpuid;          /* CPUID: the recorder runs it (stub/recorders/stub_rec_step.c) */
	bool addr32;         /* 0x67 prefix: LOOP* / JrCXZ count in ECX */
	uint8_t cc;          /* STUB_REC_COND: Jcc's condition (0-15), or
	                        STUB_REC_CC_LOOPNE... for E0-E3 */
	uint64_t target;     /* direct branches (COND, JUMP, CALL): the target */
	uint8_t bytes[ZYDIS_MAX_INSTRUCTION_LENGTH]; /* the encoding (len used) */
};

/* Classifies @len bytes at @ip into @out (with the state log's memw / fpw
 * hints from the operands): 0, or -EINVAL if Zydis cannot decode them. */
int stub_rec_insn_decode(const ZydisDecoder *dec, const uint8_t *bytes, size_t len,
			 uint64_t ip, struct stub_rec_insn *out);

#define STUB_REC_ICACHE_BITS 16

struct stub_rec_icache {
	ZydisDecoder dec;
	struct stub_rec_insn *v;   /* 1 << STUB_REC_ICACHE_BITS entries */
	uint64_t hits, misses;
	/* If set, only instructions it says yes to are cached: code outside
	 * files may be written over at any moment (a JIT's), and is read
	 * again each time. */
	bool (*cacheable)(const void *ctx, uint64_t ip);
	const void *ctx;
};

/* 0 or -ENOMEM. */
int stub_rec_icache_init(struct stub_rec_icache *c);
void stub_rec_icache_release(struct stub_rec_icache *c);
void stub_rec_icache_clear(struct stub_rec_icache *c);
/* The instruction at @ip, read through @mem_fd (/proc/PID/mem) on a miss.
 * 0, -EIO if @ip cannot be read, -EINVAL if it does not decode. */
int stub_rec_icache_get(struct stub_rec_icache *c, int mem_fd, uint64_t ip,
			struct stub_rec_insn *out);

#endif
