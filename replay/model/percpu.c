/*
 * replay/model/percpu.c: per-cpu PT streams and context-switch records to
 * per-thread segments (replay/model/percpu.h).
 *
 * Three steps, as LLDB does them: each cpu's switch records become
 * executions; each cpu's PT stream becomes PSB blocks with their first TSC;
 * walking both in time order, a block goes to the execution whose (start,
 * end) holds its TSC (blocks outside every execution are nobody's). Then
 * each thread's executions are sorted by time and their blocks become the
 * thread's segments.
 */
#include "replay/model/percpu.h"

#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"

#define SWITCH_CPU_WIDE 15         /* PERF_RECORD_SWITCH_CPU_WIDE */
#define MISC_SWITCH_OUT (1u << 13) /* PERF_RECORD_MISC_SWITCH_OUT */
#define SWITCH_RECORD_SIZE 32      /* header, next/prev pid+tid, pid+tid, time */
#define MAX_RECORD_SIZE 8000

struct sw {                        /* one switch record, time in TSC */
	uint64_t tsc;
	int64_t pid, tid;
	int out;
};

static uint32_t get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static int push_exec(struct replay_percpu_exec **v, size_t *n, size_t *cap,
		     enum replay_percpu_kind kind, const struct sw *who, uint64_t start, uint64_t end)
{
	struct replay_percpu_exec *e;

	if (*n == *cap) {
		size_t c = *cap ? *cap * 2 : 64;

		e = realloc(*v, c * sizeof(*e));
		if (!e)
			return -ENOMEM;
		*v = e;
		*cap = c;
	}
	e = &(*v)[(*n)++];
	e->kind = kind;
	e->pid = who->pid;
	e->tid = who->tid;
	e->start = start;
	e->end = end;
	e->lowest = kind == REPLAY_EXEC_ONLY_END || kind == REPLAY_EXEC_HINTED_START ? end : start;
	return 0;
}

/* The executions that record @cur closes, given the one before it. */
static int close_exec(struct replay_percpu_exec **v, size_t *n, size_t *cap,
		      const struct sw *prev, const struct sw *cur)
{
	int rc = 0;

	if (!prev)
		return cur->out ? push_exec(v, n, cap, REPLAY_EXEC_ONLY_END, cur, 0, cur->tsc) : 0;
	if (!cur->out && !prev->out)
		return push_exec(v, n, cap, REPLAY_EXEC_HINTED_END, prev, prev->tsc, cur->tsc - 1);
	if (cur->out && prev->out)
		return push_exec(v, n, cap, REPLAY_EXEC_HINTED_START, cur, prev->tsc + 1, cur->tsc);
	if (!cur->out)
		return 0;                  /* an in after an out: it starts one */
	if (cur->pid == prev->pid && cur->tid == prev->tid)
		return push_exec(v, n, cap, REPLAY_EXEC_COMPLETE, cur, prev->tsc, cur->tsc);
	rc = push_exec(v, n, cap, REPLAY_EXEC_HINTED_END, prev, prev->tsc, cur->tsc - 1);
	return rc ? rc : push_exec(v, n, cap, REPLAY_EXEC_HINTED_START, cur, prev->tsc + 1, cur->tsc);
}

int replay_percpu_switches(const uint8_t *data, size_t size, const struct replay_perf_tconv *tc,
			   struct replay_percpu_exec **out, size_t *bad_offset)
{
	struct replay_percpu_exec *v = NULL;
	struct sw prev = { 0 }, cur;
	size_t n = 0, cap = 0, off = 0;
	int have_prev = 0, rc = 0;

	*out = NULL;
	while (off < size && !rc) {
		uint32_t type;
		uint16_t misc, rsize;

		if (size - off < 8)
			break;
		type = get32(data + off);
		memcpy(&misc, data + off + 4, 2);
		memcpy(&rsize, data + off + 6, 2);
		if (!rsize || rsize > MAX_RECORD_SIZE || rsize > size - off ||
		    (type == SWITCH_CPU_WIDE && rsize < SWITCH_RECORD_SIZE)) {
			rc = -EINVAL;
			break;
		}
		if (type == SWITCH_CPU_WIDE) {
			cur.pid = get32(data + off + 16);
			cur.tid = get32(data + off + 20);
			cur.tsc = replay_perf_time_to_tsc(tc, get64(data + off + 24));
			cur.out = !!(misc & MISC_SWITCH_OUT);
			if (have_prev && prev.tsc >= cur.tsc) {
				rc = -EINVAL;
				break;
			}
			rc = close_exec(&v, &n, &cap, have_prev ? &prev : NULL, &cur);
			prev = cur;
			have_prev = 1;
		}
		if (!rc)
			off += rsize;
	}
	if (!rc && off < size)
		rc = -EINVAL;              /* a partial header at the end */
	if (!rc && have_prev && !prev.out)
		rc = push_exec(&v, &n, &cap, REPLAY_EXEC_ONLY_START, &prev, prev.tsc, UINT64_MAX);
	if (rc < 0) {
		if (rc == -EINVAL && bad_offset)
			*bad_offset = off;
		free(v);
		return rc;
	}
	*out = v;
	return (int)n;
}

