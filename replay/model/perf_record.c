/*
 * replay/model/perf_record.c: parse one PERF_RECORD_* sideband record
 * (replay/model/perf_record.h).
 *
 * A cursor walks the record's body with bounds checks; the sample_id
 * trailer is read from the record's end, so the body's own end is known
 * before its variable-length strings are read. Layouts are those of
 * <linux/perf_event.h>; nothing here trusts a length it has not checked.
 */
#include "replay/model/perf_record.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>

struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t get(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (n > sizeof(v) || c->bad || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		return 0;
	}
	memcpy(&v, c->p, n);        /* x86-64: little-endian, like the file */
	c->p += n;
	return v;
}

/* Skips @n bytes. */
static void skip(struct cur *c, size_t n)
{
	if (c->bad || (size_t)(c->end - c->p) < n)
		c->bad = true;
	else
		c->p += n;
}

static uint32_t get32(struct cur *c) { return (uint32_t)get(c, 4); }
static uint64_t get64(struct cur *c) { return get(c, 8); }

/* A NUL-terminated string at the cursor, within the body. */
static const char *get_str(struct cur *c)
{
	const char *s = (const char *)c->p;

	if (c->bad || !memchr(c->p, 0, (size_t)(c->end - c->p))) {
		c->bad = true;
		return NULL;
	}
	c->p += strlen(s) + 1;
	return s;
}

size_t replay_perf_sid_size(const struct replay_perf_sid_layout *l)
{
	static const uint64_t bits[] = { PERF_SAMPLE_TID, PERF_SAMPLE_TIME, PERF_SAMPLE_ID,
					 PERF_SAMPLE_STREAM_ID, PERF_SAMPLE_CPU,
					 PERF_SAMPLE_IDENTIFIER };
	size_t n = 0;

	if (!l || !l->sample_id_all)
		return 0;
	for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++)
		n += (l->sample_type & bits[i]) ? 8 : 0;
	return n;
}

static void parse_sid(struct cur *c, uint64_t st, struct replay_perf_sample_id *s)
{
	if (st & PERF_SAMPLE_TID) {
		s->has_tid = true;
		s->pid = get32(c);
		s->tid = get32(c);
	}
	if (st & PERF_SAMPLE_TIME) {
		s->has_time = true;
		s->time = get64(c);
	}
	if (st & PERF_SAMPLE_ID) {
		s->has_id = true;
		s->id = get64(c);
	}
	if (st & PERF_SAMPLE_STREAM_ID)
		skip(c, 8);
	if (st & PERF_SAMPLE_CPU) {
		s->has_cpu = true;
		s->cpu = get32(c);
		skip(c, 4);
	}
	if (st & PERF_SAMPLE_IDENTIFIER) {
		s->has_id = true;
		s->id = get64(c);
	}
}

static void parse_mmap(struct cur *c, bool v2, uint16_t misc, struct replay_perf_mmap *m)
{
	m->pid = get32(c);
	m->tid = get32(c);
	m->addr = get64(c);
	m->len = get64(c);
	m->pgoff = get64(c);
	if (v2) {
		if (misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			m->build_id_size = (uint8_t)get(c, 1);
			skip(c, 3);
			if (!c->bad && (size_t)(c->end - c->p) >= 20)
				memcpy(m->build_id, c->p, 20);
			skip(c, 20);
			if (m->build_id_size > 20)
				c->bad = true;
		} else {
			skip(c, 4 + 4 + 8 + 8);      /* maj, min, ino, ino_generation */
		}
		m->has_prot = true;
		m->prot = get32(c);
		m->flags = get32(c);
	}
	m->filename = get_str(c);
}

static void parse_body(struct cur *c, struct replay_perf_record *r)
{
	switch (r->type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		parse_mmap(c, r->type == PERF_RECORD_MMAP2, r->misc, &r->u.mmap);
		break;
	case PERF_RECORD_COMM:
		r->u.comm.pid = get32(c);
		r->u.comm.tid = get32(c);
		r->u.comm.comm = get_str(c);
		break;
	case PERF_RECORD_ITRACE_START:
		r->u.itrace_start.pid = get32(c);
		r->u.itrace_start.tid = get32(c);
		break;
	case PERF_RECORD_AUX:
		r->u.aux.aux_offset = get64(c);
		r->u.aux.aux_size = get64(c);
		r->u.aux.flags = get64(c);
		break;
	case PERF_RECORD_LOST:
		r->u.lost.id = get64(c);
		r->u.lost.lost = get64(c);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		r->u.task.pid = get32(c);
		r->u.task.ppid = get32(c);
		r->u.task.tid = get32(c);
		r->u.task.ptid = get32(c);
		r->u.task.time = get64(c);
		break;
	case PERF_RECORD_SWITCH_CPU_WIDE:
		r->u.sw.pid = get32(c);
		r->u.sw.tid = get32(c);
		/* fall through */
	case PERF_RECORD_SWITCH:
		r->u.sw.out = r->misc & PERF_RECORD_MISC_SWITCH_OUT;
		break;
	case PERF_RECORD_LOST_SAMPLES:
		r->u.lost_samples.lost = get64(c);
		break;
	default:
		break;
	}
}

