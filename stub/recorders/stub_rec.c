/*
 * stub/recorders/stub_rec.c: the single-step loop of the software recorder.
 *
 * Each thread is a task in one of three states: READY (stopped, its
 * registers known), SYSCALL (resumed over a syscall instruction, not
 * waited for) or GONE; a NEW task is a clone whose first stop has not
 * arrived yet. A READY task is stepped with PTRACE_SINGLESTEP and waited
 * for alone; a SIGTRAP means the instruction executed (a rep-string
 * iteration leaves the ip unchanged and is not counted), any other signal
 * means it did not (the signal is delivered at the next step: a caught one
 * stops again at the handler's first instruction). A syscall instruction
 * is logged when its completion is collected, so a signal that arrives
 * before it enters the kernel does not leave a false instruction behind.
 * A syscall that ends with -ERESTART* is re-executed by the kernel unless a
 * handler runs: the task is then resumed as a syscall at ip - 2.
 * What to do at each stop is decided by stub/recorders/stub_rec_plan.h, from the
 * stop as observed and the facts it asks for; this file does the ptrace.
 */
#include "stub/recorders/stub_rec.h"

#include <cpuid.h>
#include <errno.h>
#include <stdarg.h>
#include <sched.h>
#include <stddef.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "stub/live/stub_mem.h"
#include "stub/live/stub_probe.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_rec_maps.h"
#include "stub/recorders/stub_rec_next.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_state.h"
#include "stub/recorders/stub_rec_priv.h"
#include "stub/recorders/stub_rec_thread.h"
#include "stub/live/stub_spawn.h"
#include "vgtool/hsrec_proto.h"

/* --- small helpers ------------------------------------------------------ */