static int cpu_config(const struct replay_cpu *cpu, const uint8_t *pt, size_t size,
		      struct pt_config *cfg)
{
	pt_config_init(cfg);
	cfg->begin = (uint8_t *)pt;
	cfg->end = (uint8_t *)pt + size;
	if (strcmp(cpu->vendor, "GenuineIntel"))
		return 0;
	cfg->cpu.vendor = pcv_intel;
	cfg->cpu.family = (uint16_t)cpu->family;
	cfg->cpu.model = (uint8_t)cpu->model;
	cfg->cpu.stepping = (uint8_t)cpu->stepping;
	return pt_cpu_errata(&cfg->errata, &cfg->cpu) < 0 ? -EINVAL : 0;
}

/* The first TSC after the PSB the decoder just synced to; -1 if the events
 * there fail (the block then merges into the one before, as in LLDB). */
static int first_tsc(struct pt_query_decoder *q, int st, uint64_t *tsc)
{
	struct pt_event ev;

	*tsc = 0;
	while (st >= 0 && (st & pts_event_pending)) {
		st = pt_qry_event(q, &ev, sizeof(ev));
		if (st >= 0 && ev.has_tsc) {
			*tsc = ev.tsc;
			return 0;
		}
	}
	return st < 0 ? -1 : 0;
}

int replay_percpu_blocks(const struct replay_cpu *cpu, const uint8_t *pt, size_t size,
			 struct replay_percpu_block **out)
{
	struct replay_percpu_block *v = NULL, *nv;
	struct pt_query_decoder *q;
	struct pt_config cfg;
	size_t n = 0, cap = 0;
	uint64_t ip, off, tsc;
	int st;

	*out = NULL;
	if (cpu_config(cpu, pt, size, &cfg) < 0)
		return -EINVAL;
	if (!size)
		return 0;
	q = pt_qry_alloc_decoder(&cfg);
	if (!q)
		return -EINVAL;
	while ((st = pt_qry_sync_forward(q, &ip)) >= 0) {
		if (pt_qry_get_sync_offset(q, &off) < 0 || first_tsc(q, st, &tsc) < 0)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				pt_qry_free_decoder(q);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (struct replay_percpu_block){ .offset = off, .tsc = tsc };
	}
	pt_qry_free_decoder(q);
	for (size_t i = 0; i < n; i++)
		v[i].size = (i + 1 < n ? v[i + 1].offset : size) - v[i].offset;
	*out = v;
	return (int)n;
}

/* An execution with the blocks it owns: blocks [first, first + n) of cpu
 * @cpu. */
struct owned {
	struct replay_percpu_exec e;
	size_t cpu, first, n;
	uint64_t key;              /* when it starts: its first block, else lowest */
	size_t seq;                /* to keep the sort stable */
};

/* What segments of cpu [i] say: its id and the PT file they are in. */
struct cpu_ref {
	uint32_t id;
	const char *pt_file;
};

struct split {
	struct replay_bundle *b;
	struct cpu_ref *refs;
	struct replay_percpu_block **blocks;
	struct owned *own;
	size_t nown, cap;
	char *err;
	size_t errsize;
};

