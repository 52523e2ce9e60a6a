/*
 * replay/model/perf_sideband.h: perf sideband records into a recording's image
 * map and gaps.
 *
 * Both hardware-PT sources, the perf.data reader and the live hardware
 * recorder's DATA area, feed parsed records (replay/model/perf_record.h) here in
 * the order they were written. Executable MMAP / MMAP2 records of the
 * traced process become replay_mapping entries (a new mapping ends the
 * ones it covers; an exec, COMM with PERF_RECORD_MISC_COMM_EXEC, ends them
 * all); AUX records flagged truncated / partial / collision and LOST
 * records become replay_gap entries; EXIT of the process sets end_time.
 * A recording with no EXIT (perf --snapshot stopped by a signal, perf
 * killed) ends at the latest time its records know: latest_time, which
 * the perf.data reader takes with its AUX data and samples.
 *
 * Time: a record's sample_id time is perf time (the kernel's perf clock,
 * ns). When the perf_event_mmap_page's time conversion is known
 * (cap_user_time_zero), it is converted to TSC, the clock of the PT
 * stream's TSC packets, so mapping times compare with pt_blk_time; without
 * it the perf time is kept as it is (and the decoder cannot order image
 * changes against the trace). A record without a time takes the previous
 * record's; time 0 (perf's synthesized records for what was mapped before
 * recording started) stays 0, "from the start". Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_PERF_SIDEBAND_H
#define HINDSIGHT_REPLAY_PERF_SIDEBAND_H

#include <stdbool.h>
#include <stdint.h>

#include "replay/model/bundle.h"
#include "replay/model/perf_record.h"

/* perf time <-> TSC, from perf_event_mmap_page (time_shift, time_mult,
 * time_zero) or from perf.data's AUXTRACE_INFO. */
struct replay_perf_tconv {
	bool valid;                /* cap_user_time_zero */
	uint16_t time_shift;
	uint32_t time_mult;
	uint64_t time_zero;
};

/* TSC for perf time @t (the inverse of the kernel's TSC-to-ns formula), or
 * @t itself if the conversion is not valid. */
uint64_t replay_perf_time_to_tsc(const struct replay_perf_tconv *c, uint64_t t);
/* Perf time for @tsc (the kernel's own formula); @tsc if not valid. */
uint64_t replay_perf_tsc_to_time(const struct replay_perf_tconv *c, uint64_t tsc);

struct replay_perf_sideband {
	struct replay_bundle *b;   /* borrowed: must outlive this */
	struct replay_perf_tconv tconv;
	int64_t pid;               /* the traced process; -1: take the first MMAP's */
	uint64_t last_time;        /* converted time of the last timed record */
	uint64_t latest_time;      /* the latest converted time of any record */
	uint64_t lost_records;     /* sum of LOST records */
	uint64_t truncated;        /* AUX records flagged truncated */
	const char *vdso_file;     /* NULL, or a copy of this kernel's vDSO (the live
				    * recorder's): "[vdso]" maps it instead of a gap */
};

/* Starts feeding @b. @tc may be NULL (no conversion). */
void replay_perf_sideband_init(struct replay_perf_sideband *sb, struct replay_bundle *b,
			       const struct replay_perf_tconv *tc, int64_t pid);

/* The converted time of @r (see above). */
uint64_t replay_perf_sideband_time(struct replay_perf_sideband *sb,
				   const struct replay_perf_record *r);

/* Applies @r. Records that matter to nothing here are ignored (0).
 * Returns 0 or -ENOMEM. */
int replay_perf_sideband_add(struct replay_perf_sideband *sb, const struct replay_perf_record *r);

#endif
