/*
 * stub/stub_rec.h: the software recorder: a process single-stepped with
 * ptrace from its first instruction (or from the attach), each step turned
 * into Intel PT packets (stub/stub_rec_thread.h), one stream per thread,
 * saved as a bundle (replay/bundle.h) in a directory.
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
};

struct stub_rec_summary {
	uint64_t instructions;
	size_t threads;
	size_t gaps;
	uint64_t trace_bytes;
	uint64_t state_bytes;
};

/* Starts @argv stopped at its first instruction (stub_spawn_start). */
int stub_rec_spawn(char *const argv[], pid_t *pid);
/* Attaches to every thread of @pid and waits until each is stopped. 0,
 * -ESRCH, -EPERM or another negative errno (then nothing stays attached). */
int stub_rec_attach(pid_t pid);

/* A recorder of @pid (stopped, from stub_rec_spawn or stub_rec_attach);
 * @argv is what the bundle records as the command (NULL: from
 * /proc/PID/cmdline). Creates the directory and saves a first bundle.
 * 0 or a negative errno. */
int stub_rec_new(struct stub_rec **out, const struct stub_rec_options *opt, pid_t pid,
		 char *const argv[], bool attached);
/* Records until the process ends, or until stub_rec_stop (attached: the
 * process is detached and runs on; spawned: it is killed). Saves the
 * final bundle. 0 or a negative errno (the bundle is saved as far as it
 * goes). */
int stub_rec_run(struct stub_rec *r);
/* Asks stub_rec_run to end at the next instruction; async-signal-safe. */
void stub_rec_stop(struct stub_rec *r);
const struct replay_bundle *stub_rec_bundle(const struct stub_rec *r);
void stub_rec_get_summary(const struct stub_rec *r, struct stub_rec_summary *s);
void stub_rec_free(struct stub_rec *r);

#endif
