/*
 * cli/cli_import.c: `hindsight import`, others' Intel PT recordings as
 * hindsight bundles.
 *
 *   hindsight import [-o DIR] PERF.DATA
 *   hindsight import [-o DIR] LLDB-BUNDLE-DIR | LLDB-MANIFEST.json
 *   hindsight import [-o DIR] --raw PT --cpu F/M/S [--elf FILE[:ADDR]]...
 *                    [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N]
 *                    [--cpuid-0x15.ebx N] [--tid N]
 *   (all forms) [--image-dir DIR]...
 *
 * A perf.data file goes through replay/perf_data (one PT stream per thread,
 * per-cpu streams split by context switches, images from MMAP2 records);
 * an LLDB bundle is loaded as it is and saved with its traces copied in (a
 * per-cpu thread's pieces as one file, their bounds kept as segments); a raw PT file takes ptxed's options. Images
 * named by paths of the recording machine, or whose file here has another
 * build-id, are looked for by build-id in perf's build-id cache, then by
 * build-id and base name next to the source and in each --image-dir
 * (replay/image_find.h); each one still missing gets a line. The result is
 * checked by loading it back before success is reported.
 */
#include "cli/cli_import.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli_history.h"
#include "replay/bundle.h"
#include "replay/percpu.h"
#include "replay/elf_load.h"
#include "replay/image_find.h"
#include "replay/perf_data.h"

#define MAX_ELFS 64
#define MAX_IMAGE_DIRS 16

struct import_args {
	const char *out;
	const char *src;
	bool raw;
	const char *image_dirs[MAX_IMAGE_DIRS];
	size_t nimage_dirs;
	const char *cpu;
	const char *elfs[MAX_ELFS];
	size_t nelfs;
	long mtc_freq, nom_freq, cpuid_eax, cpuid_ebx, tid;
};

void cli_import_usage(FILE *out)
{
	fprintf(out,
		"Usage: hindsight import [-o DIR] PERF.DATA\n"
		"       hindsight import [-o DIR] LLDB-BUNDLE-DIR | LLDB-MANIFEST.json\n"
		"       hindsight import [-o DIR] --raw PT --cpu F/M/S [--elf FILE[:ADDR]]...\n"
		"                        [--mtc-freq N] [--nom-freq N] [--cpuid-0x15.eax N]\n"
		"                        [--cpuid-0x15.ebx N] [--tid N]\n"
		"Any form: [--image-dir DIR]... where to look for images by build-id\n"
		"(DIR/.build-id/NN/REST) and by base name, after perf's build-id cache\n"
		"($PERF_BUILDID_DIR or ~/.debug).\n"
		"\n"
		"Turn an Intel PT recording made elsewhere into a hindsight recording that\n"
		"`hindsight history`, `calls` and `serve --replay` open: a perf.data from\n"
		"`perf record -e intel_pt//u` (full or --snapshot; per-cpu trace of several\n"
		"threads needs --switch-events), an LLDB trace bundle (per-thread or\n"
		"per-cpu), or a raw PT stream with ptxed's options. --elf FILE:ADDR\n"
		"loads FILE with its first segment at ADDR; without ADDR, at its own\n"
		"addresses. DIR defaults to hindsight-import-NAME.\n");
}

static int parse_num(const char *s, long *out)
{
	char *end;

	errno = 0;
	*out = strtol(s, &end, 0);
	return errno || *end || *out < 0 ? -EINVAL : 0;
}

/* 0, 1 after help, or -EINVAL after a message. */
static int parse_args(int argc, char **argv, struct import_args *a)
{
	enum { O_RAW = 256, O_CPU, O_ELF, O_MTC, O_NOM, O_EAX, O_EBX, O_TID, O_IMG };
	static const struct option opts[] = {
		{ "output", required_argument, NULL, 'o' }, { "raw", required_argument, NULL, O_RAW },
		{ "image-dir", required_argument, NULL, O_IMG },
		{ "cpu", required_argument, NULL, O_CPU }, { "elf", required_argument, NULL, O_ELF },
		{ "mtc-freq", required_argument, NULL, O_MTC },
		{ "nom-freq", required_argument, NULL, O_NOM },
		{ "cpuid-0x15.eax", required_argument, NULL, O_EAX },
		{ "cpuid-0x15.ebx", required_argument, NULL, O_EBX },
		{ "tid", required_argument, NULL, O_TID }, { "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, bad = 0;

	memset(a, 0, sizeof(*a));
	a->tid = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': a->out = optarg; break;
		case O_RAW: a->raw = true; a->src = optarg; break;
		case O_IMG:
			if (a->nimage_dirs == MAX_IMAGE_DIRS)
				bad = 1;
			else
				a->image_dirs[a->nimage_dirs++] = optarg;
			break;
		case O_CPU: a->cpu = optarg; break;
		case O_ELF:
			if (a->nelfs == MAX_ELFS)
				bad = 1;
			else
				a->elfs[a->nelfs++] = optarg;
			break;
		case O_MTC: bad |= parse_num(optarg, &a->mtc_freq) != 0; break;
		case O_NOM: bad |= parse_num(optarg, &a->nom_freq) != 0; break;
		case O_EAX: bad |= parse_num(optarg, &a->cpuid_eax) != 0; break;
		case O_EBX: bad |= parse_num(optarg, &a->cpuid_ebx) != 0; break;
		case O_TID: bad |= parse_num(optarg, &a->tid) != 0; break;
		case 'h': cli_import_usage(stdout); return 1;
		default: bad = 1; break;
		}
	}
	if (bad || optind != argc - (a->raw ? 0 : 1) || (a->raw && !a->cpu)) {
		if (a->raw && !a->cpu)
			fprintf(stderr, "hindsight import: --raw needs --cpu F/M/S\n");
		cli_import_usage(stderr);
		return -EINVAL;
	}
	if (!a->raw)
		a->src = argv[optind];
	return 0;
}

