/*
 * stub/recorders/stub_rec_pin.c: the software recorder and the program it
 * records on one CPU, and each thread's own CPUs given back when the
 * recorder lets it go (an attached process, a forked child).
 *
 * The CPUs the recorder could run on before it pinned itself are a
 * property of the process, kept here. The setup (stub_rec.c) pins, the
 * loop's lower files (stub_rec_collect.c, stub_rec_loop.c) give back;
 * this file calls none of them.
 */
#include <sched.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "stub/recorders/stub_rec_priv.h"

/* The CPUs the recorder could run on before stub_rec_pin, for the
 * processes it lets go (forked children). A property of the process. */
static cpu_set_t stub_rec_cpus;
static bool stub_rec_pinned;

/* Runs the recorder, and so the program it starts, on one CPU: each
 * single step is a stop of the program and a wake-up of the recorder, and
 * on a virtual machine a wake-up on another CPU costs an interrupt between
 * CPUs (measured here: ~90 us per step across CPUs, ~19 us on one). The
 * threads of the program run one at a time anyway. */
static void stub_rec_pin(void)
{
	cpu_set_t one;
	int cpu = sched_getcpu();

	if (stub_rec_pinned || cpu < 0 || sched_getaffinity(0, sizeof(stub_rec_cpus), &stub_rec_cpus))
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	stub_rec_pinned = sched_setaffinity(0, sizeof(one), &one) == 0;
}

/* HINDSIGHT_NO_PIN set (and not "0") turns pinning off. */
static bool stub_rec_pin_wanted(void)
{
	const char *v = getenv("HINDSIGHT_NO_PIN");

	return !v || !*v || !strcmp(v, "0");
}

/* The recorder on one CPU unless HINDSIGHT_NO_PIN says not; before it
 * starts a program, which inherits that CPU. */
void stub_rec_pin_self(void)
{
	if (stub_rec_pin_wanted())
		stub_rec_pin();
}

/* An attached thread runs on the recorder's CPU while recorded; its own
 * CPUs are given back when the recorder lets it go. */
void stub_rec_pin_task(struct stub_rec_task *t)
{
	cpu_set_t one;
	int cpu;

	if (!stub_rec_pin_wanted())
		return;
	stub_rec_pin();
	cpu = sched_getcpu();
	if (!stub_rec_pinned || cpu < 0 ||
	    sched_getaffinity(t->th.tid, sizeof(t->cpus), &t->cpus) < 0)
		return;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	t->cpus_saved = sched_setaffinity(t->th.tid, sizeof(one), &one) == 0;
}

/* @t's own CPUs back (stub_rec_pin_task), before it is detached. */
void stub_rec_unpin_task(const struct stub_rec *r, struct stub_rec_task *t)
{
	/* Threads born while recorded: the first thread's. */
	if (t->cpus_saved || r->tasks[0]->cpus_saved)
		sched_setaffinity(t->th.tid, sizeof(t->cpus),
				  t->cpus_saved ? &t->cpus : &r->tasks[0]->cpus);
}

/* A forked child, let go, gets the CPUs the recorder had before it pinned
 * itself (the child inherited the one CPU). */
void stub_rec_unpin_child(pid_t child)
{
	if (stub_rec_pinned)
		sched_setaffinity(child, sizeof(stub_rec_cpus), &stub_rec_cpus);
}
