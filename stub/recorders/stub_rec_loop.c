/*
 * stub/recorders/stub_rec_loop.c: the software recorder's loop: round
 * robin over the READY tasks, each run for a slice of single steps
 * (stub_rec_step.c), the reports of the others collected in between
 * (stub_rec_collect.c), and the end of a recording: the process detached
 * or killed, every log ended, the final bundle saved.
 *
 * A recording served live (stub_rec_live.c) runs the same tasks in bursts
 * of its own and ends through stub_rec_finish. Calls down only.
 */
#include <errno.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "stub/live/stub_procfs.h"
#include "stub/recorders/stub_rec_priv.h"

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

/* Whether a thread of the process is left. */
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

/* Every thread stopped for good, its trace ended where it stands: one
 * inside a syscall stopped there (a SIGSTOP), one just made seen at its
 * first stop. With @detach each is detached, running on (a signal that
 * comes before the SIGSTOP is delivered); else each stays traced and
 * stopped, listed in r->handed with the signal it still has to get: none
 * if the debugger was told of it (it passes it at its next resume), one
 * that came before the SIGSTOP held back, not delivered, to be told of. */
static void stub_rec_release_all(struct stub_rec *r, bool detach)
{
	r->nhanded = 0;
	for (size_t i = 0; i < r->ntasks; i++) {
		struct stub_rec_task *t = r->tasks[i];
		int st, e = 1;

		if (t->state == STUB_REC_SYSCALL) {
			syscall(SYS_tgkill, r->pid, t->th.tid, SIGSTOP);
			t->sig = 0;
			while ((e = stub_rec_wait(t->th.tid, &st, 0)) > 0 && WIFSTOPPED(st) &&
			       WSTOPSIG(st) != SIGSTOP) {
				int sig = WSTOPSIG(st) == SIGTRAP ? 0 : WSTOPSIG(st);

				if (!detach && sig) {
					t->sig = sig;
					t->sig_ok = t->sig_reported = false;
					sig = 0;
				}
				ptrace(PTRACE_CONT, t->th.tid, 0, (void *)(long)sig);
			}
		} else if (t->state == STUB_REC_NEW && !detach) {
			e = stub_rec_wait(t->th.tid, &st, 0);
		} else if (t->state == STUB_REC_READY) {
			stub_rec_thread_interrupt(&t->th, t->regs.rip);
		}
		if (!detach && (e <= 0 || !WIFSTOPPED(st)) && t->state != STUB_REC_READY)
			t->state = STUB_REC_GONE;          /* it exited meanwhile */
		if (t->state != STUB_REC_GONE) {
			stub_rec_unpin_task(r, t);
			if (detach)
				ptrace(PTRACE_DETACH, t->th.tid, 0, (void *)(long)t->sig);
			else if (r->handed && r->nhanded < r->caphanded)
				r->handed[r->nhanded++] = (struct stub_rec_handed){
					t->th.tid, t->sig_reported ? 0 : t->sig,
					t->sig && !t->sig_reported && t->sig_ok };
		}
		t->state = STUB_REC_GONE;
	}
	replay_bundle_set_str(&r->b->exit_kind, "detached");
}

/* Ends an attached recording: every thread detached, running on. */
void stub_rec_detach_all(struct stub_rec *r)
{
	stub_rec_release_all(r, true);
}

int stub_rec_hand_back(struct stub_rec *r, const struct stub_rec_handed **out, size_t *n)
{
	int e;

	*out = NULL;
	*n = 0;
	if (r->exited || !stub_rec_live(r))
		return -ESRCH;
	/* A leader that exited before its threads stays inside its exit, and
	 * a SIGSTOP never stops it: the recording goes on to the end. */
	for (size_t i = 0; i < r->ntasks; i++)
		if (r->tasks[i]->th.tid == r->pid && r->tasks[i]->state == STUB_REC_SYSCALL &&
		    stub_procfs_is_zombie(r->pid, r->pid))
			return -EBUSY;
	free(r->handed);
	r->handed = calloc(r->ntasks ? r->ntasks : 1, sizeof(*r->handed));
	if (!r->handed)
		return -ENOMEM;
	r->caphanded = r->ntasks;
	stub_rec_release_all(r, false);
	e = stub_rec_finish(r, 0);
	*out = r->handed;
	*n = r->nhanded;
	return e;
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

/* Ends the recording after the loop ended with @e: the process detached
 * or killed, every log ended, the final bundle saved. */
int stub_rec_finish(struct stub_rec *r, int e)
{
	int e2;

	/* A full disk ends the recording, not the program. */
	if (e < 0 && stub_rec_unwritable(e) && !r->stop && !r->exited && stub_rec_live(r))
		stub_rec_detach_all(r);
	if (r->stop && !r->exited) {
		if (r->attached && !r->opt.spawned) {
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
