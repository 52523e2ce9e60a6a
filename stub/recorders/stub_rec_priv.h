/*
 * stub/recorders/stub_rec_priv.h: the software recorder's insides, shared by
 * its files (stub/recorders/stub_rec.h is its door). Not for other modules.
 *
 * The files, each calling only those below it:
 *   stub_rec_live.c     a recording served live: bursts towards a goal
 *   stub_rec_loop.c     the loop of a recording, and its end
 *   stub_rec.c          the setup: spawn, attach, the recorder, its summary
 *   stub_rec_step.c     one step of a READY task and what its report means
 *   stub_rec_collect.c  the reports of the other threads: syscalls, events
 *   stub_rec_tasks.c    tasks, the log of an instruction, saves and flushes
 *   stub_rec_pin.c      the recorder and its program on one CPU
 */
#ifndef HINDSIGHT_STUB_STUB_REC_PRIV_H
#define HINDSIGHT_STUB_STUB_REC_PRIV_H

#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/ptrace.h>
#include <sys/user.h>

#include "protocol/target.h"
#include "stub/live/stub_mem.h"
#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_rec_code.h"
#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_rec_maps.h"
#include "stub/recorders/stub_rec_plan.h"
#include "stub/recorders/stub_rec_ring.h"
#include "stub/recorders/stub_rec_state.h"
#include "stub/recorders/stub_rec_thread.h"

#define STUB_REC_OPTIONS (PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK | \
	PTRACE_O_TRACEVFORK | PTRACE_O_TRACEEXEC)
#define STUB_REC_CHECKPOINT (1u << 22)  /* instructions between saves of the bundle */
#define STUB_REC_FLUSH (1u << 14)       /* ... between flushes of traces and state logs */
#define STUB_REC_IDLE_NS 20000000u      /* a flush before waiting, at most this often */
#define STUB_REC_PLANTED 16            /* int3 addresses remembered per drain */
#define STUB_REC_PT_BUFFER (1u << 20)   /* > 9 bytes (a TIP) per instruction flushed */

enum stub_rec_task_state { STUB_REC_NEW, STUB_REC_READY, STUB_REC_SYSCALL, STUB_REC_GONE };

struct stub_rec_task {
	struct stub_rec_thread th;
	FILE *pt;
	struct stub_rec_state st;      /* the state log (threads/TID.state) */
	FILE *stf;
	enum stub_rec_task_state state;
	struct user_regs_struct regs;  /* READY: the registers at the stop */
	int sig;                       /* to deliver at the next resume */
	bool restart;                  /* READY after a syscall to be restarted */
	bool in_rep;                   /* READY between iterations of a rep string insn */
	bool held;                     /* READY, but its clone is not collected yet */
	struct stub_rec_insn sc;       /* SYSCALL: the instruction */
	uint64_t sc_resume_ip;         /* SYSCALL: rip when it was resumed */
	long sc_nr;                    /* SYSCALL: the syscall number */
	bool sc_restart;               /* SYSCALL: resumed as a restart */
	bool sc_logged;                /* SYSCALL: already logged (exec) */
	size_t bundle_index;
	/* Served live (stub_rec_live.c): */
	uint64_t moves;                /* instructions logged + signals delivered */
	bool sig_ok;                   /* @sig may be delivered without a pause */
	bool sig_reported;             /* @sig was the reason of the last pause */
	struct stub_rec_ring ring;     /* --snapshot (started at the first cut) */
	cpu_set_t cpus;                /* attached: its CPUs before the recording */
	bool cpus_saved;
};

struct stub_rec {
	struct stub_rec_options opt;
	char why[512];             /* what stub_rec_new could not do, or "" */
	pid_t pid;
	bool attached;
	volatile sig_atomic_t stop;
	struct stub_rec_task **tasks;
	size_t ntasks;
	size_t cur;
	uint64_t clock;
	uint64_t next_checkpoint;
	uint64_t next_flush;
	uint64_t flushed_clock;        /* the clock at the last flush */
	uint64_t flushed_ns;           /* ... and CLOCK_MONOTONIC then */
	struct replay_bundle *b;
	struct stub_mem mem;
	struct stub_rec_icache icache;
	struct stub_rec_maps maps;
	struct stub_rec_code *code;        /* code run outside files, kept */
	struct stub_rec_state_proc sp;
	FILE *iplog;
	bool exited;
	uint64_t lost_traps;               /* steps that ran more than one instruction */
	/* int3s of the rep shortcut written since the last drain of waitpid
	 * reports (stub_rec_collect): a fork by a thread in a syscall
	 * meanwhile copied them into its child, which gets them taken out
	 * (more addresses than these: the rep instruction is stepped). */
	struct { uint64_t addr; uint8_t orig; } planted[STUB_REC_PLANTED];
	size_t nplanted;
	/* Served live (stub_rec_live.c): */
	volatile sig_atomic_t interrupt;   /* pause at the next instruction */
	struct stub_rec_handed *handed;    /* stub_rec_hand_back's threads */
	size_t nhanded, caphanded;
	struct stub_rec_task *last_mover;  /* the task of the last logged change */
	struct stub_rec_task *lcur;        /* the task whose slice runs */
	struct stub_rec_task *lprev;       /* the task that ran before it */
	uint32_t lused;                    /* instructions of lcur's slice */
	uint64_t goal_moves;               /* the stepped task's moves at resume */
	bool blocked;                      /* the last burst found no thread to run */
	bool no_rep_accel;                 /* access watchpoints: rep strings stepped */
};

/* Each described where it is defined. stub_rec_loop.c: */
struct stub_rec_task *stub_rec_pick(struct stub_rec *r);
bool stub_rec_live(const struct stub_rec *r);
void stub_rec_detach_all(struct stub_rec *r);
int stub_rec_finish(struct stub_rec *r, int e);

/* stub_rec_step.c: */
int stub_rec_step(struct stub_rec *r, struct stub_rec_task *t);

/* stub_rec_collect.c: */
int stub_rec_collect(struct stub_rec *r, int flags);
int stub_rec_enter_syscall(struct stub_rec *r, struct stub_rec_task *t, uint64_t ip);
int stub_rec_decide(struct stub_rec *r, struct stub_rec_task *t, pid_t tid,
		    struct stub_rec_stop *s, struct stub_rec_plan *p);

/* stub_rec_tasks.c: */
int stub_rec_wait(pid_t tid, int *st, int flags);
int stub_rec_getregs(struct stub_rec_task *t);
int stub_rec_resume(pid_t tid, int sig);
struct stub_rec_task *stub_rec_find(const struct stub_rec *r, pid_t tid);
int stub_rec_add_task(struct stub_rec *r, pid_t tid, enum stub_rec_task_state state,
		      struct stub_rec_task **out);
int stub_rec_log(struct stub_rec *r, struct stub_rec_task *t, const struct stub_rec_insn *insn,
		 uint64_t after);
int stub_rec_update_maps(struct stub_rec *r);
void stub_rec_gone(struct stub_rec *r, struct stub_rec_task *t, int st);
int stub_rec_save(struct stub_rec *r);
int stub_rec_periodic(struct stub_rec *r);
int stub_rec_idle(struct stub_rec *r);

/* stub_rec_pin.c: */
void stub_rec_pin_self(void);
void stub_rec_pin_task(struct stub_rec_task *t);
void stub_rec_unpin_task(const struct stub_rec *r, struct stub_rec_task *t);
void stub_rec_unpin_child(pid_t child);

#endif
