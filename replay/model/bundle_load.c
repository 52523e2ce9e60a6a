/*
 * replay/model/bundle_load.c: reading trace.json (replay_bundle_load).
 *
 * Two kinds of manifest: hindsight's own (with a "hindsight" object whose
 * mappings are used as they are) and LLDB's per-thread Intel PT bundles,
 * whose modules become mappings valid from time 0, one per executable
 * PT_LOAD segment of the module's file. An image that is not where the
 * manifest says (or, for LLDB modules, is another build) is looked for by
 * build-id and name (replay/model/image_find.h). Per-cpu LLDB bundles ("cpus") are
 * split into threads by replay/model/percpu.c. A perf.data is read into a bundle
 * in memory (replay/model/perf_data.h), its images found the same way and next
 * to it. Every failure leaves a one-line reason in the caller's buffer,
 * naming the key ("trace.json: processes[0].threads[1]: missing \"tid\"")
 * or the file.
 */
#include "replay/model/bundle.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/elf_load.h"
#include "replay/model/image_find.h"
#include "replay/model/percpu.h"
#include "replay/model/perf_data.h"

struct reader {
	struct replay_bundle *b;
	char *err;
	size_t errsize;
	const char *text;          /* the manifest, for numbers beyond 2^53 */
	struct replay_percpu_cpu *cpus;
	size_t ncpus;
	struct replay_thread *seg_thread;  /* whose segments read_segment reads */
	/* find_image's last question and answer: a file's mappings come
	 * one after another, and each would read its build-id again. */
	char *img_file, *img_uuid;
	int img_rc;
	char img_found[4096];
	/* Parallel to b->threads as processes[].threads made them: the
	 * identity of each one's trace file, to find a file named twice; and
	 * whether hindsight.threads gave it its extra data yet. */
	struct thread_seen {
		dev_t dev;
		ino_t ino;
		bool has_file;
		bool hs_done;
	} *seen;
	size_t nseen;
};

static int fail(struct reader *r, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int fail(struct reader *r, int code, const char *fmt, ...)
{
	va_list ap;

	if (r->err && r->errsize) {
		va_start(ap, fmt);
		vsnprintf(r->err, r->errsize, fmt, ap);
		va_end(ap);
	}
	return code;
}

static const char *type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: return "an object";
	case JSON_ARRAY: return "an array";
	case JSON_STRING: return "a string";
	case JSON_INTEGER: return "an integer";
	case JSON_REAL: return "a number";
	case JSON_TRUE:
	case JSON_FALSE: return "a boolean";
	default: return "null";
	}
}

/* @o's member @key of JSON type @type; NULL with the error set if it is
 * missing (and @required) or of another type. */
static json_t *member(struct reader *r, const json_t *o, const char *where, const char *key,
		      json_type type, int required, int *rc)
{
	json_t *v = json_object_get(o, key);
	static const char *const names[] = {
		[JSON_OBJECT] = "an object", [JSON_ARRAY] = "an array",
		[JSON_STRING] = "a string", [JSON_INTEGER] = "an integer",
		[JSON_TRUE] = "a boolean",
	};

	if (!v || json_is_null(v)) {
		if (required)
			*rc = fail(r, -EINVAL, "trace.json: %s: missing \"%s\"", where, key);
		return NULL;
	}
	if (json_typeof(v) == type || (type == JSON_TRUE && json_is_boolean(v)))
		return v;
	/* Numbers may be written as integers, reals or strings (LLDB's
	 * JSONUINT64 and values beyond int64); get_u64 sorts them out. */
	if (type == JSON_INTEGER && (json_is_real(v) || json_is_string(v)))
		return v;
	*rc = fail(r, -EINVAL, "trace.json: %s: \"%s\" must be %s, not %s", where, key,
		   names[type], type_name(v));
	return NULL;
}

static int get_u64(struct reader *r, const json_t *o, const char *where, const char *key,
		   int required, uint64_t *out)
{
	int rc = 0;
	json_t *v = member(r, o, where, key, JSON_INTEGER, required, &rc);
	char *end;

	if (!v)
		return rc;
	if (json_is_integer(v) && json_integer_value(v) >= 0) {
		*out = (uint64_t)json_integer_value(v);
		return 0;
	}
	if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 18446744073709551616.0 &&
	    (double)(uint64_t)json_real_value(v) == json_real_value(v)) {
		*out = (uint64_t)json_real_value(v);
		return 0;
	}
	if (json_is_string(v)) {
		const char *s = json_string_value(v);

		errno = 0;
		*out = strtoull(s, &end, 0);
		if (s[0] && s[0] != '-' && !*end && !errno)
			return 0;
	}
	return fail(r, -EINVAL, "trace.json: %s: \"%s\" must be a non-negative integer", where, key);
}

static int get_i64(struct reader *r, const json_t *o, const char *where, const char *key,
		   int required, int64_t *out)
{
	int rc = 0;
	json_t *v = member(r, o, where, key, JSON_INTEGER, required, &rc);

	if (!v)
		return rc;
	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return 0;
	}
	if (json_is_real(v) && json_real_value(v) < 9007199254740992.0 &&
	    json_real_value(v) > -9007199254740992.0 &&
	    (double)(int64_t)json_real_value(v) == json_real_value(v)) {
		*out = (int64_t)json_real_value(v);
		return 0;
	}
	return fail(r, -EINVAL, "trace.json: %s: \"%s\" must be an integer", where, key);
}

