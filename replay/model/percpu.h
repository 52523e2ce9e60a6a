/*
 * replay/model/percpu.h: splitting per-cpu Intel PT traces into threads.
 *
 * LLDB's per-cpu bundles ("cpus" in trace.json) hold, for each cpu, one PT
 * stream (a wrapped ring buffer: garbage before its first PSB) and the
 * perf_event context-switch records of that cpu (PERF_RECORD_SWITCH_CPU_WIDE
 * with TID and TIME). The records become executions {tid, TSC start, TSC
 * end} (perf time converted to TSC with tscPerfZeroConversion); the stream
 * is cut into PSB blocks, each with the first TSC after its PSB; a block
 * belongs to the execution whose (start, end) holds that TSC. A thread's
 * history is then its executions in time order, each a list of blocks:
 * replay_thread.segs, which replay/decode/decode.c decodes one block at a time.
 * This is LLDB's model (docs/bundle.md, "Per-cpu bundles"); perf.data with
 * per-cpu mmaps goes through it too (replay_percpu_split_mem, its switch
 * records rewritten in LLDB's layout). Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_PERCPU_H
#define HINDSIGHT_REPLAY_PERCPU_H

#include <stddef.h>
#include <stdint.h>

#include "replay/model/perf_sideband.h"

struct replay_bundle;
struct replay_cpu;
struct replay_thread;

/* One cpu of the manifest; the files are bundle-relative. */
struct replay_percpu_cpu {
	uint32_t id;
	char *pt_file;             /* "iptTrace" */
	char *switch_file;         /* "contextSwitchTrace" */
};

enum replay_percpu_kind {
	REPLAY_EXEC_COMPLETE,      /* switch-in and switch-out seen */
	REPLAY_EXEC_ONLY_START,    /* the last record: an in with no out */
	REPLAY_EXEC_ONLY_END,      /* the first record: an out with no in */
	REPLAY_EXEC_HINTED_START,  /* an out after another out */
	REPLAY_EXEC_HINTED_END,    /* an in followed by another in */
};

/* A thread running on one cpu without a switch. */
struct replay_percpu_exec {
	enum replay_percpu_kind kind;
	int64_t pid, tid;
	uint64_t start;            /* TSC; 0 if unknown */
	uint64_t end;              /* TSC; UINT64_MAX if unknown */
	uint64_t lowest;           /* the lowest TSC actually known */
};

/* A PSB block of a per-cpu stream. */
struct replay_percpu_block {
	uint64_t offset, size;
	uint64_t tsc;              /* first TSC after the PSB; 0 if none */
};

/* The executions in context-switch trace @data of @size bytes, in record
 * order, into *@out (free() it). Returns their number, -EINVAL with
 * *@bad_offset set for a malformed record (size 0 or > 8000, a record past
 * the end, times not increasing), -ENOMEM. */
int replay_percpu_switches(const uint8_t *data, size_t size, const struct replay_perf_tconv *tc,
			   struct replay_percpu_exec **out, size_t *bad_offset);

/* The PSB blocks of PT stream @pt (libipt's query decoder with @cpu's
 * errata), into *@out (free() it). Returns their number, -EINVAL (libipt
 * refuses the cpu), -ENOMEM. */
int replay_percpu_blocks(const struct replay_cpu *cpu, const uint8_t *pt, size_t size,
			 struct replay_percpu_block **out);

/* Fills b->threads[].segs from @cpus; threads of process b->pid seen in
 * the switch records but not listed are added (LLDB does the same). 0, or
 * a negative errno with a one-line reason in @err ("cores/45.perf_context_
 * switch_trace: malformed record at offset 32", "cores/45.intelpt_trace: No
 * such file or directory"). */
int replay_percpu_split(struct replay_bundle *b, const struct replay_percpu_cpu *cpus,
			size_t ncpus, const struct replay_perf_tconv *tc, char *err, size_t errsize);

/* One cpu's streams in memory (perf.data's per-cpu mmaps). */
struct replay_percpu_mem {
	uint32_t id;
	const char *pt_file;       /* the name its segments get; for messages too */
	const char *switch_name;   /* for messages */
	const uint8_t *pt;         /* the PT stream */
	size_t pt_size;
	const uint8_t *switches;   /* SWITCH_CPU_WIDE records in LLDB's layout */
	size_t switches_size;
};

/* replay_percpu_split on cpus in memory; the segments name each cpu's
 * pt_file (which need not exist: the caller maps them back to @cpus). */
int replay_percpu_split_mem(struct replay_bundle *b, const struct replay_percpu_mem *cpus,
			    size_t ncpus, const struct replay_perf_tconv *tc, char *err,
			    size_t errsize);

/* Writes thread @thread's segments, one after the other, as one PT file
 * at @path (what `hindsight import` keeps of a per-cpu bundle, with the
 * segments rebased onto it by replay_percpu_rebase). 0 or a negative
 * errno. */
int replay_percpu_write_thread(const struct replay_bundle *b, size_t thread, const char *path);

/* Points @t's segments at @file, holding them one after the other (what
 * replay_percpu_write_thread wrote): offsets become cumulative sizes;
 * sizes, cpus and TSCs stay. 0 or -ENOMEM. */
int replay_percpu_rebase(struct replay_thread *t, const char *file);

#endif
