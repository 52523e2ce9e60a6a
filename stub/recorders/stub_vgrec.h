/*
 * stub/recorders/stub_vgrec.h: the fast recorder: a program run under Valgrind with
 * hindsight's tool (vgtool/, GPL, a separate program), whose stream of
 * superblocks, side exits, thread switches, signals and mappings
 * (vgtool/hsrec_proto.h) is turned here into the same bundle the
 * single-stepping recorder writes: one Intel PT stream per thread through
 * stub/recorders/stub_rec_thread.h, the mappings over time, the exit.
 *
 * The tool writes into a FIFO in the bundle directory; this side reads it
 * while the program runs (the recorder holds a write end itself, so a
 * read never sees end-of-file; the end is the program's exit, told by
 * waitpid). Every superblock arrives once as its instructions' bytes, so
 * the classification (stub/recorders/stub_rec_insn.h) needs no access to the
 * process. The logical clock counts instructions over all threads, as the
 * software recorder's does. What differs from a native run: Valgrind's
 * load addresses, its CPUID (no AVX-512), threads serialised by Valgrind;
 * docs/record.md says when this recorder fits.
 *
 * The state log (stub/recorders/stub_rec_state.h, written from known values): the
 * tool sends each instruction's general registers and eflags as they are
 * after it, every store's old and new bytes, what syscalls and signal
 * frames write, mapping changes, and whole-register dumps wherever
 * Valgrind changed registers outside an instruction (a syscall, a signal,
 * a thread's start). x87 / SSE / AVX registers are not recorded: the log
 * has no XSAVE area, so readers say they are unavailable.
 * Lifetime: stub_vgrec_new, stub_vgrec_run, stub_vgrec_free (tests:
 * stub_vgrec_feed_new, stub_vgrec_feed..., stub_vgrec_feed_end instead of
 * the first two). Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_STUB_VGREC_H
#define HINDSIGHT_STUB_STUB_VGREC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <signal.h>

#include "stub/recorders/stub_rec.h"

struct replay_bundle;
struct stub_vgrec;

/* Valgrind's own messages (a fatal signal's report, an instruction it
 * cannot run), in the bundle directory, so that the program's stderr is
 * the program's. */
#define STUB_VGREC_LOG "valgrind.log"

struct stub_vgrec_options {
	const char *dir;           /* the bundle directory; created */
	uint32_t psb_period;       /* 0: STUB_REC_PSB_PERIOD */
	bool noretcomp;
	const char *verify;        /* tests: the tool's own trace of every
				    * instruction started ("tid ip" lines) */
	uint64_t snapshot;         /* > 0: each thread's trace and state log
				    * kept as a ring of about this many bytes
				    * (stub/recorders/stub_rec_ring.h) */
	/* A rebuild: the program is run again by the tool's rebuild mode,
	 * fed this light recording's input log (stub/recorders/stub_vglight.h),
	 * instead of for real. NULL: recorded as it runs. */
	const char *inputs;
	/* With inputs: the wait status of the recorded run, the bundle's exit
	 * (a rebuild that stops early ends otherwise). */
	int inputs_wstatus;
	/* With inputs, > 0: a window, rebuilt only from the recorded run's
	 * superblock of this count on (the tool's, vgtool/hsrec_proto.h);
	 * before it the program runs at the light run's speed. Its bundle
	 * starts there ("window"): the registers, and the memory as it was
	 * then. For a run of one image only (no exec). */
	uint64_t window_from;
	/* With inputs: the control flow only (the tool's --hsrec-state=no):
	 * no state log, and a bundle that claims none (history, calls). */
	bool history_only;
	const struct sigaction *inputs_sigint;  /* ... SIGINT's handling for it */
	/* With inputs: the log is a live run's (serve --record valgrind),
	 * which grows while it is read; the rebuild stops at each place a
	 * debugger stopped the run (HSIN_HERE) and goes on when the log
	 * does. At each, with the bundle saved up to there, @here is
	 * called with the live run's superblock count and the thread's ip
	 * there; it returns 0, or a negative errno that ends the rebuild. */
	bool follow;
	/* With inputs, > 0: the log is a light run's that is still going
	 * (`run`): the rebuild trails it, this many superblocks short of
	 * how far it has come, and rebuilds its last this many superblocks
	 * once it ends (a window, as window_from's, placed by the tool).
	 * The run's wait status, unknown as it starts, comes through
	 * @trail_wstatus_fd at the end (4 bytes). */
	uint64_t trail;
	int trail_wstatus_fd;
	int (*here)(void *ctx, uint64_t count, uint64_t ip);
	void *here_ctx;
	void (*progress)(void *ctx);  /* NULL, or called after each periodic save */
	void *progress_ctx;
};

/* The directory Valgrind must find the tool in (VALGRIND_LIB): 
 * $HINDSIGHT_VGTOOL_DIR, else vgtool/ beside the hindsight executable,
 * else ../lib/hindsight/vgtool from it. 1 with @dir filled if the tool
 * and valgrind are there, else 0 with the reason in @why. */
int stub_vgrec_available(char *dir, size_t dsize, char *why, size_t wsize);

/* Starts @argv under Valgrind with the tool, recording into opt->dir.
 * 0, or a negative errno with the reason in @err. */
int stub_vgrec_new(struct stub_vgrec **out, const struct stub_vgrec_options *opt,
		   char *const argv[], char *err, size_t errsize);
/* Records until the program ends (or stub_vgrec_stop: it is killed);
 * saves the bundle. 0, or a negative errno with the reason in @err (the
 * bundle saved as far as it goes). */
int stub_vgrec_run(struct stub_vgrec *r, char *err, size_t errsize);
/* Tests: a recorder into opt->dir (as stub_vgrec_new's, the bundle saved)
 * that runs no Valgrind but is fed the stream; @err, kept, gets the reason
 * of any failure of the calls below. 0 or a negative errno. */
int stub_vgrec_feed_new(struct stub_vgrec **out, const struct stub_vgrec_options *opt,
			char *err, size_t errsize);
/* @n more bytes of the stream, parsed as if a read had brought them (in
 * pieces of what the read buffer takes). The bundle is saved only by
 * stub_vgrec_feed_end, so that the files do not depend on how the stream
 * was cut. 0, or a negative errno (-EPROTO: a malformed stream), which
 * every later call returns too. */
int stub_vgrec_feed(struct stub_vgrec *r, const uint8_t *p, size_t n);
/* The stream ended and the program with wait status @wstatus: checked as
 * stub_vgrec_run checks it, every thread ended, the bundle saved. 0 or a
 * negative errno. */
int stub_vgrec_feed_end(struct stub_vgrec *r, int wstatus);
/* Async-signal-safe: the program is killed, the recording ends. */
void stub_vgrec_stop(struct stub_vgrec *r);
const struct replay_bundle *stub_vgrec_bundle(const struct stub_vgrec *r);
void stub_vgrec_get_summary(const struct stub_vgrec *r, struct stub_rec_summary *s);
/* How far the stream has come: the superblocks entered in the current
 * process image (the tool's own count of them: hsrec_proto.h, HSIN_END),
 * and which image that is (1: the first; one more at each exec). */
void stub_vgrec_progress(const struct stub_vgrec *r, uint64_t *blocks, unsigned *image);
void stub_vgrec_free(struct stub_vgrec *r);

#endif
