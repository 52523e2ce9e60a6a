/*
 * protocol/rsp_signals.c: GDB signal numbers <-> Linux signal numbers.
 *
 * GDB's numbers come from include/gdb/signals.def. They equal Linux's for
 * most of 1..31; the table lists every Linux signal's GDB number, and the
 * real-time signals follow GDB's two runs (SIG33..SIG63 are 45..75, SIG32 is
 * 77).
 */
#include "protocol/rsp_signals.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>

#define GDB_SIGNAL_UNKNOWN 143

/* linux_to_gdb[linux signal] for 1..31; 0 marks "no GDB name". */
static const unsigned char linux_to_gdb[32] = {
	[SIGHUP] = 1, [SIGINT] = 2, [SIGQUIT] = 3, [SIGILL] = 4,
	[SIGTRAP] = 5, [SIGABRT] = 6, [SIGBUS] = 10, [SIGFPE] = 8,
	[SIGKILL] = 9, [SIGUSR1] = 30, [SIGSEGV] = 11, [SIGUSR2] = 31,
	[SIGPIPE] = 13, [SIGALRM] = 14, [SIGTERM] = 15, [SIGSTKFLT] = 0,
	[SIGCHLD] = 20, [SIGCONT] = 19, [SIGSTOP] = 17, [SIGTSTP] = 18,
	[SIGTTIN] = 21, [SIGTTOU] = 22, [SIGURG] = 16, [SIGXCPU] = 24,
	[SIGXFSZ] = 25, [SIGVTALRM] = 26, [SIGPROF] = 27, [SIGWINCH] = 28,
	[SIGIO] = 23, [SIGPWR] = 32, [SIGSYS] = 12,
};

int rsp_signal_to_gdb(int sig)
{
	if (sig == 0)
		return 0;
	if (sig > 0 && sig < 32)
		return linux_to_gdb[sig] ? linux_to_gdb[sig] : GDB_SIGNAL_UNKNOWN;
	if (sig == 32)
		return 77;
	if (sig >= 33 && sig <= 64)
		return sig == 64 ? 78 : 45 + (sig - 33);
	return GDB_SIGNAL_UNKNOWN;
}

int rsp_signal_from_gdb(int gsig)
{
	if (gsig == 0)
		return 0;
	for (int sig = 1; sig < 32; sig++)
		if (linux_to_gdb[sig] == gsig)
			return sig;
	if (gsig == 77)
		return 32;
	if (gsig >= 45 && gsig <= 75)
		return 33 + (gsig - 45);
	if (gsig == 78)
		return 64;
	return -EINVAL;
}
