/*
 * stub/stub_hwpt_sideband.c: DATA ring records into mappings and gaps
 * (stub/stub_hwpt_sideband.h).
 */
#include "stub/stub_hwpt_sideband.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The largest record the kernel writes: header.size is 16 bits. */
#define MAX_RECORD 65536

void stub_hwpt_sideband_init(struct stub_hwpt_sideband *s, struct replay_bundle *b,
			     int64_t pid, const struct replay_perf_sid_layout *l,
			     const struct replay_perf_tconv *tc)
{
	memset(s, 0, sizeof(*s));
	replay_perf_sideband_init(&s->sb, b, tc, pid);
	if (l)
		s->layout = *l;
}

void stub_hwpt_tconv_from_page(const struct perf_event_mmap_page *pg,
			       struct replay_perf_tconv *tc)
{
	memset(tc, 0, sizeof(*tc));
	tc->valid = pg->cap_user_time_zero;
	tc->time_shift = pg->time_shift;
	tc->time_mult = pg->time_mult;
	tc->time_zero = pg->time_zero;
}

int stub_hwpt_sideband_feed(struct stub_hwpt_sideband *s, const void *rec, size_t len)
{
	struct replay_perf_record r;
	int rc = replay_perf_record_parse(rec, len, &s->layout, &r, NULL);

	if (rc < 0) {
		s->malformed++;
		return -EBADMSG;
	}
	rc = replay_perf_sideband_add(&s->sb, &r);
	if (!rc)
		s->records++;
	return rc;
}

/* An unreadable ring: drop what is there, and say so. */
static int drop_all(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data)
{
	ssize_t n = stub_hwpt_ring_avail(data);
	int rc;

	if (n > 0)
		stub_hwpt_ring_release(data, (uint64_t)n);
	rc = replay_bundle_add_gap(s->sb.b, -1, s->sb.last_time, "lost",
				   "the sideband ring held an impossible record: its rest was "
				   "dropped, image changes may be missing");
	return rc < 0 ? rc : 0;
}

int stub_hwpt_sideband_drain(struct stub_hwpt_sideband *s, struct stub_hwpt_ring *data)
{
	uint8_t *rec = malloc(MAX_RECORD);
	int applied = 0, rc = 0;

	if (!rec)
		return -ENOMEM;
	for (;;) {
		ssize_t n = stub_hwpt_ring_peek_record(data, rec, MAX_RECORD);

		if (n == -EBADMSG)
			rc = drop_all(s, data);
		else if (n < 0)
			rc = (int)n;
		if (n <= 0)
			break;
		rc = stub_hwpt_sideband_feed(s, rec, (size_t)n);
		stub_hwpt_ring_release(data, (uint64_t)n);
		if (rc == -ENOMEM)
			break;
		applied += rc == 0;
		rc = 0;
	}
	free(rec);
	return rc ? rc : applied;
}
