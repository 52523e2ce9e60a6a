/*
 * replay/model/perf_data.c: the data section of a perf.data file of Intel PT
 * (replay/model/perf_data.h); saving it as a bundle is in perf_data_write.c.
 *
 * The walk: each record's header is checked against the data section
 * before anything else is read; perf's own record types (>= 64) are
 * handled here (AUXTRACE_INFO, AUXTRACE and its payload), the kernel's go
 * through replay_perf_record_parse and the sideband.
 */
#include "replay/model/perf_data.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/percpu.h"
#include "replay/model/perf_record.h"
#include "replay/model/perf_sideband.h"

#define REC_AUXTRACE_INFO 70
#define REC_AUXTRACE 71
#define REC_COMPRESSED 81
#define AUXTRACE_HDR_SIZE 48   /* header, size, offset, reference, idx, tid, cpu, pad */
#define MAX_TIDS 64
#define SWITCH_SIZE 32         /* LLDB's layout: header, next/prev pid+tid, pid+tid, time */

/* One cpu's context-switch records of one kind (SWITCH or
 * SWITCH_CPU_WIDE), rewritten as replay/model/percpu.h reads them. */
struct cpu_switches {
	uint32_t cpu;
	bool wide;
	uint8_t *data;
	size_t size;
	uint64_t last_time;
};

struct walk {
	struct replay_perf_data *pd;
	const uint8_t *buf;
	const char *name;
	char *err;
	size_t errsize;
	struct replay_perf_sideband sb;
	struct replay_perf_sid_layout sid;  /* when all attrs agree */
	bool sid_by_id;                     /* else: look the attr up by IDENTIFIER */
	int64_t tids[MAX_TIDS];             /* threads of the traced process seen */
	size_t ntids;
	struct cpu_switches *sw;            /* context switches, per cpu and kind */
	size_t nsw;
	uint64_t sw_untimed;                /* switch records without cpu or time */
	uint64_t latest;                    /* of AUX data and samples (TSC) */
};

static int fail(struct walk *w, int rc, uint64_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int fail(struct walk *w, int rc, uint64_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!w->err || !w->errsize)
		return rc;
	n = snprintf(w->err, w->errsize, "%s: record at offset 0x%" PRIx64 ": ", w->name, at);
	if (n < 0 || (size_t)n >= w->errsize)
		return rc;
	va_start(ap, fmt);
	vsnprintf(w->err + n, w->errsize - (size_t)n, fmt, ap);
	va_end(ap);
	return rc;
}

static const struct replay_perf_attr *find_pt_attr(const struct replay_perf_file *f,
						   uint64_t pmu_type)
{
	for (size_t i = 0; i < f->nattrs; i++)
		if (f->attrs[i].attr.type == pmu_type)
			return &f->attrs[i];
	return NULL;
}

static uint64_t sid_bits(const struct perf_event_attr *a)
{
	return a->sample_type & (PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_ID |
				 PERF_SAMPLE_STREAM_ID | PERF_SAMPLE_CPU | PERF_SAMPLE_IDENTIFIER);
}

/* One sample_id layout for all records if the attributes agree; else
 * records are matched to attributes by their trailing IDENTIFIER. */
static void choose_sid_layout(struct walk *w)
{
	const struct replay_perf_file *f = &w->pd->file;
	bool all_ident = true;

	if (!f->nattrs)
		return;
	w->sid.sample_id_all = f->attrs[0].attr.sample_id_all;
	w->sid.sample_type = sid_bits(&f->attrs[0].attr);
	for (size_t i = 1; i < f->nattrs; i++) {
		const struct perf_event_attr *a = &f->attrs[i].attr;

		all_ident &= (bool)(a->sample_type & PERF_SAMPLE_IDENTIFIER);
		if (a->sample_id_all != w->sid.sample_id_all || sid_bits(a) != w->sid.sample_type)
			w->sid_by_id = true;
	}
	all_ident &= (bool)(f->attrs[0].attr.sample_type & PERF_SAMPLE_IDENTIFIER);
	w->sid_by_id &= all_ident;
}

static struct replay_perf_sid_layout sid_for(const struct walk *w, const uint8_t *rec,
					     uint16_t size)
{
	struct replay_perf_sid_layout l = w->sid;
	const struct replay_perf_attr *a;
	uint64_t id;

	if (!w->sid_by_id || size < 16)
		return l;
	memcpy(&id, rec + size - 8, 8);
	a = replay_perf_file_attr_by_id(&w->pd->file, id);
	if (a) {
		l.sample_id_all = a->attr.sample_id_all;
		l.sample_type = sid_bits(&a->attr);
	}
	return l;
}

