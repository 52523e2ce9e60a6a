/*
 * stub/recorders/stub_rec.h: the software recorder: a process single-stepped with
 * ptrace from its first instruction (or from the attach), each step turned
 * into Intel PT packets (stub/recorders/stub_rec_thread.h), one stream per thread,
 * saved as a bundle (replay/model/bundle.h) in a directory.
 *
 * Threads are serialised: one thread steps at a time, switching every
 * `slice` instructions or when a thread enters a syscall. A thread in a
 * syscall is resumed over it and not waited for (a futex wait must not
 * block the others); its completion is collected later. Forked children
 * are detached at once (the parent is followed, like gdbserver); an exec
 * continues in the new image. The bundle is saved at the start, at every
 * change of executable mappings and at the end, so a recorder killed
 * half-way still leaves a readable (incomplete) bundle.
 * docs/record.md describes the encoding and its limits. Nothing here
 * prints.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_H
#define HINDSIGHT_STUB_STUB_REC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

struct replay_bundle;
struct stub_rec;

#define STUB_REC_PSB_PERIOD 4096
#define STUB_REC_SLICE 10000

struct stub_rec_options {
	const char *dir;           /* the bundle directory; created */
	uint32_t psb_period;       /* bytes between PSBs; 0: STUB_REC_PSB_PERIOD */
	bool noretcomp;            /* return compression off */
	const char *ip_log;        /* NULL, or a file for "tid ip" lines */
	const char *state_check;   /* NULL, or a file for state samples (tests) */
	uint32_t state_check_every;/* logical time between samples */
	uint32_t slice;            /* 0: STUB_REC_SLICE */
	bool step_cpuid;           /* tests: CPUID single-stepped like any
				    * instruction, not run by the recorder
				    * (where its trap is lost, the step check
				    * must catch it) */
	uint64_t snapshot;         /* > 0: the saved recording keeps only about
				    * the newest this many bytes of each
				    * thread's trace (cut at a PSB, where the
				    * state log has a checkpoint too) */
	void (*progress)(void *ctx);  /* NULL, or called after each periodic save */
	void *progress_ctx;
	bool spawned;              /* attached (adopted, stub_rec_adopt) to a program
				    * started for this session: killed at the end,
				    * not detached */
};

struct stub_rec_summary {
	uint64_t instructions;
	size_t threads;
	size_t gaps;
	uint64_t lost_traps;       /* steps that lost their trap: "state-unknown" gaps */
	uint64_t trace_bytes;
	uint64_t state_bytes;
	bool snapshot;             /* --snapshot: what the recording keeps */
	uint64_t kept_instructions, kept_bytes;
};

/* Starts @argv stopped at its first instruction (stub_spawn_start). */
int stub_rec_spawn(char *const argv[], pid_t *pid);
/* Attaches to every thread of @pid and waits until each is stopped. 0,
 * -ESRCH, -EPERM or another negative errno (then nothing stays attached). */
int stub_rec_attach(pid_t pid);
/* Takes @pid, whose threads this process already traces, every one
 * stopped (stub_proc_hand_over), as stub_rec_attach would leave them:
 * each gets the recorder's ptrace options (and, @spawned, the kill of the
 * program should this process die). 0 or a negative errno. */
int stub_rec_adopt(pid_t pid, bool spawned);
/* Lets go of @pid when no recording of it could start (stub_rec_new
 * failed): a program started for it is killed, an attached process is
 * detached and runs on. */
void stub_rec_let_go(pid_t pid, bool attached);

/* A recorder of @pid (stopped, from stub_rec_spawn or stub_rec_attach);
 * @argv is what the bundle records as the command (NULL: from
 * /proc/PID/cmdline). Creates the directory and saves a first bundle.
 * 0 or a negative errno. */
int stub_rec_new(struct stub_rec **out, const struct stub_rec_options *opt, pid_t pid,
		 char *const argv[], bool attached);
/* Records until the process ends, or until stub_rec_stop (attached: the
 * process is detached and runs on; spawned: it is killed). Saves the
 * final bundle. 0 or a negative errno (the bundle is saved as far as it
 * goes). When the recording cannot be written (stub_rec_unwritable) the
 * process is detached and goes on unrecorded, spawned or attached. */
