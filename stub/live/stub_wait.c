/*
 * stub/live/stub_wait.c: wait() of the live target, all-stop.
 *
 * waitpid(-1, __WALL | WNOHANG) results are handled one by one: ptrace
 * events (clone, fork, vfork, exec), the SIGSTOPs we sent (swallowed, even
 * when they arrive after a later resume), new threads' first stops, thread
 * and process exits, and signal stops (stub/live/stub_trap.h). The first
 * reportable event starts stopping every other thread (tgkill SIGSTOP);
 * events other threads report meanwhile stay pending for a later resume.
 * The event is returned once no thread runs. SIGCHLD arrives through a
 * signalfd, which is drained on each call so that event_fd works.
 */
#include "stub/live/stub_proc.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stub/live/stub_hw.h"
#include "stub/live/stub_procfs.h"
#include "stub/live/stub_trap.h"

/* How often a stop-all rechecks for an exited (zombie) leader, in ms. */
#define STUB_WAIT_ZOMBIE_POLL_MS 20

static void stub_wait_drain(struct stub_proc *p)
{
	struct signalfd_siginfo si;

	while (read(p->sigfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		;
}

static void stub_wait_poll(struct stub_proc *p, int timeout_ms)
{
	struct pollfd pfd = { .fd = p->sigfd, .events = POLLIN };

	poll(&pfd, 1, timeout_ms);
}

/* Sends SIGSTOP to every running thread that is not stopping already. */
static void stub_wait_stop_all(struct stub_proc *p)
{
	p->stopping = true;
	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];

		if (!t->running || t->is_new || t->stop_expected || t->zombie)
			continue;
		if (syscall(SYS_tgkill, p->pid, t->tid, SIGSTOP) == 0)
			t->stop_expected = true;
	}
}

static bool stub_wait_all_stopped(struct stub_proc *p)
{
	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];

		if (t->running && !t->zombie)
			return false;
	}
	return true;
}

/* A leader that exited before its threads never reports a stop. */
static void stub_wait_check_zombies(struct stub_proc *p)
{
	struct stub_thread *t = stub_thread_find(&p->threads, p->pid);

	if (t && t->running && !t->zombie && stub_procfs_is_zombie(p->pid, p->pid))
		t->zombie = true;
}

/* A reportable stop of @t: the event, or pending if one is chosen. */
static void stub_wait_event(struct stub_proc *p, struct stub_thread *t, const struct rsp_stop *st)
{
	if (p->have_event) {
		t->pending = true;
		t->pending_stop = *st;
		return;
	}
	p->have_event = true;
	p->event = *st;
	stub_wait_stop_all(p);
}

/* Resumes @t again after a stop it should not have noticed. */
static void stub_wait_keep_going(struct stub_proc *p, struct stub_thread *t)
{
	if (!p->stopping && !p->have_event && t->want_running)
		stub_proc_resume_thread(p, t, 0);
}

/* A new thread is stopped for the first time: debug registers, then run. */
static void stub_wait_new_ready(struct stub_proc *p, struct stub_thread *t)
{
	t->is_new = false;
	t->running = false;
	if (!stub_dreg_empty(&p->dregs))
		stub_hw_apply(t->tid, &p->dregs);
	t->kind = RSP_RESUME_CONTINUE;
	t->want_running = true;
	stub_wait_keep_going(p, t);
}

static void stub_wait_clone(struct stub_proc *p, pid_t tid)
{
	struct stub_thread *t = stub_thread_add(&p->threads, tid);

	if (!t)
		return;
	if (stub_thread_find(&p->orphans, tid)) {
		stub_thread_remove(&p->orphans, tid);
		stub_wait_new_ready(p, t);
		return;
	}
	t->is_new = true;
	t->running = true;
}

/* Waits for the first stop of a forked child (unless already seen). */
static int stub_wait_child_stop(struct stub_proc *p, pid_t child)
{
	int status;
	pid_t r;

	if (stub_thread_find(&p->orphans, child)) {
		stub_thread_remove(&p->orphans, child);
		return 0;
	}
	do
		r = waitpid(child, &status, __WALL);
	while (r < 0 && errno == EINTR);
	return r == child && WIFSTOPPED(status) ? 0 : -ESRCH;
}

/* Follows the parent: takes our int3s out of the child and lets it go.
 * A vfork child shares the memory: the int3s come back at vfork-done. */
static void stub_wait_fork(struct stub_proc *p, pid_t child)
{
	struct stub_mem cm = { -1 };

	if (stub_wait_child_stop(p, child) < 0)
		return;
	if (stub_mem_open(&cm, child) == 0) {
		stub_break_restore(&p->breaks, &cm);
		stub_mem_close(&cm);
	}
	ptrace(PTRACE_DETACH, child, NULL, NULL);
}

static void stub_wait_exec(struct stub_proc *p, struct stub_thread *t)
{
	pid_t tid = t->tid;
	struct rsp_stop st = { .kind = RSP_STOP_SIGNAL, .thread = { p->pid, p->pid },
			       .signo = SIGTRAP };

	for (size_t i = p->threads.n; i-- > 0;)
		if (p->threads.v[i].tid != tid)
			stub_thread_remove(&p->threads, p->threads.v[i].tid);
	t = &p->threads.v[0];
	t->stop_expected = false;
	t->pending = false;
	stub_mem_open(&p->mem, p->pid);
	stub_break_forget(&p->breaks);
	stub_dreg_set_init(&p->dregs);
	stub_wait_event(p, t, &st);
}

