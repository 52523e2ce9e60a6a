/*
 * stub/recorders/stub_rec_next.h: where an instruction goes when it runs, told from
 * the registers and memory before it runs.
 *
 * The software recorder checks every single step against it: a step that
 * ends anywhere else lost its trap (the machine ran more than the one
 * instruction) and is not taken as one instruction. Non-branches go to
 * their fall-through, direct jumps and calls to their target, Jcc / LOOP* /
 * JrCXZ as the flags and RCX decide, indirect jumps and calls to the value
 * of their operand (a register, or memory read through /proc/PID/mem), near
 * returns to the address on the stack. Far transfers cannot be told
 * beforehand. An instruction that faults does not execute: the kernel
 * reports a signal instead of the step, so that needs no prediction.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_NEXT_H
#define HINDSIGHT_STUB_STUB_REC_NEXT_H

#include <stdint.h>
#include <sys/user.h>

#include <Zydis/Zydis.h>

#include "stub/recorders/stub_rec_insn.h"

/* Where @insn goes when it runs with @regs: 1 with *@out set; 0 if that
 * cannot be told (a far transfer, an operand that cannot be read: the
 * instruction then faults). */
int stub_rec_next(const ZydisDecoder *dec, const struct stub_rec_insn *insn,
		  const struct user_regs_struct *regs, int mem_fd, uint64_t *out);

/* Whether Jcc condition @cc (0-15, the low nibble of its opcode) holds
 * with @eflags. */
bool stub_rec_cc_holds(unsigned cc, uint64_t eflags);

#endif
