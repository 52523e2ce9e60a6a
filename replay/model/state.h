/*
 * replay/model/state.h: past registers and memory from a software recording's
 * state logs (threads/TID.state; docs/bundle.md, "State log").
 *
 * A position is (thread, instruction index): the thread is stopped before
 * its instruction number @index (1-based, the numbering of the decoded
 * history), i.e. after instruction @index - 1. Registers there are redone
 * from the nearest checkpoint at or before it (one every 16K
 * instructions; stepping forward continues from the last answer). Memory
 * is shared by the threads and answered by logical time: at time T it is
 * what every write up to T left (the new bytes of the latest write), or
 * for bytes written only later the old bytes of the first later write.
 * Bytes no write ever touched, or that a mapping change, exec or the
 * kernel (rseq, shared mappings) made unknowable, are not known: the
 * caller reads them from the images or reports them unavailable.
 *
 * Times and positions map both ways (a thread's positions have growing
 * times: other threads' instructions fall between two of them), and the
 * logged writes of a range can be searched by time, for watchpoints.
 *
 * The logs are mapped at open and parsed once; what stays in memory is
 * an index of chunks (a thread's records between two checkpoints) by the
 * 512-byte blocks each writes, not of the writes: a read or a search
 * parses the few chunks that wrote the words it asks for. Lifetime:
 * replay_state_open / replay_state_free. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_STATE_H
#define HINDSIGHT_REPLAY_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/rsp_regs.h"
#include "replay/model/state_format.h"

struct replay_bundle;
struct replay_state;


/* Reads the state log of every thread of @b that has one. 0, -ENOENT
 * (no thread has a state log; the recording is not a software one),
 * -EINVAL for a log that is not one (with the file in @err), -ENOMEM.
 * A log that ends mid-record (a recorder that died) is read up to there. */
int replay_state_open(const struct replay_bundle *b, struct replay_state **out, char *err,
		      size_t errsize);
void replay_state_free(struct replay_state *st);

/* Memory reads and write searches keep the decoded writes of the few
 * chunks they parsed last (replay/model/state_cache.h: STATE_CACHE_ENTRIES
 * chunks, STATE_CACHE_BYTES at most; the environment's
 * HINDSIGHT_STATE_CACHE=N at open sets how many, 0 none), so reads near
 * one another in memory or time parse each chunk once. Answers are the
 * same with it or without. replay_state_cache_set empties it and sets how
 * many chunks it keeps (0 turns it off: for tests that compare);
 * replay_state_cache_drop empties it (replay_state_extend does, as the
 * logs are mapped again there, although a chunk that grew would be
 * another key anyway); replay_state_cache_stats says how many chunk lookups hit and
 * missed since open (0 and 0 with it off). */
void replay_state_cache_set(struct replay_state *st, size_t entries);
void replay_state_cache_drop(struct replay_state *st);
void replay_state_cache_stats(const struct replay_state *st, uint64_t *hits, uint64_t *misses);

/* Extends @st, opened over an earlier state of the same recording, to
 * @b's, whose logs are the old ones with records appended (a live
 * recording saved again) and maybe logs of new threads: each grown log is
 * scanned again from its last checkpoint (a chunk, 16K instructions at
 * most), so it costs what was recorded since; @st then answers as
 * replay_state_open(@b) would. A log taken as whole by
 * replay_state_set_whole is no longer: set it again. 0; -ESTALE when the
 * logs are not the old ones grown (a thread's log gone or shorter, a log
 * that was read rather than mapped) or an exec came since (the caller
 * opens the recording again); -EINVAL, -ENOMEM, -errno. On an error @st
 * is only good for replay_state_free. */
int replay_state_extend(struct replay_state *st, const struct replay_bundle *b);

/* Whether @tid's log was cut short: it does not end with the end record
 * a recorder writes when the thread or the recording ends (a recorder
 * killed, a disk full, an older recorder's log). If so, it is whole up to
 * *@position (registers there and before are known; after it
 * replay_state_raw_at says -ENODATA) and at times before *@time (memory
 * at later times is unknown to every thread, and write searches that
 * reach past it say -ENODATA). */
bool replay_state_cut(const struct replay_state *st, int64_t tid, uint64_t *position,
		      uint64_t *time);

/* Takes every log as whole, none as cut short: a live recorder's, read
 * while it goes on (everything up to now flushed, the end record not
 * written yet). */
void replay_state_set_whole(struct replay_state *st);

/* The index of @tid's last record (instructions after it changed nothing
 * the log records; the bundle's thread.instructions is the count), or 0. */
uint64_t replay_state_last_index(const struct replay_state *st, int64_t tid);

/* The logical time at position (@tid, @index): what read_mem takes. 0 or
 * -ENOENT (no such thread or index 0). It is the time of instruction
 * @index - 1 (so the time instruction @index runs at is the time at
 * @index + 1); positions past the log continue it one by one. */
int replay_state_time_at(struct replay_state *st, int64_t tid, uint64_t index, uint64_t *time);

/* The inverse: the position of @tid at logical time @time, the last one
 * whose time is <= @time (the thread's state once everything up to @time
 * ran). It may lie past the thread's history: the caller bounds it. 0, or
 * -ENOENT (no such thread, or @time is before its position 1; *@position
 * is then 1). */
