/*
 * replay/model/perf_sideband.c: perf sideband records into mappings and gaps
 * (replay/model/perf_sideband.h).
 *
 * The image map is kept as the bundle's list of mappings with lifetimes:
 * a mapping is "live" while its time_unmap is REPLAY_TIME_NEVER. A new
 * executable mapping ends the live ones it overlaps at its time, and the
 * parts of them it does not cover carry on as new mappings, so at any one
 * time no two mappings overlap (docs/bundle.md).
 */
#include "replay/model/perf_sideband.h"

#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

uint64_t replay_perf_time_to_tsc(const struct replay_perf_tconv *c, uint64_t t)
{
	uint64_t d, quot, rem;

	if (!c || !c->valid || !c->time_mult || c->time_shift > 63)
		return t;
	d = t - c->time_zero;
	quot = d / c->time_mult;
	rem = d % c->time_mult;
	return (quot << c->time_shift) + (rem << c->time_shift) / c->time_mult;
}

uint64_t replay_perf_tsc_to_time(const struct replay_perf_tconv *c, uint64_t tsc)
{
	uint64_t quot, rem;

	if (!c || !c->valid || c->time_shift > 63)
		return tsc;
	quot = tsc >> c->time_shift;
	rem = tsc & ((UINT64_C(1) << c->time_shift) - 1);
	return c->time_zero + quot * c->time_mult + ((rem * c->time_mult) >> c->time_shift);
}

void replay_perf_sideband_init(struct replay_perf_sideband *sb, struct replay_bundle *b,
			       const struct replay_perf_tconv *tc, int64_t pid)
{
	memset(sb, 0, sizeof(*sb));
	sb->b = b;
	if (tc)
		sb->tconv = *tc;
	sb->pid = pid;
}

uint64_t replay_perf_sideband_time(struct replay_perf_sideband *sb,
				   const struct replay_perf_record *r)
{
	if (!r->sid.has_time)
		return sb->last_time;
	if (r->sid.time == 0)
		return 0;
	sb->last_time = replay_perf_time_to_tsc(&sb->tconv, r->sid.time);
	if (sb->last_time > sb->latest_time)
		sb->latest_time = sb->last_time;
	return sb->last_time;
}

static bool is_exec_mapping(const struct replay_perf_record *r)
{
	const struct replay_perf_mmap *m = &r->u.mmap;
	uint16_t mode = r->misc & PERF_RECORD_MISC_CPUMODE_MASK;

	if (mode == PERF_RECORD_MISC_KERNEL || mode == PERF_RECORD_MISC_GUEST_KERNEL)
		return false;
	if (m->has_prot)
		return m->prot & PROT_EXEC;
	return !(r->misc & PERF_RECORD_MISC_MMAP_DATA);
}

/* Whether the traced process is @pid (learning it from the first one). */
static bool is_ours(struct replay_perf_sideband *sb, uint32_t pid)
{
	if (pid == UINT32_MAX)
		return false;
	if (sb->pid < 0)
		sb->pid = pid;
	return sb->pid == (int64_t)pid;
}

/* Adds the part [@start, @end) of live mapping @m as a new mapping from
 * @t. */
static int add_piece(struct replay_bundle *b, const struct replay_mapping *m, uint64_t start,
		     uint64_t end, uint64_t t)
{
	struct replay_mapping p = *m;
	int rc;

	p.time_map = t;
	p.time_unmap = REPLAY_TIME_NEVER;
	p.offset = m->offset + (start - m->start);
	p.start = start;
	p.size = end - start;
	rc = replay_bundle_add_mapping(b, &p);
	return rc < 0 ? rc : 0;
}

/* Ends the live mappings overlapping [@start, @end) at @t; what they had
 * outside the range carries on. @end == 0 ends every live mapping. */
static int unmap_range(struct replay_bundle *b, uint64_t start, uint64_t end, uint64_t t)
{
	size_t n = b->nmaps;        /* pieces added below need no visit */
	int rc = 0;

	for (size_t i = 0; i < n && !rc; i++) {
		struct replay_mapping m = b->maps[i];
		uint64_t mend = m.start + m.size;

		if (m.time_unmap != REPLAY_TIME_NEVER)
			continue;
		if (end && (mend <= start || m.start >= end))
			continue;
		b->maps[i].time_unmap = t;
		if (!end)
			continue;
		if (m.start < start)
			rc = add_piece(b, &m, m.start, start, t);
		if (!rc && mend > end)
			rc = add_piece(b, &m, end, mend, t);
	}
	return rc;
}

static void hex_build_id(const struct replay_perf_mmap *m, char *buf)
{
	for (unsigned i = 0; i < m->build_id_size && i < 20; i++)
		sprintf(buf + 2 * i, "%02x", m->build_id[i]);
	buf[2 * (m->build_id_size < 20 ? m->build_id_size : 20)] = 0;
}

