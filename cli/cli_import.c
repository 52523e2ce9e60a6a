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
 * The import itself is replay/frontend/frontend_import.h's; here are its options
 * and what it says.
 */
#include "cli/cli_import.h"

#include <errno.h>
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/frontend/frontend_import.h"

struct import_args {
	const char *out;
	struct replay_frontend_import im;
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
static int parse_args(int argc, char **argv, struct import_args *args)
{
	struct replay_frontend_import *a = &args->im;
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

	memset(args, 0, sizeof(*args));
	a->tid = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': args->out = optarg; break;
		case O_RAW: a->raw = true; a->src = optarg; break;
		case O_IMG:
			if (a->nimage_dirs == REPLAY_FRONTEND_IMPORT_IMAGE_DIRS)
				bad = 1;
			else
				a->image_dirs[a->nimage_dirs++] = optarg;
			break;
		case O_CPU: a->cpu = optarg; break;
		case O_ELF:
			if (a->nelfs == REPLAY_FRONTEND_IMPORT_ELFS)
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

/* A line from the import, as hindsight says it. */
static void say_line(void *ctx, const char *line)
{
	(void)ctx;
	fprintf(stderr, "hindsight: %s\n", line);
}

int cli_import_main(int argc, char **argv)
{
	struct import_args a;
	char dir[4096], why[512] = "", name[256];
	size_t nthreads = 0, nmaps = 0;
	int err = parse_args(argc, argv, &a);

	if (err)
		return err > 0 ? 0 : 2;
	snprintf(name, sizeof(name), "%s", a.im.src);
	snprintf(dir, sizeof(dir), "%s", a.out ? a.out : "");
	if (!a.out)
		snprintf(dir, sizeof(dir), "hindsight-import-%s", basename(name));
	a.im.say = say_line;
	err = replay_frontend_import_run(&a.im, dir, &nthreads, &nmaps, why, sizeof(why));
	if (!err) {
		fprintf(stderr, "hindsight: imported %s into %s: %zu thread%s, %zu image mapping%s\n",
			a.im.src, dir, nthreads, nthreads == 1 ? "" : "s", nmaps,
			nmaps == 1 ? "" : "s");
		return 0;
	}
	fprintf(stderr, "hindsight: cannot import %s: %s\n", a.im.src,
		why[0] ? why : strerror(-err));
	return 1;
}
