/*
 * stub/live/stub_resume.c: resume() and interrupt() of the live target.
 *
 * A thread that already has an event (kept while stopping everyone) is not
 * resumed: the event is reported by the next wait() instead, unless it is a
 * breakpoint hit whose breakpoint is gone (the pc is already rewound, the
 * thread simply runs into the instruction again).
 */
#include "stub/live/stub_proc.h"

#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>

#include "stub/live/stub_regs.h"

int stub_proc_resume_thread(struct stub_proc *p, struct stub_thread *t, int sig)
{
	bool step = t->kind == RSP_RESUME_STEP || t->kind == RSP_RESUME_RANGE;
	long r;

	(void)p;
	r = ptrace(step ? PTRACE_SINGLESTEP : PTRACE_CONT, t->tid, NULL, (void *)(long)sig);
	t->running = true;
	return r < 0 ? -errno : 0;
}

static int stub_resume_check(struct stub_proc *p, const struct rsp_resume *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (a[i].kind == RSP_RESUME_REVERSE_STEP || a[i].kind == RSP_RESUME_REVERSE_CONTINUE)
			return -EOPNOTSUPP;
		if (a[i].kind > RSP_RESUME_REVERSE_CONTINUE)
			return -EINVAL;
		if (a[i].signo < 0 || a[i].signo >= RSP_NSIG)
			return -EINVAL;
		if (!stub_proc_thread(p, a[i].thread.tid))
			return -ESRCH;
	}
	return 0;
}

/* Records the requests in the threads. */
static void stub_resume_record(struct stub_proc *p, const struct rsp_resume *a, size_t n)
{
	for (size_t i = 0; i < p->threads.n; i++)
		p->threads.v[i].want_running = false;
	for (size_t i = 0; i < n; i++) {
		struct stub_thread *t = stub_proc_thread(p, a[i].thread.tid);

		if (a[i].kind == RSP_RESUME_STOP)
			continue;
		t->kind = a[i].kind;
		if (t->kind == RSP_RESUME_RANGE && a[i].range_start >= a[i].range_end)
			t->kind = RSP_RESUME_STEP;
		t->range_start = a[i].range_start;
		t->range_end = a[i].range_end;
		t->resume_sig = a[i].signo;
		t->want_running = true;
	}
}

/* Forgets pending breakpoint hits whose breakpoint was removed (or whose
 * thread was moved away from it). */
static void stub_resume_drop_stale(struct stub_proc *p)
{
	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];
		uint64_t pc;

		if (!t->pending || t->pending_stop.reason != RSP_REASON_SWBREAK)
			continue;
		if (stub_regs_get_pc(t->tid, &pc) < 0 || !stub_break_has(&p->breaks, pc))
			t->pending = false;
	}
}

static bool stub_resume_has_pending(struct stub_proc *p)
{
	for (size_t i = 0; i < p->threads.n; i++)
		if (p->threads.v[i].pending && p->threads.v[i].want_running)
			return true;
	return false;
}

/* Keeps the signals of this request for the real resume that follows. */
static void stub_resume_defer_signals(struct stub_proc *p)
{
	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];

		if (t->want_running && t->resume_sig && !t->pending)
			t->deferred_sig = t->resume_sig;
	}
}

static int stub_resume_all(struct stub_proc *p)
{
	int first = 0;

	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];
		int sig = t->resume_sig ? t->resume_sig : t->deferred_sig;
		int r;

		if (!t->want_running || t->zombie)
			continue;
		t->deferred_sig = 0;
		r = stub_proc_resume_thread(p, t, sig);
		if (r < 0 && r != -ESRCH && first == 0)
			first = r;
	}
	return first;
}

int stub_proc_resume(struct stub_proc *p, const struct rsp_resume *actions, size_t n)
{
	int r;

	if (!p->alive)
		return -ESRCH;
	r = stub_resume_check(p, actions, n);
	if (r < 0)
		return r;
	stub_resume_record(p, actions, n);
	stub_resume_drop_stale(p);
	p->have_event = false;
	p->stopping = false;
	if (stub_resume_has_pending(p)) {
		stub_resume_defer_signals(p);
		p->report_pending = true;
		return 0;
	}
	return stub_resume_all(p);
}

int stub_proc_interrupt(struct stub_proc *p)
{
	if (!p->alive)
		return -ESRCH;
	return kill(p->pid, SIGINT) < 0 ? -errno : 0;
}