static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in = open(from, O_RDONLY | O_CLOEXEC), out, err = 0;
	ssize_t n;

	if (in < 0)
		return -errno;
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (out < 0) {
		err = -errno;
		close(in);
		return err;
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

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	snprintf(path, sizeof(path), "%s/threads", dir);
	if (mkdir(path, 0755) && errno != EEXIST)
		return -errno;
	return 0;
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

static int import_lldb(const struct import_args *a, const char *dir, char *why, size_t n)
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

static int import_perf(const struct import_args *a, const char *dir, char *why, size_t n)
{
	struct replay_perf_data *pd;
	int err = replay_perf_data_read(a->src, &pd, why, n);

	if (err)
		return err;
	cli_say_notes(pd->bundle);      /* what a damaged feature section lost */
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

static int raw_bundle(const struct import_args *a, struct replay_bundle *b, char *why, size_t n)
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

static int import_raw(const struct import_args *a, const char *dir, char *why, size_t n)
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
static void say_missing(const struct replay_mapping *m, const char *path)
{
	const char *name = m->system_path ? m->system_path : m->file;

	if (access(path, R_OK) == 0)
		fprintf(stderr, "hindsight: %s has another build-id than the recording's (%s), and "
			"no copy with it was found: using it, its code may differ\n", path, m->uuid);
	else
		fprintf(stderr, "hindsight: image %s%s%s%s not found (perf's build-id cache, "
			"next to the recording, --image-dir): its code will be a gap\n", name,
			m->uuid ? " (build-id " : "", m->uuid ? m->uuid : "", m->uuid ? ")" : "");
}

/* Points each mapping whose image is not here (or is another build) at a
 * copy found by replay_image_find; each image still missing gets a line.
 * Decoding through a missing image gives "no memory mapped" gaps, not a
 * failure. */
static int resolve_images(const struct import_args *a, const char *dir, char *why, size_t n)
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
				say_missing(m, path);
			continue;
		}
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

int cli_import_main(int argc, char **argv)
{
	struct import_args a;
	struct replay_bundle *check;
	char dir[4096], why[512] = "", name[256];
	struct stat st;
	int err = parse_args(argc, argv, &a);

	if (err)
		return err > 0 ? 0 : 2;
	replay_image_set_dirs(a.image_dirs, a.nimage_dirs);
	snprintf(name, sizeof(name), "%s", a.src);
	snprintf(dir, sizeof(dir), "%s", a.out ? a.out : "");
	if (!a.out)
		snprintf(dir, sizeof(dir), "hindsight-import-%s", basename(name));
	if (a.raw)
		err = import_raw(&a, dir, why, sizeof(why));
	else if (stat(a.src, &st) == 0 && (S_ISDIR(st.st_mode) || is_json(a.src)))
		err = import_lldb(&a, dir, why, sizeof(why));
	else
		err = import_perf(&a, dir, why, sizeof(why));
	if (!err)
		err = resolve_images(&a, dir, why, sizeof(why));
	if (!err && (err = replay_bundle_load(dir, &check, why, sizeof(why))) == 0) {
		fprintf(stderr, "hindsight: imported %s into %s: %zu thread%s, %zu image mapping%s\n",
			a.src, dir, check->nthreads, check->nthreads == 1 ? "" : "s", check->nmaps,
			check->nmaps == 1 ? "" : "s");
		replay_bundle_free(check);
		return 0;
	}
	fprintf(stderr, "hindsight: cannot import %s: %s\n", a.src, why[0] ? why : strerror(-err));
	return 1;
}
