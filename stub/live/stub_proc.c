/*
 * stub/live/stub_proc.c: lifecycle of a traced process.
 *
 * Spawn (stub/live/stub_spawn.h) or attach, the ptrace options, the SIGCHLD
 * signalfd, kill (SIGKILL and reap every thread) and detach (take our
 * breakpoints and debug registers out, then PTRACE_DETACH each thread).
 */
#include "stub/live/stub_proc.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stub/live/stub_hw.h"
#include "stub/live/stub_procfs.h"
#include "stub/live/stub_regs.h"
#include "stub/live/stub_spawn.h"

#define STUB_PROC_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC)

static void stub_proc_init(struct stub_proc *p)
{
	memset(p, 0, sizeof(*p));
	p->mem.fd = -1;
	p->sigfd = -1;
	stub_thread_list_init(&p->threads);
	stub_thread_list_init(&p->orphans);
	stub_break_table_init(&p->breaks);
	stub_dreg_set_init(&p->dregs);
}

/* Blocks SIGCHLD and opens the signalfd that reports it. */
static int stub_proc_open_sigfd(struct stub_proc *p)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &set, &p->old_mask) < 0)
		return -errno;
	p->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (p->sigfd < 0) {
		int err = -errno;

		sigprocmask(SIG_SETMASK, &p->old_mask, NULL);
		return err;
	}
	return 0;
}

static void stub_proc_close_sigfd(struct stub_proc *p)
{
	if (p->sigfd < 0)
		return;
	close(p->sigfd);
	p->sigfd = -1;
	sigprocmask(SIG_SETMASK, &p->old_mask, NULL);
}

/* Common set-up once the leader is stopped. */
static int stub_proc_setup(struct stub_proc *p, pid_t pid, long options)
{
	p->pid = pid;
	p->last_tid = pid;
	p->alive = true;
	p->avx = stub_regs_features() != 0;
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)options) < 0)
		return -errno;
	return stub_mem_open(&p->mem, pid);
}

int stub_proc_spawn(struct stub_proc *p, char *const argv[])
{
	pid_t pid;
	int r;

	stub_proc_init(p);
	r = stub_proc_open_sigfd(p);
	if (r < 0)
		return r;
	r = stub_spawn_start(argv, &pid);
	if (r < 0)
		return r;
	if (!stub_thread_add(&p->threads, pid)) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, __WALL);
		return -ENOMEM;
	}
	r = stub_proc_setup(p, pid, STUB_PROC_OPTIONS | PTRACE_O_EXITKILL);
	if (r < 0)
		stub_proc_kill(p);
	return r;
}

/* Waits for the attach stop of @tid; a signal other than SIGSTOP becomes a
 * pending event. 0, or -ESRCH if the thread exited meanwhile. */
static int stub_proc_attach_wait(struct stub_proc *p, struct stub_thread *t)
{
	int status;
	pid_t r;

	do
		r = waitpid(t->tid, &status, __WALL);
	while (r < 0 && errno == EINTR);
	if (r < 0 || !WIFSTOPPED(status))
		return -ESRCH;
	if (WSTOPSIG(status) == SIGSTOP)
		return 0;
	t->stop_expected = true;
	t->pending = true;
	t->pending_stop = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL,
		.thread = { p->pid, t->tid }, .signo = WSTOPSIG(status) };
	return 0;
}

/* Attaches to one thread; 1 if it was new, 0 if known or gone, <0 error. */
static int stub_proc_attach_one(struct stub_proc *p, pid_t tid)
{
	struct stub_thread *t;

	if (stub_thread_find(&p->threads, tid))
		return 0;
	if (ptrace(PTRACE_ATTACH, tid, NULL, NULL) < 0)
		return errno == ESRCH && tid != p->pid ? 0 : -errno;
	t = stub_thread_add(&p->threads, tid);
	if (!t)
		return -ENOMEM;
	if (stub_proc_attach_wait(p, t) < 0) {
		stub_thread_remove(&p->threads, tid);
		return 0;
	}
	return 1;
}

/* One pass over /proc/PID/task: the number of new threads or an error. */
static int stub_proc_attach_pass(struct stub_proc *p)
{
	pid_t *tids;
	int n = stub_procfs_tids(p->pid, &tids), added = 0;

	for (int i = 0; n > 0 && i < n; i++) {
		int r = stub_proc_attach_one(p, tids[i]);

		if (r < 0) {
			free(tids);
			return r;
		}
		added += r;
	}
	if (n >= 0)
		free(tids);
	return n < 0 ? n : added;
}