int stub_rec_run(struct stub_rec *r);
/* Whether @e says the recording's files cannot grow: a full disk, a
 * quota, a file size limit. The program itself can go on. */
bool stub_rec_unwritable(int e);
/* Asks stub_rec_run to end at the next instruction; async-signal-safe. */
void stub_rec_stop(struct stub_rec *r);
const struct replay_bundle *stub_rec_bundle(const struct stub_rec *r);
/* After stub_rec_new failed: why, to follow "cannot record ": "in DIR:
 * ERROR", "process PID: cannot read its memory ...: ERROR" ("" if the
 * error alone says it). */
const char *stub_rec_why(const struct stub_rec *r);
void stub_rec_get_summary(const struct stub_rec *r, struct stub_rec_summary *s);
void stub_rec_free(struct stub_rec *r);

/* --- A recording served live (stub/recorders/stub_rec_live.c) ---------------------
 *
 * `hindsight serve` records the program it debugs: the debugger's resumes
 * become goals the loop runs towards in short bursts (stub_rec_run_until),
 * so the caller can read its socket in between, and the loop pauses where
 * a debugger expects a stop. At a pause every stopped thread's trace is
 * interrupted (FUP + TIP.PGD) so its history ends exactly there; a thread
 * inside a syscall stays in the kernel and its instruction is logged when
 * the syscall completes. */

#define STUB_REC_WATCH_MAX 64      /* bytes of one watched range */

/* A write watchpoint: a change of the bytes is a hit. */
struct stub_rec_watch {
	uint64_t addr;
	uint32_t len;              /* 1 .. STUB_REC_WATCH_MAX */
	uint8_t val[STUB_REC_WATCH_MAX]; /* the bytes at the last check */
	bool known;                /* val was read */
};

/* A read or access watchpoint: an instruction whose memory operands read
 * (@read_only) or read or write a byte of [addr, addr + len) is a hit,
 * reported after it ran, as x86 reports data breakpoints. */
struct stub_rec_access {
	uint64_t addr, len;
	bool read_only;
};

enum stub_rec_go { STUB_REC_GO_CONTINUE, STUB_REC_GO_STEP, STUB_REC_GO_RANGE };

struct stub_rec_goal {
	enum stub_rec_go kind;
	pid_t tid;                 /* STEP / RANGE: the thread that steps */
	bool only;                 /* no thread but @tid runs (CONTINUE: while it lives) */
	uint64_t range_start, range_end; /* RANGE: step while inside */
	const uint64_t *breaks;    /* sorted addresses: pause before one runs */
	size_t nbreaks;
	struct stub_rec_watch *watches;
	size_t nwatches;
	/* Read and access watchpoints, checked against the memory operands
	 * of every instruction before it runs (no debug register is used:
	 * they do not fire on every machine). While there are any, rep
	 * string instructions are stepped one iteration at a time. */
	const struct stub_rec_access *accesses;
	size_t naccesses;
	const uint8_t *pass;       /* NULL or [65]: signals delivered unreported */
	/* The system call that ends the process (exit_group, or exit of its
	 * last thread) may run: without it the goal pauses before it (END). */
	bool exit_ok;
};

enum stub_rec_pause_kind {
	STUB_REC_PAUSE_BREAK,      /* tid is before an instruction at a breakpoint */
	STUB_REC_PAUSE_STEP,       /* the goal's step or range step ended */
	STUB_REC_PAUSE_WATCH,      /* tid changed watched bytes (watch_addr) */
	STUB_REC_PAUSE_ACCESS,     /* tid accessed an access watchpoint's bytes */
	STUB_REC_PAUSE_READ,       /* tid read a read watchpoint's bytes */
	STUB_REC_PAUSE_SIGNAL,     /* a signal (sig) is pending for tid */
	STUB_REC_PAUSE_INTERRUPT,  /* stub_rec_interrupt */
	STUB_REC_PAUSE_EXITED,     /* the process ended: status, or killed by sig */
	STUB_REC_PAUSE_END,        /* tid is before the syscall that ends the process
				    * (sig: its number), every thread still there */
};