static int stub_rec_wait(pid_t tid, int *st, int flags)
{
	pid_t r;

	do
		r = waitpid(tid, st, flags | __WALL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

static int stub_rec_getregs(struct stub_rec_task *t)
{
	return ptrace(PTRACE_GETREGS, t->th.tid, 0, &t->regs) < 0 ? -errno : 0;
}

static int stub_rec_resume(pid_t tid, int sig)
{
	return ptrace(PTRACE_SINGLESTEP, tid, 0, (void *)(long)sig) < 0 ? -errno : 0;
}

/* Whether the process has a handler for @sig (SigCgt of its status). */
static bool stub_rec_caught(pid_t pid, int sig)
{
	struct rsp_buf text;
	const char *p;
	uint64_t mask = 0;

	rsp_buf_init(&text);
	if (stub_procfs_read(pid, "status", &text) == 0 &&
	    (p = strstr((const char *)text.data, "SigCgt:")))
		mask = strtoull(p + 7, NULL, 16);
	rsp_buf_release(&text);
	return sig >= 1 && sig <= 64 && (mask >> (sig - 1)) & 1;
}

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

/* --- tasks, bundle, log ---------------------------------------------- */

struct stub_rec_task *stub_rec_find(const struct stub_rec *r, pid_t tid)
{
	for (size_t i = 0; i < r->ntasks; i++)
		if (r->tasks[i]->th.tid == tid && r->tasks[i]->state != STUB_REC_GONE)
			return r->tasks[i];
	return NULL;
}

/* The state log of new task @t, bundle thread @idx. */
static int stub_rec_task_state(struct stub_rec *r, struct stub_rec_task *t, size_t idx)
{
	char rel[64], path[4096];

	/* Named as its trace: threads/TID[.N].state */
	snprintf(rel, sizeof(rel), "%.*s.state", (int)strlen(r->b->threads[idx].pt_file) - 3,
		 r->b->threads[idx].pt_file);
	snprintf(path, sizeof(path), "%s/%s", r->opt.dir, rel);
	t->stf = replay_bundle_fcreate(path);
	if (!t->stf)
		return -errno;
	if (replay_bundle_set_str(&r->b->threads[idx].state_file, rel) < 0 ||
	    stub_rec_state_init(&t->st, t->th.tid, t->stf) < 0)
		return -ENOMEM;
	return stub_sum_start(r->b, idx, r->opt.dir, r->opt.snapshot, &t->th.pt.sum, &t->st.sum);
}

static int stub_rec_add_task(struct stub_rec *r, pid_t tid, enum stub_rec_task_state state,
			     struct stub_rec_task **out)
{
	struct stub_rec_task *t, **nv;
	char rel[64], path[4096];
	int idx, e;

	nv = realloc(r->tasks, (r->ntasks + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	r->tasks = nv;
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	replay_bundle_thread_file(r->b, tid, "pt", rel, sizeof(rel));
	snprintf(path, sizeof(path), "%s/%s", r->opt.dir, rel);
	t->pt = replay_bundle_fcreate(path);
	if (!t->pt) {
		e = -errno;
		free(t);
		return e;
	}
	/* Larger than the trace of STUB_REC_FLUSH instructions can be. */
	setvbuf(t->pt, NULL, _IOFBF, STUB_REC_PT_BUFFER);
	e = stub_rec_thread_init(&t->th, tid, t->pt, r->opt.psb_period, !r->opt.noretcomp,
				 r->clock);
	idx = replay_bundle_add_thread(r->b, tid, rel);
	if (e >= 0 && idx >= 0)
		e = stub_rec_task_state(r, t, (size_t)idx);
	if (e < 0 || idx < 0) {
		stub_rec_state_release(&t->st);
		if (t->stf)
			fclose(t->stf);
		stub_rec_thread_release(&t->th);
		fclose(t->pt);
		free(t);
		return e < 0 ? e : idx;
	}
	t->bundle_index = (size_t)idx;
	t->state = state;
	r->tasks[r->ntasks++] = t;
	if (r->iplog)
		fprintf(r->iplog, "psb %d %" PRIu64 " 0\n", (int)tid, t->th.pt.last_psb);
	*out = t;
	return 0;
}

/* What a reader of the state log may trust if nothing follows
 * (stub_rec_state_sync). A thread's next records are its next
 * instruction's (a syscall's at its exit), at the instruction after its
 * last and a later time; but a signal pending on it is logged at its last
 * instruction and the time of now. One gone is whole; one not started has
 * no log. */
static int stub_rec_task_sync(struct stub_rec *r, struct stub_rec_task *t)
{
	uint64_t more = t->sig ? 0 : 1;

	if (t->state == STUB_REC_GONE)
		return stub_rec_state_end(&t->st);
	return stub_rec_state_sync(&t->st, t->th.ninsn + more, r->clock + more);
}

int stub_rec_save(struct stub_rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct stub_rec_task *t = r->tasks[i];

		stub_swpt_flush(&t->th.pt);
		stub_rec_task_sync(r, t);
		stub_rec_state_flush(&t->st);
		r->b->threads[t->bundle_index].instructions = t->th.ninsn - stub_rec_ring_dropped(&t->ring);
	}
	if (r->iplog)
		fflush(r->iplog);
	if (r->sp.check)
		fflush(r->sp.check);
	r->b->end_time = r->clock;
	return replay_bundle_save(r->b, r->opt.dir);
}

static uint64_t stub_rec_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Traces and state logs written out, each ending where a reader may stop. */
static int stub_rec_flush(struct stub_rec *r)
{
	int e;

	r->next_flush = r->clock + STUB_REC_FLUSH;
	r->flushed_clock = r->clock;
	r->flushed_ns = stub_rec_now_ns();
	for (size_t i = 0; i < r->ntasks; i++) {
		struct stub_rec_task *t = r->tasks[i];

		/* The trace on disk ends with FUP + TIP.PGD at the thread's next
		 * instruction (the next step enables it again): a decoder of what
		 * a killed recorder left stops there, not in a loop that needs
		 * no packets. Its buffer (see stub_rec_add_task) is never
		 * written out between two flushes. */
		e = t->state == STUB_REC_READY && !t->in_rep ?
		    stub_rec_thread_interrupt(&t->th, t->regs.rip) : 0;
		if (e >= 0)
			e = stub_swpt_flush(&t->th.pt);
		if (e >= 0)
			e = stub_rec_task_sync(r, t);
		if (e >= 0)
			e = stub_rec_state_flush(&t->st);
		if (e < 0)
			return e;
	}
	return 0;
}

/* A recorder killed at any moment leaves what was flushed: the traces and
 * state logs are flushed often (a write each), the bundle saved less often. */
int stub_rec_periodic(struct stub_rec *r)
{
	if (r->clock >= r->next_checkpoint) {
		int e;

		r->next_checkpoint = r->clock + STUB_REC_CHECKPOINT;
		r->next_flush = r->clock + STUB_REC_FLUSH;
		e = stub_rec_save(r);
		if (e >= 0 && r->opt.progress)
			r->opt.progress(r->opt.progress_ctx);
		return e;
	}
	return r->clock < r->next_flush ? 0 : stub_rec_flush(r);
}

/* Whether syscall @nr may wait for as long as it likes (the list the
 * Valgrind tool uses too, vgtool/hsrec_proto.h). */
static bool stub_rec_may_wait(long nr)
{
#define STUB_REC_CASE(name) case SYS_##name:
	switch (nr) {
	HSREC_MAY_WAIT_SYSCALLS(STUB_REC_CASE)
		return true;
	default:
		return false;
	}
}

/* Before the recorder waits for threads that are all in syscalls: when one
 * of them may wait for as long as it likes, what was recorded since the
 * last flush is written out, so a recorder killed meanwhile loses none of
 * it (flushes counted in instructions alone left it all unwritten). Other
 * syscalls return at once: for those a flush at most every
 * STUB_REC_IDLE_NS, not a write at each. */
static int stub_rec_idle(struct stub_rec *r)
{
	bool wait = false;

	if (r->clock == r->flushed_clock)
		return 0;
	for (size_t i = 0; i < r->ntasks && !wait; i++)
		wait = r->tasks[i]->state == STUB_REC_SYSCALL && stub_rec_may_wait(r->tasks[i]->sc_nr);
	if (!wait && stub_rec_now_ns() - r->flushed_ns < STUB_REC_IDLE_NS)
		return 0;
	return stub_rec_flush(r);
}

/* --snapshot: a cut at the PSB and checkpoint just written; the bundle
 * says where the thread's files start when a trim moved it. */
static int stub_rec_add_cut(struct stub_rec *r, struct stub_rec_task *t, uint64_t time)
{
	struct stub_rec_cut c = { t->th.pt.last_psb, t->st.last_ckpt_off, t->th.ninsn, time };

	return stub_rec_ring_cut_here(&t->ring, r->opt.snapshot, &c, &t->th, &t->st, r->b);
}

/* @insn executed in @t and the thread went on at @after. */
static int stub_rec_log(struct stub_rec *r, struct stub_rec_task *t,
			const struct stub_rec_insn *insn, uint64_t after)
{
	struct stub_rec_cut_view cut = { 0 };
	int e;

	e = stub_rec_thread_enter(&t->th, insn->ip, r->clock);
	if (e < 0)
		return e;
	r->clock++;
	t->moves++;
	r->last_mover = t;
	if (r->iplog)
		fprintf(r->iplog, "%d %" PRIx64 "\n", (int)t->th.tid, insn->ip);
	e = stub_rec_thread_step(&t->th, insn, after, r->clock);
	if (e == 1 && r->iplog)
		fprintf(r->iplog, "psb %d %" PRIu64 " %" PRIu64 "\n", (int)t->th.tid,
			t->th.pt.last_psb, t->th.ninsn);
	/* --snapshot: a checkpoint where the PSB is, so both may start there. */
	cut.snapshot = r->opt.snapshot != 0;
	cut.psb = e == 1;
	if (stub_rec_plan_cut(&cut, false) & STUB_REC_CUT_CKPT)
		t->st.ckpt_next = true;
	if (e >= 0)
		e = stub_rec_state_insn(&t->st, &r->sp, insn, &t->regs, t->th.ninsn, r->clock);
	cut.ckpt_written = e >= 0 && !t->st.ckpt_next;
	if (stub_rec_plan_cut(&cut, true) & STUB_REC_CUT_HERE)
		e = stub_rec_add_cut(r, t, r->clock);
	/* The ring, after that cut, decides when the next PSB is due. */
	if (r->opt.snapshot &&
	    stub_rec_ring_want(&t->ring, r->opt.snapshot, t->st.bytes + t->st.nrec))
		t->th.pt.psb_asked = true;
	if (e >= 0)
		e = stub_rec_state_check(&t->st, &r->sp, &t->regs, t->th.ninsn, r->clock);
	return e < 0 ? e : 0;
}

static int stub_rec_update_maps(struct stub_rec *r)
{
	int e = stub_rec_maps_update(&r->maps, r->b, r->pid, r->mem.fd, r->clock);

	if (e == 1) {
		stub_rec_icache_clear(&r->icache);
		e = stub_rec_save(r);
	}
	return e < 0 ? e : 0;
}

static void stub_rec_gone(struct stub_rec *r, struct stub_rec_task *t, int st)
{
	t->state = STUB_REC_GONE;
	stub_swpt_flush(&t->th.pt);
	if (t->th.tid != r->pid)
		return;
	r->exited = true;
	if (WIFEXITED(st)) {
		replay_bundle_set_str(&r->b->exit_kind, "exited");
		r->b->exit_status = WEXITSTATUS(st);
	} else {
		replay_bundle_set_str(&r->b->exit_kind, "signaled");
		r->b->exit_status = WTERMSIG(st);
	}
}

/* --- syscalls and ptrace events -------------------------------------- */

/* Resumes READY @t over the syscall instruction at @ip without waiting. */
static int stub_rec_enter_syscall(struct stub_rec *r, struct stub_rec_task *t, uint64_t ip)
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

/* The CPUs the recorder could run on before stub_rec_pin, for the
 * processes it lets go (forked children). A property of the process. */
static cpu_set_t stub_rec_cpus;
static bool stub_rec_pinned;

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
	if (stub_rec_pinned)
		sched_setaffinity(child, sizeof(stub_rec_cpus), &stub_rec_cpus);
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
static int stub_rec_decide(struct stub_rec *r, struct stub_rec_task *t, pid_t tid,
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

/* --- stepping a READY task ------------------------------------------- */

/* Delivers the caught signal pending on @t: it stops at the handler. */
static int stub_rec_deliver(struct stub_rec *r, struct stub_rec_task *t)
{
	struct stub_rec_plan p;
	int st, e;

	e = stub_rec_thread_interrupt(&t->th, t->regs.rip);
	if (e >= 0)
		e = stub_rec_state_signal_before(&t->st, &r->sp, &t->regs, t->th.ninsn);
	if (e >= 0)
		e = stub_rec_resume(t->th.tid, t->sig);
	if (e < 0)
		return e;
	t->sig = 0;
	t->restart = false;
	t->in_rep = false;             /* the handler's registers are logged */
	t->moves++;
	r->last_mover = t;             /* it wrote the signal frame */
	e = stub_rec_wait(t->th.tid, &st, 0);
	if (e < 0)
		return e;
	if (stub_rec_plan_report(&(struct stub_rec_stop){ .status = st,
			.who = STUB_REC_WHO_DELIVERED }, &p) == STUB_REC_A_GONE) {
		stub_rec_gone(r, t, st);
		return 0;
	}
	if (p.sig)
		t->sig = p.sig;
	e = stub_rec_getregs(t);
	return e < 0 ? e : stub_rec_state_signal_after(&t->st, &r->sp, &t->regs, t->th.ninsn,
						       r->clock);
}

/* @insn executed in @t, which is now at t->regs.rip, not at @expect where
 * @insn goes: the step's trap was lost or late, and the instructions run in
 * between were not seen. @insn is logged as going to @expect, the trace
 * ends there and starts again where the thread is; its memory is unknown
 * from here back to what the log can tell (as after an exec), and a
 * "state-unknown" gap says so. Nothing later is shifted. */
static int stub_rec_lost_trap(struct stub_rec *r, struct stub_rec_task *t,
			      const struct stub_rec_insn *insn, uint64_t expect)
{
	char text[256];
	int e = stub_rec_log(r, t, insn, expect);

	if (e >= 0)
		e = stub_rec_thread_interrupt(&t->th, expect);
	if (e < 0)
		return e;
	snprintf(text, sizeof(text),
		 "single-step trap lost after the instruction at 0x%" PRIx64 ": the thread went on "
		 "at 0x%" PRIx64 ", not 0x%" PRIx64 "; what ran in between is not recorded",
		 insn->ip, (uint64_t)t->regs.rip, expect);
	r->lost_traps++;
	return stub_rec_state_lost(&t->st, &r->sp, t->th.ninsn, r->clock, text);
}

/* The report @s after single-stepping @insn in @t, or running it to its
 * fall-through: what stub_rec_plan decides, done. */
static int stub_rec_reported(struct stub_rec *r, struct stub_rec_task *t,
			     const struct stub_rec_insn *insn, struct stub_rec_stop *s)
{
	struct stub_rec_plan p;
	int e = stub_rec_decide(r, t, t->th.tid, s, &p);

	if (e < 0)
		return e;
	switch (p.act) {
	case STUB_REC_A_GONE:
		stub_rec_gone(r, t, s->status);
		return 0;
	case STUB_REC_A_REWIND:
		t->regs.rip = s->expect;   /* back before the int3 */
		if (ptrace(PTRACE_SETREGS, t->th.tid, 0, &t->regs) < 0)
			return -errno;
		t->in_rep = false;
		return stub_rec_log(r, t, insn, t->regs.rip);
	case STUB_REC_A_LOG_PENDING:
		/* It ran over @insn and a signal stopped it before the
		 * breakpoint: executed, the signal pending. */
		t->in_rep = false;
		t->sig = p.sig;
		return stub_rec_log(r, t, insn, s->expect);
	case STUB_REC_A_SIGNAL:
		/* Signal-delivery-stop: the instruction did not execute. */
		t->sig = p.sig;
		return 0;
	case STUB_REC_A_REP:
		t->in_rep = true;          /* not counted, nor logged: see stub_rec_step */
		return 0;
	case STUB_REC_A_SENT_TRAP:
		t->in_rep = false;
		t->sig = p.sig;
		return 0;
	case STUB_REC_A_LOST:
		t->in_rep = false;
		return stub_rec_lost_trap(r, t, insn, s->expect);
	case STUB_REC_A_LOG:
		t->in_rep = false;
		return stub_rec_log(r, t, insn, t->regs.rip);
	default:
		return 0;
	}
}

/* CPUID, run by the recorder for @t: a single step over it loses its trap
 * on some hypervisors (the step runs the next instruction too). The
 * recorder and the program share one CPU (stub_rec_pin), so the answers
 * are the program's own. */
static int stub_rec_cpuid(struct stub_rec *r, struct stub_rec_task *t,
			  const struct stub_rec_insn *insn)
{
	unsigned a, b, c, d;

	__cpuid_count((unsigned)t->regs.rax, (unsigned)t->regs.rcx, a, b, c, d);
	t->regs.rax = a;
	t->regs.rbx = b;
	t->regs.rcx = c;
	t->regs.rdx = d;
	t->regs.rip = insn->ip + insn->len;
	if (ptrace(PTRACE_SETREGS, t->th.tid, 0, &t->regs) < 0)
		return -errno;
	return stub_rec_log(r, t, insn, t->regs.rip);
}

/* Sets DR7 (and DR0 = @addr when @addr != 0) of @tid: an execution
 * breakpoint at @addr, or none. */
static int stub_rec_dr0(pid_t tid, uint64_t addr)
{
	size_t dr0 = offsetof(struct user, u_debugreg[0]);
	size_t dr7 = offsetof(struct user, u_debugreg[7]);

	if (addr && ptrace(PTRACE_POKEUSER, tid, (void *)dr0, (void *)addr) < 0)
		return -errno;
	if (ptrace(PTRACE_POKEUSER, tid, (void *)dr7, (void *)(addr ? 1ul : 0ul)) < 0)
		return -errno;
	return 0;
}

/* Remembers an int3 about to be written at @addr (its byte read into
 * *@orig) for the children forked meanwhile (stub_rec_detach_child).
 * False if that cannot be remembered: the caller steps instead. */
static bool stub_rec_plant(struct stub_rec *r, uint64_t addr, uint8_t *orig)
{
	size_t i;

	if (stub_mem_read(&r->mem, addr, orig, 1) != 1)
		return false;
	for (i = 0; i < r->nplanted && r->planted[i].addr != addr; i++)
		;
	if (i == STUB_REC_PLANTED)
		return false;
	if (i == r->nplanted)
		r->nplanted++;
	r->planted[i].addr = addr;
	r->planted[i].orig = *orig;
	return true;
}

/* Runs @t to the fall-through of @insn (a rep string instruction, or one
 * whose step loses its trap) at full speed: an execution breakpoint in
 * DR0 where debug registers were seen to fire (stub/live/stub_probe.h), else
 * an int3 written there and taken out again. Only @t runs meanwhile: the
 * other threads are stopped or single-stepping out of a syscall. 1 if
 * neither can be set (the caller steps), else as stub_rec_reported. */
static int stub_rec_run_over(struct stub_rec *r, struct stub_rec_task *t,
			     const struct stub_rec_insn *insn)
{
	uint64_t at = insn->ip + insn->len;
	bool dr = stub_probe_dregs() == STUB_PROBE_YES;
	uint8_t orig, int3 = 0xcc;
	int st, e;

	if (dr && stub_rec_dr0(t->th.tid, at) < 0)
		return 1;
	if (!dr && !stub_rec_plant(r, at, &orig))
		return 1;
	if (!dr && stub_mem_write(&r->mem, at, &int3, 1) < 0)
		return 1;
	e = ptrace(PTRACE_CONT, t->th.tid, 0, (void *)(long)t->sig) < 0 ? -errno : 0;
	if (e >= 0) {
		t->sig = 0;
		e = stub_rec_wait(t->th.tid, &st, 0);
	}
	if (dr && e >= 0 && WIFSTOPPED(st))
		stub_rec_dr0(t->th.tid, 0);
	if (!dr)
		stub_mem_write(&r->mem, at, &orig, 1);
	if (e < 0)
		return e;
	return stub_rec_reported(r, t, insn, &(struct stub_rec_stop){
		.status = st, .who = STUB_REC_WHO_RAN_OVER, .insn_ip = insn->ip,
		.rep = insn->rep, .known = true, .expect = at, .int3 = !dr });
}

/* One step of READY @t. */
int stub_rec_step(struct stub_rec *r, struct stub_rec_task *t)
{
	struct stub_rec_ready f = { .step_cpuid = r->opt.step_cpuid,
				    .no_rep_accel = r->no_rep_accel };
	struct stub_rec_insn insn;
	struct stub_rec_plan p;
	uint64_t expect = 0;
	bool known, started;
	int st, e;

	/* Between iterations of a rep string instruction the registers are
	 * its own progress: the position before it keeps the registers it
	 * started with, and its record has the ones it ends with. */
	started = t->st.started;
	e = t->in_rep ? 0 : stub_rec_state_ready(&t->st, &r->sp, &t->regs, t->th.ninsn, r->clock);
	if (e >= 0 && !started && t->st.started && t == r->tasks[0])
		e = stub_rec_state_initial_stack(&t->st, &r->sp, t->regs.rsp, t->th.ninsn,
						 r->clock);
	if (e < 0)
		return e;
	f.sig = t->sig;
	f.caught = t->sig && stub_rec_caught(r->pid, t->sig);
	f.restart = t->restart;
	stub_rec_plan_ready(&f, &p);
	if (p.act == STUB_REC_A_DELIVER)
		return stub_rec_deliver(r, t);
	/* A signal with no handler: the instruction at rip did not run, and
	 * may never (a fault that kills). As a CPU would when the kernel takes
	 * over, the trace ends here (FUP + TIP.PGD); a thread that survives is
	 * enabled again at its next step. */
	if (p.interrupt) {
		e = stub_rec_thread_interrupt(&t->th, t->regs.rip);
		if (e < 0)
			return e;
	}
	if (p.act == STUB_REC_A_RESTART)
		return stub_rec_enter_syscall(r, t, t->regs.rip - 2);
	e = stub_rec_icache_get(&r->icache, r->mem.fd, t->regs.rip, &insn);
	if (e < 0)
		return e;
	f.kernel = insn.cls == STUB_REC_KERNEL;
	f.cpuid = insn.cpuid;
	f.rep = insn.rep;
	f.rcx = t->regs.rcx;
	if (stub_rec_plan_insn(&f, &p) == STUB_REC_A_SYSCALL)
		return stub_rec_enter_syscall(r, t, t->regs.rip);
	e = stub_rec_state_before(&t->st, &r->sp, &insn, &t->regs, t->th.ninsn + 1);
	if (e < 0)
		return e;
	if (p.act == STUB_REC_A_CPUID)
		return stub_rec_cpuid(r, t, &insn);
	if (p.act == STUB_REC_A_RUN_OVER && (e = stub_rec_run_over(r, t, &insn)) <= 0)
		return e;
	known = stub_rec_next(&r->icache.dec, &insn, &t->regs, r->mem.fd, &expect) == 1;
	e = stub_rec_resume(t->th.tid, t->sig);
	if (e < 0)
		return e;
	t->sig = 0;
	e = stub_rec_wait(t->th.tid, &st, 0);
	if (e < 0)
		return e;
	return stub_rec_reported(r, t, &insn, &(struct stub_rec_stop){
		.status = st, .who = STUB_REC_WHO_STEPPED, .insn_ip = insn.ip, .rep = insn.rep,
		.known = known, .expect = expect });
}

/* --- the loop ------------------------------------------------------- */

/* The next READY task after the current one (the current one last). */
struct stub_rec_task *stub_rec_pick(struct stub_rec *r)
{
	bool waiting = false;

	for (size_t k = 1; k <= r->ntasks; k++) {
		size_t i = (r->cur + k) % r->ntasks;

		waiting |= r->tasks[i]->state == STUB_REC_SYSCALL;
		if (r->tasks[i]->state == STUB_REC_READY && !r->tasks[i]->held) {
			r->cur = i;
			return r->tasks[i];
		}
	}
	/* A held thread whose clone event will not come (no thread is in a
	 * syscall any more) runs rather than never. */
	for (size_t k = 1; k <= r->ntasks && !waiting; k++) {
		size_t i = (r->cur + k) % r->ntasks;

		if (r->tasks[i]->state == STUB_REC_READY) {
			r->tasks[i]->held = false;
			r->cur = i;
			return r->tasks[i];
		}
	}
	return NULL;
}

bool stub_rec_live(const struct stub_rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++)
		if (r->tasks[i]->state != STUB_REC_GONE)
			return true;
	return false;
}

/* Runs READY @t for up to one slice. */
static int stub_rec_slice(struct stub_rec *r, struct stub_rec_task *t)
{
	for (uint32_t n = 0; n < r->opt.slice && t->state == STUB_REC_READY && !r->stop; n++) {
		int e = stub_rec_step(r, t);

		if (e < 0)
			return e;
	}
	return 0;
}

/* Ends an attached recording: every thread detached, running on. */
void stub_rec_detach_all(struct stub_rec *r)
{
	for (size_t i = 0; i < r->ntasks; i++) {
		struct stub_rec_task *t = r->tasks[i];
		int st;

		if (t->state == STUB_REC_SYSCALL) {
			syscall(SYS_tgkill, r->pid, t->th.tid, SIGSTOP);
			while (stub_rec_wait(t->th.tid, &st, 0) > 0 && WIFSTOPPED(st) &&
			       WSTOPSIG(st) != SIGSTOP)
				ptrace(PTRACE_CONT, t->th.tid, 0,
				       (void *)(long)(WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st)));
			t->sig = 0;
		} else if (t->state == STUB_REC_READY) {
			stub_rec_thread_interrupt(&t->th, t->regs.rip);
		}
		/* Its own CPUs back (threads born while recorded: the first
		 * thread's). */
		if (t->state != STUB_REC_GONE && (t->cpus_saved || r->tasks[0]->cpus_saved))
			sched_setaffinity(t->th.tid, sizeof(t->cpus),
					  t->cpus_saved ? &t->cpus : &r->tasks[0]->cpus);
		if (t->state != STUB_REC_GONE)
			ptrace(PTRACE_DETACH, t->th.tid, 0, (void *)(long)t->sig);
		t->state = STUB_REC_GONE;
	}
	replay_bundle_set_str(&r->b->exit_kind, "detached");
}

static int stub_rec_loop(struct stub_rec *r)
{
	struct stub_rec_task *t, *prev = NULL;
	int e;

	while (stub_rec_live(r) && !r->stop) {
		while ((e = stub_rec_collect(r, WNOHANG)) > 0)
			;
		if (e == -ECHILD)
			break;
		if (e < 0)
			return e;
		/* Round robin: the next READY task after the last one. */
		t = stub_rec_pick(r);
		if (!t) {
			e = stub_rec_idle(r);
			if (e >= 0)
				e = stub_rec_collect(r, 0);
			if (e == -ECHILD)
				break;
			if (e < 0)
				return e;
			continue;
		}
		if (prev && prev != t && prev->state == STUB_REC_READY) {
			e = stub_rec_thread_interrupt(&prev->th, prev->regs.rip);
			if (e < 0)
				return e;
		}
		e = stub_rec_slice(r, t);
		if (e < 0)
			return e;
		prev = t;
		e = stub_rec_periodic(r);
		if (e < 0)
			return e;
	}
	return 0;
}

bool stub_rec_unwritable(int e)
{
	return e == -ENOSPC || e == -EDQUOT || e == -EFBIG;
}

int stub_rec_finish(struct stub_rec *r, int e)
{
	int e2;

	/* A full disk ends the recording, not the program. */
	if (e < 0 && stub_rec_unwritable(e) && !r->stop && !r->exited && stub_rec_live(r))
		stub_rec_detach_all(r);
	if (r->stop && !r->exited) {
		if (r->attached) {
			stub_rec_detach_all(r);
		} else {
			/* Each trace ends where its thread stood (FUP + TIP.PGD at
			 * the next instruction, as a flush ends it): otherwise a
			 * decoder runs on through straight-line code that never
			 * ran, up to the next branch. */
			for (size_t i = 0; i < r->ntasks; i++)
				if (r->tasks[i]->state == STUB_REC_READY && !r->tasks[i]->in_rep)
					stub_rec_thread_interrupt(&r->tasks[i]->th,
								  r->tasks[i]->regs.rip);
			kill(r->pid, SIGKILL);
			while (stub_rec_collect(r, 0) > 0 && stub_rec_live(r))
				;
		}
	}
	if (!stub_rec_live(r) || r->exited || r->attached)
		r->b->complete = e >= 0;
	if (!r->b->exit_kind)
		replay_bundle_set_str(&r->b->exit_kind, "running");
	for (size_t i = 0; i < r->ntasks && r->sp.check; i++) {
		int e3 = stub_rec_state_check_end(&r->tasks[i]->st, &r->sp);

		if (e >= 0 && e3 < 0)
			e = e3;
	}
	/* The recording ends here: every log is whole. */
	for (size_t i = 0; i < r->ntasks; i++)
		stub_rec_state_end(&r->tasks[i]->st);
	e2 = stub_rec_save(r);
	for (size_t i = 0; i < r->ntasks && r->opt.snapshot && e2 >= 0; i++)
		e2 = stub_rec_ring_end(&r->tasks[i]->ring, r->b, r->opt.dir,
				       r->tasks[i]->bundle_index, &r->tasks[i]->th, &r->tasks[i]->st);
	if (r->opt.snapshot && e2 >= 0)
		e2 = stub_rec_save(r);
	return e < 0 ? e : e2;
}

int stub_rec_run(struct stub_rec *r)
{
	return stub_rec_finish(r, stub_rec_loop(r));
}

/* --- setup ---------------------------------------------------------- */

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

/* An attached thread runs on the recorder's CPU while recorded; its own
 * CPUs are given back when the recorder lets it go. */
static void stub_rec_pin_task(struct stub_rec_task *t)
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

int stub_rec_spawn(char *const argv[], pid_t *pid)
{
	int e;

	if (stub_rec_pin_wanted())
		stub_rec_pin();
	e = stub_spawn_start(argv, pid);

	if (e < 0)
		return e;
	if (ptrace(PTRACE_SETOPTIONS, *pid, 0,
		   (void *)(long)(STUB_REC_OPTIONS | PTRACE_O_EXITKILL)) < 0) {
		e = -errno;
		kill(*pid, SIGKILL);
		stub_rec_wait(*pid, &(int){ 0 }, 0);
		return e;
	}
	return 0;
}

/* Attaches @tid and waits for its stop; 1 if attached now, 0 if it was. */
static int stub_rec_attach_one(pid_t tid, pid_t **done, size_t *ndone)
{
	pid_t *nv;
	int st;

	for (size_t i = 0; i < *ndone; i++)
		if ((*done)[i] == tid)
			return 0;
	if (ptrace(PTRACE_ATTACH, tid, 0, 0) < 0)
		return errno == ESRCH ? 0 : -errno;
	nv = realloc(*done, (*ndone + 1) * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	*done = nv;
	nv[(*ndone)++] = tid;
	if (stub_rec_wait(tid, &st, 0) < 0 || !WIFSTOPPED(st))
		return 1;
	ptrace(PTRACE_SETOPTIONS, tid, 0, (void *)(long)STUB_REC_OPTIONS);
	return 1;
}

int stub_rec_attach(pid_t pid)
{
	pid_t *done = NULL, *tids;
	size_t ndone = 0;
	int n, e = 0, added;

	/* Until a pass over the task list finds no new thread. */
	do {
		added = 0;
		n = stub_procfs_tids(pid, &tids);
		if (n < 0) {
			e = n;
			break;
		}
		for (int i = 0; i < n && e >= 0; i++) {
			e = stub_rec_attach_one(tids[i], &done, &ndone);
			added += e > 0;
		}
		free(tids);
	} while (e >= 0 && added);
	if (e < 0)
		for (size_t i = 0; i < ndone; i++)
			ptrace(PTRACE_DETACH, done[i], 0, 0);
	free(done);
	return e < 0 ? e : 0;
}

void stub_rec_let_go(pid_t pid, bool attached)
{
	pid_t *tids;
	int n, st;

	if (!attached) {
		kill(pid, SIGKILL);
		while (stub_rec_wait(pid, &st, 0) == pid && !WIFEXITED(st) && !WIFSIGNALED(st))
			;
		return;
	}
	n = stub_procfs_tids(pid, &tids);
	for (int i = 0; i < n; i++)
		ptrace(PTRACE_DETACH, tids[i], 0, 0);
	if (n >= 0)
		free(tids);
}

/* The bundle's fixed fields. */
static int stub_rec_bundle_init(struct stub_rec *r, char *const argv[])
{
	struct replay_bundle *b = r->b;
	int e;

	e = replay_bundle_set_str(&b->recorder, "software");
	if (e >= 0)
		e = replay_bundle_set_str(&b->start, r->attached ? "attach" : "exec");
	if (e >= 0)
		e = replay_bundle_set_str(&b->dir, r->opt.dir);
	if (e >= 0 && argv)
		e = replay_bundle_set_argv(b, argv);
	/* Family 6 model 0x9c: pt_cpu_errata (libipt 2.0.5) knows it and
	 * enables only APL11, which concerns OVF packets (never written
	 * here). docs/record.md says why. */
	snprintf(b->cpu.vendor, sizeof(b->cpu.vendor), "GenuineIntel");
	b->cpu.family = 6;
	b->cpu.model = 0x9c;
	b->cpu.stepping = 0;
	b->pid = r->pid;
	b->psb_period = r->opt.psb_period;
	b->ret_compression = !r->opt.noretcomp;
	b->complete = false;
	return e;
}

/* Every stopped thread becomes a READY task. */
static int stub_rec_initial_tasks(struct stub_rec *r)
{
	pid_t *tids;
	int n = stub_procfs_tids(r->pid, &tids), e = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n && e >= 0; i++) {
		struct stub_rec_task *t;

		e = stub_rec_add_task(r, tids[i], STUB_REC_READY, &t);
		if (e >= 0)
			e = stub_rec_getregs(t);
		/* Attached in a syscall: the kernel restarts it. */
		if (e >= 0 && r->attached && (long)t->regs.orig_rax >= 0)
			t->restart = stub_rec_plan_is_restart((long)t->regs.rax);
		if (e >= 0 && r->attached)
			stub_rec_pin_task(t);
	}
	free(tids);
	return e;
}

/* stub_rec_new's failure @e, said: "WHAT: strerror(e)" in r->why. */
static int stub_rec_cannot(struct stub_rec *r, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int stub_rec_cannot(struct stub_rec *r, int e, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(r->why, sizeof(r->why), fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < sizeof(r->why))
		snprintf(r->why + n, sizeof(r->why) - (size_t)n, ": %s", strerror(-e));
	return e;
}

int stub_rec_new(struct stub_rec **out, const struct stub_rec_options *opt, pid_t pid,
		 char *const argv[], bool attached)
{
	struct stub_rec *r = calloc(1, sizeof(*r));
	char path[4096];
	int e;

	if (!r)
		return -ENOMEM;
	r->opt = *opt;
	if (!r->opt.psb_period)
		r->opt.psb_period = STUB_REC_PSB_PERIOD;
	if (!r->opt.slice)
		r->opt.slice = STUB_REC_SLICE;
	r->pid = pid;
	r->attached = attached;
	r->mem.fd = -1;
	r->next_checkpoint = STUB_REC_CHECKPOINT;
	r->next_flush = STUB_REC_FLUSH;
	stub_rec_maps_init(&r->maps);
	*out = r;
	if ((e = replay_bundle_mkdir(opt->dir)) < 0)
		return stub_rec_cannot(r, e, "in %s", opt->dir);
	snprintf(path, sizeof(path), "%s/threads", opt->dir);
	if ((e = replay_bundle_mkdir(path)) < 0)
		return stub_rec_cannot(r, e, "in %s", path);
	if (opt->ip_log && !(r->iplog = fopen(opt->ip_log, "we")))
		return stub_rec_cannot(r, -errno, "to %s", opt->ip_log);
	if (opt->state_check && !(r->sp.check = fopen(opt->state_check, "we")))
		return stub_rec_cannot(r, -errno, "to %s", opt->state_check);
	e = replay_bundle_new(&r->b);
	if (e >= 0)
		e = stub_rec_bundle_init(r, argv);
	if (e >= 0)
		e = stub_rec_icache_init(&r->icache);
	/* The kernel lets no one but root read the memory of a program its
	 * user may not read (an executable without r permission). */
	if (e >= 0 && (e = stub_mem_open(&r->mem, pid)) < 0)
		return stub_rec_cannot(r, e, "process %d: cannot read its memory%s", (int)pid,
				       e == -EACCES || e == -EPERM ?
				       " (a program you may not read cannot be recorded)" : "");
	if (e >= 0)
		e = stub_rec_state_proc_init(&r->sp, &r->mem.fd, r->b, r->sp.check,
					     opt->state_check_every);
	if (e >= 0)
		e = stub_rec_initial_tasks(r);
	if (e >= 0)
		e = stub_rec_maps_update(&r->maps, r->b, pid, r->mem.fd, 0);
	if (e >= 0 && (e = stub_rec_save(r)) < 0)
		return stub_rec_cannot(r, e, "in %s", opt->dir);
	return e < 0 ? e : 0;
}

const char *stub_rec_why(const struct stub_rec *r)
{
	return r ? r->why : "";
}

void stub_rec_stop(struct stub_rec *r)
{
	r->stop = 1;
}

const struct replay_bundle *stub_rec_bundle(const struct stub_rec *r)
{
	return r->b;
}

void stub_rec_get_summary(const struct stub_rec *r, struct stub_rec_summary *s)
{
	memset(s, 0, sizeof(*s));
	s->instructions = r->clock;
	s->threads = r->ntasks;
	s->gaps = r->b ? r->b->ngaps : 0;
	s->lost_traps = r->lost_traps;
	for (size_t i = 0; i < r->ntasks; i++) {
		s->trace_bytes += stub_swpt_offset(&r->tasks[i]->th.pt);
		s->state_bytes += r->tasks[i]->st.bytes;
		s->kept_instructions += r->tasks[i]->th.ninsn -
					stub_rec_ring_dropped(&r->tasks[i]->ring);
		s->kept_bytes += stub_rec_ring_kept(&r->tasks[i]->ring, stub_swpt_offset(&r->tasks[i]->th.pt),
						    r->tasks[i]->st.bytes);
	}
	s->snapshot = r->opt.snapshot != 0;
}

void stub_rec_free(struct stub_rec *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->ntasks; i++) {
		stub_rec_thread_release(&r->tasks[i]->th);
		stub_rec_state_release(&r->tasks[i]->st);
		fclose(r->tasks[i]->pt);
		fclose(r->tasks[i]->stf);
		stub_rec_ring_release(&r->tasks[i]->ring);
		free(r->tasks[i]);
	}
	free(r->tasks);
	if (r->iplog)
		fclose(r->iplog);
	if (r->sp.check)
		fclose(r->sp.check);
	stub_mem_close(&r->mem);
	stub_rec_icache_release(&r->icache);
	stub_rec_maps_release(&r->maps);
	replay_bundle_free(r->b);
	free(r);
}
