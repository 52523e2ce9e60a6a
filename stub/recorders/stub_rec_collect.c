/*
 * stub/recorders/stub_rec_collect.c: the software recorder's waitpid
 * reports of threads it is not stepping, and the syscalls they are in.
 *
 * A READY task about to run a syscall instruction is resumed over it and
 * not waited for (stub_rec_enter_syscall); its completion comes here later
 * as a report among others (stub_rec_collect): the syscall done, or a
 * signal that stopped it before it entered the kernel, a PTRACE_EVENT
 * (clone, fork, exec), a new thread's first stop, an exit. What each
 * means is decided by stub/recorders/stub_rec_plan.h from the facts it
 * asks for (stub_rec_decide, which the stepping of stub_rec_step.c asks
 * too). Above stub_rec_tasks.c and stub_rec_pin.c, below the stepping
 * and the loop.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>

#include "protocol/rsp_buf.h"
#include "stub/live/stub_mem.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_priv.h"

/* --- small helpers ------------------------------------------------------ */

/* Thread @tid belongs to process @pid (Tgid in its status). */
static bool stub_rec_is_thread_of(pid_t pid, pid_t tid)
{
	struct rsp_buf text;
	const char *p;
	bool r = false;

	rsp_buf_init(&text);
	if (stub_procfs_read(tid, "status", &text) == 0 &&
	    (p = strstr((const char *)text.data, "Tgid:")))
		r = atoi(p + 5) == pid;
	rsp_buf_release(&text);
	return r;
}

/* A SIGTRAP stop of @t that no step or breakpoint caused: sent by
 * kill / tgkill (si_code <= 0), so a signal-delivery-stop. */
static bool stub_rec_sent_trap(const struct stub_rec_task *t)
{
	siginfo_t si;

	return ptrace(PTRACE_GETSIGINFO, t->th.tid, 0, &si) == 0 && si.si_code <= 0;
}

/* --- syscalls and ptrace events -------------------------------------- */

/* Resumes READY @t over the syscall instruction at @ip without waiting. */
int stub_rec_enter_syscall(struct stub_rec *r, struct stub_rec_task *t, uint64_t ip)
{
	int e = stub_rec_icache_get(&r->icache, r->mem.fd, ip, &t->sc);

	if (e < 0)
		return e;
	t->sc_resume_ip = t->regs.rip;
	t->sc_restart = t->restart;
	t->sc_nr = t->restart ? (long)t->regs.orig_rax : (long)t->regs.rax;
	t->sc_logged = false;
	e = stub_rec_state_syscall(&t->st, &r->sp, t->sc_nr, &t->regs, t->th.ninsn, r->clock);
	if (e >= 0)
		e = stub_rec_resume(t->th.tid, t->sig);
	if (e < 0)
		return e;
	t->sig = 0;
	t->restart = false;
	t->state = STUB_REC_SYSCALL;
	return 0;
}

/* The syscall of SYSCALL @t executed: log it once. */
static int stub_rec_log_syscall(struct stub_rec *r, struct stub_rec_task *t)
{
	if (t->sc_logged)
		return 0;
	t->sc_logged = true;
	return stub_rec_log(r, t, &t->sc, 0);
}

/* Lets a forked child go: its CPUs back, and the int3s the rep shortcut
 * had in place when it was forked taken out of its copy of the memory. */
static void stub_rec_detach_child(struct stub_rec *r, pid_t child)
{
	struct stub_mem m = { .fd = -1 };
	int st;

	if (stub_rec_wait(child, &st, 0) != child || !WIFSTOPPED(st))
		return;
	if (r->nplanted)
		stub_mem_open(&m, child);  /* if it fails, m.fd stays -1 */
	for (size_t i = 0; m.fd >= 0 && i < r->nplanted; i++) {
		uint8_t b;

		if (stub_mem_read(&m, r->planted[i].addr, &b, 1) == 1 && b == 0xcc)
			stub_mem_write(&m, r->planted[i].addr, &r->planted[i].orig, 1);
	}
	stub_mem_close(&m);
	stub_rec_unpin_child(child);
	ptrace(PTRACE_DETACH, child, 0, 0);
}

