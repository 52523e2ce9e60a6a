/*
 * stub/recorders/stub_hwpt_sideband.h: the hardware recorder's DATA area into the
 * recording's image map and gaps.
 *
 * The kernel writes sideband for each traced thread's event into its DATA
 * ring: MMAP2 (images), COMM (exec), ITRACE_START, AUX (with the
 * truncated / overwrite / partial flags), LOST, FORK / EXIT. A per-thread
 * event only sees what its own thread does (the kernel writes an mmap's
 * record to the events of the task that called mmap), so the records of
 * all threads are taken from their rings into one batch and applied in
 * time order: two threads mapping the same range within one drain would
 * otherwise end each other's mappings at the wrong time. Each record is
 * parsed with its sample_id trailer (replay/model/perf_record.h) and applied to
 * the bundle (replay/model/perf_sideband.h: executable mappings over time, gaps
 * "lost" / "truncated"). Times are converted to TSC with the control
 * page's time_zero / time_mult / time_shift when cap_user_time_zero is
 * set, so they compare with the PT stream's TSC packets; otherwise they
 * stay perf time. Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_HWPT_SIDEBAND_H
#define HINDSIGHT_STUB_HWPT_SIDEBAND_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/model/bundle.h"
#include "replay/model/perf_record.h"
#include "replay/model/perf_sideband.h"
#include "stub/recorders/stub_hwpt_ring.h"

struct stub_hwpt_sideband {
	struct replay_perf_sideband sb;
	struct replay_perf_sid_layout layout;
	uint64_t records;          /* applied */
	uint64_t malformed;        /* skipped */
};

/* Records taken out of DATA rings, waiting to be applied in time order. */
struct stub_hwpt_batch_rec {
	size_t off;                /* in buf */
	uint16_t len;
	uint64_t time;             /* its sample time (perf time), or the previous one's */
	size_t seq;                /* arrival order, to keep equal times stable */
};

struct stub_hwpt_batch {
	uint8_t *buf;
	size_t len, cap;
	struct stub_hwpt_batch_rec *recs;
	size_t n, nalloc;
};

/* Starts feeding @b (borrowed) for process @pid; records end with the
 * trailer of @l (the event's sample_id_all / sample_type); @tc may be NULL.
 */
void stub_hwpt_sideband_init(struct stub_hwpt_sideband *s, struct replay_bundle *b,
			     int64_t pid, const struct replay_perf_sid_layout *l,
			     const struct replay_perf_tconv *tc);

/* The time conversion a control page offers (valid iff cap_user_time_zero),
 * read under the page's seqlock (pg->lock) as the kernel's comment in
 * <linux/perf_event.h> asks. */
void stub_hwpt_tconv_from_page(const volatile struct perf_event_mmap_page *pg,
			       struct replay_perf_tconv *tc);

/* Applies the one record in @rec (@len bytes). Returns 0; -EBADMSG for a
 * malformed record (counted in malformed, nothing applied); -ENOMEM. */
int stub_hwpt_sideband_feed(struct stub_hwpt_sideband *s, const void *rec, size_t len);

void stub_hwpt_batch_init(struct stub_hwpt_batch *bt);
void stub_hwpt_batch_release(struct stub_hwpt_batch *bt);

/* Copies and releases every whole record of @data into @bt. A ring whose
 * next header is impossible (size below 8 or past the head) cannot be
 * resynchronized: everything up to the head is dropped and recorded as a
 * "lost" gap. Returns the number of records taken, or -ENOMEM /
 * -EOVERFLOW (counters not a writable ring's). */
int stub_hwpt_sideband_take(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data,
			    struct stub_hwpt_batch *bt);

/* Applies the records of @bt ordered by time (records of equal time, and
 * records without one, keep their order) and empties it. A malformed
 * record is skipped. Returns the number applied, or -ENOMEM. */
int stub_hwpt_sideband_apply(struct stub_hwpt_sideband *s, struct stub_hwpt_batch *bt);

/* take + apply for one ring. */
int stub_hwpt_sideband_drain(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data);

#endif
