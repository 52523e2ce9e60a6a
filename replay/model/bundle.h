/*
 * replay/model/bundle.h: a recording, in memory and on disk.
 *
 * A recording is a directory (a "bundle") whose manifest, trace.json, is a
 * superset of LLDB's Intel PT trace bundle: LLDB's keys (type, cpuInfo,
 * processes[].threads[].iptTrace, processes[].modules[]) plus hindsight's
 * own under "hindsight" (format version, recorder, image mappings over
 * time, state logs, gaps). docs/bundle.md is the format's reference.
 *
 * Time in a recording is a logical clock shared by all threads: the
 * software recorder counts every instruction it steps, in any thread, and
 * writes that count as the TSC value of its PT streams. An image mapping is
 * valid for times [time_map, time_unmap).
 *
 * Lifetime: replay_bundle_new or replay_bundle_load, then replay_bundle_free.
 * The add functions copy their strings. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_BUNDLE_H
#define HINDSIGHT_REPLAY_BUNDLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define REPLAY_BUNDLE_VERSION 1
#define REPLAY_TIME_NEVER UINT64_MAX

struct replay_cpu {
	char vendor[16];           /* "GenuineIntel", or "" when unknown */
	unsigned family, model, stepping;
};

/* An executable mapping of a file (or of a dumped image such as the vDSO)
 * into the process, over a span of time. */
struct replay_mapping {
	uint64_t time_map;         /* logical time it appeared; 0 from the start */
	uint64_t time_unmap;       /* REPLAY_TIME_NEVER if it stayed */
	uint64_t start;            /* address of the mapping */
	uint64_t size;
	uint64_t offset;           /* file offset mapped at start */
	char *file;                /* the bytes: bundle-relative or absolute */
	char *system_path;         /* the path the process mapped */
	char *uuid;                /* build-id as hex, or NULL */
	bool found_elsewhere;      /* @file is a copy the loader found (perf's
				    * build-id cache, --image-dir), not the
				    * file trace.json names; not saved */
};

/* A piece of a per-cpu PT stream that belongs to one thread (LLDB per-cpu
 * bundles, perf.data with per-cpu mmaps, replay/model/percpu.h): one PSB block,
 * [offset, offset + size) of @file, decoded on its own; decoding stops at
 * an event whose TSC is at or past @tsc_end (the thread was switched out
 * there). An imported bundle keeps them in trace.json, @file then being
 * the thread's own file of its segments one after the other. */
struct replay_pt_segment {
	char *file;                /* bundle-relative PT file */
	uint64_t offset, size;     /* the PSB block: starts with a PSB */
	uint64_t tsc_end;          /* UINT64_MAX: no known end */
	uint32_t cpu;
	uint64_t tsc_start;        /* when the thread was switched in; 0: unknown */
};

/* How much of a file with checksums may be read (replay/model/sums.h),
 * as replay_bundle_check_sums found; all zero: all of it (not checked, or
 * no checksums). Not saved. */
struct replay_sums_check {
	bool cut;                  /* damaged: only its first @trust bytes are read */
	uint64_t trust;
	const char *why;           /* what was found at @trust */
	/* How far the check went, to go on from there when the recording grew: */
	uint64_t off;              /* bytes of good blocks */
	uint64_t recs;             /* records read */
};

/* The bytes of a file of @size bytes that may be read. */
static inline uint64_t replay_sums_readable(const struct replay_sums_check *c, uint64_t size)
{
	return c->cut && c->trust < size ? c->trust : size;
}

struct replay_thread {
	int64_t tid;
	char *pt_file;             /* bundle-relative PT stream */
	char *state_file;          /* bundle-relative state log, or NULL */
	char *pt_sums, *state_sums;/* their checksums (replay/model/sums.h), or NULL */
	struct replay_sums_check pt_check, state_check;
	uint64_t instructions;     /* as counted by the recorder; 0 if unknown */
	/* When pt_file is NULL: the thread's history as pieces of per-cpu
	 * streams, in time order (hindsight.threads[].segments in trace.json;
	 * a loaded thread with segments has pt_file NULL). */
	struct replay_pt_segment *segs;
	size_t nsegs;
};