static int stub_rec_exec(struct stub_rec *r, struct stub_rec_task *t)
{
	int e = stub_rec_getregs(t);

	if (e >= 0)
		e = stub_rec_log_syscall(r, t);
	if (e >= 0)
		e = stub_rec_state_exec(&t->st, t->th.ninsn, r->clock);
	if (e < 0)
		return e;
	stub_rec_maps_unmap_all(&r->maps, r->b, r->clock);
	if (r->code)
		stub_rec_code_forget(r->code, 0, UINT64_MAX, r->clock);
	e = stub_mem_open(&r->mem, r->pid);
	if (e < 0)
		return e;
	stub_rec_icache_clear(&r->icache);
	return stub_rec_update_maps(r);
}

static int stub_rec_async(struct stub_rec *r, pid_t tid, int st);

/* A PTRACE_EVENT stop of @t inside its syscall, as @p decided; @t is
 * resumed. @msg is the event's tid (clone, fork). */
static int stub_rec_event(struct stub_rec *r, struct stub_rec_task *t,
			  const struct stub_rec_plan *p, unsigned long msg)
{
	struct stub_rec_task *n;
	int e = 0;

	if (p->act == STUB_REC_A_CLONE_KNOWN && (n = stub_rec_find(r, (pid_t)msg)))
		n->held = false;
	else if (p->act == STUB_REC_A_CLONE_NEW)
		e = stub_rec_add_task(r, (pid_t)msg, STUB_REC_NEW, &n);
	else if (p->act == STUB_REC_A_FORK)
		stub_rec_detach_child(r, (pid_t)msg);
	else if (p->act == STUB_REC_A_EXEC)
		e = stub_rec_exec(r, t);
	if (e < 0)
		return e;
	e = stub_rec_resume(t->th.tid, 0);
	/* The kernel has written the parent's tid word (CLONE_PARENT_SETTID:
	 * glibc's pd->tid, on the new thread's stack page) and the new thread
	 * may run: the clone is logged now, before the new thread's first step
	 * (it returns at once), so that no step of the new thread comes before
	 * the clone's effects in logical time. */
	while (e >= 0 && (p->act == STUB_REC_A_CLONE_KNOWN || p->act == STUB_REC_A_CLONE_NEW) &&
	       t->state == STUB_REC_SYSCALL) {
		int st;

		e = stub_rec_wait(t->th.tid, &st, 0);
		if (e >= 0)
			e = stub_rec_async(r, t->th.tid, st);
	}
	return e < 0 ? e : 0;
}

/* The stop of SYSCALL @t (not an event), as @p decided: the syscall
 * completed, or a signal stopped it before it entered the kernel. */
static int stub_rec_syscall_stop(struct stub_rec *r, struct stub_rec_task *t,
				 const struct stub_rec_plan *p)
{
	int e;

	t->state = STUB_REC_READY;
	if (p->act == STUB_REC_A_SIG_BEFORE) {
		t->sig = p->sig;
		t->restart = p->restart;
		return 0;
	}
	e = stub_rec_log_syscall(r, t);
	if (e < 0)
		return e;
	t->restart = p->restart;
	if (p->sig)
		t->sig = p->sig;
	return p->maps ? stub_rec_update_maps(r) : 0;
}

/* Gathers the facts @need for the stop @s of @tid (@t its task or NULL). */
static int stub_rec_gather(struct stub_rec *r, struct stub_rec_task *t, pid_t tid,
			   struct stub_rec_stop *s, unsigned need)
{
	int e;

