/*
 * stub/recorders/stub_rec_tasks.c: the software recorder's tasks, one per
 * thread with its trace and its state log, and what every step of the
 * loop ends in: an instruction logged, mappings updated, a thread gone,
 * the bundle saved and the files flushed when their time has come.
 *
 * Below the loop, the step and the collect files (stub_rec_priv.h says how
 * they lie): they call it, with the three ptrace calls they all make; it
 * calls none of them, and stub_rec_pin.c, beside it, neither.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_priv.h"
#include "vgtool/hsrec_proto.h"

/* --- ptrace ------------------------------------------------------------- */

/* waitpid for @tid (-1: any thread) with __WALL, again after EINTR. */
int stub_rec_wait(pid_t tid, int *st, int flags)
{
	pid_t r;

	do
		r = waitpid(tid, st, flags | __WALL);
	while (r < 0 && errno == EINTR);
	return r < 0 ? -errno : r;
}

/* @t's registers into t->regs. */
int stub_rec_getregs(struct stub_rec_task *t)
{
	return ptrace(PTRACE_GETREGS, t->th.tid, 0, &t->regs) < 0 ? -errno : 0;
}

/* Single-steps @tid, delivering @sig (0: none). */
int stub_rec_resume(pid_t tid, int sig)
{
	return ptrace(PTRACE_SINGLESTEP, tid, 0, (void *)(long)sig) < 0 ? -errno : 0;
}

/* --- tasks, bundle, log ---------------------------------------------- */

/* The task of live thread @tid, or NULL. */
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

int stub_rec_add_task(struct stub_rec *r, pid_t tid, enum stub_rec_task_state state,
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

/* The bundle saved, after every trace and state log is flushed. */
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
int stub_rec_idle(struct stub_rec *r)
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
int stub_rec_log(struct stub_rec *r, struct stub_rec_task *t, const struct stub_rec_insn *insn,
		 uint64_t after)
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

int stub_rec_update_maps(struct stub_rec *r)
{
	int e = stub_rec_maps_update(&r->maps, r->b, r->pid, r->mem.fd, r->clock);

	if (e == 1) {
		stub_rec_icache_clear(&r->icache);
		e = stub_rec_save(r);
	}
	return e < 0 ? e : 0;
}

void stub_rec_gone(struct stub_rec *r, struct stub_rec_task *t, int st)
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
