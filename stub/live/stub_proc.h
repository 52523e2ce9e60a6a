/*
 * stub/live/stub_proc.h: one traced process, all-stop.
 *
 * The state shared by the files that drive a live process: its threads,
 * memory, breakpoints, debug registers, the event being reported and the
 * SIGCHLD signalfd. stub_proc.c holds the lifecycle (spawn, attach, kill,
 * detach); stub_resume.c, stub_wait.c and stub_trap.c the execution
 * control. One struct stub_proc per process; waitpid(-1) is used, so one
 * traced process per stub process at a time.
 */
#ifndef HINDSIGHT_STUB_STUB_PROC_H
#define HINDSIGHT_STUB_STUB_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/target.h"
#include "stub/live/stub_break.h"
#include "stub/live/stub_dreg.h"
#include "stub/live/stub_mem.h"
#include "stub/live/stub_thread.h"

struct stub_proc {
	pid_t pid;
	bool attached;            /* attached to, rather than spawned */
	bool alive;               /* false once exited / killed / detached */
	bool avx;
	struct stub_mem mem;
	struct stub_thread_list threads;
	struct stub_thread_list orphans; /* stopped before their clone / fork event */
	struct stub_break_table breaks;
	struct stub_dreg_set dregs;
	int sigfd;                /* signalfd for SIGCHLD */
	sigset_t old_mask;
	bool stopping;            /* stopping every thread for @event */
	bool have_event;          /* @event chosen, not yet returned */
	struct rsp_stop event;
	bool report_pending;      /* resume() left a pending event to report */
	pid_t last_tid;           /* thread of the last reported stop */
	uint8_t pass[RSP_NSIG];
};

/* Starts @argv stopped at its first instruction. 0 or a negative errno (that
 * of execve when the program could not be executed). @p is initialised
 * either way; release it with stub_proc_release. */
int stub_proc_spawn(struct stub_proc *p, char *const argv[]);
/* Attaches to every thread of @pid. 0 or a negative errno. */
int stub_proc_attach(struct stub_proc *p, pid_t pid);
/* SIGKILL and reap everything; 0 or a negative errno. */
int stub_proc_kill(struct stub_proc *p);
/* Removes breakpoints and debug registers, lets every thread go. */
int stub_proc_detach(struct stub_proc *p);
/* Hands the process over to another tracer in this same thread (a
 * recorder: stub_rec_adopt): breakpoints and debug registers out, every
 * thread left stopped and traced, @p as if the process were gone (its
 * SIGCHLD signalfd closed). Another thread's breakpoint hit not reported
 * yet is forgotten (it stands at the breakpoint, met again when it runs):
 * returns how many were. -EBUSY while a thread runs or has another event not yet reported (a
 * signal, a watchpoint hit: resume once, then ask again); -ESRCH when
 * there is no process. */
int stub_proc_hand_over(struct stub_proc *p);
/* A thread another tracer in this thread handed over (stub_rec_hand_back):
 * traced by us and stopped, @sig still to be delivered to it, after the
 * debugger was told of it (@report: a stop at the next resume, as any
 * event not reported yet) or without a word. */
struct stub_proc_adoptee {
	pid_t tid;
	int sig;
	bool report;
};
/* Takes process @pid's @n threads @v as they are: stopped and traced
 * already. @spawned: started for the debugger (killed with us, as a spawn
 * is), else attached (detached at the end). 0 or a negative errno (then
 * release @p; the threads are left as they were). */
int stub_proc_adopt(struct stub_proc *p, pid_t pid, const struct stub_proc_adoptee *v, size_t n,
		    bool spawned);
/* Kills a spawned process / detaches an attached one, frees everything. */
void stub_proc_release(struct stub_proc *p);

/* Writes the debug registers into every stopped thread; first error. */
int stub_proc_apply_dregs(struct stub_proc *p);
/* The thread @tid of the process or NULL. */
struct stub_thread *stub_proc_thread(struct stub_proc *p, int64_t tid);

/* resume / wait / interrupt of struct rsp_target_ops (stub_resume.c,
 * stub_wait.c). */
int stub_proc_resume(struct stub_proc *p, const struct rsp_resume *actions, size_t n);
int stub_proc_wait(struct stub_proc *p, struct rsp_stop *out, bool block);
int stub_proc_interrupt(struct stub_proc *p);
/* Resumes one thread by its kind with @sig (stub_resume.c); marks it
 * running. 0 or a negative errno. */
int stub_proc_resume_thread(struct stub_proc *p, struct stub_thread *t, int sig);

#endif
