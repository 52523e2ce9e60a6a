/*
 * stub/live/stub_regs.h: a thread's registers, ptrace <-> struct rsp_regs.
 *
 * PTRACE_GETREGS gives the general registers, PTRACE_GETFPREGS the fxsave
 * area (x87, SSE), PTRACE_GETREGSET NT_X86_XSTATE the ymm upper halves. The
 * conversion of the first two is split out as pure functions so that it can
 * be tested without a process.
 */
#ifndef HINDSIGHT_STUB_STUB_REGS_H
#define HINDSIGHT_STUB_STUB_REGS_H

#include <stdbool.h>
#include <sys/types.h>
#include <sys/user.h>

#include "protocol/rsp_regs.h"

/* RSP_TARGET_AVX if the CPU and the kernel have AVX enabled, else 0. */
unsigned stub_regs_features(void);

/* General and fxsave registers into @out (marked available); ymm halves are
 * left alone. */
void stub_regs_from_user(const struct user_regs_struct *gp,
			 const struct user_fpregs_struct *fp, struct rsp_regs *out);
/* The available registers of @in over @gp and @fp. */
void stub_regs_to_user(const struct rsp_regs *in, struct user_regs_struct *gp,
		       struct user_fpregs_struct *fp);

/* Reads every register of the stopped thread @tid (ymm halves only when
 * @avx); 0 or a negative errno (-ESRCH when it is gone or running). */
int stub_regs_read(pid_t tid, bool avx, struct rsp_regs *out);
/* Writes every available register of @in; 0 or a negative errno. */
int stub_regs_write(pid_t tid, bool avx, const struct rsp_regs *in);
/* The program counter of @tid; 0 or a negative errno. */
int stub_regs_get_pc(pid_t tid, uint64_t *pc);
int stub_regs_set_pc(pid_t tid, uint64_t pc);

#endif