static int fail(struct split *s, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct split *s, int code, const char *fmt, ...)
{
	va_list ap;

	if (s->err && s->errsize) {
		va_start(ap, fmt);
		vsnprintf(s->err, s->errsize, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* The whole of bundle-relative @file into *@data (free() it). */
static int slurp(struct split *s, const char *file, uint8_t **data, size_t *size)
{
	char path[4096];
	struct stat st;
	ssize_t got;
	size_t done = 0;
	int fd;

	*data = NULL;
	*size = 0;
	if (replay_bundle_path(s->b, file, path, sizeof(path)) < 0)
		return fail(s, -ENAMETOOLONG, "%s: file name too long", file);
	fd = dw_open_regular(path);
	if (fd < 0)
		return fail(s, fd, "%s: %s", file, fd == -EINVAL ? "not a regular file" : strerror(-fd));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(s, -EINVAL, "%s: not a regular file", file);
	}
	*data = malloc((size_t)st.st_size + 1);
	if (!*data) {
		close(fd);
		return fail(s, -ENOMEM, "out of memory");
	}
	while (done < (size_t)st.st_size && (got = read(fd, *data + done, (size_t)st.st_size - done)) > 0)
		done += (size_t)got;
	close(fd);
	*size = done;
	return 0;
}

static int add_owned(struct split *s, const struct replay_percpu_exec *e, size_t cpu,
		     size_t first, size_t n)
{
	struct owned *o;

	if (s->nown == s->cap) {
		size_t c = s->cap ? s->cap * 2 : 64;

		o = realloc(s->own, c * sizeof(*o));
		if (!o)
			return -ENOMEM;
		s->own = o;
		s->cap = c;
	}
	o = &s->own[s->nown];
	*o = (struct owned){ .e = *e, .cpu = cpu, .first = first, .n = n, .seq = s->nown };
	o->key = n ? s->blocks[cpu][first].tsc : e->lowest;
	s->nown++;
	return 0;
}

/* Gives each execution of cpu @c the blocks whose TSC is inside it. */
static int correlate(struct split *s, size_t c, const struct replay_percpu_exec *ex, size_t nex,
		     size_t nblocks)
{
	const struct replay_percpu_block *bl = s->blocks[c];
	size_t it = 0;
	int rc;

	for (size_t i = 0; i < nex; i++) {
		size_t first = it, n = 0;

		for (; it < nblocks && bl[it].tsc < ex[i].end; it++) {
			if (bl[it].tsc > ex[i].start) {
				if (!n)
					first = it;
				n++;
			}
		}
		/* Blocks skipped inside [first, it) are before start, so the
		 * owned ones are contiguous. */
		rc = add_owned(s, &ex[i], c, first, n);
		if (rc < 0)
			return fail(s, rc, "out of memory");
	}
	return 0;
}

/* Cpu @c's blocks and executions, correlated. */
static int split_cpu(struct split *s, size_t c, const struct replay_percpu_mem *m,
		     const struct replay_perf_tconv *tc)
{
	struct replay_percpu_exec *ex = NULL;
	size_t bad = 0;
	int nblocks, nex, rc;

	s->refs[c] = (struct cpu_ref){ .id = m->id, .pt_file = m->pt_file };
	nblocks = replay_percpu_blocks(&s->b->cpu, m->pt, m->pt_size, &s->blocks[c]);
	if (nblocks == -ENOMEM)
		return fail(s, nblocks, "out of memory");
	if (nblocks < 0)
		return fail(s, nblocks, "%s: libipt refuses the cpu", m->pt_file);
	nex = replay_percpu_switches(m->switches, m->switches_size, tc, &ex, &bad);
	if (nex == -EINVAL)
		return fail(s, nex, "%s: malformed context switch trace at offset %zu",
			    m->switch_name, bad);
	if (nex < 0)
		return fail(s, nex, "out of memory");
	rc = correlate(s, c, ex, (size_t)nex, (size_t)nblocks);
	free(ex);
	return rc;
}

/* Cpu @c of a manifest: its files read, then split_cpu. */
static int read_cpu(struct split *s, size_t c, const struct replay_percpu_cpu *cpu,
		    const struct replay_perf_tconv *tc)
{
	struct replay_percpu_mem m = { .id = cpu->id, .pt_file = cpu->pt_file,
				       .switch_name = cpu->switch_file };
	uint8_t *pt = NULL, *sw = NULL;
	int rc = slurp(s, cpu->pt_file, &pt, &m.pt_size);

	if (!rc)
		rc = slurp(s, cpu->switch_file, &sw, &m.switches_size);
	m.pt = pt;
	m.switches = sw;
	if (!rc)
		rc = split_cpu(s, c, &m, tc);
	free(pt);
	free(sw);
	return rc;
}

static int by_tid_time(const void *pa, const void *pb)
{
	const struct owned *a = pa, *b = pb;

	if (a->e.tid != b->e.tid)
		return a->e.tid < b->e.tid ? -1 : 1;
	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

static struct replay_thread *find_thread(struct replay_bundle *b, int64_t tid)
{
	for (size_t i = 0; i < b->nthreads; i++)
		if (b->threads[i].tid == tid)
			return &b->threads[i];
	return NULL;
}

/* Threads of the process that the manifest does not list. In record order
 * (s->own is not sorted yet). */
static int add_missing_threads(struct split *s)
{
	for (size_t i = 0; i < s->nown; i++) {
		const struct replay_percpu_exec *e = &s->own[i].e;
		int rc;

		if (e->pid != s->b->pid || find_thread(s->b, e->tid))
			continue;
		rc = replay_bundle_add_thread(s->b, e->tid, NULL);
		if (rc < 0)
			return fail(s, rc, "out of memory");
	}
	return 0;
}

static int add_segment(struct split *s, struct replay_thread *t, const struct owned *o,
		       const struct replay_percpu_block *bl)
{
	struct replay_pt_segment *v = realloc(t->segs, (t->nsegs + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	t->segs = v;
	v = &t->segs[t->nsegs];
	*v = (struct replay_pt_segment){ .offset = bl->offset, .size = bl->size,
					 .tsc_start = o->e.start, .tsc_end = o->e.end,
					 .cpu = s->refs[o->cpu].id };
	v->file = strdup(s->refs[o->cpu].pt_file);
	if (!v->file)
		return -ENOMEM;
	t->nsegs++;
	return 0;
}

static int make_segments(struct split *s)
{
	qsort(s->own, s->nown, sizeof(*s->own), by_tid_time);
	for (size_t i = 0; i < s->nown; i++) {
		const struct owned *o = &s->own[i];
		struct replay_thread *t = find_thread(s->b, o->e.tid);

		if (!t || t->pt_file)
			continue;
		for (size_t j = 0; j < o->n; j++)
			if (add_segment(s, t, o, &s->blocks[o->cpu][o->first + j]) < 0)
				return fail(s, -ENOMEM, "out of memory");
	}
	return 0;
}

static int split_begin(struct split *s, size_t ncpus)
{
	s->blocks = calloc(ncpus ? ncpus : 1, sizeof(*s->blocks));
	s->refs = calloc(ncpus ? ncpus : 1, sizeof(*s->refs));
	if (!s->blocks || !s->refs)
		return fail(s, -ENOMEM, "out of memory");
	return 0;
}

/* The threads' segments from the cpus correlated (if @rc is 0), then
 * what the split held freed. */
static int split_end(struct split *s, size_t ncpus, int rc)
{
	if (!rc)
		rc = add_missing_threads(s);
	if (!rc)
		rc = make_segments(s);
	for (size_t c = 0; s->blocks && c < ncpus; c++)
		free(s->blocks[c]);
	free(s->blocks);
	free(s->refs);
	free(s->own);
	return rc;
}

int replay_percpu_split(struct replay_bundle *b, const struct replay_percpu_cpu *cpus,
			size_t ncpus, const struct replay_perf_tconv *tc, char *err, size_t errsize)
{
	struct split s = { .b = b, .err = err, .errsize = errsize };
	int rc = split_begin(&s, ncpus);

	for (size_t c = 0; c < ncpus && !rc; c++)
		rc = read_cpu(&s, c, &cpus[c], tc);
	return split_end(&s, ncpus, rc);
}

int replay_percpu_split_mem(struct replay_bundle *b, const struct replay_percpu_mem *cpus,
			    size_t ncpus, const struct replay_perf_tconv *tc, char *err,
			    size_t errsize)
{
	struct split s = { .b = b, .err = err, .errsize = errsize };
	int rc = split_begin(&s, ncpus);

	for (size_t c = 0; c < ncpus && !rc; c++)
		rc = split_cpu(&s, c, &cpus[c], tc);
	return split_end(&s, ncpus, rc);
}

int replay_percpu_rebase(struct replay_thread *t, const char *file)
{
	uint64_t at = 0;

	for (size_t i = 0; i < t->nsegs; i++) {
		char *copy = strdup(file);

		if (!copy)
			return -ENOMEM;
		free(t->segs[i].file);
		t->segs[i].file = copy;
		t->segs[i].offset = at;
		at += t->segs[i].size;
	}
	return 0;
}

int replay_percpu_write_thread(const struct replay_bundle *b, size_t thread, const char *path)
{
	const struct replay_thread *t = &b->threads[thread];
	char from[4096], buf[65536];
	FILE *out = replay_bundle_fcreate(path);
	int rc = out ? 0 : -errno;

	for (size_t i = 0; !rc && i < t->nsegs; i++) {
		const struct replay_pt_segment *g = &t->segs[i];
		uint64_t done = 0;
		int fd;

		if (replay_bundle_path(b, g->file, from, sizeof(from)) < 0) {
			rc = -ENAMETOOLONG;
			break;
		}
		fd = dw_open_regular(from);
		if (fd < 0) {
			rc = fd;
			break;
		}
		while (!rc && done < g->size) {
			size_t want = g->size - done < sizeof(buf) ? (size_t)(g->size - done) : sizeof(buf);
			ssize_t got = pread(fd, buf, want, (off_t)(g->offset + done));

			if (got <= 0 || fwrite(buf, 1, (size_t)got, out) != (size_t)got)
				rc = -EIO;
			done += got > 0 ? (uint64_t)got : 0;
		}
		close(fd);
	}
	if (out && fclose(out) && !rc)
		rc = -EIO;
	return rc;
}