/* Something missing from the recording: lost trace, unknown state, ... */
struct replay_gap {
	int64_t tid;
	uint64_t time;
	char *kind;                /* "lost", "state-unknown", "image-missing", ... */
	char *text;
};

/* A file of the recording held in memory rather than on disk: the PT
 * streams of a perf.data opened directly. Readers of a bundle-relative
 * file ask replay_bundle_mem_find before the file system. */
struct replay_bundle_mem {
	char *file;                /* its bundle-relative name ("threads/12.pt") */
	uint8_t *data;             /* owned */
	size_t size;
};

struct replay_bundle {
	char *dir;                 /* where it was loaded from / saved to (a
				    * perf.data's: the directory it is in) */
	char *perf_file;           /* a perf.data opened directly: its path */
	int64_t owner;             /* the uid owning the recording (its directory,
				    * or the perf.data) when it was opened; -1:
				    * not known. Whose files the debugger may read */
	unsigned version;
	char *recorder;            /* "software", "hardware", "lldb", "perf" */
	char *start;               /* "exec": recorded from the program's first
				    * instruction; "attach"; NULL: not said */
	struct replay_cpu cpu;
	int64_t pid;
	char **argv;               /* the command recorded, NULL-terminated */
	uint32_t psb_period;       /* bytes between PSBs the recorder aimed at */
	bool ret_compression;
	bool complete;             /* false: the recorder did not finish */
	char *exit_kind;           /* "exited", "signaled", "running", "detached" */
	int exit_status;           /* exit code, or signal number */
	uint64_t end_time;         /* the logical time at the end of recording */

	/* libipt timing configuration (hardware recordings; 0 if none). */
	uint8_t mtc_freq, nom_freq;
	uint32_t cpuid_0x15_eax, cpuid_0x15_ebx;

	struct replay_thread *threads;
	size_t nthreads;
	struct replay_mapping *maps;
	size_t nmaps;
	struct replay_gap *gaps;
	size_t ngaps;
	/* What the reader found that a user must hear (an image that is not
	 * the recorded build), one line each; not saved. */
	char **notes;
	size_t nnotes;
	/* Files in memory (perf.data's streams), not saved by
	 * replay_bundle_save: writing them is `hindsight import`'s job. */
	struct replay_bundle_mem *mem;
	size_t nmem;
};

/* An empty bundle (version REPLAY_BUNDLE_VERSION, recorder NULL). 0 or
 * -ENOMEM. */
int replay_bundle_new(struct replay_bundle **out);
void replay_bundle_free(struct replay_bundle *b);

/* Reads @dir/trace.json, or @dir itself when it names a manifest file (as
 * LLDB's `trace load` takes it): a hindsight bundle or an LLDB Intel PT
 * bundle (its modules become mappings from time 0, from their ELF program
 * headers).
 * Returns 0, or a negative errno with a one-line reason in @err
 * ("trace.json:12: ...", "bundle format 3 is newer than this hindsight
 * reads (1)", "threads/4.pt: No such file or directory"). */
int replay_bundle_load(const char *dir, struct replay_bundle **out, char *err, size_t errsize);
/* @dir may also be a perf.data file: it is read into a bundle in memory
 * (its PT streams as in-memory files, its images found as `hindsight
 * import` finds them); nothing is written. Its errors are
 * replay_perf_data_read's ("perf.data: record at offset 0x1234: ..."). */
/* Removes @dir and everything below it (a temporary bundle). */
void replay_bundle_remove_tree(const char *dir);

/* Writes @b as @dir/trace.json, atomically (a temporary file renamed over
 * the old one), so a reader never sees half a manifest. 0 or a negative
 * errno. */
int replay_bundle_save(const struct replay_bundle *b, const char *dir);

