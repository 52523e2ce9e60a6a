/*
 * stub/live/stub_hw.h: debug registers of one thread through ptrace.
 *
 * The ptrace side of stub/live/stub_dreg.h: writes a struct stub_dreg_set into a
 * stopped thread (PTRACE_POKEUSER on u_debugreg) and reads / clears DR6.
 */
#ifndef HINDSIGHT_STUB_STUB_HW_H
#define HINDSIGHT_STUB_STUB_HW_H

#include <stdint.h>
#include <sys/types.h>

struct stub_dreg_set;

/* Writes DR0-DR3 and DR7 of the stopped thread @tid: 0 or a negative errno
 * (-ESRCH if the thread is gone, -EINVAL if the kernel refused a value). */
int stub_hw_apply(pid_t tid, const struct stub_dreg_set *s);
/* DR6 of @tid into @dr6; 0 or a negative errno. */
int stub_hw_read_dr6(pid_t tid, uint64_t *dr6);
/* Clears DR6 of @tid; 0 or a negative errno. */
int stub_hw_clear_dr6(pid_t tid);

#endif