static struct replay_perf_stream *stream_for(struct replay_perf_data *pd, uint32_t idx)
{
	struct replay_perf_stream *s;

	for (size_t i = 0; i < pd->nstreams; i++)
		if (pd->streams[i].idx == idx)
			return &pd->streams[i];
	s = realloc(pd->streams, (pd->nstreams + 1) * sizeof(*s));
	if (!s)
		return NULL;
	pd->streams = s;
	s += pd->nstreams++;
	memset(s, 0, sizeof(*s));
	s->idx = idx;
	s->cpu = -1;
	s->tid = -1;
	return s;
}

static int append_segment(struct replay_perf_stream *s, const uint8_t *payload,
			  const struct replay_perf_segment *seg)
{
	struct replay_perf_segment *segs;
	uint8_t *data;

	segs = realloc(s->segs, (s->nsegs + 1) * sizeof(*segs));
	if (!segs)
		return -ENOMEM;
	s->segs = segs;
	data = realloc(s->data, s->size + seg->size ? s->size + seg->size : 1);
	if (!data)
		return -ENOMEM;
	s->data = data;
	memcpy(s->data + s->size, payload, seg->size);
	segs[s->nsegs] = *seg;
	segs[s->nsegs].stream_offset = s->size;
	s->nsegs++;
	s->size += seg->size;
	return 0;
}

/* A hole between the previous segment and @seg (full-trace mode), or the
 * boundary between two snapshots: a gap. */
static int note_gap(struct walk *w, const struct replay_perf_stream *s,
		    const struct replay_perf_segment *seg)
{
	const struct replay_perf_segment *prev = &s->segs[s->nsegs - 1];
	char text[200];
	int rc;

	if (w->pd->info.snapshot_mode)
		snprintf(text, sizeof(text), "snapshot %zu starts at byte 0x%zx of the stream: "
			 "what ran since the previous snapshot was not recorded", s->nsegs,
			 s->size);
	else if (seg->aux_offset > prev->aux_offset + prev->size)
		snprintf(text, sizeof(text), "%" PRIu64 " bytes of trace lost before byte 0x%zx "
			 "of the stream", seg->aux_offset - (prev->aux_offset + prev->size),
			 s->size);
	else
		return 0;
	rc = replay_bundle_add_gap(w->pd->bundle, s->tid, seg->time, "lost", text);
	return rc < 0 ? rc : 0;
}

static int do_auxtrace(struct walk *w, uint64_t at, uint16_t hsize, uint64_t end,
		       uint64_t *next)
{
	const uint8_t *p = w->buf + at;
	struct replay_perf_segment seg = { 0 };
	struct replay_perf_stream *s;
	uint32_t idx, tid, cpu;
	uint64_t ref;
	int rc;

	if (hsize < AUXTRACE_HDR_SIZE)
		return fail(w, -EBADMSG, at, "AUXTRACE record of %u bytes is too short", hsize);
	memcpy(&seg.size, p + 8, 8);
	memcpy(&seg.aux_offset, p + 16, 8);
	memcpy(&ref, p + 24, 8);
	memcpy(&idx, p + 32, 4);
	memcpy(&tid, p + 36, 4);
	memcpy(&cpu, p + 40, 4);
	seg.file_offset = at + hsize;
	seg.time = w->sb.last_time;
	if (seg.size > end - seg.file_offset)
		return fail(w, -EBADMSG, at, "AUXTRACE payload of %" PRIu64 " bytes runs past "
			    "the end of the data section at 0x%" PRIx64, seg.size, end);
	/* intel_pt's reference is the TSC when perf read the data
	 * (intel_pt_reference: rdtsc), the clock converted times are in. */
	if (w->sb.tconv.valid && ref > w->latest)
		w->latest = ref;
	s = stream_for(w->pd, idx);
	if (!s)
		return -ENOMEM;
	if (!s->nsegs) {
		s->cpu = (int32_t)cpu;
		s->tid = tid == UINT32_MAX ? -1 : (int64_t)tid;
	} else if ((rc = note_gap(w, s, &seg))) {
		return rc;
	}
	*next = seg.file_offset + seg.size;
	return append_segment(s, w->buf + seg.file_offset, &seg);
}