static int stub_proc_set_options(struct stub_proc *p)
{
	for (size_t i = 0; i < p->threads.n; i++)
		if (ptrace(PTRACE_SETOPTIONS, p->threads.v[i].tid, NULL,
			   (void *)(long)STUB_PROC_OPTIONS) < 0)
			return -errno;
	return 0;
}

int stub_proc_attach(struct stub_proc *p, pid_t pid)
{
	int r;

	stub_proc_init(p);
	if (pid <= 0)
		return -ESRCH;
	r = stub_proc_open_sigfd(p);
	if (r < 0)
		return r;
	p->pid = pid;
	p->attached = true;
	p->alive = true;
	do
		r = stub_proc_attach_pass(p);
	while (r > 0);
	if (r == 0 && !stub_thread_find(&p->threads, pid))
		r = -ESRCH;
	if (r == 0)
		r = stub_proc_set_options(p);
	if (r == 0)
		r = stub_proc_setup(p, pid, STUB_PROC_OPTIONS);
	if (r < 0 && p->threads.n > 0)
		stub_proc_detach(p);
	p->alive = r == 0;
	return r;
}

int stub_proc_adopt(struct stub_proc *p, pid_t pid, const struct stub_proc_adoptee *v, size_t n,
		    bool spawned)
{
	long options = STUB_PROC_OPTIONS | (spawned ? PTRACE_O_EXITKILL : 0);
	int r;

	stub_proc_init(p);
	r = stub_proc_open_sigfd(p);
	if (r < 0)
		return r;
	p->attached = !spawned;
	for (size_t i = 0; i < n; i++) {
		struct stub_thread *t = stub_thread_add(&p->threads, v[i].tid);

		if (!t)
			return -ENOMEM;
		if (v[i].report && v[i].sig) {
			t->pending = true;
			t->pending_stop = (struct rsp_stop){ .kind = RSP_STOP_SIGNAL,
				.thread = { pid, v[i].tid }, .signo = v[i].sig };
		} else {
			t->deferred_sig = v[i].sig;
		}
		if (ptrace(PTRACE_SETOPTIONS, v[i].tid, NULL, (void *)options) < 0 && errno != ESRCH)
			return -errno;
	}
	if (!stub_thread_find(&p->threads, pid))
		return -ESRCH;
	r = stub_proc_setup(p, pid, options);
	p->alive = r == 0;
	return r;
}

static void stub_proc_mark_dead(struct stub_proc *p)
{
	p->alive = false;
	p->have_event = false;
	p->report_pending = false;
	p->stopping = false;
	p->threads.n = 0;
	p->orphans.n = 0;
	stub_mem_close(&p->mem);
	stub_break_forget(&p->breaks);
	stub_dreg_set_init(&p->dregs);
}

int stub_proc_kill(struct stub_proc *p)
{
	int status;

	if (!p->alive)
		return 0;
	kill(p->pid, SIGKILL);
	for (size_t i = 0; i < p->orphans.n; i++)
		kill(p->orphans.v[i].tid, SIGKILL);
	for (;;) {
		pid_t r = waitpid(-1, &status, __WALL);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 || (r == p->pid && (WIFEXITED(status) || WIFSIGNALED(status))))
			break;
	}
	stub_proc_mark_dead(p);
	return 0;
}

int stub_proc_apply_dregs(struct stub_proc *p)
{
	int first = 0;

	for (size_t i = 0; i < p->threads.n; i++) {
		struct stub_thread *t = &p->threads.v[i];
		int r;

		if (t->running || t->zombie)
			continue;
		r = stub_hw_apply(t->tid, &p->dregs);
		if (r < 0 && r != -ESRCH && first == 0)
			first = r;
	}
	return first;
}

/* The signal a thread should get back at detach: a pending plain signal. */
static int stub_proc_detach_sig(const struct stub_thread *t)
{
	int sig = t->pending_stop.signo;

	if (!t->pending || t->pending_stop.kind != RSP_STOP_SIGNAL)
		return 0;
	if (sig == SIGTRAP || sig == SIGSTOP)
		return 0;
	return sig;
}

static void stub_proc_detach_thread(struct stub_proc *p, struct stub_thread *t)
{
	if (t->stop_expected)
		syscall(SYS_tgkill, p->pid, t->tid, SIGCONT);
	ptrace(PTRACE_DETACH, t->tid, NULL, (void *)(long)stub_proc_detach_sig(t));
}

