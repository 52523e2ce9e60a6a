/*
 * stub/recorders/stub_recorder.h: the recorders behind one interface: a program
 * (or a running process) recorded into a bundle by the single-stepping
 * recorder (stub/recorders/stub_rec.h), hardware Intel PT (stub/recorders/stub_hwpt_rec.h) or
 * Valgrind (stub/recorders/stub_vgrec.h), without the caller knowing which.
 *
 * stub_recorder_new takes the --record choice (auto, sw, pt, valgrind)
 * and picks the recorder, saying which and why (auto: Intel PT where this
 * CPU has it, else Valgrind where it is installed and can be used, else
 * single steps). stub_recorder_start starts the program (or attaches) and
 * the recorder; under auto, Intel PT events that cannot be opened hand the
 * program over to the single-stepper. stub_recorder_run records until the
 * program ends or stub_recorder_stop (async-signal-safe: a signal handler
 * needs only the one pointer). Each recorder is a table of operations
 * (struct stub_recorder_ops) over its own object.
 *
 * Nothing here prints: every line a user should see (the choice, why a
 * start failed, a recording cut short, Valgrind's messages) goes to the
 * options' `say` callback, without the "hindsight: " prefix. Lifetime:
 * stub_recorder_new, _start, _run, then _summary / _bundle / _epilogue,
 * stub_recorder_free.
 */
#ifndef HINDSIGHT_STUB_STUB_RECORDER_H
#define HINDSIGHT_STUB_STUB_RECORDER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/user.h>

#include "stub/recorders/stub_vglight.h"
#include "stub/recorders/stub_rec.h"
#include "stub/recorders/stub_rec_disk.h"

struct replay_bundle;
struct stub_recorder;

#define STUB_RECORDER_PSB_PERIOD STUB_REC_PSB_PERIOD

enum stub_recorder_kind {
	STUB_RECORDER_SW,          /* single steps under ptrace */
	STUB_RECORDER_HW,          /* the CPU's Intel PT */
	STUB_RECORDER_VG,          /* Valgrind with hindsight's tool */
	STUB_RECORDER_LIGHT,       /* ... its inputs only, the rest rebuilt */
};

struct stub_recorder_options {
	const char *mode;          /* "auto" (also NULL), "sw", "pt", "valgrind" or "light" */
	const char *dir;           /* the bundle; NULL: hindsight-PROG-PID */
	char *const *argv;         /* the program, or NULL to attach */
	pid_t attach_pid;          /* with argv NULL: the process to record */
	bool adopt;                /* ... whose threads this process already traces,
				    * every one stopped (handed over by a live
				    * target, stub/live/stub_proc.h): no attach; a
				    * recorder that cannot start leaves them so */
	bool spawned;              /* ... adopted, and started for this session:
				    * killed at the end, not detached */
	uint32_t psb_period;       /* bytes between sync points (0: the default) */
	bool psb_given;            /* --psb-period was given (hardware: a power of two) */
	bool noretcomp;
	uint64_t snapshot;         /* > 0: keep about the newest this many bytes per thread */
	uint64_t aux_size;         /* hardware, full mode: trace buffer per thread (0: default) */
	const char *ip_log;        /* single steps (tests): every instruction, "tid ip" */
	bool step_cpuid;           /* single steps (tests): CPUID stepped */
	const char *vg_verify;     /* Valgrind (tests): the tool's own trace */
	bool rebuild;              /* light: not run for real, the bundle in dir
				    * rebuilt from its inputs (this process has
				    * taken their environment: stub_vglight_load_env) */
	int rebuild_wstatus;       /* ... and how the recorded run ended */
	uint64_t rebuild_last;     /* ... > 0: only about its last this many
				    * superblocks (a window, docs/rebuild.md;
				    * the whole if the run exec'd) */
	bool rebuild_history_only; /* ... the control flow only: no state log */
	/* rebuild, > 0: the light run is still going (`run`, beside it): the
	 * rebuild trails it and rebuilds a window of its last this many
	 * superblocks when it ends (stub_vgrec_options' trail), how it ended
	 * read from @rebuild_trail_fd then. A run that exec'd or ended
	 * within the window is not rebuilt (-ECANCELED, the bundle left to
	 * be rebuilt: stub_vglight_pending). */
	uint64_t rebuild_trail;
	int rebuild_trail_fd;
	/* rebuild: the log is a live run's, which grows (serve --record
	 * valgrind): the rebuild stops at each place the debugger stopped
	 * it and goes on as the log does, calling @rebuild_here there with
	 * the bundle saved (stub_vgrec_options' follow and here). */
	bool rebuild_follow;
	int (*rebuild_here)(void *ctx, uint64_t count, uint64_t ip);
	void *rebuild_here_ctx;
	bool light_defer;          /* light: its run only; the bundle rebuilt when
				    * first needed (stub_vglight_pending) */
	/* light, NULL or called once the program has started under Valgrind
	 * and its log is being written (`run` starts a rebuild that trails it). */
	void (*light_started)(void *ctx, const char *dir);
	void *light_started_ctx;
	const char *sysfs_root;    /* tests: where the intel_pt PMU is looked for
				    * (NULL: STUB_HWPT_SYSFS_DEVICES) */
	bool live;                 /* served live (stub/rectarget/stub_rec_target.h): only a
				    * recorder with live operations, driven through
				    * them instead of stub_recorder_run */
	/* A line for the user (no prefix, no newline); NULL: silence. */
	void (*say)(void *ctx, const char *line);
	void *say_ctx;
};