static int do_auxtrace_info(struct walk *w, uint64_t at, uint16_t size)
{
	struct replay_perf_data *pd = w->pd;
	int rc = replay_perf_ptinfo_parse(&pd->info, w->buf + at + 8, size - 8u);

	if (rc == -ENOTSUP)
		return fail(w, rc, at, "AUXTRACE_INFO is not Intel PT's (only intel_pt is "
			    "supported)");
	if (rc)
		return fail(w, rc, at, "AUXTRACE_INFO of %u bytes is too short", size);
	pd->have_info = true;
	pd->pt_attr = find_pt_attr(&pd->file, pd->info.priv[REPLAY_PERF_PT_PMU_TYPE]);
	w->sb.tconv = pd->info.tconv;
	return 0;
}

static void note_tid(struct walk *w, uint32_t pid, uint32_t tid)
{
	if (w->sb.pid < 0 || w->sb.pid != (int64_t)pid)
		return;
	for (size_t i = 0; i < w->ntids; i++)
		if (w->tids[i] == (int64_t)tid)
			return;
	if (w->ntids < MAX_TIDS)
		w->tids[w->ntids++] = tid;
}

static struct cpu_switches *switches_for(struct walk *w, uint32_t cpu, bool wide)
{
	struct cpu_switches *v;

	for (size_t i = 0; i < w->nsw; i++)
		if (w->sw[i].cpu == cpu && w->sw[i].wide == wide)
			return &w->sw[i];
	v = realloc(w->sw, (w->nsw + 1) * sizeof(*v));
	if (!v)
		return NULL;
	w->sw = v;
	v += w->nsw++;
	*v = (struct cpu_switches){ .cpu = cpu, .wide = wide };
	return v;
}

/* A SWITCH or SWITCH_CPU_WIDE record: who (its sample_id's pid / tid) went
 * in or out of its cpu, when. Kept in perf time (replay_percpu_switches
 * converts). A record whose time is not after the previous one of its cpu
 * is dropped: the same switch seen by two events. */
static int note_switch(struct walk *w, const struct replay_perf_record *r)
{
	const struct replay_perf_sample_id *id = &r->sid;
	uint8_t rec[SWITCH_SIZE] = { 0 };
	uint32_t type = PERF_RECORD_SWITCH_CPU_WIDE;
	uint16_t misc = r->u.sw.out ? PERF_RECORD_MISC_SWITCH_OUT : 0, size = SWITCH_SIZE;
	struct cpu_switches *c;
	uint8_t *v;

	if (!id->has_cpu || !id->has_time || !id->has_tid) {
		w->sw_untimed++;
		return 0;
	}
	c = switches_for(w, id->cpu, r->type == PERF_RECORD_SWITCH_CPU_WIDE);
	if (!c)
		return -ENOMEM;
	if (c->size && id->time <= c->last_time)
		return 0;
	v = realloc(c->data, c->size + SWITCH_SIZE);
	if (!v)
		return -ENOMEM;
	c->data = v;
	memcpy(rec, &type, 4);
	memcpy(rec + 4, &misc, 2);
	memcpy(rec + 6, &size, 2);
	memcpy(rec + 16, &id->pid, 4);
	memcpy(rec + 20, &id->tid, 4);
	memcpy(rec + 24, &id->time, 8);
	memcpy(c->data + c->size, rec, SWITCH_SIZE);
	c->size += SWITCH_SIZE;
	c->last_time = id->time;
	return 0;
}

/* The sample_type of the event that wrote the SAMPLE at @rec: the one
 * every attribute has up to TIME, else that of the attribute its leading
 * IDENTIFIER names. false when neither tells. */
static bool sample_type_of(const struct walk *w, const uint8_t *rec, uint16_t size,
			   uint64_t *st)
{
	const uint64_t lead = PERF_SAMPLE_IDENTIFIER | PERF_SAMPLE_IP | PERF_SAMPLE_TID |
			      PERF_SAMPLE_TIME;
	const struct replay_perf_file *f = &w->pd->file;
	const struct replay_perf_attr *a;
	bool same = f->nattrs > 0, ident = f->nattrs > 0;
	uint64_t id;

	for (size_t i = 0; i < f->nattrs; i++) {
		same &= (f->attrs[i].attr.sample_type & lead) ==
			(f->attrs[0].attr.sample_type & lead);
		ident &= (bool)(f->attrs[i].attr.sample_type & PERF_SAMPLE_IDENTIFIER);
	}
	if (same) {
		*st = f->attrs[0].attr.sample_type;
		return true;
	}
	if (!ident || size < 16)
		return false;
	memcpy(&id, rec + 8, 8);
	a = replay_perf_file_attr_by_id(f, id);
	if (a)
		*st = a->attr.sample_type;
	return a != NULL;
}