/* Images with no file to read them from ("[vdso]", "[stack]", "//anon"
 * for anonymous memory such as JIT code): the decoder cannot follow the
 * trace there, which the recording says as a gap. */
static bool is_fileless(const char *name)
{
	return name[0] != '/' || name[1] == '/';
}

static int add_mmap(struct replay_perf_sideband *sb, const struct replay_perf_record *r,
		    uint64_t t)
{
	const struct replay_perf_mmap *mm = &r->u.mmap;
	struct replay_mapping m = { 0 };
	char uuid[41], text[160];
	int rc;

	if (!is_exec_mapping(r) || !is_ours(sb, mm->pid) || !mm->len ||
	    mm->addr + mm->len < mm->addr)
		return 0;
	rc = unmap_range(sb->b, mm->addr, mm->addr + mm->len, t);
	if (rc)
		return rc;
	if (sb->vdso_file && !strcmp(mm->filename, "[vdso]")) {
		/* The same kernel maps the same vDSO: its copy, at this address. */
		m.file = (char *)sb->vdso_file;
		m.system_path = (char *)mm->filename;
		m.time_map = t;
		m.time_unmap = REPLAY_TIME_NEVER;
		m.start = mm->addr;
		m.size = mm->len;
		rc = replay_bundle_add_mapping(sb->b, &m);
		return rc < 0 ? rc : 0;
	}
	if (is_fileless(mm->filename)) {
		snprintf(text, sizeof(text), "%s at 0x%" PRIx64 " (%" PRIu64 " bytes) has no file",
			 mm->filename, mm->addr, mm->len);
		rc = replay_bundle_add_gap(sb->b, -1, t, "image-missing", text);
		return rc < 0 ? rc : 0;
	}
	m.time_map = t;
	m.time_unmap = REPLAY_TIME_NEVER;
	m.start = mm->addr;
	m.size = mm->len;
	m.offset = mm->pgoff;
	m.file = (char *)mm->filename;
	m.system_path = (char *)mm->filename;
	if (mm->build_id_size) {
		hex_build_id(mm, uuid);
		m.uuid = uuid;
	}
	rc = replay_bundle_add_mapping(sb->b, &m);
	return rc < 0 ? rc : 0;
}

static int add_aux(struct replay_perf_sideband *sb, const struct replay_perf_record *r,
		   uint64_t t)
{
	uint64_t f = r->u.aux.flags;
	int64_t tid = r->sid.has_tid ? (int64_t)r->sid.tid : -1;
	char text[160];
	const char *kind = "lost";
	int rc;

	if (f & PERF_AUX_FLAG_TRUNCATED) {
		sb->truncated++;
		kind = "truncated";
		snprintf(text, sizeof(text),
			 "the AUX buffer was full: trace stopped after AUX offset 0x%" PRIx64
			 " until it was drained", r->u.aux.aux_offset + r->u.aux.aux_size);
	} else if (f & PERF_AUX_FLAG_PARTIAL) {
		snprintf(text, sizeof(text), "AUX data at offset 0x%" PRIx64 " has gaps (partial)",
			 r->u.aux.aux_offset);
	} else if (f & PERF_AUX_FLAG_COLLISION) {
		snprintf(text, sizeof(text), "AUX data at offset 0x%" PRIx64 " collided",
			 r->u.aux.aux_offset);
	} else {
		return 0;           /* OVERWRITE alone: snapshot mode, see perf_data */
	}
	rc = replay_bundle_add_gap(sb->b, tid, t, kind, text);
	return rc < 0 ? rc : 0;
}

static int add_lost(struct replay_perf_sideband *sb, const struct replay_perf_record *r,
		    uint64_t t)
{
	char text[128];
	int rc;

	sb->lost_records += r->u.lost.lost;
	snprintf(text, sizeof(text),
		 "%" PRIu64 " sideband records lost: image changes may be missing",
		 r->u.lost.lost);
	rc = replay_bundle_add_gap(sb->b, r->sid.has_tid ? (int64_t)r->sid.tid : -1, t,
				   "lost", text);
	return rc < 0 ? rc : 0;
}

int replay_perf_sideband_add(struct replay_perf_sideband *sb, const struct replay_perf_record *r)
{
	uint64_t t = replay_perf_sideband_time(sb, r);

	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return add_mmap(sb, r, t);
	case PERF_RECORD_COMM:
		if ((r->misc & PERF_RECORD_MISC_COMM_EXEC) && sb->pid == (int64_t)r->u.comm.pid)
			return unmap_range(sb->b, 0, 0, t);
		return 0;
	case PERF_RECORD_AUX:
		return add_aux(sb, r, t);
	case PERF_RECORD_LOST:
		return add_lost(sb, r, t);
	case PERF_RECORD_EXIT:
		if (sb->pid == (int64_t)r->u.task.pid && r->u.task.pid == r->u.task.tid &&
		    t > sb->b->end_time)
			sb->b->end_time = t;
		return 0;
	default:
		return 0;
	}
}
