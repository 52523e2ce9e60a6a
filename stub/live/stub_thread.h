/*
 * stub/live/stub_thread.h: the set of traced threads of one process.
 *
 * A plain growable array of struct stub_thread, kept in creation order (the
 * leader first after spawn / attach). Each entry holds what the all-stop
 * machinery needs to know about one thread: whether it runs, whether a
 * SIGSTOP we sent is still on its way, its last resume request and an event
 * seen while stopping everyone that has not been reported yet.
 * Lifetime: stub_thread_list_init / stub_thread_list_release.
 */
#ifndef HINDSIGHT_STUB_STUB_THREAD_H
#define HINDSIGHT_STUB_STUB_THREAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "protocol/target.h"

struct stub_thread {
	pid_t tid;
	bool running;        /* resumed, not yet seen stopped */
	bool want_running;   /* the client resumed it (resume() until wait()) */
	bool stop_expected;  /* a SIGSTOP we sent has not arrived yet */
	bool is_new;         /* clone seen, its initial SIGSTOP not yet */
	bool zombie;         /* exited leader waiting for the others */
	bool pending;        /* @pending_stop not reported yet */
	struct rsp_stop pending_stop;
	enum rsp_resume_kind kind; /* last resume request */
	uint64_t range_start, range_end;
	int resume_sig;      /* signal of the last resume request */
	int deferred_sig;    /* signal to deliver at the next real resume */
};

struct stub_thread_list {
	struct stub_thread *v;
	size_t n, cap;
};

void stub_thread_list_init(struct stub_thread_list *l);
void stub_thread_list_release(struct stub_thread_list *l);
/* The thread @tid or NULL. */
struct stub_thread *stub_thread_find(struct stub_thread_list *l, pid_t tid);
/* Adds a stopped thread @tid (or returns the existing one); NULL on ENOMEM.
 * The pointer stays valid until the next add or remove. */
struct stub_thread *stub_thread_add(struct stub_thread_list *l, pid_t tid);
void stub_thread_remove(struct stub_thread_list *l, pid_t tid);

#endif