/* What a recording holds, for the closing summary. */
struct stub_recorder_summary {
	const char *name;          /* "software", "hardware Intel PT", "Valgrind" */
	bool counted;              /* instructions, state and lost traps counted (not hardware) */
	bool no_state;             /* a light recording's history only: no state log */
	struct stub_rec_summary s; /* hardware: threads, gaps, trace_bytes and snapshot only */
};

/* What a recorder that serves a live program offers (stub/rectarget/stub_rec_target.h):
 * the program paused and resumed towards a debugger's goals while every
 * instruction is recorded. Each is stub_rec.h's function of the same name
 * over the recorder's object, and the goal, pause, watch and access types
 * are stub_rec.h's. Only single steps can do it today: hardware Intel PT
 * traces control flow only (a past served live needs every register and
 * write), and Valgrind runs the program's threads inside its own process,
 * out of ptrace's reach (docs/record.md). */
struct stub_recorder_live_ops {
	int (*goal_start)(struct stub_recorder *rec, struct stub_rec_goal *g);
	int (*set_signal)(struct stub_recorder *rec, pid_t tid, int sig);
	int (*run_until)(struct stub_recorder *rec, struct stub_rec_goal *g, uint32_t budget,
			 struct stub_rec_pause *out);
	pid_t (*pause_all)(struct stub_recorder *rec);
	bool (*waiting)(const struct stub_recorder *rec);
	void (*interrupt)(struct stub_recorder *rec);          /* async-signal-safe */
	bool (*interrupted)(const struct stub_recorder *rec);
	int (*sync)(struct stub_recorder *rec);                /* the bundle as it is, saved */
	int (*end)(struct stub_recorder *rec, bool detach);    /* the final bundle saved */
	int (*hand_back)(struct stub_recorder *rec, const struct stub_rec_handed **out,
			 size_t *n);                           /* ... the process kept */
	size_t (*tids)(const struct stub_recorder *rec, pid_t *out, size_t max);
	bool (*has_thread)(const struct stub_recorder *rec, pid_t tid);
	int (*task_regs)(const struct stub_recorder *rec, pid_t tid, struct user_regs_struct *out,
			 bool *stopped);
	int (*regs_changed)(struct stub_recorder *rec, pid_t tid);
	int (*write_mem)(struct stub_recorder *rec, pid_t tid, uint64_t addr, const void *buf,
			 size_t len);
	int (*mem_fd)(const struct stub_recorder *rec);
	bool (*alive)(const struct stub_recorder *rec);
};

/* One recorder's operations; each gets the stub_recorder. */
struct stub_recorder_ops {
	/* Starts the program or attaches (or the recorder starts it) and
	 * creates the recorder: 0, 1 to hand over to the single-stepper
	 * (said why), or a negative errno (said why; the program let go). */
	int (*start)(struct stub_recorder *rec);
	/* Records to the end or to stop; the final bundle saved. 0,
	 * STUB_RECORDER_NOTHING, or a negative errno (said). */
	int (*run)(struct stub_recorder *rec);
	void (*stop)(struct stub_recorder *rec);   /* async-signal-safe */
	void (*summary)(const struct stub_recorder *rec, struct stub_recorder_summary *s);
	const struct replay_bundle *(*bundle)(const struct stub_recorder *rec);
	void (*epilogue)(struct stub_recorder *rec);  /* NULL: nothing to say */
	void (*free)(struct stub_recorder *rec);      /* the recorder's object */
	const struct stub_recorder_live_ops *live;    /* NULL: cannot serve live */
};

