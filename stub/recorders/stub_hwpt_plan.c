/*
 * stub/recorders/stub_hwpt_plan.c: the hardware recorder's decisions per waitpid
 * report (stub/recorders/stub_hwpt_plan.h). Pure: no system call.
 */
#include "stub/recorders/stub_hwpt_plan.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

void stub_hwpt_plan_init(struct stub_hwpt_plan *p, pid_t pid, bool attached)
{
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	p->attached = attached;
}

void stub_hwpt_plan_release(struct stub_hwpt_plan *p)
{
	free(p->v);
	p->v = NULL;
	p->n = 0;
}

static struct stub_hwpt_pthread *add(struct stub_hwpt_plan *p, pid_t tid,
				     enum stub_hwpt_tstate state)
{
	struct stub_hwpt_pthread *v = realloc(p->v, (p->n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	p->v = v;
	v += p->n++;
	*v = (struct stub_hwpt_pthread){ .tid = tid, .key = tid, .state = state };
	return v;
}

int stub_hwpt_plan_add(struct stub_hwpt_plan *p, pid_t tid)
{
	return add(p, tid, STUB_HWPT_T_RUNNING) ? 0 : -ENOMEM;
}

struct stub_hwpt_pthread *stub_hwpt_plan_find(struct stub_hwpt_plan *p, pid_t tid)
{
	struct stub_hwpt_pthread *gone = NULL;

	/* A tid can be reused once its thread is gone: the live one first. */
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i].tid != tid)
			continue;
		if (p->v[i].state != STUB_HWPT_T_GONE)
			return &p->v[i];
		gone = &p->v[i];
	}
	return gone;
}

void stub_hwpt_plan_traced(struct stub_hwpt_plan *p, pid_t key, bool traced)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->v[i].key == key && p->v[i].state != STUB_HWPT_T_GONE)
			p->v[i].traced = traced;
}

size_t stub_hwpt_plan_live(const struct stub_hwpt_plan *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->v[i].state != STUB_HWPT_T_GONE;
	return n;
}

enum stub_hwpt_report stub_hwpt_plan_classify(int status)
{
	if (WIFEXITED(status))
		return STUB_HWPT_R_EXITED;
	if (WIFSIGNALED(status))
		return STUB_HWPT_R_KILLED;
	if (!WIFSTOPPED(status))
		return STUB_HWPT_R_OTHER;
	if (WSTOPSIG(status) != SIGTRAP || !(status >> 16))
		return STUB_HWPT_R_SIGNAL;
	switch (status >> 16) {
	case PTRACE_EVENT_CLONE:
		return STUB_HWPT_R_CLONE;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		return STUB_HWPT_R_FORK;
	case PTRACE_EVENT_EXEC:
		return STUB_HWPT_R_EXEC;
	default:
		return STUB_HWPT_R_EVENT;
	}
}

static bool is_stop(enum stub_hwpt_report r)
{
	return r != STUB_HWPT_R_OTHER && r != STUB_HWPT_R_EXITED && r != STUB_HWPT_R_KILLED;
}

static bool live(const struct stub_hwpt_pthread *t)
{
	return t && t->state != STUB_HWPT_T_GONE;
}

unsigned stub_hwpt_plan_needs(struct stub_hwpt_plan *p, pid_t tid, enum stub_hwpt_report r)
{
	if (!is_stop(r))
		return 0;
	if (!live(stub_hwpt_plan_find(p, tid)))
		return STUB_HWPT_NEED_OURS;
	if (r == STUB_HWPT_R_CLONE || r == STUB_HWPT_R_EXEC)
		return STUB_HWPT_NEED_MSG;
	if (r == STUB_HWPT_R_SIGNAL)
		return STUB_HWPT_NEED_SIGINFO;
	return 0;
}

/* The end of thread @t. */
static void ended(struct stub_hwpt_plan *p, struct stub_hwpt_pthread *t, int status,
		  struct stub_hwpt_action *a)
{
	t->state = STUB_HWPT_T_GONE;
	if (t->traced)
		a->untrace = t->key;
	t->traced = false;
	if (t->tid != p->pid)
		return;
	a->ended = p->ended = true;
	p->killed = WIFSIGNALED(status);
	p->status = p->killed ? WTERMSIG(status) : WEXITSTATUS(status);
}