struct stub_rec_pause {
	enum stub_rec_pause_kind kind;
	pid_t tid;
	int sig;
	int status;
	uint64_t watch_addr;
};

/* The start of a resume towards @g: the stepped thread's progress is
 * counted from here and the watched bytes read. 0 or a negative errno. */
int stub_rec_goal_start(struct stub_rec *r, struct stub_rec_goal *g);
/* Sets what thread @tid gets at the resume: @sig replaces the signal it
 * reported (0 discards it), or is delivered to it (a new one). */
int stub_rec_set_signal(struct stub_rec *r, pid_t tid, int sig);
/* Runs towards @g for at most about @budget instructions. 1 and @out
 * filled at a pause; 0 when the budget is spent or when no thread can run
 * until a syscall completes (stub_rec_waiting; SIGCHLD tells when); or a
 * negative errno. */
int stub_rec_run_until(struct stub_rec *r, struct stub_rec_goal *g, uint32_t budget,
		       struct stub_rec_pause *out);
/* Pauses every thread where it is after stub_rec_run_until failed (a
 * full disk): the thread it was running, or the process's first. */
pid_t stub_rec_pause_all(struct stub_rec *r);
/* The last burst ended because no thread it may run could (all of them
 * in syscalls: with a step goal `only`, the stepped thread). */
bool stub_rec_waiting(const struct stub_rec *r);
/* Pause at the next instruction (async-signal-safe). */
void stub_rec_interrupt(struct stub_rec *r);
bool stub_rec_interrupted(const struct stub_rec *r);
/* Saves the bundle as it is (traces and state logs flushed) for readers. */
int stub_rec_sync(struct stub_rec *r);
/* Ends a paused recording: the process is detached (running on) or
 * killed; the final bundle is saved. 0 or a negative errno. */
int stub_rec_end(struct stub_rec *r, bool detach);
/* A thread handed back: traced and stopped, @sig still to be delivered to
 * it (0: none, or one the debugger was told of and passes itself); @quiet:
 * @sig may be delivered without telling the debugger (it asked for it at
 * its last resume), else the debugger is to be told of it first unless it
 * passes that signal. */
struct stub_rec_handed {
	pid_t tid;
	int sig;
	bool quiet;
};
/* Ends a paused recording and keeps the process: every thread stays
 * traced and stopped (one inside a syscall stopped there, to restart it
 * when resumed), for a debugger's stub to go on with natively (recording
 * stopped: `record stop`). The final bundle is saved as a detach saves
 * it. *@out (the recorder's, until it is freed) lists the @n threads.
 * 0, or the error of saving the recording (the threads are handed back
 * all the same); -ENOMEM, -ESRCH (no process), -EBUSY (the leader exited
 * before its threads) with nothing handed and the recording going on. */
int stub_rec_hand_back(struct stub_rec *r, const struct stub_rec_handed **out, size_t *n);

/* The live threads (up to @max ids into @out); returns how many there are. */
size_t stub_rec_tids(const struct stub_rec *r, pid_t *out, size_t max);
bool stub_rec_has_thread(const struct stub_rec *r, pid_t tid);
/* The general registers of @tid as of the pause; @stopped false when the
 * thread is inside a syscall (they are those it entered it with). */
int stub_rec_task_regs(const struct stub_rec *r, pid_t tid, struct user_regs_struct *out,
		       bool *stopped);
/* After the debugger changed the registers of stopped @tid: re-read. */
int stub_rec_regs_changed(struct stub_rec *r, pid_t tid);
/* Writes the process's memory, logging old and new bytes in the state
 * log of @tid's thread (a change without an instruction). */
int stub_rec_write_mem(struct stub_rec *r, pid_t tid, uint64_t addr, const void *buf,
		       size_t len);
/* /proc/PID/mem of the process (reopened at exec). */
int stub_rec_mem_fd(const struct stub_rec *r);
pid_t stub_rec_pid(const struct stub_rec *r);
bool stub_rec_alive(const struct stub_rec *r);

#endif
