/*
 * stub/live/stub_hw.c: PTRACE_POKEUSER / PEEKUSER on the debug registers.
 *
 * DR7 is cleared before the addresses change so that the kernel never sees
 * an enabled slot whose address does not suit its length.
 */
#include "stub/live/stub_hw.h"

#include <errno.h>
#include <stddef.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "stub/live/stub_dreg.h"

static int stub_hw_poke(pid_t tid, unsigned reg, uint64_t value)
{
	size_t off = offsetof(struct user, u_debugreg) + reg * sizeof(long);

	if (ptrace(PTRACE_POKEUSER, tid, (void *)off, (void *)value) < 0)
		return -errno;
	return 0;
}

int stub_hw_apply(pid_t tid, const struct stub_dreg_set *s)
{
	int r = stub_hw_poke(tid, 7, 0);

	for (unsigned i = 0; r == 0 && i < STUB_DREG_COUNT; i++)
		r = stub_hw_poke(tid, i, stub_dreg_addr(s, i));
	if (r == 0)
		r = stub_hw_poke(tid, 7, stub_dreg_dr7(s));
	return r;
}

int stub_hw_read_dr6(pid_t tid, uint64_t *dr6)
{
	size_t off = offsetof(struct user, u_debugreg) + 6 * sizeof(long);
	long v;

	errno = 0;
	v = ptrace(PTRACE_PEEKUSER, tid, (void *)off, NULL);
	if (v == -1 && errno)
		return -errno;
	*dr6 = (uint64_t)v;
	return 0;
}

int stub_hw_clear_dr6(pid_t tid)
{
	return stub_hw_poke(tid, 6, 0);
}