static int get_u32(struct reader *r, const json_t *o, const char *where, const char *key,
		   int required, uint32_t *out)
{
	uint64_t v = *out;
	int rc = get_u64(r, o, where, key, required, &v);

	if (rc < 0)
		return rc;
	if (v > UINT32_MAX)
		return fail(r, -EINVAL, "trace.json: %s: \"%s\" is too large", where, key);
	*out = (uint32_t)v;
	return 0;
}

/* A copy of string member @key into *@out (NULL if absent and optional). */
static int get_str(struct reader *r, const json_t *o, const char *where, const char *key,
		   int required, char **out)
{
	int rc = 0;
	json_t *v = member(r, o, where, key, JSON_STRING, required, &rc);

	if (!v)
		return rc;
	return replay_bundle_set_str(out, json_string_value(v));
}

static int get_bool(struct reader *r, const json_t *o, const char *where, const char *key,
		    bool *out)
{
	int rc = 0;
	json_t *v = member(r, o, where, key, JSON_TRUE, 0, &rc);

	if (v)
		*out = json_is_true(v);
	return rc;
}

static int read_cpu(struct reader *r, const json_t *root)
{
	int rc = 0;
	json_t *c = member(r, root, "top level", "cpuInfo", JSON_OBJECT, 1, &rc);
	char *vendor = NULL;
	uint32_t f = 0, m = 0, s = 0;

	if (!c)
		return rc;
	if ((rc = get_str(r, c, "cpuInfo", "vendor", 1, &vendor)) < 0 ||
	    (rc = get_u32(r, c, "cpuInfo", "family", 1, &f)) < 0 ||
	    (rc = get_u32(r, c, "cpuInfo", "model", 1, &m)) < 0 ||
	    (rc = get_u32(r, c, "cpuInfo", "stepping", 1, &s)) < 0) {
		free(vendor);
		return rc;
	}
	snprintf(r->b->cpu.vendor, sizeof(r->b->cpu.vendor), "%s",
		 strcmp(vendor, "unknown") ? vendor : "");
	free(vendor);
	r->b->cpu.family = f;
	r->b->cpu.model = m;
	r->b->cpu.stepping = s;
	return 0;
}

