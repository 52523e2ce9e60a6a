/*
 * cli/cli_record.h: `hindsight record`, a program's run to a recording.
 */
#ifndef HINDSIGHT_CLI_CLI_RECORD_H
#define HINDSIGHT_CLI_CLI_RECORD_H

#include <stdbool.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <sys/types.h>

/* How a recorded run ended. */
struct cli_record_result {
	char dir[4096];            /* the bundle */
	bool recorded;             /* false: the program could not be started or recorded */
	int status;                /* the exit status to pass on (128 + signal if killed) */
	int signo;                 /* the signal that killed the program, or 0 */
	int wstatus;               /* its wait status */
};

/* A light run's window rebuilt beside it as it goes (`run`): a rebuild
 * that trails the run's log, @last superblocks short of how far the run
 * has come, and rebuilds its last @last superblocks once the run ends
 * (docs/rebuild.md, "Following the light run"). Started by
 * cli_record_program, ended by cli_rebuild_trail_end. */
struct cli_trail {
	uint64_t last;
	pid_t pid;                 /* the rebuild's process (and group), or 0 */
	int fd;                    /* the run's wait status goes to it */
	int out;                   /* what it says (a memfd), said if its window is shown */
	struct sigaction sigint;   /* SIGINT's handling, for the program */
	char **argv;
};

/* Runs @argv under the recorder @mode names (stub/recorders/stub_recorder.h: sw,
 * valgrind, light, ...) into @dir (NULL: the default hindsight-PROG-PID; a
 * light recording's history rebuilt by cli_rebuild_pending when needed),
 * silently unless something goes wrong (then a message on stderr);
 * @snapshot > 0 keeps only about the newest that many bytes of each
 * thread's trace and state. 0 with @res filled, or -1 if nothing was
 * recorded (@res->status is then 1). Shared with `hindsight run`. */
int cli_record_program(char **argv, const char *dir, uint64_t snapshot, const char *mode,
		       struct cli_trail *trail, struct cli_record_result *res);
/* After cli_record_program with @t: with @want, the window it rebuilt
 * is the bundle (the messages cli_rebuild_pending_last gives), or that
 * rebuild is made now if the trailing one could not (the run exec'd or
 * was no longer than the window, or it failed); without, the trailing
 * rebuild is stopped. 0, or -1 if no rebuild was made (said). */
int cli_rebuild_trail_end(struct cli_trail *t, const char *dir, int wstatus, bool want);
/* Deletes what a recorder wrote into @dir (its manifest, threads/,
 * images/, Valgrind's log), then @dir if nothing else is in it. */
void cli_record_delete(const char *dir);
/* A size with an optional K / M / G suffix, 4 KiB .. 1 GiB: 0, or -1. */
int cli_record_size(const char *s, uint64_t *out);

int cli_record_main(int argc, char **argv);
/* A light recording in @dir whose history and state are not rebuilt yet
 * are rebuilt now, saying so (a command that needs registers or memory
 * calls this before it opens @dir). 0, or -1 if the rebuild failed (said). */
int cli_rebuild_pending(const char *dir);
/* The same for a command that needs the history only (history, calls):
 * a recording not rebuilt yet is rebuilt without its state, several times
 * faster; the next command that needs the state rebuilds the whole. */
int cli_rebuild_pending_history(const char *dir);
/* The same, only about the last @last superblocks of the run if it is
 * rebuilt now (@last 0: the whole; `run` on a crash). */
int cli_rebuild_pending_last(const char *dir, uint64_t last);
/* Rebuilds the light recording in @dir (absolute), whose log a live run
 * under Valgrind still writes (serve --record valgrind), in a child that
 * takes the recorded run's working directory and environment, in its own
 * process group (*@pid: the child and the group; killed when this
 * process ends), at a lower priority than the live program's. It follows
 * the log, rebuilding as far as the live run wrote it: at each place the
 * debugger stopped the run (HSIN_HERE) it saves the bundle up to there
 * and writes the stop's superblock count and ip (two u64) to the pipe it
 * returns in *@fd; it ends at a divergence or the end (EOF on *@fd). 0,
 * or a negative errno. */
int cli_rebuild_follow(const char *dir, int *fd, pid_t *pid);
/* `hindsight rebuild DIR`: a light recording's bundle rebuilt again. */
int cli_rebuild_main(int argc, char **argv);
void cli_rebuild_usage(FILE *out);
void cli_record_usage(FILE *out);

#endif
