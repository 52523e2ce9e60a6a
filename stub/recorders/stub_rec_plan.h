/*
 * stub/recorders/stub_rec_plan.h: what the software recorder's single-step loop does
 * at each stop of a thread, decided without a system call.
 *
 * The loop (stub/recorders/stub_rec_step.c, stub_rec_collect.c, stub_rec_live.c)
 * observes a stop (a waitpid status and where the thread was in the recording), asks
 * stub_rec_plan_report for the action, and does it with ptrace. A decision
 * that needs a fact the loop has not read yet (the registers, whether an
 * unknown thread is the process's, whether a SIGTRAP was sent by kill)
 * answers STUB_REC_A_NEED with the fact in `need`: the loop reads it, sets
 * its bit in `have` and asks again, so a fact is read only when the
 * decision needs it, as before. The same for a READY thread about to run
 * (stub_rec_plan_ready, then stub_rec_plan_insn once its instruction is
 * read) and for a goal of a recording served live (stub_rec_plan_before:
 * pause for a signal, the end of a step, a breakpoint). Every decision is
 * unit-tested on constructed stops (tests/unit/test_stub_rec_plan.c).
 *
 * The rules (stub/recorders/stub_rec.c's comment says why):
 *   - A stop of a thread with no task: one of the process's (a clone
 *     whose stop came before its parent's clone event) is adopted, held
 *     until that event; another (a forked child) is detached.
 *   - A thread's end (exit or kill) ends its task; one inside a syscall
 *     has the syscall logged first.
 *   - A new clone's first stop (its SIGSTOP) is swallowed: it is READY.
 *   - A task inside a syscall: clone, fork / vfork and exec events are
 *     handled and the task resumed; a stop at the ip it was resumed at
 *     with a signal other than SIGTRAP is a signal before the kernel
 *     entered the syscall (nothing logged, the signal pending); any other
 *     stop is the syscall's completion: logged, restarted if it returned
 *     -ERESTART*, the mappings read again after a mapping syscall, a
 *     signal other than SIGTRAP pending.
 *   - After a single step: a signal (or an event) means the instruction
 *     did not run, the signal pending; a rep string instruction that is
 *     still at its ip ran one iteration (not counted); a step that ended
 *     elsewhere than predicted lost its trap, unless it is still at its
 *     ip and the SIGTRAP was sent by kill (then pending); else it ran.
 *   - After running over an instruction to its fall-through (a rep
 *     string, CPUID with a signal): an int3 hit there leaves rip one past
 *     it (put back, the instruction logged); a signal that stops it there
 *     first means it ran, the signal pending; anything else is read as
 *     the report of a single step.
 *   - --snapshot: a PSB in an instruction's trace asks for a state
 *     checkpoint at it; both written, that is a cut.
 *   - After a caught signal's delivery: the thread stops at the handler
 *     (a signal other than SIGTRAP stays pending), or has ended.
 *   - A READY thread: a pending signal with a handler is delivered first;
 *     a pending one without ends the trace here (a fault may kill); a
 *     syscall to restart is entered at ip - 2; a syscall instruction is
 *     entered; CPUID is run by the recorder unless a signal is pending or
 *     the tests step it; CPUID with a signal, and a rep string instruction
 *     with at least STUB_REC_REP_MIN iterations (unless access watchpoints
 *     want each), run over at full speed; anything else is single-stepped.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_PLAN_H
#define HINDSIGHT_STUB_STUB_REC_PLAN_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "stub/recorders/stub_rec.h"

#define STUB_REC_REP_MIN 64        /* rep iterations worth running over */

/* Facts a decision may ask for. */
enum {
	STUB_REC_NEED_OURS = 1,    /* an unknown thread's Tgid is the process */
	STUB_REC_NEED_REGS = 2,    /* the thread's registers (rip, rax) */
	STUB_REC_NEED_SENT = 4,    /* PTRACE_GETSIGINFO: the SIGTRAP was sent (si_code <= 0) */
	STUB_REC_NEED_MSG = 8,     /* PTRACE_GETEVENTMSG, and whether that tid has a task */
};

