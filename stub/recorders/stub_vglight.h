/*
 * stub/recorders/stub_vglight.h: the light recording: the program runs
 * under Valgrind with the tool in its light mode, which logs only what
 * the program could not compute again (vgtool/hsrec_proto.h, "The input
 * log"): its syscalls' results and what the kernel wrote, rdtsc and its
 * kin, signals, the initial stack, the files it opened. The history and
 * the state are rebuilt afterwards by running the program again under the
 * tool's rebuild mode, fed the log (stub_vgrec_options.inputs), which
 * writes the same bundle the full Valgrind recorder does.
 *
 * The log is the bundle's inputs.hsin. The rebuild reads it through a
 * pipe this side fills (stub_vglight_feed): every process image the
 * program execs opens the pipe again and goes on where the one before
 * stopped, which a file opened again by its path would not do.
 * Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_STUB_VGLIGHT_H
#define HINDSIGHT_STUB_STUB_VGLIGHT_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/rsp_regs.h"

#define STUB_VGLIGHT_LOG "inputs.hsin"
/* How the recorded run ended, its argv, working directory and
 * environment: a rebuild must start the program alike (the layout of its
 * memory follows them). */
#define STUB_VGLIGHT_ENV "inputs.env"
/* Present while a rebuild writes the bundle: one that did not end (killed,
 * an error) is done again by the next command that needs the history. */
#define STUB_VGLIGHT_BUSY "inputs.rebuilding"
/* Present when the bundle is a window of the run (`rebuild --last`, `run`
 * on a crash): what it holds, in a line; a whole rebuild removes it. */
#define STUB_VGLIGHT_WINDOW "inputs.window"
/* Present when the bundle holds the history only (`history`, `calls`):
 * no state log; the commands that need registers and memory rebuild the
 * whole, which removes it. */
#define STUB_VGLIGHT_HISTORY "inputs.history"
/* Valgrind's own messages of the light run, in the bundle directory. */
#define STUB_VGLIGHT_VGLOG "valgrind-light.log"
/* Copies of the files the program mapped that are not the system's, each
 * named by the identity the input log has for it (vgtool's
 * hsin_light_keep): the rebuild maps the copy where the file has been
 * replaced since (git's index). */
#define STUB_VGLIGHT_KEEP "files"

struct stub_vglight_feed;

/* Valgrind with hindsight's tool, as every recorder on it starts it: the
 * same options in every mode, so that the program's memory is laid out
 * alike (VALGRIND-NOTES.md: the layout follows the options, argv and
 * the environment). */
struct stub_vgtool_cmd {
	const char *valgrind;      /* its path */
	const char *tooldir;       /* VALGRIND_LIB: where the tool is */
	const char *log;           /* Valgrind's messages (absolute) */
	const char *out;           /* --hsrec-out (absolute) */
	const char *extra[16];     /* more --hsrec-... options, NULL-ended */
};

/* In a child: execs @c with @argv; never returns (127 if the exec fails). */
/* The wait status of a Valgrind that ran the tool, @st, as the program's:
 * where Valgrind's re-raising of the program's fatal signal failed (its
 * log @vglog says the process was terminating with signal N, then "signal
 * was supposed to be fatal", and it exited with 1), killed by N. */
int stub_vgtool_wstatus(const char *vglog, int st);
void stub_vgtool_exec(const struct stub_vgtool_cmd *c, char *const argv[])
	__attribute__((noreturn));

/* How a light run is made. */
struct stub_vglight_how {
	const char *valgrind;      /* Valgrind's path */
	const char *tooldir;       /* where hindsight's tool is */
	const char *dir;           /* the bundle's (made): the log goes into
				    * @dir/STUB_VGLIGHT_LOG */
	const char *verify;        /* tests, or NULL: an absolute path for the
				    * tool's trace of every instruction the
				    * program started and its registers then
				    * (--vg-verify) */
	const struct sigaction *sigint; /* how the program is to handle SIGINT
				    * (as this process did before it ignored
				    * it for itself), or NULL: as inherited */
	/* NULL, or called once Valgrind has started and the log is open
	 * (stub_vglight_record). */
	void (*started)(void *ctx, const char *dir);
	void *started_ctx;
	const char *core_opts[6];  /* more options, NULL-ended (serve: Valgrind's
				    * gdbserver's, and the tool's watchpoint
				    * checks); a rebuild needs none of them to
				    * run the program alike */
};

/* A light run going on. */
struct stub_vglight_run;

/* Starts @argv under Valgrind with the tool in its light mode, as @how
 * says; the program has this process's standard streams. 0 with the run
 * in *@out, or a negative errno with the reason in @err. */
int stub_vglight_start(const struct stub_vglight_how *how, char *const argv[],
		       struct stub_vglight_run **out, char *err, size_t errsize);
/* Valgrind's pid, which is the program's. */
pid_t stub_vglight_pid(const struct stub_vglight_run *r);
/* Moves what the tool wrote into the log, waiting up to @timeout_ms for
 * it: 0 while the run goes on, 1 once it ended (reaped here, its log
 * drained to the end), or a negative errno of the pipe. */
int stub_vglight_pump(struct stub_vglight_run *r, int timeout_ms);
/* The errno of a write to the log that failed (the log is cut there, the
 * program going on as it would have), or 0. */
