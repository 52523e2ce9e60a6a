/*
 * stub/live/stub_trap.h: what a thread's stop means.
 *
 * Turns a signal-delivery stop into a struct rsp_stop. For SIGTRAP it looks
 * at the siginfo and DR6: one of our int3s (the pc is rewound to the
 * breakpoint), a debug register hit (the client's point, DR6 cleared), the
 * end of a single step, or a plain SIGTRAP (e.g. an int3 compiled into the
 * program, pc left where the kernel put it).
 */
#ifndef HINDSIGHT_STUB_STUB_TRAP_H
#define HINDSIGHT_STUB_STUB_TRAP_H

#include "protocol/target.h"

struct stub_proc;
struct stub_thread;

/* Fills @out for thread @t stopped with @sig. Returns 1 if the stop is to
 * be reported, 0 if it was absorbed (a range step still inside its range:
 * the thread has been stepped again). */
int stub_trap_classify(struct stub_proc *p, struct stub_thread *t, int sig,
		       struct rsp_stop *out);

#endif