/* Where the thread of a report is in the recording. */
enum stub_rec_plan_who {
	STUB_REC_WHO_UNKNOWN,      /* no task */
	STUB_REC_WHO_NEW,          /* a clone whose first stop has not come */
	STUB_REC_WHO_READY,        /* stopped, not being waited for */
	STUB_REC_WHO_SYSCALL,      /* resumed over a syscall */
	STUB_REC_WHO_STEPPED,      /* single-stepped over an instruction just now */
	STUB_REC_WHO_DELIVERED,    /* resumed just now with a caught signal */
	STUB_REC_WHO_RAN_OVER,     /* run to the fall-through of an instruction (expect) */
};

/* A stop as observed, with the facts gathered so far. */
struct stub_rec_stop {
	int status;                /* waitpid's */
	enum stub_rec_plan_who who;
	unsigned have;             /* STUB_REC_NEED_* gathered */
	bool ours;                 /* NEED_OURS */
	uint64_t rip;              /* NEED_REGS */
	long rax;                  /* NEED_REGS */
	bool sent;                 /* NEED_SENT */
	unsigned long msg;         /* NEED_MSG: the event's tid */
	bool msg_known;            /* NEED_MSG: that tid has a task */
	/* SYSCALL: how it was resumed */
	uint64_t sc_resume_ip;
	long sc_nr;
	bool sc_restart;
	/* STEPPED: the instruction and where it was predicted to go */
	uint64_t insn_ip;
	bool rep;
	bool known;
	uint64_t expect;
	bool int3;                 /* RAN_OVER: an int3 at expect, not DR0 */
};

enum stub_rec_act {
	STUB_REC_A_NEED,           /* gather `need` and ask again */
	STUB_REC_A_NONE,           /* nothing to do */
	STUB_REC_A_ADOPT,          /* unknown thread of the process: a held READY task */
	STUB_REC_A_DETACH,         /* unknown thread of another process: detach it */
	STUB_REC_A_GONE,           /* the thread ended (a syscall in flight logged first) */
	STUB_REC_A_FIRST,          /* a new clone's first stop: READY */
	STUB_REC_A_CLONE_KNOWN,    /* clone event of an adopted thread: no longer held */
	STUB_REC_A_CLONE_NEW,      /* clone event first: a NEW task for msg */
	STUB_REC_A_FORK,           /* fork / vfork event: the child (msg) detached */
	STUB_REC_A_EXEC,           /* exec event: the syscall logged, a new image */
	STUB_REC_A_EVENT,          /* another event: resumed */
	STUB_REC_A_SIG_BEFORE,     /* SYSCALL: a signal before the kernel took it */
	STUB_REC_A_SYSCALL_DONE,   /* SYSCALL: completed: log it */
	STUB_REC_A_SIGNAL,         /* STEPPED: the insn did not run; sig pending */
	STUB_REC_A_REP,            /* STEPPED: one rep iteration, not counted */
	STUB_REC_A_SENT_TRAP,      /* STEPPED: a sent SIGTRAP, pending */
	STUB_REC_A_LOST,           /* STEPPED: the trap was lost */
	STUB_REC_A_LOG,            /* STEPPED: the insn ran: log it */
	STUB_REC_A_HANDLER,        /* DELIVERED: at the handler (sig pending if set) */
	STUB_REC_A_REWIND,         /* RAN_OVER: at the int3: rip back to expect, log it */
	STUB_REC_A_LOG_PENDING,    /* RAN_OVER: ran, then a signal (sig) before expect */
	/* stub_rec_plan_ready / stub_rec_plan_insn */
	STUB_REC_A_DELIVER,        /* deliver the caught signal */
	STUB_REC_A_RESTART,        /* enter the syscall at ip - 2 again */
	STUB_REC_A_INSN,           /* read the instruction, then stub_rec_plan_insn */
	STUB_REC_A_SYSCALL,        /* enter the syscall at ip */
	STUB_REC_A_CPUID,          /* run CPUID in the recorder */
	STUB_REC_A_RUN_OVER,       /* run to its fall-through (else single-step) */
	STUB_REC_A_STEP,           /* single-step */
};

struct stub_rec_plan {
	enum stub_rec_act act;
	unsigned need;             /* NEED: the facts to gather */
	int sig;                   /* a signal to keep pending (0: leave it) */
	bool restart;              /* SIG_BEFORE / SYSCALL_DONE: the task's restart */
	bool maps;                 /* SYSCALL_DONE: read the mappings again */
	bool interrupt;            /* ready: the trace ends here (an unhandled signal) */
};

