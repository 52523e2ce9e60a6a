/*
 * stub/recorders/stub_hwpt_plan.h: what the hardware recorder's ptrace loop does
 * with each waitpid report, decided without a system call.
 *
 * Under the hardware recorder the program runs at full speed
 * (PTRACE_CONT), like under a debugger that never stops it: the loop only
 * sees ptrace's clone / fork / exec events, signals, and the threads'
 * ends. For each report the loop asks stub_hwpt_plan_classify what kind
 * it is, gathers the few facts that kind needs (stub_hwpt_plan_needs: the
 * event message, whether a signal stop is a group-stop, whether an
 * unknown thread belongs to the process) and gets from
 * stub_hwpt_plan_decide one action: start tracing a thread, stop tracing
 * one, resume or detach a thread, note an exec or the end. The thread
 * table lives here, so every decision can be tested with constructed
 * reports (tests/unit/test_stub_hwpt_plan.c).
 *
 * The rules:
 *   - A new thread is traced before it runs a user instruction: its event
 *     is opened at whichever comes first, its parent's PTRACE_EVENT_CLONE
 *     or its own first stop (the SIGSTOP every auto-attached clone starts
 *     with, swallowed). Both orders happen.
 *   - A stop of a thread not known yet that is not the process's (a fork
 *     or vfork child, auto-attached with PTRACE_O_TRACEFORK) is detached:
 *     events are not inherited, the child is not recorded.
 *   - A signal is passed on with the resume, as it would have come
 *     without the recorder; a group-stop (PTRACE_GETSIGINFO fails) is
 *     resumed with no signal, which is the limit of PTRACE_ATTACH-style
 *     tracing (the program cannot stay stopped).
 *   - Exec: the sideband now holds the COMM exec and the new image's
 *     MMAP2s. From a thread other than the leader, the execing thread
 *     takes the leader's tid (ptrace's message is its old one): its event
 *     goes on under the new tid, the old leader's event ends.
 *   - The end of the leader is the end of the process (the kernel reports
 *     it after every other thread's); its status is the recording's.
 *   - Stopping early (Ctrl-C of an attached process, SIGTERM): an attached
 *     process's threads are sent SIGSTOP and each is detached at its
 *     SIGSTOP (a clone at its first one), other reports on the way being
 *     passed on; a spawned process is killed (SIGKILL) and its threads'
 *     ends collected. New threads are no longer traced.
 */
#ifndef HINDSIGHT_STUB_HWPT_PLAN_H
#define HINDSIGHT_STUB_HWPT_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* What a waitpid status is. */
enum stub_hwpt_report {
	STUB_HWPT_R_OTHER,         /* neither a stop nor an end (WIFCONTINUED) */
	STUB_HWPT_R_EXITED,        /* the thread ended: exit code */
	STUB_HWPT_R_KILLED,        /* the thread ended: killed by a signal */
	STUB_HWPT_R_SIGNAL,        /* signal-delivery-stop or group-stop */
	STUB_HWPT_R_CLONE,         /* PTRACE_EVENT_CLONE: a new thread */
	STUB_HWPT_R_FORK,          /* PTRACE_EVENT_FORK / VFORK: a new process */
	STUB_HWPT_R_EXEC,          /* PTRACE_EVENT_EXEC */
	STUB_HWPT_R_EVENT,         /* any other PTRACE_EVENT stop */
};

/* The facts stub_hwpt_plan_decide may need (stub_hwpt_plan_needs). */
enum {
	STUB_HWPT_NEED_MSG = 1,    /* PTRACE_GETEVENTMSG */
	STUB_HWPT_NEED_SIGINFO = 2,/* PTRACE_GETSIGINFO: group-stop or not */
	STUB_HWPT_NEED_OURS = 4,   /* the thread's Tgid */
};

struct stub_hwpt_facts {
	unsigned long msg;         /* CLONE: new tid; FORK: child pid; EXEC: former tid */
	bool group_stop;           /* SIGNAL: PTRACE_GETSIGINFO failed with EINVAL */
	bool ours;                 /* an unknown thread belongs to the traced process */
};

/* The action for one report: the loop does each part that is set, in the
 * order of the fields. A pid of 0 is "none". */
struct stub_hwpt_action {
	pid_t untrace;             /* stop tracing this thread (the key it was traced under) */
	pid_t trace;               /* start tracing this thread (it is stopped) */
	bool exec;                 /* an exec happened: drain the sideband, save */
	pid_t resume;              /* PTRACE_CONT this thread ... */
	int sig;                   /* ... with this signal */
	pid_t detach;              /* PTRACE_DETACH this thread (with sig) */
	bool ended;                /* the process ended (plan's exit fields) */
};

enum stub_hwpt_tstate {
	STUB_HWPT_T_RUNNING,
	STUB_HWPT_T_STOPPING,      /* to be detached at its next SIGSTOP */
	STUB_HWPT_T_GONE,          /* ended, or detached */
};

struct stub_hwpt_pthread {
	pid_t tid;                 /* its tid now */
	pid_t key;                 /* the tid it is traced under (differs after an exec
				    * from another thread) */
	enum stub_hwpt_tstate state;
	bool fresh;                /* a clone whose first stop (SIGSTOP) is still to come */
	bool traced;               /* the loop started tracing it */
};

struct stub_hwpt_plan {
	pid_t pid;                 /* the process (its leader's tid) */
	bool attached;             /* ends by detaching */
	bool stopping;             /* stub_hwpt_plan_stop was called */
	struct stub_hwpt_pthread *v;
	size_t n;
	bool ended;                /* the leader's end was seen */
	bool killed;               /* ... by a signal */
	int status;                /* exit code or signal number */
};

void stub_hwpt_plan_init(struct stub_hwpt_plan *p, pid_t pid, bool attached);
void stub_hwpt_plan_release(struct stub_hwpt_plan *p);

/* Adds a thread that is stopped now and will be traced and resumed by the
 * caller (the initial threads). 0 or -ENOMEM. */
int stub_hwpt_plan_add(struct stub_hwpt_plan *p, pid_t tid);

/* The thread @tid is traced (the loop opened its event) or not. */
void stub_hwpt_plan_traced(struct stub_hwpt_plan *p, pid_t key, bool traced);

/* The thread with tid @tid, or NULL (gone ones included). */
struct stub_hwpt_pthread *stub_hwpt_plan_find(struct stub_hwpt_plan *p, pid_t tid);

/* Threads not gone. */
size_t stub_hwpt_plan_live(const struct stub_hwpt_plan *p);

enum stub_hwpt_report stub_hwpt_plan_classify(int status);

/* The STUB_HWPT_NEED_* facts a report of @tid of kind @r needs. */
unsigned stub_hwpt_plan_needs(struct stub_hwpt_plan *p, pid_t tid, enum stub_hwpt_report r);

/* Decides what to do with report @status of @tid, given @f, and updates
 * the table. 0 with @a filled, or -ENOMEM. */
int stub_hwpt_plan_decide(struct stub_hwpt_plan *p, pid_t tid, int status,
			  const struct stub_hwpt_facts *f, struct stub_hwpt_action *a);

/* Starts the end: marks the live threads STOPPING and returns, in @tids
 * (room for stub_hwpt_plan_live), those of an attached process to send
 * SIGSTOP to (a fresh clone has one coming). The count. */
size_t stub_hwpt_plan_stop(struct stub_hwpt_plan *p, pid_t *tids);

#endif
