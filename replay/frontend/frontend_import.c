/*
 * replay/frontend/frontend_import.c: others' Intel PT recordings as hindsight
 * bundles, for `hindsight import` (see frontend_import.h).
 *
 * A perf.data file goes through replay/model/perf_data (one PT stream per thread,
 * per-cpu streams split by context switches, images from MMAP2 records);
 * an LLDB bundle is loaded as it is and saved with its traces copied in (a
 * per-cpu thread's pieces as one file, their bounds kept as segments); a
 * raw PT file takes ptxed's options. Images named by paths of the
 * recording machine, or whose file here has another build-id, are looked
 * for by build-id in perf's build-id cache, then by build-id and base name
 * next to the source and in each image directory (replay/model/image_find.h);
 * each one still missing gets a line. The result is checked by loading it
 * back.
 */
#include "replay/frontend/frontend_import.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/model/image_find.h"
#include "replay/model/percpu.h"
#include "replay/model/perf_data.h"

/* A line for the user (without "hindsight: "), when the caller takes them. */
static void say(const struct replay_frontend_import *a, const char *line)
{
	if (a->say)
		a->say(a->ctx, line);
}

/* The bundle's notes (what a damaged feature section lost) as warnings. */
static void say_notes(const struct replay_frontend_import *a, const struct replay_bundle *b)
{
	char line[4200];

	for (size_t i = 0; i < b->nnotes; i++) {
		snprintf(line, sizeof(line), "warning: %s", b->notes[i]);
		say(a, line);
	}
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = replay_bundle_create(to);
	if (out < 0) {
		close(in);
		return out;
	}
	while (!err && (n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			err = -EIO;
	if (!err && n < 0)
		err = -errno;
	close(in);
	if (close(out) && !err)
		err = -errno;
	return err;
}

static int make_dirs(const char *dir)
{
	char path[4200];

	int e = replay_bundle_mkdir(dir);

	if (e < 0)
		return e;
	snprintf(path, sizeof(path), "%s/threads", dir);
	return replay_bundle_mkdir(path);
}

/* Copies thread @i's trace into @dir/threads/ and points the bundle at it. */
static int take_trace(struct replay_bundle *b, size_t i, const char *dir)
{
	char from[4096], rel[64], to[4200];
	int err = b->threads[i].pt_file ? replay_bundle_path(b, b->threads[i].pt_file, from, sizeof(from))
					: 0;

	snprintf(rel, sizeof(rel), "threads/%lld.pt", (long long)b->threads[i].tid);
	snprintf(to, sizeof(to), "%s/%s", dir, rel);
	if (!b->threads[i].pt_file) {
		/* per-cpu bundles: the thread's pieces of the cpus' streams, one
		 * after the other, with their bounds kept as segments */
		if (!b->threads[i].nsegs)
			return 0;
		err = replay_percpu_write_thread(b, i, to);
		return err ? err : replay_percpu_rebase(&b->threads[i], rel);
	}
	if (!err)
		err = copy_file(from, to);
	free(b->threads[i].pt_sums);   /* its checksums are not copied */
	b->threads[i].pt_sums = NULL;
	return err ? err : replay_bundle_set_str(&b->threads[i].pt_file, rel);
}

/* Mapping files as absolute paths, so the bundle can live anywhere. */
static int absolute_files(struct replay_bundle *b)
{
	char path[4096], *abs;
	int err = 0;

	for (size_t i = 0; i < b->nmaps && !err; i++) {
		err = replay_bundle_path(b, b->maps[i].file, path, sizeof(path));
		abs = err ? NULL : realpath(path, NULL);
		if (abs) {
			err = replay_bundle_set_str(&b->maps[i].file, abs);
			free(abs);
		}
	}
	return err;
}

static int import_lldb(const struct replay_frontend_import *a, const char *dir, char *why, size_t n)
{
	struct replay_bundle *b;
	int err = replay_bundle_load(a->src, &b, why, n);

	if (err)
		return err;
	err = make_dirs(dir);
	for (size_t i = 0; !err && i < b->nthreads; i++)
		err = take_trace(b, i, dir);
	if (!err)
		err = absolute_files(b);
	if (!err)
		err = replay_bundle_save(b, dir);
	if (err)
		snprintf(why, n, "%.400s: %s", dir, strerror(-err));
	replay_bundle_free(b);
	return err;
}

static int import_perf(const struct replay_frontend_import *a, const char *dir, char *why, size_t n)
{
	struct replay_perf_data *pd;
	int err = replay_perf_data_read(a->src, &pd, why, n);

	if (err)
		return err;
	say_notes(a, pd->bundle);      /* what a damaged feature section lost */
	err = replay_perf_data_write(pd, dir, why, n);
	replay_perf_data_free(pd);
	return err;
}

/* --elf FILE[:ADDR]: the executable segments of FILE, its first segment at
 * ADDR when given (ptxed's meaning), else at its own addresses; each whole
 * pages, as the loader maps it. */
static int add_elf(struct replay_bundle *b, const char *spec)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	char path[4096], *colon, *abs;
	uint64_t bias = 0;
	int n, err = 0;

	snprintf(path, sizeof(path), "%s", spec);
	colon = strrchr(path, ':');
	if (colon && colon[1]) {
		char *end;

		*colon = 0;
		bias = strtoull(colon + 1, &end, 0);
		if (*end)
			return -EINVAL;
	}
	n = replay_elf_load_segments(path, segs);
	if (n <= 0)
		return n < 0 ? n : -ENOEXEC;
	if (colon)
		bias -= segs[0].vaddr;
	abs = realpath(path, NULL);
	for (int i = 0; i < n && !err; i++) {
		struct replay_mapping m = {
			.time_map = 0, .time_unmap = REPLAY_TIME_NEVER,
			.start = bias + segs[i].vaddr, .size = segs[i].pages, .offset = segs[i].offset,
			.file = abs ? abs : path, .system_path = abs ? abs : path,
		};

		if (segs[i].executable)
			err = replay_bundle_add_mapping(b, &m) < 0 ? -ENOMEM : 0;
	}
	free(abs);
	return err;
}

static int raw_bundle(const struct replay_frontend_import *a, struct replay_bundle *b, char *why,
		      size_t n)
{
	unsigned f, m, s;
	int err = 0;

	if (sscanf(a->cpu, "%u/%u/%u", &f, &m, &s) != 3) {
		snprintf(why, n, "--cpu %s: want FAMILY/MODEL/STEPPING", a->cpu);
		return -EINVAL;
	}
	snprintf(b->cpu.vendor, sizeof(b->cpu.vendor), "GenuineIntel");
	b->cpu.family = f;
	b->cpu.model = m;
	b->cpu.stepping = s;
	b->mtc_freq = (uint8_t)a->mtc_freq;
	b->nom_freq = (uint8_t)a->nom_freq;
	b->cpuid_0x15_eax = (uint32_t)a->cpuid_eax;
	b->cpuid_0x15_ebx = (uint32_t)a->cpuid_ebx;
	b->pid = a->tid;
	b->complete = true;
	b->ret_compression = true;
	err = replay_bundle_set_str(&b->recorder, "raw");
	for (size_t i = 0; i < a->nelfs && !err; i++) {
		err = add_elf(b, a->elfs[i]);
		if (err)
			snprintf(why, n, "--elf %s: %s", a->elfs[i], strerror(-err));
	}
	return err;
}

static int import_raw(const struct replay_frontend_import *a, const char *dir, char *why, size_t n)
{
	struct replay_bundle *b;
	char to[4200];
	int err = replay_bundle_new(&b);

	if (err)
		return err;
	snprintf(why, n, "%s", strerror(ENOMEM));
	err = raw_bundle(a, b, why, n);
	if (!err)
		err = make_dirs(dir);
	snprintf(to, sizeof(to), "%s/threads/%ld.pt", dir, a->tid);
	if (!err && (err = copy_file(a->src, to)) != 0)
		snprintf(why, n, "%s: %s", a->src, strerror(-err));
	snprintf(to, sizeof(to), "threads/%ld.pt", a->tid);
	if (!err)
		err = replay_bundle_add_thread(b, a->tid, to) < 0 ? -ENOMEM : 0;
	if (!err && (err = replay_bundle_save(b, dir)) != 0)
		snprintf(why, n, "%.400s: %s", dir, strerror(-err));
	replay_bundle_free(b);
	return err;
}

/* The directory searched first: the source's own if it is one (an LLDB
 * bundle), else the one holding it. */
static void near_dir(const char *src, char *out, size_t size)
{
	struct stat st;
	char copy[4096];

	snprintf(copy, sizeof(copy), "%s", src);
	if (stat(src, &st) == 0 && S_ISDIR(st.st_mode))
		snprintf(out, size, "%s", src);
	else
		snprintf(out, size, "%s", dirname(copy));
}

/* Whether mapping @i's image was already looked at (an earlier mapping of
 * the same file and build-id). */
static bool seen_before(const struct replay_bundle *b, size_t i)
{
	const struct replay_mapping *m = &b->maps[i];

	for (size_t j = 0; j < i; j++) {
		const struct replay_mapping *o = &b->maps[j];

		if (!strcmp(o->file, m->file) && !o->uuid == !m->uuid &&
		    (!m->uuid || !strcmp(o->uuid, m->uuid)))
			return true;
	}
	return false;
}

/* The line for an image that is not here, or not the recorded build. */
static void say_missing(const struct replay_frontend_import *a, const struct replay_mapping *m,
			const char *path)
{
	const char *name = m->system_path ? m->system_path : m->file;
	char line[9000];

	if (access(path, R_OK) == 0)
		snprintf(line, sizeof(line), "%s has another build-id than the recording's (%s), "
			 "and no copy with it was found: using it, its code may differ", path,
			 m->uuid);
	else
		snprintf(line, sizeof(line), "image %s%s%s%s not found (perf's build-id cache, "
			 "next to the recording, --image-dir): its code will be a gap", name,
			 m->uuid ? " (build-id " : "", m->uuid ? m->uuid : "", m->uuid ? ")" : "");
	say(a, line);
}

/* Points each mapping whose image is not here (or is another build) at a
 * copy found by replay_image_find (the loader may have found it already,
 * in the --image-dir directories: saved too, so that the bundle opens
 * without them); each image still missing gets a line.
 * Decoding through a missing image gives "no memory mapped" gaps, not a
 * failure. */
static int resolve_images(const struct replay_frontend_import *a, const char *dir, char *why,
			  size_t n)
{
	struct replay_bundle *b;
	char near[4096], path[4096], found[4096];
	int err = replay_bundle_load(dir, &b, why, n), changed = 0;

	if (err)
		return err;
	near_dir(a->src, near, sizeof(near));
	for (size_t i = 0; i < b->nmaps && !err; i++) {
		struct replay_mapping *m = &b->maps[i];
		char *abs;

		if (replay_bundle_path(b, m->file, path, sizeof(path)) < 0)
			continue;
		if (replay_image_find(path, m->system_path, m->uuid, near, found, sizeof(found),
				      NULL) < 0) {
			if (!seen_before(b, i))
				say_missing(a, m, path);
			continue;
		}
		changed |= m->found_elsewhere;
		if (!strcmp(found, path))
			continue;
		abs = realpath(found, NULL);
		err = replay_bundle_set_str(&m->file, abs ? abs : found);
		free(abs);
		changed = 1;
	}
	if (!err && changed)
		err = replay_bundle_save(b, dir);
	if (err)
		snprintf(why, n, "%.400s: %s", dir, strerror(-err));
	replay_bundle_free(b);
	return err;
}

/* LLDB's manifests are named anything.json. */
static bool is_json(const char *path)
{
	size_t n = strlen(path);

	return n > 5 && !strcmp(path + n - 5, ".json");
}

int replay_frontend_import_run(const struct replay_frontend_import *a, const char *dir,
			       size_t *nthreads, size_t *nmaps, char *why, size_t n)
{
	struct replay_bundle *check;
	struct stat st;
	int err;

	replay_image_set_dirs(a->image_dirs, a->nimage_dirs);
	if (a->raw)
		err = import_raw(a, dir, why, n);
	else if (stat(a->src, &st) == 0 && (S_ISDIR(st.st_mode) || is_json(a->src)))
		err = import_lldb(a, dir, why, n);
	else
		err = import_perf(a, dir, why, n);
	if (!err)
		err = resolve_images(a, dir, why, n);
	if (!err && (err = replay_bundle_load(dir, &check, why, n)) == 0) {
		*nthreads = check->nthreads;
		*nmaps = check->nmaps;
		replay_bundle_free(check);
	}
	return err;
}