/* A sample's time, for the recording's end (the sideband ignores
 * samples). */
static void note_sample(struct walk *w, const uint8_t *rec, uint16_t size)
{
	uint64_t st, t;

	if (!sample_type_of(w, rec, size, &st) ||
	    replay_perf_sample_time(rec, size, st, &t) < 0 || !t)
		return;
	t = replay_perf_time_to_tsc(&w->sb.tconv, t);
	if (t > w->latest)
		w->latest = t;
}

static int do_kernel_record(struct walk *w, uint64_t at, uint16_t size)
{
	struct replay_perf_sid_layout l = sid_for(w, w->buf + at, size);
	struct replay_perf_record r;
	const char *why;
	int rc = replay_perf_record_parse(w->buf + at, size, &l, &r, &why);

	if (rc < 0)
		return fail(w, -EBADMSG, at, "%s: %s", replay_perf_record_name(r.type),
			    why ? why : "cut short");
	if (r.type == PERF_RECORD_SAMPLE)
		note_sample(w, w->buf + at, size);
	if (r.type == PERF_RECORD_ITRACE_START && w->sb.pid < 0)
		w->sb.pid = r.u.itrace_start.pid;
	rc = replay_perf_sideband_add(&w->sb, &r);
	if (rc)
		return rc;
	if (r.type == PERF_RECORD_ITRACE_START)
		note_tid(w, r.u.itrace_start.pid, r.u.itrace_start.tid);
	else if (r.type == PERF_RECORD_COMM)
		note_tid(w, r.u.comm.pid, r.u.comm.tid);
	else if (r.type == PERF_RECORD_FORK)
		note_tid(w, r.u.task.pid, r.u.task.tid);
	else if (r.type == PERF_RECORD_SWITCH || r.type == PERF_RECORD_SWITCH_CPU_WIDE)
		return note_switch(w, &r);
	return 0;
}

static int do_record(struct walk *w, uint64_t at, uint64_t end, uint64_t *next)
{
	struct perf_event_header h;

	if (end - at < sizeof(h))
		return fail(w, -EBADMSG, at, "the data section ends at 0x%" PRIx64
			    " inside the record header", end);
	memcpy(&h, w->buf + at, sizeof(h));
	if (h.size < sizeof(h))
		return fail(w, -EBADMSG, at, "size %u is invalid", h.size);
	if (h.size > end - at)
		return fail(w, -EBADMSG, at, "size %u runs past the end of the data section "
			    "at 0x%" PRIx64, h.size, end);
	*next = at + h.size;
	switch (h.type) {
	case REC_AUXTRACE:
		return do_auxtrace(w, at, h.size, end, next);
	case REC_AUXTRACE_INFO:
		return do_auxtrace_info(w, at, h.size);
	case REC_COMPRESSED:
		return fail(w, -ENOTSUP, at, "compressed records (perf record -z) are not "
			    "supported: record without -z");
	default:
		if (h.type >= 64)
			return 0;       /* perf's own bookkeeping */
		return do_kernel_record(w, at, h.size);
	}
}

static int walk_data(struct walk *w)
{
	uint64_t at = w->pd->file.data_offset;
	uint64_t end = at + w->pd->file.data_size;
	int rc = 0;

	while (at < end && !rc)
		rc = do_record(w, at, end, &at);
	if (rc == -ENOMEM)
		fail(w, rc, at, "out of memory");
	return rc;
}

/* Per-cpu mmaps leave the AUXTRACE records' tid unset: if one thread of
 * the traced process was seen and one stream holds trace, it is that
 * thread's. */
static void attribute_streams(struct walk *w)
{
	struct replay_perf_data *pd = w->pd;
	struct replay_perf_stream *only = NULL;
	size_t nonempty = 0;

	for (size_t i = 0; i < pd->nstreams; i++)
		if (pd->streams[i].size) {
			nonempty++;
			only = &pd->streams[i];
		}
	if (nonempty == 1 && only->tid < 0 && w->ntids == 1)
		only->tid = w->tids[0];
}

