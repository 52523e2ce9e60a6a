/*
 * stub/stub_hwpt_sideband.h: the hardware recorder's DATA area into the
 * recording's image map and gaps.
 *
 * The kernel writes sideband for each traced thread's event into its DATA
 * ring: MMAP2 (images), COMM (exec), ITRACE_START, AUX (with the
 * truncated / overwrite / partial flags), LOST, SWITCH, FORK / EXIT. This
 * drains a ring (stub/stub_hwpt_ring.h), parses each record with its
 * sample_id trailer (replay/perf_record.h) and applies it to the bundle
 * (replay/perf_sideband.h: executable mappings over time, gaps "lost" /
 * "truncated"). Times are converted to TSC with the control page's
 * time_zero / time_mult / time_shift when cap_user_time_zero is set, so
 * they compare with the PT stream's TSC packets; otherwise they stay perf
 * time. Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_HWPT_SIDEBAND_H
#define HINDSIGHT_STUB_HWPT_SIDEBAND_H

#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/bundle.h"
#include "replay/perf_record.h"
#include "replay/perf_sideband.h"
#include "stub/stub_hwpt_ring.h"

struct stub_hwpt_sideband {
	struct replay_perf_sideband sb;
	struct replay_perf_sid_layout layout;
	uint64_t records;          /* applied */
	uint64_t malformed;        /* skipped */
};

/* Starts feeding @b (borrowed) for process @pid; records end with the
 * trailer of @l (the event's sample_id_all / sample_type); @tc may be NULL.
 */
void stub_hwpt_sideband_init(struct stub_hwpt_sideband *s, struct replay_bundle *b,
			     int64_t pid, const struct replay_perf_sid_layout *l,
			     const struct replay_perf_tconv *tc);

/* The time conversion a control page offers (valid iff cap_user_time_zero). */
void stub_hwpt_tconv_from_page(const struct perf_event_mmap_page *pg,
			       struct replay_perf_tconv *tc);

/* Applies the one record in @rec (@len bytes). Returns 0; -EBADMSG for a
 * malformed record (counted in malformed, nothing applied); -ENOMEM. */
int stub_hwpt_sideband_feed(struct stub_hwpt_sideband *s, const void *rec, size_t len);

/* Applies and releases every whole record in @data. A malformed record is
 * skipped; a ring whose next header is impossible (size below 8 or past
 * the head) cannot be resynchronized: everything up to the head is
 * dropped and recorded as a "lost" gap. Returns the number of records
 * applied, or -ENOMEM / -EOVERFLOW (counters not a writable ring's). */
int stub_hwpt_sideband_drain(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data);

#endif