/* The first stop of a thread not in the table. */
static int unknown(struct stub_hwpt_plan *p, pid_t tid, int status, enum stub_hwpt_report r,
		   const struct stub_hwpt_facts *f, struct stub_hwpt_action *a)
{
	int sig = r == STUB_HWPT_R_SIGNAL ? WSTOPSIG(status) : 0;
	struct stub_hwpt_pthread *t;

	if (!f->ours || p->stopping) {
		/* Someone else's (a fork child), or too late to trace. */
		if (f->ours && !(t = add(p, tid, STUB_HWPT_T_GONE)))
			return -ENOMEM;
		a->detach = tid;
		a->sig = sig == SIGSTOP ? 0 : sig;
		return 0;
	}
	/* A new thread whose parent's clone event is still to come. */
	if (!add(p, tid, STUB_HWPT_T_RUNNING))
		return -ENOMEM;
	a->trace = tid;
	a->resume = tid;
	a->sig = sig == SIGSTOP ? 0 : sig;
	return 0;
}

static int clone_event(struct stub_hwpt_plan *p, pid_t tid, const struct stub_hwpt_facts *f,
		       struct stub_hwpt_action *a)
{
	pid_t child = (pid_t)f->msg;
	struct stub_hwpt_pthread *t;

	a->resume = tid;
	if (child <= 0 || live(stub_hwpt_plan_find(p, child)))
		return 0;               /* its stop came first: traced then */
	t = add(p, child, p->stopping ? STUB_HWPT_T_STOPPING : STUB_HWPT_T_RUNNING);
	if (!t)
		return -ENOMEM;
	t->fresh = true;
	if (!p->stopping)
		a->trace = child;
	return 0;
}

/* Exec from thread @f->msg, now known as @tid (the leader's tid). */
static void exec_event(struct stub_hwpt_plan *p, struct stub_hwpt_pthread *t, pid_t tid,
		       const struct stub_hwpt_facts *f, struct stub_hwpt_action *a)
{
	pid_t former = (pid_t)f->msg;
	struct stub_hwpt_pthread *execer;

	a->exec = true;
	a->resume = tid;
	if (former <= 0 || former == tid || !live(execer = stub_hwpt_plan_find(p, former)))
		return;
	/* The old leader is gone without a report; the execing thread's
	 * event goes on under its new tid. */
	if (t->traced)
		a->untrace = t->key;
	t->traced = false;
	t->state = STUB_HWPT_T_GONE;
	t->tid = 0;
	execer->tid = tid;
}

/* Thread @t leaves the recording, running on. */
static void detach(struct stub_hwpt_pthread *t, struct stub_hwpt_action *a)
{
	if (t->traced)
		a->untrace = t->key;
	t->traced = false;
	t->state = STUB_HWPT_T_GONE;
	a->detach = t->tid;
}

static void signal_stop(struct stub_hwpt_plan *p, struct stub_hwpt_pthread *t, int status,
			const struct stub_hwpt_facts *f, struct stub_hwpt_action *a)
{
	int sig = WSTOPSIG(status);
	bool first = t->fresh && sig == SIGSTOP;

	t->fresh = false;
	if (t->state == STUB_HWPT_T_STOPPING && p->attached && sig == SIGSTOP) {
		/* Ours, or a clone's first: detached with no signal. */
		detach(t, a);
		return;
	}
	a->resume = t->tid;
	/* A clone's first SIGSTOP is not the program's; nor is a group-stop
	 * to be passed on (ptrace then reports it as a stop, not a signal). */
	a->sig = first || f->group_stop ? 0 : sig;
}

int stub_hwpt_plan_decide(struct stub_hwpt_plan *p, pid_t tid, int status,
			  const struct stub_hwpt_facts *f, struct stub_hwpt_action *a)
{
	enum stub_hwpt_report r = stub_hwpt_plan_classify(status);
	struct stub_hwpt_pthread *t = stub_hwpt_plan_find(p, tid);

	memset(a, 0, sizeof(*a));
	if (r == STUB_HWPT_R_OTHER)
		return 0;
	if (r == STUB_HWPT_R_EXITED || r == STUB_HWPT_R_KILLED) {
		if (live(t))
			ended(p, t, status, a);
		return 0;
	}
	if (!live(t))
		return unknown(p, tid, status, r, f, a);
	switch (r) {
	case STUB_HWPT_R_CLONE:
		return clone_event(p, tid, f, a);
	case STUB_HWPT_R_EXEC:
		exec_event(p, t, tid, f, a);
		return 0;
	case STUB_HWPT_R_SIGNAL:
		signal_stop(p, t, status, f, a);
		return 0;
	default:
		/* fork / vfork (the child's own stop detaches it), other events */
		a->resume = tid;
		return 0;
	}
}

size_t stub_hwpt_plan_stop(struct stub_hwpt_plan *p, pid_t *tids)
{
	size_t n = 0;

	p->stopping = true;
	for (size_t i = 0; i < p->n; i++) {
		struct stub_hwpt_pthread *t = &p->v[i];

		if (t->state != STUB_HWPT_T_RUNNING)
			continue;
		t->state = STUB_HWPT_T_STOPPING;
		if (p->attached && !t->fresh)
			tids[n++] = t->tid;
	}
	return n;
}