/* The switch records of cpu @cpu: the cpu-wide ones if any, else the
 * per-task ones; NULL if none. */
static const struct cpu_switches *switches_of(const struct walk *w, uint32_t cpu)
{
	const struct cpu_switches *plain = NULL;

	for (size_t i = 0; i < w->nsw; i++) {
		if (w->sw[i].cpu != cpu)
			continue;
		if (w->sw[i].wide)
			return &w->sw[i];
		plain = &w->sw[i];
	}
	return plain;
}

/* Per-cpu streams still nobody's (several threads, or one on several
 * cpus) split by the context switches, as LLDB's per-cpu bundles
 * (replay/model/percpu.h): the bundle's threads get segments naming
 * "cpus/CPU.pt" (replay_perf_data_cpu_stream finds their bytes). */
static int split_streams(struct walk *w, uint64_t at)
{
	struct replay_perf_data *pd = w->pd;
	struct replay_percpu_mem *m;
	char (*names)[32];
	size_t n = 0;
	int rc;

	for (size_t i = 0; i < pd->nstreams; i++)
		n += pd->streams[i].tid < 0 && pd->streams[i].size;
	if (!n)
		return 0;
	if (!w->nsw)
		return fail(w, -ENOTSUP, at, "per-cpu trace (perf record's default) of %zu "
			    "thread%s on %zu cpu%s, and no context-switch records%s to tell which "
			    "thread ran when: record with --switch-events", w->ntids,
			    w->ntids == 1 ? "" : "s", n, n == 1 ? "" : "s",
			    w->sw_untimed ? " with a cpu and a time" : "");
	m = calloc(n, sizeof(*m));
	names = calloc(n, sizeof(*names));
	if (!m || !names) {
		free(m);
		free(names);
		return -ENOMEM;
	}
	n = 0;
	for (size_t i = 0; i < pd->nstreams; i++) {
		struct replay_perf_stream *s = &pd->streams[i];
		const struct cpu_switches *c = switches_of(w, (uint32_t)s->cpu);

		if (s->tid >= 0 || !s->size)
			continue;
		s->split = true;
		snprintf(names[n], sizeof(names[n]), "cpus/%d.pt", s->cpu);
		m[n] = (struct replay_percpu_mem){ .id = (uint32_t)s->cpu, .pt_file = names[n],
						   .switch_name = "context switches",
						   .pt = s->data, .pt_size = s->size,
						   .switches = c ? c->data : NULL,
						   .switches_size = c ? c->size : 0 };
		n++;
	}
	pd->bundle->pid = w->sb.pid;
	rc = replay_percpu_split_mem(pd->bundle, m, n, &pd->info.tconv, w->err, w->errsize);
	free(m);
	free(names);
	return rc;
}

/* Bundle fields from the header and AUXTRACE_INFO. */
static int fill_bundle(struct walk *w)
{
	struct replay_perf_data *pd = w->pd;
	struct replay_bundle *b = pd->bundle;
	int rc = replay_bundle_set_str(&b->recorder, "perf");

	if (rc)
		return rc;
	if (pd->file.cpuid)
		replay_perf_cpuid_parse(pd->file.cpuid, &b->cpu);
	replay_perf_ptinfo_fill(&pd->info, pd->pt_attr->attr.config, b);
	b->pid = w->sb.pid;
	b->complete = true;
	/* Without an EXIT (--snapshot ended by a signal, perf killed), the
	 * recording ends at the last time it knows: its mappings live then
	 * are the ones at its end. */
	if (w->sb.latest_time > b->end_time)
		b->end_time = w->sb.latest_time;
	if (w->latest > b->end_time)
		b->end_time = w->latest;
	/* build-ids from HEADER_BUILD_ID, matched by path */
	for (size_t i = 0; i < b->nmaps; i++)
		for (size_t j = 0; j < pd->file.nbuild_ids && !b->maps[i].uuid; j++)
			if (b->maps[i].system_path &&
			    !strcmp(b->maps[i].system_path, pd->file.build_ids[j].filename))
				rc = replay_bundle_set_str(&b->maps[i].uuid, pd->file.build_ids[j].hex);
	return rc;
}

