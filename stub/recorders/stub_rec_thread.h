/*
 * stub/recorders/stub_rec_thread.h: what one stepped instruction adds to a thread's
 * recording, apart from how it was stepped.
 *
 * The ptrace loop (stub/recorders/stub_rec_tasks.c) and, later, the live target report
 * each instruction a thread executed (where it was, what it is, where the
 * thread went next) and each time the thread's user-space execution
 * starts or is interrupted; this object turns that into the thread's PT
 * stream (stub/recorders/stub_swpt.h) and counts instructions. A thread starts
 * disabled: its first stub_rec_thread_enter writes TIP.PGE.
 * Lifetime: stub_rec_thread_init / stub_rec_thread_release.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_THREAD_H
#define HINDSIGHT_STUB_STUB_REC_THREAD_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_swpt.h"

struct stub_rec_thread {
	pid_t tid;
	struct stub_swpt pt;
	uint64_t ninsn;            /* instructions reported */
};

/* Starts the stream (PSB+, disabled) on @pt_out, which must outlive the
 * thread. 0 or a negative errno. */
int stub_rec_thread_init(struct stub_rec_thread *t, pid_t tid, FILE *pt_out,
			 uint32_t psb_period, bool retcomp, uint64_t time);
void stub_rec_thread_release(struct stub_rec_thread *t);

/* The thread is about to execute user code at @ip: TIP.PGE if it was
 * disabled. 0 or a negative errno. */
int stub_rec_thread_enter(struct stub_rec_thread *t, uint64_t ip, uint64_t time);
/* The thread stops executing before the instruction at @ip without a far
 * transfer of its own (signal, fault, switch to another thread): FUP +
 * TIP.PGD if it was enabled. 0 or a negative errno. */
int stub_rec_thread_interrupt(struct stub_rec_thread *t, uint64_t ip);
/* @insn executed and the next instruction is at @after (ignored for
 * STUB_REC_KERNEL: tracing stops). @time is the clock after it. 1 if a
 * PSB was written after it (at t->pt.last_psb, before instruction number
 * t->ninsn), 0 if not, or a negative errno. */
int stub_rec_thread_step(struct stub_rec_thread *t, const struct stub_rec_insn *insn,
			 uint64_t after, uint64_t time);

#endif