/* The PT file of a thread must exist and be a regular file. */
static int check_file_stat(struct reader *r, const char *file, struct stat *out)
{
	char path[4096];
	struct stat st;

	if (replay_bundle_path(r->b, file, path, sizeof(path)) < 0)
		return fail(r, -ENAMETOOLONG, "%s: file name too long", file);
	if (stat(path, &st) < 0)
		return fail(r, -errno, "%s: %s", file, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return fail(r, -EINVAL, "%s: not a regular file", file);
	if (out)
		*out = st;
	return 0;
}

static int check_file(struct reader *r, const char *file)
{
	return check_file_stat(r, file, NULL);
}

/* A thread is listed once. A tid comes back only for a thread that reused
 * it, with a trace of its own: the same tid again without a trace file
 * (a per-cpu bundle's threads have none), or a trace file that is another
 * thread's, is a manifest no recording makes (one listing a thread 5,000
 * times made timeline run for minutes and replay run out of memory). */
static int check_new_thread(struct reader *r, const char *where, int64_t tid, const char *file,
			    const struct stat *st)
{
	for (size_t i = 0; i < r->nseen && i < r->b->nthreads; i++) {
		const struct thread_seen *o = &r->seen[i];

		if (file && o->has_file && o->dev == st->st_dev && o->ino == st->st_ino)
			return fail(r, -EINVAL, "trace.json: %s: %s is the trace of thread %" PRId64
				    " already (a trace is one thread's)", where, file,
				    r->b->threads[i].tid);
		if (r->b->threads[i].tid == tid && (!file || !o->has_file))
			return fail(r, -EINVAL, "trace.json: %s: thread %" PRId64 " is listed twice "
				    "(a tid used again comes with a trace file of its own)", where, tid);
	}
	return 0;
}

static int add_seen(struct reader *r, const char *file, const struct stat *st)
{
	struct thread_seen *v = realloc(r->seen, (r->nseen + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	r->seen = v;
	v[r->nseen].has_file = file != NULL;
	v[r->nseen].dev = file ? st->st_dev : 0;
	v[r->nseen].ino = file ? st->st_ino : 0;
	v[r->nseen].hs_done = false;
	r->nseen++;
	return 0;
}

/* A state log the manifest names but that is not there: the thread's
 * registers and memory are unknown, and the user hears why. */
static int note_missing_log(struct reader *r, const struct replay_thread *t)
{
	char path[4096], note[4600];

	if (replay_bundle_path(r->b, t->state_file, path, sizeof(path)) < 0 ||
	    access(path, F_OK) == 0)
		return 0;
	snprintf(note, sizeof(note), "thread %" PRId64 "'s state log %s is missing: its "
		 "registers and memory are unknown", t->tid, path);
	return replay_bundle_add_note(r->b, note) < 0 ? fail(r, -ENOMEM, "out of memory") : 0;
}

static int read_thread(struct reader *r, const json_t *t, const char *where)
{
	int64_t tid = 0;
	char *file = NULL;
	struct stat st;
	int rc;

	if (!json_is_object(t))
		return fail(r, -EINVAL, "trace.json: %s must be an object", where);
	if ((rc = get_i64(r, t, where, "tid", 1, &tid)) < 0 ||
	    (rc = get_str(r, t, where, "iptTrace", 0, &file)) < 0)
		goto out;
	if (file && (rc = check_file_stat(r, file, &st)) < 0)
		goto out;
	if ((rc = check_new_thread(r, where, tid, file, &st)) < 0 ||
	    (rc = add_seen(r, file, &st)) < 0)
		goto out;
	rc = replay_bundle_add_thread(r->b, tid, file);
out:
	free(file);
	return rc < 0 ? rc : 0;
}

/* Where the image recorded as @file (bundle-relative or absolute) with
 * build-id @uuid (NULL: unknown) is: @file itself when it is there with
 * that build-id, else a copy found by build-id or name (replay/model/image_find.h:
 * perf's build-id cache, the --image-dir directories). 1 with that copy in
 * @found, 0 to keep @file. A @file that is here but another build, with
 * no copy of the recorded one anywhere, is kept with a note: its code
 * may differ from what ran. */
static int find_image_uncached(struct reader *r, const char *file, const char *system_path,
			       const char *uuid, char *found, size_t size)
{
	char path[4096], note[4600];

	if (replay_bundle_path(r->b, file, path, sizeof(path)) < 0)
		return 0;
	if (!uuid && access(path, R_OK) == 0)
		return 0;
	if (replay_image_find(path, system_path, uuid, NULL, found, size, NULL) == 0)
		return strcmp(found, path) != 0;
	if (uuid && access(path, R_OK) == 0) {
		snprintf(note, sizeof(note), "%s has another build-id than the recording's (%s), "
			 "and no copy with it was found: using it, its code may differ", path,
			 uuid);
		if (replay_bundle_add_note(r->b, note) < 0)
			return -ENOMEM;
	}
	return 0;
}

static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int find_image(struct reader *r, const char *file, const char *system_path,
		      const char *uuid, char *found, size_t size)
{
	int rc;

	if (r->img_file && same_str(r->img_file, file) && same_str(r->img_uuid, uuid)) {
		rc = r->img_rc;
	} else {
		rc = find_image_uncached(r, file, system_path, uuid, r->img_found,
					 sizeof(r->img_found));
		free(r->img_file);
		free(r->img_uuid);
		r->img_file = strdup(file);
		r->img_uuid = uuid ? strdup(uuid) : NULL;
		r->img_rc = rc;
		if (!r->img_file || (uuid && !r->img_uuid))
			return -ENOMEM;
	}
	if (rc == 1 && snprintf(found, size, "%s", r->img_found) >= (int)size)
		return 0;
	return rc;
}

/* LLDB module @file at @load: one mapping per executable PT_LOAD. */
static int module_mappings(struct reader *r, const char *file, const char *system_path,
			   const char *uuid, uint64_t load)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	struct replay_mapping m = { 0 };
	char path[4096], found[4096];
	int n, rc;

	n = find_image(r, file, system_path, uuid, found, sizeof(found));
	if (n < 0)
		return fail(r, n, "out of memory");
	if (n)
		file = found;
	if (replay_bundle_path(r->b, file, path, sizeof(path)) < 0)
		return fail(r, -ENAMETOOLONG, "%s: file name too long", file);
	n = replay_elf_load_segments(path, segs);
	if (n == -ENOEXEC)
		return fail(r, n, "%s: not an ELF file with program headers", file);
	if (n == -ENOENT && uuid)
		return fail(r, n, "%s: %s (nor a copy with build-id %s in perf's build-id "
			    "cache or an image directory)", file, strerror(-n), uuid);
	if (n < 0)
		return fail(r, n, "%s: %s", file, strerror(-n));
	if (n == 0)
		return fail(r, -ENOEXEC, "%s: no PT_LOAD segments", file);
	m.time_unmap = REPLAY_TIME_NEVER;
	m.file = (char *)file;
	m.found_elsewhere = file == found;
	m.system_path = (char *)system_path;
	m.uuid = (char *)uuid;
	for (int i = 0; i < n; i++) {
		if (!segs[i].executable)
			continue;
		m.start = load - segs[0].vaddr + segs[i].vaddr;
		m.offset = segs[i].offset;
		m.size = segs[i].pages;    /* whole pages, as the loader maps it */
		rc = replay_bundle_add_mapping(r->b, &m);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int read_module(struct reader *r, const json_t *mo, const char *where)
{
	char *file = NULL, *sys = NULL, *uuid = NULL;
	uint64_t load = 0;
	int rc;

	if (!json_is_object(mo))
		return fail(r, -EINVAL, "trace.json: %s must be an object", where);
	if ((rc = get_str(r, mo, where, "file", 0, &file)) < 0 ||
	    (rc = get_str(r, mo, where, "systemPath", 1, &sys)) < 0 ||
	    (rc = get_str(r, mo, where, "uuid", 0, &uuid)) < 0 ||
	    (rc = get_u64(r, mo, where, "loadAddress", 1, &load)) < 0)
		goto out;
	rc = module_mappings(r, file ? file : sys, sys, uuid, load);
out:
	free(file);
	free(sys);
	free(uuid);
	return rc;
}

/* Runs @fn on each element of array member @key of @o. */
static int each(struct reader *r, const json_t *o, const char *where, const char *key,
		int required, int (*fn)(struct reader *, const json_t *, const char *))
{
	int rc = 0;
	json_t *a = member(r, o, where, key, JSON_ARRAY, required, &rc);
	int nested = strcmp(where, "top level") && strcmp(where, "hindsight");
	char here[160];
	size_t i;
	json_t *v;

	if (!a)
		return rc;
	json_array_foreach(a, i, v) {
		if (nested)
			snprintf(here, sizeof(here), "%.100s.%.20s[%zu]", where, key, i);
		else
			snprintf(here, sizeof(here), "%.20s[%zu]", key, i);
		rc = fn(r, v, here);
		if (rc < 0)
			return rc;
	}
	return 0;
}

static int read_process_threads(struct reader *r, const json_t *p, const char *where)
{
	int rc;

	if (!json_is_object(p))
		return fail(r, -EINVAL, "trace.json: %s must be an object", where);
	if (r->b->pid == 0 && (rc = get_i64(r, p, where, "pid", 1, &r->b->pid)) < 0)
		return rc;
	return each(r, p, where, "threads", 1, read_thread);
}

static int read_process_modules(struct reader *r, const json_t *p, const char *where)
{
	return each(r, p, where, "modules", 0, read_module);
}

/* hindsight.mappings[i] */
static int read_mapping(struct reader *r, const json_t *o, const char *where)
{
	struct replay_mapping m = { .time_unmap = REPLAY_TIME_NEVER };
	char found[4096];
	int rc;

	if (!json_is_object(o))
		return fail(r, -EINVAL, "trace.json: hindsight.%s must be an object", where);
	if ((rc = get_u64(r, o, where, "timeMap", 0, &m.time_map)) < 0 ||
	    (rc = get_u64(r, o, where, "timeUnmap", 0, &m.time_unmap)) < 0 ||
	    (rc = get_u64(r, o, where, "start", 1, &m.start)) < 0 ||
	    (rc = get_u64(r, o, where, "size", 1, &m.size)) < 0 ||
	    (rc = get_u64(r, o, where, "offset", 0, &m.offset)) < 0 ||
	    (rc = get_str(r, o, where, "file", 1, &m.file)) < 0 ||
	    (rc = get_str(r, o, where, "systemPath", 0, &m.system_path)) < 0 ||
	    (rc = get_str(r, o, where, "uuid", 0, &m.uuid)) < 0)
		goto out;
	rc = find_image(r, m.file, m.system_path, m.uuid, found, sizeof(found));
	if (rc < 0)
		goto out;
	if (rc) {
		free(m.file);
		m.found_elsewhere = true;
		if (!(m.file = strdup(found))) {
			rc = -ENOMEM;
			goto out;
		}
	}
	rc = replay_bundle_add_mapping(r->b, &m);
out:
	free(m.file);
	free(m.system_path);
	free(m.uuid);
	return rc < 0 ? rc : 0;
}

/* A segment must lie inside its file. */
static int check_segment(struct reader *r, const struct replay_pt_segment *g, const char *where)
{
	char path[4096];
	struct stat st;
	int rc = check_file(r, g->file);

	if (rc < 0)
		return rc;
	if (replay_bundle_path(r->b, g->file, path, sizeof(path)) < 0 || stat(path, &st) < 0)
		return fail(r, -EINVAL, "%s: cannot be read", g->file);
	if (!g->size || g->offset > (uint64_t)st.st_size || g->size > (uint64_t)st.st_size - g->offset)
		return fail(r, -EINVAL, "trace.json: hindsight.%s: bytes 0x%" PRIx64 "+0x%" PRIx64 " are not "
			    "inside %s (%lld bytes)", where, g->offset, g->size, g->file,
			    (long long)st.st_size);
	return 0;
}

/* hindsight.threads[i].segments[j], appended to r->seg_thread's. */
static int read_segment(struct reader *r, const json_t *o, const char *where)
{
	struct replay_thread *t = r->seg_thread;
	struct replay_pt_segment g = { .tsc_end = UINT64_MAX }, *v;
	int rc;

	if (!json_is_object(o))
		return fail(r, -EINVAL, "trace.json: hindsight.%s must be an object", where);
	if ((rc = get_str(r, o, where, "file", 1, &g.file)) < 0 ||
	    (rc = get_u64(r, o, where, "offset", 1, &g.offset)) < 0 ||
	    (rc = get_u64(r, o, where, "size", 1, &g.size)) < 0 ||
	    (rc = get_u32(r, o, where, "cpu", 0, &g.cpu)) < 0 ||
	    (rc = get_u64(r, o, where, "tscStart", 0, &g.tsc_start)) < 0 ||
	    (rc = get_u64(r, o, where, "tscEnd", 0, &g.tsc_end)) < 0 ||
	    (rc = check_segment(r, &g, where)) < 0)
		goto out;
	v = realloc(t->segs, (t->nsegs + 1) * sizeof(*v));
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	t->segs = v;
	t->segs[t->nsegs++] = g;
	return 0;
out:
	free(g.file);
	return rc;
}

/* hindsight.threads[i]: extra per-thread data, matched by tid (in order,
 * for a tid used again). */
static int read_hs_thread(struct reader *r, const json_t *o, const char *where)
{
	struct replay_thread *t = NULL;
	bool listed = false;
	int64_t tid = 0;
	int rc;

	if (!json_is_object(o))
		return fail(r, -EINVAL, "trace.json: hindsight.%s must be an object", where);

	if ((rc = get_i64(r, o, where, "tid", 1, &tid)) < 0)
		return rc;
	/* The first thread of that tid not given its data yet: a tid used
	 * again is listed in the same order in both lists. */
	for (size_t i = 0; !t && i < r->b->nthreads; i++) {
		if (r->b->threads[i].tid != tid)
			continue;
		listed = true;
		if (i < r->nseen && r->seen[i].hs_done)
			continue;
		t = &r->b->threads[i];
		if (i < r->nseen)
			r->seen[i].hs_done = true;
	}
	if (!t)
		return fail(r, -EINVAL, listed ? "trace.json: hindsight.%s: thread %" PRId64
			    " is listed more times than in processes[].threads"
			    : "trace.json: hindsight.%s: thread %" PRId64
			    " is not in processes[].threads", where, tid);
	if ((rc = get_str(r, o, where, "stateLog", 0, &t->state_file)) < 0 ||
	    (rc = get_str(r, o, where, "ptSums", 0, &t->pt_sums)) < 0 ||
	    (rc = get_str(r, o, where, "stateSums", 0, &t->state_sums)) < 0 ||
	    (rc = get_u64(r, o, where, "instructions", 0, &t->instructions)) < 0)
		return rc;
	for (size_t i = 0; t->state_file && i < r->b->nthreads; i++)
		if (&r->b->threads[i] != t && r->b->threads[i].state_file &&
		    !strcmp(r->b->threads[i].state_file, t->state_file))
			return fail(r, -EINVAL, "trace.json: hindsight.%s: %s is the state log of "
				    "thread %" PRId64 " already", where, t->state_file,
				    r->b->threads[i].tid);
	if (t->state_file && (rc = note_missing_log(r, t)) < 0)
		return rc;
	if (!json_object_get(o, "segments") || t->nsegs)
		return 0;
	/* Segments replace the iptTrace LLDB reads (their concatenation). */
	r->seg_thread = t;
	rc = each(r, o, where, "segments", 0, read_segment);
	if (rc < 0)
		return rc;
	if (t->nsegs) {
		free(t->pt_file);
		t->pt_file = NULL;
	}
	return 0;
}

static int read_gap(struct reader *r, const json_t *o, const char *where)
{
	char *kind = NULL, *text = NULL;
	int64_t tid = 0;
	uint64_t time = 0;
	int rc;

	if (!json_is_object(o))
		return fail(r, -EINVAL, "trace.json: hindsight.%s must be an object", where);
	if ((rc = get_i64(r, o, where, "tid", 1, &tid)) < 0 ||
	    (rc = get_u64(r, o, where, "time", 0, &time)) < 0 ||
	    (rc = get_str(r, o, where, "kind", 1, &kind)) < 0 ||
	    (rc = get_str(r, o, where, "text", 0, &text)) < 0)
		goto out;
	rc = replay_bundle_add_gap(r->b, tid, time, kind, text);
out:
	free(kind);
	free(text);
	return rc < 0 ? rc : 0;
}

static int read_argv(struct reader *r, const json_t *h)
{
	int rc = 0;
	json_t *a = member(r, h, "hindsight", "argv", JSON_ARRAY, 0, &rc);
	size_t n = a ? json_array_size(a) : 0, i;
	char **v;
	json_t *s;

	if (!a)
		return rc;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	json_array_foreach(a, i, s) {
		v[i] = (char *)json_string_value(s);
		if (!v[i]) {
			free(v);
			return fail(r, -EINVAL, "trace.json: hindsight: argv[%zu] must be a string", i);
		}
	}
	rc = replay_bundle_set_argv(r->b, v);
	free(v);
	return rc;
}

static int read_exit_timing(struct reader *r, const json_t *h)
{
	int rc = 0;
	json_t *e = member(r, h, "hindsight", "exit", JSON_OBJECT, 0, &rc);
	json_t *t = rc < 0 ? NULL : member(r, h, "hindsight", "timing", JSON_OBJECT, 0, &rc);
	uint32_t mtc = 0, nom = 0;
	int64_t status = 0;

	if (rc < 0)
		return rc;
	if (e && ((rc = get_str(r, e, "hindsight.exit", "kind", 1, &r->b->exit_kind)) < 0 ||
		  (rc = get_i64(r, e, "hindsight.exit", "status", 0, &status)) < 0))
		return rc;
	r->b->exit_status = (int)status;
	if (t && ((rc = get_u32(r, t, "hindsight.timing", "mtcFreq", 0, &mtc)) < 0 ||
		  (rc = get_u32(r, t, "hindsight.timing", "nomFreq", 0, &nom)) < 0 ||
		  (rc = get_u32(r, t, "hindsight.timing", "cpuid15Eax", 0, &r->b->cpuid_0x15_eax)) < 0 ||
		  (rc = get_u32(r, t, "hindsight.timing", "cpuid15Ebx", 0, &r->b->cpuid_0x15_ebx)) < 0))
		return rc;
	if (mtc > UINT8_MAX || nom > UINT8_MAX)
		return fail(r, -EINVAL, "trace.json: hindsight.timing: mtcFreq / nomFreq out of range");
	r->b->mtc_freq = (uint8_t)mtc;
	r->b->nom_freq = (uint8_t)nom;
	return 0;
}

/* Checked before anything else, so a newer bundle is refused for its
 * version and not for a key this reader does not know. */
static int read_version(struct reader *r, const json_t *h)
{
	uint64_t version = 0;
	int rc;

	if ((rc = get_u64(r, h, "hindsight", "version", 1, &version)) < 0)
		return rc;
	if (version > REPLAY_BUNDLE_VERSION)
		return fail(r, -EPROTONOSUPPORT,
			    "bundle format %" PRIu64 " is newer than this hindsight reads (%d)",
			    version, REPLAY_BUNDLE_VERSION);
	if (version == 0)
		return fail(r, -EINVAL, "trace.json: hindsight: \"version\" must be at least 1");
	r->b->version = (unsigned)version;
	return 0;
}

static int read_hindsight(struct reader *r, const json_t *h)
{
	int rc;

	if ((rc = get_str(r, h, "hindsight", "recorder", 0, &r->b->recorder)) < 0 ||
	    (rc = get_str(r, h, "hindsight", "start", 0, &r->b->start)) < 0 ||
	    (rc = read_argv(r, h)) < 0 ||
	    (rc = get_u32(r, h, "hindsight", "psbPeriod", 0, &r->b->psb_period)) < 0 ||
	    (rc = get_bool(r, h, "hindsight", "retCompression", &r->b->ret_compression)) < 0 ||
	    (rc = get_bool(r, h, "hindsight", "complete", &r->b->complete)) < 0 ||
	    (rc = get_u64(r, h, "hindsight", "endTime", 0, &r->b->end_time)) < 0 ||
	    (rc = read_exit_timing(r, h)) < 0 ||
	    (rc = each(r, h, "hindsight", "threads", 0, read_hs_thread)) < 0 ||
	    (rc = each(r, h, "hindsight", "mappings", 0, read_mapping)) < 0 ||
	    (rc = each(r, h, "hindsight", "gaps", 0, read_gap)) < 0)
		return rc;
	return 0;
}

/* cpus[i]: a per-cpu PT stream and its context-switch records. */
static int read_cpu_trace(struct reader *r, const json_t *o, const char *where)
{
	struct replay_percpu_cpu c = { 0 }, *v;
	int rc;

	if (!json_is_object(o))
		return fail(r, -EINVAL, "trace.json: %s must be an object", where);
	if ((rc = get_u32(r, o, where, "id", 1, &c.id)) < 0 ||
	    (rc = get_str(r, o, where, "iptTrace", 1, &c.pt_file)) < 0 ||
	    (rc = get_str(r, o, where, "contextSwitchTrace", 1, &c.switch_file)) < 0)
		goto out;
	v = realloc(r->cpus, (r->ncpus + 1) * sizeof(*v));
	if (!v) {
		rc = -ENOMEM;
		goto out;
	}
	r->cpus = v;
	r->cpus[r->ncpus++] = c;
	return 0;
out:
	free(c.pt_file);
	free(c.switch_file);
	return rc;
}

/* The exact digits of integer @key in the manifest's text, when jansson
 * could only read it as a real (LLDB writes timeZero as a uint64 beyond
 * int64): the first "@key" followed by a number within the real's error. */
static void exact_u64(const struct reader *r, const char *key, uint64_t *v)
{
	char pat[64];
	const char *p;
	char *end;
	uint64_t x, diff;

	snprintf(pat, sizeof(pat), "\"%s\"", key);
	p = r->text ? strstr(r->text, pat) : NULL;
	if (!p)
		return;
	p += strlen(pat);
	while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r' || *p == ':')
		p++;
	if (*p < '0' || *p > '9')
		return;
	errno = 0;
	x = strtoull(p, &end, 10);
	diff = x > *v ? x - *v : *v - x;
	if (!errno && diff <= 4096)
		*v = x;
}

static int read_tsc_conversion(struct reader *r, const json_t *root, struct replay_perf_tconv *tc)
{
	const char *where = "tscPerfZeroConversion";
	int rc = 0;
	json_t *c = member(r, root, "top level", where, JSON_OBJECT, 1, &rc);
	uint32_t shift = 0;

	if (!c)
		return rc;
	if ((rc = get_u32(r, c, where, "timeMult", 1, &tc->time_mult)) < 0 ||
	    (rc = get_u32(r, c, where, "timeShift", 1, &shift)) < 0 ||
	    (rc = get_u64(r, c, where, "timeZero", 1, &tc->time_zero)) < 0)
		return rc;
	if (json_is_real(json_object_get(c, "timeZero")))
		exact_u64(r, "timeZero", &tc->time_zero);
	if (shift > 63 || !tc->time_mult)
		return fail(r, -EINVAL, "trace.json: %s: timeShift must be below 64 and timeMult not 0",
			    where);
	tc->time_shift = (uint16_t)shift;
	tc->valid = true;
	return 0;
}

/* LLDB's per-cpu bundles: each thread's history from the cpus' streams. */
static int read_cpus(struct reader *r, const json_t *root)
{
	struct replay_perf_tconv tc = { 0 };
	int rc;

	if ((rc = each(r, root, "top level", "cpus", 1, read_cpu_trace)) < 0 ||
	    (rc = read_tsc_conversion(r, root, &tc)) < 0)
		return rc;
	return replay_percpu_split(r->b, r->cpus, r->ncpus, &tc, r->err, r->errsize);
}

static int read_root(struct reader *r, const json_t *root)
{
	int rc = 0;
	json_t *type, *h;

	if (!json_is_object(root))
		return fail(r, -EINVAL, "trace.json: the top level must be an object");
	type = member(r, root, "top level", "type", JSON_STRING, 1, &rc);
	if (!type)
		return rc;
	if (strcmp(json_string_value(type), "intel-pt"))
		return fail(r, -EINVAL, "trace.json: trace type \"%s\" is not supported (only \"intel-pt\")",
			    json_string_value(type));
	h = member(r, root, "top level", "hindsight", JSON_OBJECT, 0, &rc);
	if (rc < 0)
		return rc;
	if (h && (rc = read_version(r, h)) < 0)
		return rc;
	if ((rc = read_cpu(r, root)) < 0 ||
	    (rc = each(r, root, "top level", "processes", 1, read_process_threads)) < 0)
		return rc;
	if (json_object_get(root, "cpus") && (rc = read_cpus(r, root)) < 0)
		return rc;
	if (h)
		return read_hindsight(r, h);
	rc = replay_bundle_set_str(&r->b->recorder, "lldb");
	if (rc < 0)
		return rc;
	r->b->complete = true;
	return each(r, root, "top level", "processes", 1, read_process_modules);
}

/* @dir/trace.json, or @dir itself when it is a file (LLDB's `trace load`
 * takes the manifest's path, whatever its name); @base gets the directory
 * the manifest's relative paths start from. 0 or -ENAMETOOLONG. */
static int manifest_path(const char *dir, char *path, size_t size, char *base, size_t bsize)
{
	struct stat st;
	const char *slash;

	if (stat(dir, &st) == 0 && S_ISREG(st.st_mode)) {
		slash = strrchr(dir, '/');
		if (snprintf(path, size, "%s", dir) >= (int)size)
			return -ENAMETOOLONG;
		if (!slash)
			return snprintf(base, bsize, ".") >= (int)bsize ? -ENAMETOOLONG : 0;
		return snprintf(base, bsize, "%.*s", (int)(slash - dir), dir) >= (int)bsize
			       ? -ENAMETOOLONG : 0;
	}
	if (snprintf(path, size, "%s/trace.json", dir) >= (int)size)
		return -ENAMETOOLONG;
	return snprintf(base, bsize, "%s", dir) >= (int)bsize ? -ENAMETOOLONG : 0;
}

/* The manifest's text (NUL-terminated) into *@text. 0 or -errno. */
static int read_text(const char *path, char **text)
{
	FILE *f = dw_fopen_regular(path);
	size_t n = 0, cap = 0, got;
	char *buf = NULL, *nb;
	int err;

	*text = NULL;
	if (!f)
		return -errno;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			nb = realloc(buf, cap + 1);
			if (!nb) {
				free(buf);
				fclose(f);
				return -ENOMEM;
			}
			buf = nb;
		}
		got = fread(buf + n, 1, cap - n, f);
		n += got;
	} while (got);
	err = ferror(f) ? -EIO : 0;
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[n] = 0;
	*text = buf;
	return 0;
}

static json_t *parse(const char *text, json_error_t *jerr)
{
	json_t *root = json_loads(text, JSON_REJECT_DUPLICATES, jerr);

	/* LLDB writes uint64 values beyond int64 (timeZero); jansson reads
	 * them only as reals (exact_u64 recovers the digits). */
	if (!root && strstr(jerr->text, "too big integer"))
		root = json_loads(text, JSON_REJECT_DUPLICATES | JSON_DECODE_INT_AS_REAL, jerr);
	return root;
}

/* Whether @path is a perf.data file (its magic). */
static bool is_perf_data(const char *path)
{
	char magic[8];
	struct stat sb;
	FILE *f;
	bool yes;

	if (stat(path, &sb) < 0 || !S_ISREG(sb.st_mode) || !(f = fopen(path, "rbe")))
		return false;
	yes = fread(magic, 1, 8, f) == 8 && !memcmp(magic, "PERFILE2", 8);
	fclose(f);
	return yes;
}

/* The images of @b not where perf.data says, found as `hindsight import`
 * finds them: by build-id in perf's cache, then next to @file (its
 * directory). One not found leaves "no memory mapped" gaps. */
static int find_images_near(struct replay_bundle *b, const char *file)
{
	char near[4096], path[4096], found[4096], *slash;

	snprintf(near, sizeof(near), "%s", file);
	slash = strrchr(near, '/');
	if (slash)
		*slash = 0;
	else
		snprintf(near, sizeof(near), ".");
	for (size_t i = 0; i < b->nmaps; i++) {
		struct replay_mapping *m = &b->maps[i];
		char note[4600];

		if (replay_bundle_path(b, m->file, path, sizeof(path)) < 0)
			continue;
		if (replay_image_find(path, m->system_path, m->uuid, near, found, sizeof(found),
				      NULL) < 0) {
			/* What `hindsight import` says of it. */
			snprintf(note, sizeof(note), "image %s%s%s%s not found (perf's build-id "
				 "cache, next to the recording, --image-dir): its code will be a gap",
				 m->system_path ? m->system_path : m->file, m->uuid ? " (build-id " : "",
				 m->uuid ? m->uuid : "", m->uuid ? ")" : "");
			if (access(path, F_OK) < 0 && replay_bundle_add_note(b, note) < 0)
				return -ENOMEM;
			continue;
		}
		if (strcmp(found, path) && replay_bundle_set_str(&m->file, found) < 0)
			return -ENOMEM;
	}
	return 0;
}

/* The images of @b as the reader of a bundle's mappings checks them (the
 * recorded build-id, perf's build-id cache, --image-dir), then as
 * `hindsight import` finds them (next to @file). */
static int find_images(struct replay_bundle *b, const char *file)
{
	struct reader r = { .b = b };
	char found[4096];
	int rc = 0;

	for (size_t i = 0; rc >= 0 && i < b->nmaps; i++) {
		struct replay_mapping *m = &b->maps[i];

		rc = find_image(&r, m->file, m->system_path, m->uuid, found, sizeof(found));
		if (rc == 1) {
			m->found_elsewhere = true;
			rc = replay_bundle_set_str(&m->file, found);
		}
	}
	free(r.img_file);
	free(r.img_uuid);
	return rc < 0 ? rc : find_images_near(b, file);
}

/* The directory @file is in, as the bundle's. */
static int set_dir_of(struct replay_bundle *b, const char *file)
{
	const char *slash = strrchr(file, '/');
	char dir[4096];

	if (!slash)
		return replay_bundle_set_str(&b->dir, ".");
	snprintf(dir, sizeof(dir), "%.*s", slash == file ? 1 : (int)(slash - file), file);
	return replay_bundle_set_str(&b->dir, dir);
}

/* A perf.data opened as a recording: a bundle in memory, its streams
 * in-memory files (the reader's notes, such as a damaged feature section
 * skipped, are the bundle's already). */
static int load_perf_data(const char *file, struct replay_bundle **out, char *err,
			  size_t errsize)
{
	struct replay_perf_data *pd;
	int rc;

	*out = NULL;
	rc = replay_perf_data_read(file, &pd, err, errsize);
	if (rc < 0)
		return rc;
	rc = replay_perf_data_to_bundle(pd, out, err, errsize);
	replay_perf_data_free(pd);
	if (rc >= 0 && ((rc = set_dir_of(*out, file)) < 0 ||
			(rc = replay_bundle_set_str(&(*out)->perf_file, file)) < 0 ||
			(rc = find_images(*out, file)) < 0))
		snprintf(err, errsize, "out of memory");
	if (rc < 0) {
		replay_bundle_free(*out);
		*out = NULL;
		return rc;
	}
	/* Whose files a debugger may read: the perf.data's owner's. */
	(*out)->owner = replay_bundle_owner_of(file);
	return 0;
}

int64_t replay_bundle_owner_of(const char *path)
{
	char manifest[4096], base[4096];
	struct stat st;

	if (!is_perf_data(path) &&
	    manifest_path(path, manifest, sizeof(manifest), base, sizeof(base)) == 0)
		path = base;
	return stat(path, &st) == 0 ? (int64_t)st.st_uid : -1;
}

int replay_bundle_load(const char *dir, struct replay_bundle **out, char *err, size_t errsize)
{
	struct reader r = { .err = err, .errsize = errsize };
	json_error_t jerr;
	char path[4096], base[4096], *text = NULL;
	json_t *root;
	int rc;

	*out = NULL;
	if (err && errsize)
		err[0] = 0;
	if (is_perf_data(dir))
		return load_perf_data(dir, out, err, errsize);
	if (manifest_path(dir, path, sizeof(path), base, sizeof(base)))
		return fail(&r, -ENAMETOOLONG, "%s: name too long", dir);
	rc = replay_bundle_new(&r.b);
	if (rc < 0)
		return fail(&r, rc, "out of memory");
	r.b->version = 0;
	rc = replay_bundle_set_str(&r.b->dir, base);
	if (rc < 0)
		goto out;
	/* Taken now, not when a debugger asks: the path may lead elsewhere
	 * by then. */
	r.b->owner = replay_bundle_owner_of(dir);
	if (access(path, R_OK) < 0) {
		rc = fail(&r, -errno, "%s: %s", path, strerror(errno));
		goto out;
	}
	rc = read_text(path, &text);
	if (rc < 0) {
		rc = fail(&r, rc, "%s: %s", path, strerror(-rc));
		goto out;
	}
	root = parse(text, &jerr);
	if (!root) {
		rc = fail(&r, -EINVAL, "trace.json:%d: %s", jerr.line, jerr.text);
		goto out;
	}
	r.text = text;
	rc = read_root(&r, root);
	json_decref(root);
out:
	free(text);
	for (size_t i = 0; i < r.ncpus; i++) {
		free(r.cpus[i].pt_file);
		free(r.cpus[i].switch_file);
	}
	free(r.cpus);
	free(r.img_file);
	free(r.img_uuid);
	free(r.seen);
	if (rc < 0) {
		if (rc == -ENOMEM && err && errsize && !err[0])
			fail(&r, rc, "out of memory");
		replay_bundle_free(r.b);
		return rc;
	}
	*out = r.b;
	return 0;
}