int stub_proc_detach(struct stub_proc *p)
{
	int r;

	if (!p->alive)
		return -ESRCH;
	r = stub_break_restore(&p->breaks, &p->mem);
	stub_dreg_set_init(&p->dregs);
	stub_proc_apply_dregs(p);
	for (size_t i = 0; i < p->threads.n; i++)
		stub_proc_detach_thread(p, &p->threads.v[i]);
	for (size_t i = 0; i < p->orphans.n; i++)
		ptrace(PTRACE_DETACH, p->orphans.v[i].tid, NULL, NULL);
	stub_proc_mark_dead(p);
	return r;
}

/* The SIGSTOP we sent @t that is still queued (it stopped for something
 * else first: a breakpoint hit), taken when it is the one signal pending
 * for it: resumed, the thread meets it before it runs an instruction (a
 * pending signal is dealt with on the way back to user mode). 0; -EBUSY
 * (left as it is) when another signal is pending too, which could come
 * first; -ESRCH if the thread is gone. */
static int stub_proc_take_sigstop(struct stub_proc *p, struct stub_thread *t)
{
	uint64_t mine, shared;
	int status;
	pid_t r;

	if (!t->stop_expected)
		return 0;
	if (stub_procfs_pending(p->pid, t->tid, &mine, &shared) < 0)
		return -ESRCH;
	if (mine != 1ull << (SIGSTOP - 1) || shared)
		return -EBUSY;
	if (ptrace(PTRACE_CONT, t->tid, NULL, NULL) < 0)
		return -errno;
	do
		r = waitpid(t->tid, &status, __WALL);
	while (r < 0 && errno == EINTR);
	if (r < 0 || !WIFSTOPPED(status) || WSTOPSIG(status) != SIGSTOP || (status >> 16))
		return -ESRCH;     /* killed meanwhile: nothing else can come first */
	t->stop_expected = false;
	return 0;
}

int stub_proc_hand_over(struct stub_proc *p)
{
	struct stub_dreg_set saved;
	int r, forgotten = 0;

	if (!p->alive)
		return -ESRCH;
	/* Every thread stopped, with nothing of its own still to report
	 * or to arrive: the state stub_rec_attach leaves a process in. */
	if (p->orphans.n || p->have_event || p->report_pending)
		return -EBUSY;
	for (size_t i = 0; i < p->threads.n; i++) {
		const struct stub_thread *t = &p->threads.v[i];

		if (t->running || (t->pending && t->pending_stop.reason != RSP_REASON_SWBREAK) ||
		    t->deferred_sig || t->is_new || t->zombie)
			return -EBUSY;
	}
	for (size_t i = 0; i < p->threads.n; i++) {
		r = stub_proc_take_sigstop(p, &p->threads.v[i]);
		if (r < 0)
			return r;
	}
	saved = p->dregs;
	r = stub_break_restore(&p->breaks, &p->mem);
	if (r == 0) {
		stub_dreg_set_init(&p->dregs);
		r = stub_proc_apply_dregs(p);
	}
	if (r < 0) {               /* as it was: the native target keeps it */
		p->dregs = saved;
		stub_proc_apply_dregs(p);
		stub_break_reinsert(&p->breaks, &p->mem);
		return r;
	}
	/* Another thread's breakpoint hit not reported yet stands at the
	 * breakpoint (its pc put back): it is forgotten, as a resume forgets
	 * one whose breakpoint was removed, and the next tracer meets the
	 * breakpoint there again. */
	for (size_t i = 0; i < p->threads.n; i++) {
		forgotten += p->threads.v[i].pending;
		p->threads.v[i].pending = false;
	}
	stub_proc_mark_dead(p);
	stub_proc_close_sigfd(p);
	return forgotten;
}

void stub_proc_release(struct stub_proc *p)
{
	if (p->alive && p->attached)
		stub_proc_detach(p);
	else if (p->alive)
		stub_proc_kill(p);
	stub_mem_close(&p->mem);
	stub_proc_close_sigfd(p);
	stub_thread_list_release(&p->threads);
	stub_thread_list_release(&p->orphans);
	stub_break_table_release(&p->breaks);
}

struct stub_thread *stub_proc_thread(struct stub_proc *p, int64_t tid)
{
	if (!p->alive || tid <= 0 || tid > INT32_MAX)
		return NULL;
	return stub_thread_find(&p->threads, (pid_t)tid);
}