static int parse(struct walk *w, size_t len)
{
	struct replay_perf_data *pd = w->pd;
	char ferr[256] = "";
	int rc = replay_perf_file_parse(&pd->file, w->buf, len, ferr, sizeof(ferr));

	if (rc) {
		if (w->err && w->errsize)
			snprintf(w->err, w->errsize, "%s: %s", w->name, ferr);
		return rc;
	}
	pd->file.buf = NULL;
	rc = replay_bundle_new(&pd->bundle);
	for (size_t i = 0; i < pd->file.nnotes && !rc; i++) {
		char note[512];

		snprintf(note, sizeof(note), "%s: %s", w->name, pd->file.notes[i]);
		rc = replay_bundle_add_note(pd->bundle, note);
	}
	if (rc)
		return rc;
	replay_perf_sideband_init(&w->sb, pd->bundle, NULL, -1);
	choose_sid_layout(w);
	rc = walk_data(w);
	if (rc)
		return rc;
	if (!pd->have_info)
		return fail(w, -EBADMSG, pd->file.data_offset, "no AUXTRACE_INFO in the data "
			    "section: not an Intel PT recording");
	if (!pd->pt_attr)
		return fail(w, -EBADMSG, pd->file.data_offset, "no event of the intel_pt PMU "
			    "(type %" PRIu64 ")", pd->info.priv[REPLAY_PERF_PT_PMU_TYPE]);
	attribute_streams(w);
	rc = split_streams(w, pd->file.data_offset);
	return rc ? rc : fill_bundle(w);
}

int replay_perf_data_parse(const void *buf, size_t len, const char *name,
			   struct replay_perf_data **out, char *err, size_t errsize)
{
	struct walk w = { .buf = buf, .name = name ? name : "perf.data", .err = err,
			  .errsize = errsize };
	int rc;

	*out = NULL;
	if (err && errsize)
		err[0] = 0;
	w.pd = calloc(1, sizeof(*w.pd));
	if (!w.pd)
		return -ENOMEM;
	rc = parse(&w, len);
	for (size_t i = 0; i < w.nsw; i++)
		free(w.sw[i].data);
	free(w.sw);
	if (rc == -ENOMEM && err && errsize && !err[0])
		snprintf(err, errsize, "%s: out of memory", w.name);
	if (rc) {
		replay_perf_data_free(w.pd);
		return rc;
	}
	*out = w.pd;
	return 0;
}

int replay_perf_data_read(const char *path, struct replay_perf_data **out, char *err,
			  size_t errsize)
{
	const char *name = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	struct stat st;
	void *map;
	int fd, rc;

	*out = NULL;
	fd = dw_open_regular(path);
	if (fd < 0 || fstat(fd, &st)) {
		rc = fd < 0 ? fd : -errno;
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		if (fd >= 0)
			close(fd);
		return rc;
	}
	if (!S_ISREG(st.st_mode) || !st.st_size) {
		close(fd);
		snprintf(err, errsize, "%s: %s", path, st.st_size ? "not a regular file"
								 : "empty file");
		return -EINVAL;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	rc = map == MAP_FAILED ? -errno : 0;
	close(fd);
	if (rc) {
		snprintf(err, errsize, "%s: %s", path, strerror(-rc));
		return rc;
	}
	rc = replay_perf_data_parse(map, (size_t)st.st_size, name, out, err, errsize);
	munmap(map, (size_t)st.st_size);
	return rc;
}

struct replay_bundle *replay_perf_data_detach_bundle(struct replay_perf_data *pd)
{
	struct replay_bundle *b = pd->bundle;

	pd->bundle = NULL;
	return b;
}

const struct replay_perf_stream *replay_perf_data_stream(const struct replay_perf_data *pd,
							 int64_t tid)
{
	for (size_t i = 0; i < pd->nstreams; i++)
		if (pd->streams[i].tid == tid)
			return &pd->streams[i];
	return NULL;
}

const struct replay_perf_stream *replay_perf_data_cpu_stream(const struct replay_perf_data *pd,
							     uint32_t cpu)
{
	for (size_t i = 0; i < pd->nstreams; i++)
		if (pd->streams[i].split && pd->streams[i].cpu == (int32_t)cpu)
			return &pd->streams[i];
	return NULL;
}

void replay_perf_data_free(struct replay_perf_data *pd)
{
	if (!pd)
		return;
	replay_perf_file_release(&pd->file);
	for (size_t i = 0; i < pd->nstreams; i++) {
		free(pd->streams[i].data);
		free(pd->streams[i].segs);
	}
	free(pd->streams);
	replay_bundle_free(pd->bundle);
	free(pd);
}