/* Record types whose sample_id trailer the kernel writes (not SAMPLE, and
 * not perf's own user types >= 64). */
static bool has_trailer(uint32_t type)
{
	return type != PERF_RECORD_SAMPLE && type < PERF_RECORD_MAX;
}

int replay_perf_record_parse(const void *buf, size_t len,
			     const struct replay_perf_sid_layout *l,
			     struct replay_perf_record *out, const char **why)
{
	const uint8_t *b = buf;
	struct perf_event_header h;
	size_t tsize;
	struct cur body, tr;

	memset(out, 0, sizeof(*out));
	if (why)
		*why = NULL;
	if (len < sizeof(h))
		return -EAGAIN;
	memcpy(&h, b, sizeof(h));
	out->type = h.type;
	out->misc = h.misc;
	out->size = h.size;
	if (h.size < sizeof(h)) {
		if (why)
			*why = "size is smaller than the record header";
		return -EBADMSG;
	}
	if (len < h.size)
		return -EAGAIN;
	tsize = has_trailer(h.type) ? replay_perf_sid_size(l) : 0;
	if (h.size - sizeof(h) < tsize) {
		if (why)
			*why = "record is too short for its sample_id trailer";
		return -EBADMSG;
	}
	tr = (struct cur){ b + h.size - tsize, b + h.size, false };
	if (tsize)
		parse_sid(&tr, l->sample_type, &out->sid);
	body = (struct cur){ b + sizeof(h), b + h.size - tsize, false };
	parse_body(&body, out);
	if (body.bad) {
		if (why)
			*why = "record is too short for its fields";
		return -EBADMSG;
	}
	return h.size;
}

int replay_perf_sample_time(const void *buf, size_t len, uint64_t sample_type, uint64_t *time)
{
	struct perf_event_header h;
	size_t at = sizeof(h);

	if (!(sample_type & PERF_SAMPLE_TIME))
		return -ENOENT;
	if (len < sizeof(h))
		return -EBADMSG;
	memcpy(&h, buf, sizeof(h));
	at += (sample_type & PERF_SAMPLE_IDENTIFIER) ? 8 : 0;
	at += (sample_type & PERF_SAMPLE_IP) ? 8 : 0;
	at += (sample_type & PERF_SAMPLE_TID) ? 8 : 0;
	if (h.size > len || h.size < at + 8)
		return -EBADMSG;
	memcpy(time, (const uint8_t *)buf + at, 8);
	return 0;
}

const char *replay_perf_record_name(uint32_t type)
{
	static const char *const names[] = {
		[PERF_RECORD_MMAP] = "MMAP", [PERF_RECORD_LOST] = "LOST",
		[PERF_RECORD_COMM] = "COMM", [PERF_RECORD_EXIT] = "EXIT",
		[PERF_RECORD_THROTTLE] = "THROTTLE", [PERF_RECORD_UNTHROTTLE] = "UNTHROTTLE",
		[PERF_RECORD_FORK] = "FORK", [PERF_RECORD_READ] = "READ",
		[PERF_RECORD_SAMPLE] = "SAMPLE", [PERF_RECORD_MMAP2] = "MMAP2",
		[PERF_RECORD_AUX] = "AUX", [PERF_RECORD_ITRACE_START] = "ITRACE_START",
		[PERF_RECORD_LOST_SAMPLES] = "LOST_SAMPLES", [PERF_RECORD_SWITCH] = "SWITCH",
		[PERF_RECORD_SWITCH_CPU_WIDE] = "SWITCH_CPU_WIDE",
		[PERF_RECORD_NAMESPACES] = "NAMESPACES",
	};

	if (type < sizeof(names) / sizeof(names[0]) && names[type])
		return names[type];
	return "unknown";
}