/* What to do with stop @s (its `who` one of STUB_REC_WHO_*): fills @p and
 * returns p->act. */
enum stub_rec_act stub_rec_plan_report(const struct stub_rec_stop *s, struct stub_rec_plan *p);

/* A READY thread about to run. */
struct stub_rec_ready {
	int sig;                   /* pending */
	bool caught;               /* the process has a handler for sig */
	bool restart;              /* a syscall the kernel restarts */
	/* stub_rec_plan_insn: the instruction at rip */
	bool kernel;               /* a syscall instruction */
	bool cpuid;
	bool rep;
	uint64_t rcx;
	bool step_cpuid;           /* tests: CPUID single-stepped */
	bool no_rep_accel;         /* access watchpoints: rep strings stepped */
};

/* DELIVER, RESTART or INSN (p->interrupt: end the trace first). */
enum stub_rec_act stub_rec_plan_ready(const struct stub_rec_ready *f, struct stub_rec_plan *p);
/* SYSCALL, CPUID, RUN_OVER or STEP. */
enum stub_rec_act stub_rec_plan_insn(const struct stub_rec_ready *f, struct stub_rec_plan *p);

/* A served recording's goal as one READY thread sees it before it runs. */
struct stub_rec_goal_view {
	enum stub_rec_go kind;
	bool goal_thread;          /* the thread is the goal's (tid) */
	bool moved;                /* it moved since the resume */
	bool ready;
	bool in_rep;
	uint64_t rip;
	uint64_t range_start, range_end;
	int sig;                   /* pending */
	bool sig_ok;               /* the debugger said to deliver it */
	bool pass;                 /* the goal passes sig unreported */
	bool at_break;             /* rip is one of the goal's breakpoints */
	bool ends;                 /* the next instruction ends the process
				    * (stub_rec_plan_ends) */
	bool exit_ok;              /* the goal lets it */
};

/* The step or range step of the goal is over. */
bool stub_rec_plan_step_done(const struct stub_rec_goal_view *v);
/* Whether the thread pauses before its next instruction: true with
 * *@kind SIGNAL, STEP, BREAK or END (in that order of precedence). */
bool stub_rec_plan_before(const struct stub_rec_goal_view *v, enum stub_rec_pause_kind *kind);
/* --snapshot after an instruction was traced (stub_rec_plan_cut). */
struct stub_rec_cut_view {
	bool snapshot;             /* --snapshot is on */
	bool psb;                  /* the instruction's trace wrote a PSB */
	bool ckpt_written;         /* after: the state log wrote the checkpoint asked for */
};

enum {
	STUB_REC_CUT_CKPT = 1,     /* before the state record: a checkpoint with it */
	STUB_REC_CUT_HERE = 2,     /* after it: a cut at the PSB and checkpoint */
};

/* What --snapshot does around an instruction's state record: asked before
 * it (CKPT) and @after it (HERE). A cut needs the PSB and the checkpoint
 * at the same instruction, so both may start there. When the next PSB is
 * due is the ring's decision (stub_rec_ring_want, after the cut). */
unsigned stub_rec_plan_cut(const struct stub_rec_cut_view *v, bool after);

/* Whether syscall return value @ax says the kernel restarts the syscall
 * unless a handler runs (-ERESTARTSYS, -ERESTARTNOINTR,
 * -ERESTARTNOHAND, -ERESTART_RESTARTBLOCK). */
bool stub_rec_plan_is_restart(long ax);
/* Whether the instruction @bytes (@len of them) with @nr in rax ends the
 * process when it runs: `syscall` with exit_group (231), `int 0x80` with
 * i386's (252), or exit (60; i386: 1) when @others_live is false (the
 * last thread's exit). The thread has no signal to take first (@sig 0)
 * and is not restarting a syscall. */
bool stub_rec_plan_ends(const uint8_t *bytes, size_t len, uint64_t nr, bool others_live,
			int sig, bool restart);
/* Whether @ip is one of the @n sorted @breaks. */
bool stub_rec_plan_is_break(const uint64_t *breaks, size_t n, uint64_t ip);

#endif