int replay_state_position_at(struct replay_state *st, int64_t tid, uint64_t time,
			     uint64_t *position);

/* The registers at (@tid, @index) as struct user_regs_struct's 27 fields
 * in @gp (rip is the value of the last record: the caller knows the real
 * one from the history) and the XSAVE area (standard layout, as ptrace's
 * NT_X86_XSTATE) in @xs, REPLAY_STATE_XMAX bytes, its length in *@xs_len.
 * Either may be NULL. Positions after the last record have its state
 * (the caller bounds @index by the history). 0, -ENOENT (no such thread,
 * or @index 0), -ENODATA (past where a log cut short is whole:
 * replay_state_cut), -EINVAL (a corrupt log). */
int replay_state_raw_at(struct replay_state *st, int64_t tid, uint64_t index,
			uint64_t gp[REPLAY_STATE_NGP], uint8_t *xs, size_t *xs_len);

/* The same as GDB's registers (general, segment, x87, SSE, ymm upper
 * halves, fs / gs base, orig_rax); rip is left unavailable for the caller
 * to fill from the history. Same returns as replay_state_raw_at. */
int replay_state_regs_at(struct replay_state *st, int64_t tid, uint64_t index,
			 struct rsp_regs *out);

/* @len bytes at @addr as they were at logical time @time, into @buf. In
 * @known (NULL or @len bytes), 1 for each byte the log knows, else 0 (its
 * byte in @buf is 0). 0 if all were known, -ENOENT if some were not (or
 * -ENOMEM). */
int replay_state_read_mem(const struct replay_state *st, uint64_t time, uint64_t addr,
			  void *buf, size_t len, uint8_t *known);

/* No user address reaches this (57-bit virtual addresses at most): bytes
 * at or above it are unknown. */
#define REPLAY_STATE_ADDR_LIMIT (1ull << 57)

/* What replay_state_read_mem_status says of each byte. */
enum replay_state_byte {
	REPLAY_STATE_UNTOUCHED = 0, /* nothing logged ever changed it (no write,
				     * mapping change or exec): its value at the
				     * end of the recording is its value then */
	REPLAY_STATE_KNOWN = 1,     /* from the log */
	REPLAY_STATE_UNKNOWN = 2,   /* made unknowable: a mapping change, the
				     * kernel writing it unseen, an exec */
};

/* replay_state_read_mem with a status per byte in @status (@len bytes,
 * enum replay_state_byte). Same returns, never -ENOMEM. */
int replay_state_read_mem_status(const struct replay_state *st, uint64_t time, uint64_t addr,
				 void *buf, size_t len, uint8_t *status);

/* replay_state_read_mem_status whose runs of bytes the log does not know
 * are asked of @fill (@untouched: REPLAY_STATE_UNTOUCHED, nothing logged
 * ever changed them; else REPLAY_STATE_UNKNOWN), which returns how many it
 * read from the run's start or < 0. Up to 4096 bytes: the number of bytes
 * known from @addr on (the log's or @fill's), or -ENODATA when none. */
int replay_state_read_mem_filled(const struct replay_state *st, uint64_t time, uint64_t addr,
				 void *buf, size_t len,
				 int (*fill)(void *ctx, bool untouched, uint64_t addr, uint8_t *buf,
					     size_t len),
				 void *ctx);

/* A logged write (a MEM record): the thread and instruction that made it
 * (the record applies after instruction @index: position @index is the
 * state before it, @index + 1 the state after it), its logical time and
 * its range. */
struct replay_state_write {
	int64_t tid;
	uint64_t index;
	uint64_t time;
	uint64_t addr, len;
};

/* The latest logged write overlapping [@addr, @addr + @len) with time <
 * @time (write_before), or the earliest with time > @time (write_after),
 * into *@out; of several writes at one time, the last (before) or first
 * (after) logged. Writes of every thread count; memory a mapping change or
 * the kernel altered does not (those are not writes), and neither search
 * crosses an exec. 0, -ENOENT when there is none, or -ENODATA when the
 * answer may lie past where a log cut short ends (replay_state_cut). Cost: per 512-byte
 * block of the range, a binary search, then the chunks that wrote the
 * block's words asked for, from @time to the answer, each parsed once. */
int replay_state_write_before(const struct replay_state *st, uint64_t addr, uint64_t len,
			      uint64_t time, struct replay_state_write *out);
int replay_state_write_after(const struct replay_state *st, uint64_t addr, uint64_t len,
			     uint64_t time, struct replay_state_write *out);

/* A mapping record (docs/bundle.md, "State log", MAP): memory that changed
 * other than by a logged write, after the instruction at (@tid, @index)
 * (a brk, mmap, munmap, mremap or madvise system call), at logical time
 * @time; @how is its enum replay_state_map (state_format.h). */
struct replay_state_mapping {
	int64_t tid;
	uint64_t index;
	uint64_t time;
	uint64_t addr, len;
	int how;
};

/* The latest mapping record overlapping [@addr, @addr + @len) with time
 * <= @time, into *@out, not across an exec (replay/model/state_map.c). 0,
 * or -ENOENT when there is none. */
int replay_state_map_before(const struct replay_state *st, uint64_t addr, uint64_t len,
			    uint64_t time, struct replay_state_mapping *out);

#endif