int stub_vglight_lost(const struct stub_vglight_run *r);
/* Waits up to @timeout_ms for the tool to write (or end), moving
 * nothing: a pump thread waits so without holding the lock a drain by
 * another thread takes (stub_vglight_pump(r, 0) then). */
void stub_vglight_wait(const struct stub_vglight_run *r, int timeout_ms);
/* Ends the run (a program still running is killed: its log kept up to
 * there; with @let_go it runs on, its tool told to stop logging, and the
 * log's end says "still running"), writes inputs.env (@argv: the run's)
 * and frees @r. 0 with its wait status in *@wstatus and the log's size in
 * *@bytes, or a negative errno with the reason in @err (-ENOEXEC: Valgrind
 * could not start it; a write that failed: the log is kept up to there). */
int stub_vglight_finish(struct stub_vglight_run *r, char *const argv[], bool let_go,
			int *wstatus, uint64_t *bytes, char *err, size_t errsize);

/* Writes @dir's inputs.env: @argv, this process's working directory and
 * environment (the program's: it inherited them), and @wstatus (a stop
 * status, W_STOPCODE: the program still runs). 0 or a negative errno. */
int stub_vglight_save_env(const char *dir, char *const argv[], int wstatus);
/* A whole light run: start, pump until it ends, finish. *@stop set (a
 * signal handler): the program is killed. */
int stub_vglight_record(const struct stub_vglight_how *how, char *const argv[],
			volatile sig_atomic_t *stop, int *wstatus, uint64_t *bytes, char *err,
			size_t errsize);

/* What a look over the input log tells before a rebuild. */
struct stub_vglight_scan {
	/* The first syscall the rebuild does not make (vgtool/hsrec_rebuild.c,
	 * hsin_complete, stops there): memory another process or the kernel
	 * may write (a writable MAP_SHARED mmap, shmat, an io_uring made), a
	 * wait for a signal, clone3 making a thread. */
	bool stop;
	char what[160];            /* what the program did */
	uint64_t pc;               /* the address of its syscall instruction */
	/* The run's length, for the rebuild's progress: the superblocks of
	 * its last image (HSIN_END's count; 0 if the log has no end), and
	 * the images it went through (1, and one for each exec). */
	uint64_t end_blocks;
	unsigned images;
};

/* The input log at @path looked over into @s. 0 (a log cut short is
 * looked over up to there), or a negative errno of the file. */
int stub_vglight_scan(const char *path, struct stub_vglight_scan *s);
/* Whether the run @s looked over can be rebuilt as a window of its last
 * @last superblocks: one image (the tool counts image by image), longer
 * than the window. */
bool stub_vglight_window_fits(const struct stub_vglight_scan *s, uint64_t last);

/* inputs.env read: how the recorded run ended, and what a rebuild must
 * start it with. The strings point into buf. */
struct stub_vglight_env {
	int wstatus;
	char **argv;               /* NULL-terminated */
	const char *cwd;
	char *envp;                /* "VAR=VALUE\0" x N */
	size_t envlen;
	char *buf;
};

/* Reads @dir's inputs.env into @env. 0, or a negative errno with the
 * reason in @err. */
int stub_vglight_load_env(const char *dir, struct stub_vglight_env *env, char *err,
			  size_t errsize);
/* This process takes @env's working directory and environment (for good:
 * a rebuild's own process, or a child made for it). 0 or a negative errno
 * with the reason in @err. */
int stub_vglight_take_env(const struct stub_vglight_env *env, char *err, size_t errsize);
void stub_vglight_env_release(struct stub_vglight_env *env);
/* A light recording in @dir whose history is not rebuilt yet (no
 * trace.json beside its inputs, or a rebuild that did not end). */
bool stub_vglight_pending(const char *dir);
/* A light recording in @dir rebuilt, its history only (STUB_VGLIGHT_HISTORY). */
bool stub_vglight_history_only(const char *dir);

/* A pipe filled from the log @path by a thread of this process; the
 * tool opens it as *@path_out ("/proc/PID/fd/N"). @follow: the log is a
 * live run's, which grows: at its end the thread waits for more (until
 * stub_vglight_feed_stop). 0, or a negative errno with the reason in
 * @err. */
int stub_vglight_feed_start(struct stub_vglight_feed **out, const char *path, bool follow,
			    char *path_out, size_t size, char *err, size_t errsize);
/* The pipe closed (a reader gone early makes the thread stop) and the
 * thread joined. NULL: nothing. */
void stub_vglight_feed_stop(struct stub_vglight_feed *f);

/* A thread a clone made that has not run yet under serve --record valgrind
 * (the tool's `hindsight.born`: Valgrind's gdbserver lists a thread only
 * once it has run): its id, and its registers as the clone left them, as
 * Valgrind's gdbserver gives a thread's (no orig_rax, no gs_base), with
 * fs_base, which that has not. */
struct stub_vglight_born {
	int64_t tid;
	struct rsp_regs regs;
};

/* The @len bytes of `hindsight.born`'s answer at @text (@avx: the upper
 * halves of the ymm registers too) into *@out (malloc'd, *@n of them;
 * those before a line that does not parse). 0, -EBADMSG (not its
 * answer), -ENOMEM. */
int stub_vglight_born_parse(const char *text, size_t len, bool avx,
			    struct stub_vglight_born **out, size_t *n);

#endif
