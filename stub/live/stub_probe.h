/*
 * stub/live/stub_probe.h: what this machine's debug registers and single-step
 * traps really do, measured on a child process of our own.
 *
 * Some virtual machines accept debug-register writes and never raise the
 * breakpoint, and lose the single-step trap after an instruction the
 * hypervisor emulates (CPUID: the step then runs the next instruction
 * too). Nothing that relies on either may be trusted before it was seen to
 * work: each probe forks a child that stops itself under ptrace, runs a
 * few known instructions, and exits (so a probe never hangs when the
 * hardware stays silent). The answers are cached for the process.
 */
#ifndef HINDSIGHT_STUB_STUB_PROBE_H
#define HINDSIGHT_STUB_STUB_PROBE_H

#include <stdbool.h>

enum stub_probe_answer {
	STUB_PROBE_UNKNOWN = -1,   /* the probe itself could not run */
	STUB_PROBE_NO = 0,
	STUB_PROBE_YES = 1,
};

/* Whether an execution breakpoint (DR0) and a write watchpoint (DR1) both
 * stop a traced thread. Cached after the first call. */
enum stub_probe_answer stub_probe_dregs(void);
/* Whether a single step over CPUID stops right after it (not after the
 * next instruction). Cached after the first call. */
enum stub_probe_answer stub_probe_cpuid_step(void);
/* Single steps per second of a traced child on this CPU (the recorder's
 * floor), measured over @n steps; 0 if it could not be measured. Not
 * cached. */
double stub_probe_step_rate(unsigned n);

#endif