	s->have |= need;
	if (need & STUB_REC_NEED_OURS)
		s->ours = stub_rec_is_thread_of(r->pid, tid);
	if (need & STUB_REC_NEED_MSG) {
		s->msg = 0;
		ptrace(PTRACE_GETEVENTMSG, tid, 0, &s->msg);
		s->msg_known = stub_rec_find(r, (pid_t)s->msg) != NULL;
	}
	if (need & STUB_REC_NEED_REGS) {
		e = stub_rec_getregs(t);
		if (e < 0)
			return e;
		s->rip = t->regs.rip;
		s->rax = (long)t->regs.rax;
	}
	if (need & STUB_REC_NEED_SENT)
		s->sent = stub_rec_sent_trap(t);
	return 0;
}

/* Asks the plan what to do with stop @s, gathering what it needs. */
int stub_rec_decide(struct stub_rec *r, struct stub_rec_task *t, pid_t tid,
		    struct stub_rec_stop *s, struct stub_rec_plan *p)
{
	int e;

	while (stub_rec_plan_report(s, p) == STUB_REC_A_NEED) {
		e = stub_rec_gather(r, t, tid, s, p->need);
		if (e < 0)
			return e;
	}
	return 0;
}

static enum stub_rec_plan_who stub_rec_who(const struct stub_rec_task *t)
{
	if (!t)
		return STUB_REC_WHO_UNKNOWN;
	if (t->state == STUB_REC_NEW)
		return STUB_REC_WHO_NEW;
	return t->state == STUB_REC_SYSCALL ? STUB_REC_WHO_SYSCALL : STUB_REC_WHO_READY;
}

/* One waitpid report for a thread that is not being stepped. */
static int stub_rec_async(struct stub_rec *r, pid_t tid, int st)
{
	struct stub_rec_task *t = stub_rec_find(r, tid);
	struct stub_rec_stop s = { .status = st, .who = stub_rec_who(t) };
	struct stub_rec_plan p;
	int e;

	if (t) {
		s.sc_resume_ip = t->sc_resume_ip;
		s.sc_nr = t->sc_nr;
		s.sc_restart = t->sc_restart;
	}
	e = stub_rec_decide(r, t, tid, &s, &p);
	if (e < 0)
		return e;
	switch (p.act) {
	case STUB_REC_A_DETACH:
		ptrace(PTRACE_DETACH, tid, 0, 0);
		return 0;
	case STUB_REC_A_ADOPT:
		e = stub_rec_add_task(r, tid, STUB_REC_READY, &t);
		if (e < 0)
			return e;
		/* Its stop came before its parent's PTRACE_EVENT_CLONE: not
		 * stepped before that (stub_rec_event), so the clone is logged
		 * first. */
		t->held = true;
		return stub_rec_getregs(t);
	case STUB_REC_A_GONE:
		e = t->state == STUB_REC_SYSCALL ? stub_rec_log_syscall(r, t) : 0;
		stub_rec_gone(r, t, st);
		return e;
	case STUB_REC_A_FIRST:
		/* Its first stop (the SIGSTOP of a new clone): swallowed. */
		t->state = STUB_REC_READY;
		return stub_rec_getregs(t);
	case STUB_REC_A_SIG_BEFORE:
	case STUB_REC_A_SYSCALL_DONE:
		return stub_rec_syscall_stop(r, t, &p);
	case STUB_REC_A_NONE:
		return 0;
	default:
		return stub_rec_event(r, t, &p, s.msg);
	}
}

/* Collects what is waiting (@flags WNOHANG) or the next report. 1 if one
 * was handled, 0 if none, -ECHILD when no thread is left. */
int stub_rec_collect(struct stub_rec *r, int flags)
{
	int st, e;
	pid_t tid = stub_rec_wait(-1, &st, flags);

	/* Drained: a fork from now on happens after every int3 so far was
	 * taken out again. */
	if (tid == 0)
		r->nplanted = 0;
	if (tid <= 0)
		return tid;
	e = stub_rec_async(r, tid, st);
	return e < 0 ? e : 1;
}