static void stub_wait_ptrace_event(struct stub_proc *p, struct stub_thread *t, int ev)
{
	unsigned long msg = 0;

	if (ev != PTRACE_EVENT_EXEC)
		ptrace(PTRACE_GETEVENTMSG, t->tid, NULL, &msg);
	switch (ev) {
	case PTRACE_EVENT_CLONE:
		stub_wait_clone(p, (pid_t)msg);
		break;
	case PTRACE_EVENT_FORK:
	case PTRACE_EVENT_VFORK:
		stub_wait_fork(p, (pid_t)msg);
		break;
	case PTRACE_EVENT_VFORK_DONE:
		stub_break_reinsert(&p->breaks, &p->mem);
		break;
	case PTRACE_EVENT_EXEC:
		stub_wait_exec(p, t);
		return;
	}
	stub_wait_keep_going(p, t);
}

static void stub_wait_exited(struct stub_proc *p, pid_t tid, int status)
{
	stub_thread_remove(&p->orphans, tid);
	if (tid != p->pid) {
		stub_thread_remove(&p->threads, tid);
		return;
	}
	p->event = (struct rsp_stop){ .thread = { p->pid, p->pid } };
	if (WIFEXITED(status)) {
		p->event.kind = RSP_STOP_EXITED;
		p->event.status = WEXITSTATUS(status);
	} else {
		p->event.kind = RSP_STOP_TERMINATED;
		p->event.signo = WTERMSIG(status);
	}
	p->have_event = true;
	p->threads.n = 0;
}

/* A signal stop of a known thread. */
static void stub_wait_signal(struct stub_proc *p, struct stub_thread *t, int sig)
{
	struct rsp_stop st;

	if (sig == SIGSTOP && t->is_new) {
		stub_wait_new_ready(p, t);
		return;
	}
	if (sig == SIGSTOP && t->stop_expected) {
		t->stop_expected = false;
		stub_wait_keep_going(p, t);
		return;
	}
	if (!stub_trap_classify(p, t, sig, &st))
		return;
	if (sig != SIGTRAP && sig < RSP_NSIG && p->pass[sig]) {
		if (p->stopping)
			t->deferred_sig = sig; /* delivered at the next resume */
		else
			stub_proc_resume_thread(p, t, sig);
		return;
	}
	stub_wait_event(p, t, &st);
}

static void stub_wait_handle(struct stub_proc *p, pid_t tid, int status)
{
	struct stub_thread *t;

	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		stub_wait_exited(p, tid, status);
		return;
	}
	if (!WIFSTOPPED(status))
		return;
	t = stub_thread_find(&p->threads, tid);
	if (!t) {
		stub_thread_add(&p->orphans, tid);
		return;
	}
	t->running = false;
	if (WSTOPSIG(status) == SIGTRAP && (status >> 16) != 0)
		stub_wait_ptrace_event(p, t, status >> 16);
	else
		stub_wait_signal(p, t, WSTOPSIG(status));
}

/* The chosen event, now that every thread is stopped. */
static int stub_wait_finish(struct stub_proc *p, struct rsp_stop *out)
{
	*out = p->event;
	p->have_event = false;
	p->stopping = false;
	for (size_t i = 0; i < p->threads.n; i++)
		p->threads.v[i].want_running = false;
	if (out->kind == RSP_STOP_EXITED || out->kind == RSP_STOP_TERMINATED) {
		p->alive = false;
		p->orphans.n = 0;
		stub_mem_close(&p->mem);
		stub_break_forget(&p->breaks);
		stub_dreg_set_init(&p->dregs);
	} else {
		p->last_tid = (pid_t)out->thread.tid;
	}
	return 1;
}

/* A pending event left by resume(): reported without running anything. */
static int stub_wait_report_pending(struct stub_proc *p, struct rsp_stop *out)
{
	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];

		if (!t->pending || !t->want_running)
			continue;
		t->pending = false;
		p->report_pending = false;
		p->event = t->pending_stop;
		return stub_wait_finish(p, out);
	}
	p->report_pending = false;
	return 0;
}

static bool stub_wait_anything_runs(struct stub_proc *p)
{
	for (size_t i = 0; i < p->threads.n; i++)
		if (p->threads.v[i].running && !p->threads.v[i].zombie)
			return true;
	return false;
}

/* Reaps what waitpid has; 1 if something was handled, 0 if nothing, or a
 * negative errno (-ECHILD: no traced child left). */
static int stub_wait_reap(struct stub_proc *p)
{
	int status, handled = 0;

	for (;;) {
		pid_t r = waitpid(-1, &status, __WALL | WNOHANG);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return handled ? 1 : -errno;
		if (r == 0)
			return handled;
		stub_wait_handle(p, r, status);
		handled = 1;
	}
}

int stub_proc_wait(struct stub_proc *p, struct rsp_stop *out, bool block)
{
	if (!p->alive)
		return -ECHILD;
	if (p->report_pending)
		return stub_wait_report_pending(p, out);
	for (;;) {
		int r;

		stub_wait_drain(p);
		r = stub_wait_reap(p);
		if (r == -ECHILD && !p->have_event) {
			p->alive = false;
			return -ECHILD;
		}
		if (p->have_event) {
			stub_wait_check_zombies(p);
			if (stub_wait_all_stopped(p))
				return stub_wait_finish(p, out);
		}
		if (r > 0)
			continue;
		if (!p->have_event && !stub_wait_anything_runs(p)) {
			*out = (struct rsp_stop){ .kind = RSP_STOP_NO_RESUMED,
				.thread = { p->pid, p->last_tid } };
			return 1;
		}
		if (!block && !p->have_event)
			return 0;
		stub_wait_poll(p, p->have_event ? STUB_WAIT_ZOMBIE_POLL_MS : -1);
	}
}