/* The program's path as the process mapped it: the mapping whose file has
 * argv[0]'s base name, else argv[0]; NULL without an argv. */
const char *replay_bundle_program_path(const struct replay_bundle *b);

/* The system path of a page of code the program made itself, kept by the
 * Valgrind recorders (stub/recorders/stub_rec_code.h): bytes to decode,
 * no file of the program's (no symbols, no library). */
#define REPLAY_GENERATED_CODE "[generated code]"
bool replay_mapping_generated(const struct replay_mapping *m);

/* Appenders; each returns the new element's index or -ENOMEM. */
int replay_bundle_add_thread(struct replay_bundle *b, int64_t tid, const char *pt_file);
int replay_bundle_add_mapping(struct replay_bundle *b, const struct replay_mapping *m);
int replay_bundle_add_gap(struct replay_bundle *b, int64_t tid, uint64_t time,
			  const char *kind, const char *text);
/* Adds @text to b->notes unless it is there already; 0 or -ENOMEM. */
int replay_bundle_add_note(struct replay_bundle *b, const char *text);
/* Adds @size bytes at @data (malloced; the bundle takes them, also on
 * failure) as the in-memory file @file. 0 or -ENOMEM. */
int replay_bundle_add_mem(struct replay_bundle *b, const char *file, uint8_t *data, size_t size);
/* The in-memory file @file (bundle-relative, as a thread or segment names
 * it), or NULL when it is not in memory (read it from disk). */
const struct replay_bundle_mem *replay_bundle_mem_find(const struct replay_bundle *b,
						       const char *file);
/* The size of bundle-relative @file, in memory or on disk: 0, or -ENOENT
 * (@file NULL), -ENAMETOOLONG, stat's -errno. */
int replay_bundle_file_size(const struct replay_bundle *b, const char *file, uint64_t *size);
/* Sets b->argv (copied); 0 or -ENOMEM. */
int replay_bundle_set_argv(struct replay_bundle *b, char *const argv[]);
/* Sets a string field (recorder, exit_kind) to a copy of @s; 0 or -ENOMEM. */
int replay_bundle_set_str(char **field, const char *s);

/* The uid whose files a debugger of the recording at @path may read: the
 * owner of its directory (of trace.json's, for a manifest named), or of
 * the perf.data; -1 when it cannot be told. What replay_bundle_load puts
 * in owner. */
int64_t replay_bundle_owner_of(const char *path);

/* A recording holds the program's memory and environment: it is its
 * owner's alone, as a core dump is. Every writer of one (the recorders,
 * import, run, serve -o) makes its directories with replay_bundle_mkdir
 * (0700) and its files with replay_bundle_create (0600). */
#define REPLAY_BUNDLE_DIR_MODE 0700
#define REPLAY_BUNDLE_FILE_MODE 0600
/* mkdir(@path, 0700); a directory already there is kept as it is. 0 or
 * -errno. */
int replay_bundle_mkdir(const char *path);
/* @path created for writing, close-on-exec, 0600: a file already there
 * is removed first (a reader keeps its copy). The descriptor or -errno. */
int replay_bundle_create(const char *path);
/* The same, but a file already there is truncated where it is: for one
 * others lock (a light recording's inputs.env, cli_rebuild_lock), whose
 * lock must stay on the one file. */
int replay_bundle_rewrite(const char *path);
/* The same as a stdio stream; NULL with errno set. */
FILE *replay_bundle_fcreate(const char *path);

/* "threads/TID.@ext" for a new thread @tid of @b, in @buf, or
 * "threads/TID.N.@ext" (N: the thread's index) when @b has a thread @tid
 * already (a tid used again: each thread its own files). */
void replay_bundle_thread_file(const struct replay_bundle *b, int64_t tid, const char *ext,
			       char *buf, size_t size);

/* The path of bundle-relative @file (absolute paths are kept) in @buf.
 * 0 or -ENAMETOOLONG. */
int replay_bundle_path(const struct replay_bundle *b, const char *file, char *buf, size_t size);

#endif