struct stub_recorder {
	const struct stub_recorder_ops *ops;
	enum stub_recorder_kind kind;
	struct stub_recorder_options opt;
	int hw_psb;                /* hardware: the psb_period term, -1: default */
	pid_t pid;                 /* the program (0 until started) */
	char dir[4096];            /* the bundle ("" until started) */
	void *impl;                /* struct stub_rec, stub_hwpt_rec or stub_vgrec */
	struct stub_rec_disk disk; /* what its growth has been said to cost */
	/* The light recorder: its run's stop request, how the program ended,
	 * the input log's size, the run's and the rebuild's times. */
	volatile sig_atomic_t light_stop;
	struct {
		int wstatus;
		uint64_t bytes;
		double secs, rebuild_secs;
		bool deferred;     /* light_defer: nothing rebuilt yet */
		struct sigaction sigint;  /* SIGINT's handling when it started */
		/* The rebuild's progress: the log's look-over (its images and
		 * the last one's superblocks), when it was last said. */
		struct stub_vglight_scan scan;
		double from, said;
		uint64_t window_from;  /* the rebuild's window, from this superblock (0: whole) */
		bool history_only;     /* the rebuild's history alone (no state log) */
	} light;
	double start_secs;         /* when it started (CLOCK_MONOTONIC) */
};

/* stub_recorder_run: the program could not start (Valgrind could not run
 * it); nothing was recorded and the directory is removed. */
#define STUB_RECORDER_NOTHING 1

/* Picks the recorder for @o->mode and says which and why where the
 * choice was not asked for (auto falling back). With @o->live, auto is
 * the recorder that can serve a live program and one that cannot is
 * refused with -EOPNOTSUPP, said why. 0 with *@out set, or
 * -EINVAL for a command line that cannot work (Valgrind with --attach, a
 * hardware --psb-period that is not a power of two from 2048) or -ENODEV
 * (the recorder asked for cannot run here), said why; *@out is NULL
 * then. @o (its strings and argv) must outlive the recorder. */
int stub_recorder_new(struct stub_recorder **out, const struct stub_recorder_options *o);
/* Starts the program or attaches, and the recorder. 0, or a negative
 * errno (said why; the program, if started, killed; an attached process
 * let go). stub_recorder_dir is set once the program started. */
int stub_recorder_start(struct stub_recorder *rec);
/* Records until the program ends or stub_recorder_stop. 0,
 * STUB_RECORDER_NOTHING (said), or a negative errno (said: the bundle is
 * incomplete, or the disk is full and the program went on unrecorded). */
int stub_recorder_run(struct stub_recorder *rec);
/* A light recording whose rebuild was left for later (options.light_defer):
 * 1 with the recorded run's wait status in *@wstatus, else 0. */
int stub_recorder_deferred(const struct stub_recorder *rec, int *wstatus);
/* Asks stub_recorder_run to end (a started program is killed, an attached
 * one detached); async-signal-safe. */
void stub_recorder_stop(struct stub_recorder *rec);
void stub_recorder_summary(const struct stub_recorder *rec, struct stub_recorder_summary *s);
/* The recording (after stub_recorder_start succeeded). */
const struct replay_bundle *stub_recorder_bundle(const struct stub_recorder *rec);
/* Says what the user should know after the summary (Valgrind: where its
 * messages are, an instruction it could not run). */
void stub_recorder_epilogue(struct stub_recorder *rec);
enum stub_recorder_kind stub_recorder_kind(const struct stub_recorder *rec);
/* The bundle directory, "" before the start. */
const char *stub_recorder_dir(const struct stub_recorder *rec);
/* The live operations of a recorder made with options.live, started. */
const struct stub_recorder_live_ops *stub_recorder_live(const struct stub_recorder *rec);
/* Whether @rec was asked to record an attached process. */
bool stub_recorder_attached(const struct stub_recorder *rec);
/* Whether @rec rebuilds a light recording (options.rebuild). */
bool stub_recorder_rebuilding(const struct stub_recorder *rec);
/* Frees @rec and its recorder (NULL is fine). */
void stub_recorder_free(struct stub_recorder *rec);

/* Deletes what a recorder wrote into @dir (its manifest, threads/,
 * images/, Valgrind's log), then @dir if nothing else is in it. */
void stub_recorder_delete(const char *dir);

#endif
