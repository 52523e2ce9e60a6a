/*
 * cli/cli_crash.h: what a crash of hindsight itself leaves behind.
 *
 * A temporary recording (serve's) would outlive a hindsight that died of a
 * fatal signal. cli_crash_remove() names it; the handler of SIGSEGV, SIGBUS,
 * SIGILL, SIGFPE, SIGABRT and SIGSYS removes it with system calls only
 * (async-signal-safe), says so on stderr, then passes the signal on to the
 * handler that was there before (AddressSanitizer's, say) or dies of it as
 * it would have. A spawned program dies with its tracer anyway
 * (PTRACE_O_EXITKILL).
 */
#ifndef HINDSIGHT_CLI_CLI_CRASH_H
#define HINDSIGHT_CLI_CLI_CRASH_H

/* Removes @dir if hindsight crashes from now on; NULL forgets it. The
 * handlers are installed at the first call. */
void cli_crash_remove(const char *dir);

#endif
