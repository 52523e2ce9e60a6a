/*
 * bench/bench_decode.c: plain libipt decoders over a recording, the peers
 * hindsight's indexing is measured against.
 *
 *   bench_decode DIR [TID]
 *
 * Decodes one thread's PT stream of bundle DIR (the first thread unless TID
 * is given) twice: with libipt's instruction decoder (pt_insn_next) and with
 * its block decoder (pt_blk_next), over an image built from the bundle's
 * mappings as file sections, as ptxed does. Prints one line per decoder:
 *
 *   insn-decoder  <instructions> insns  <seconds> s  <rate> insn/s
 *   block-decoder <instructions> insns  <seconds> s  <rate> insn/s
 *
 * Decode errors are skipped by resynchronising at the next PSB, as a plain
 * decoder loop would; the instruction counts of the two decoders must match.
 */
#include <errno.h>
#include <intel-pt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay/model/bundle.h"

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint8_t *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n);
		if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return buf;
}

/* Every mapping of the bundle, whatever its time: a benchmark of one
 * stream, not of image changes. */
static struct pt_image *build_image(const struct replay_bundle *b)
{
	struct pt_image *image = pt_image_alloc("bench");
	char path[4096];

	for (size_t i = 0; image && i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];

		if (replay_bundle_path(b, m->file, path, sizeof(path)) == 0)
			pt_image_add_file(image, path, m->offset, m->size, NULL, m->start);
	}
	return image;
}

static void config_init(struct pt_config *cfg, const struct replay_bundle *b, uint8_t *buf,
			size_t size)
{
	pt_config_init(cfg);
	cfg->begin = buf;
	cfg->end = buf + size;
	if (!strcmp(b->cpu.vendor, "GenuineIntel")) {
		cfg->cpu.vendor = pcv_intel;
		cfg->cpu.family = (uint16_t)b->cpu.family;
		cfg->cpu.model = (uint8_t)b->cpu.model;
		cfg->cpu.stepping = (uint8_t)b->cpu.stepping;
		pt_cpu_errata(&cfg->errata, &cfg->cpu);
	}
	cfg->mtc_freq = b->mtc_freq;
	cfg->nom_freq = b->nom_freq;
	cfg->cpuid_0x15_eax = b->cpuid_0x15_eax;
	cfg->cpuid_0x15_ebx = b->cpuid_0x15_ebx;
}

static uint64_t run_insn(const struct pt_config *cfg, struct pt_image *image)
{
	struct pt_insn_decoder *d = pt_insn_alloc_decoder(cfg);
	struct pt_insn insn;
	uint64_t n = 0;
	int st;

	if (!d)
		return 0;
	pt_insn_set_image(d, image);
	for (st = pt_insn_sync_forward(d); st != -pte_eos;) {
		if (st < 0) {
			st = pt_insn_sync_forward(d);
			continue;
		}
		while (st & pts_event_pending) {
			struct pt_event ev;

			st = pt_insn_event(d, &ev, sizeof(ev));
			if (st < 0)
				break;
		}
		if (st < 0)
			continue;
		st = pt_insn_next(d, &insn, sizeof(insn));
		if (st >= 0)
			n++;
	}
	pt_insn_free_decoder(d);
	return n;
}

static uint64_t run_blk(const struct pt_config *cfg, struct pt_image *image)
{
	struct pt_block_decoder *d = pt_blk_alloc_decoder(cfg);
	struct pt_block blk;
	uint64_t n = 0;
	int st;

	if (!d)
		return 0;
	pt_blk_set_image(d, image);
	for (st = pt_blk_sync_forward(d); st != -pte_eos;) {
		if (st < 0) {
			st = pt_blk_sync_forward(d);
			continue;
		}
		while (st & pts_event_pending) {
			struct pt_event ev;

			st = pt_blk_event(d, &ev, sizeof(ev));
			if (st < 0)
				break;
		}
		if (st < 0)
			continue;
		blk.ninsn = 0;
		st = pt_blk_next(d, &blk, sizeof(blk));
		n += blk.ninsn; /* a block can end in an error after some insns */
	}
	pt_blk_free_decoder(d);
	return n;
}

int main(int argc, char **argv)
{
	struct replay_bundle *b;
	const struct replay_thread *t = NULL;
	struct pt_image *image;
	struct pt_config cfg;
	char err[512], path[4096];
	uint8_t *buf;
	size_t size = 0;
	double t0;
	uint64_t n;

	if (argc < 2) {
		fprintf(stderr, "usage: bench_decode DIR [TID]\n");
		return 2;
	}
	if (replay_bundle_load(argv[1], &b, err, sizeof(err))) {
		fprintf(stderr, "bench_decode: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < b->nthreads && !t; i++)
		if (argc < 3 || b->threads[i].tid == atoll(argv[2]))
			t = &b->threads[i];
	if (!t || replay_bundle_path(b, t->pt_file, path, sizeof(path)) ||
	    !(buf = read_file(path, &size))) {
		fprintf(stderr, "bench_decode: no such thread or trace\n");
		return 1;
	}
	image = build_image(b);
	config_init(&cfg, b, buf, size);
	t0 = now();
	n = run_insn(&cfg, image);
	t0 = now() - t0;
	printf("insn-decoder  %llu insns  %.3f s  %.0f insn/s\n", (unsigned long long)n, t0,
	       t0 > 0 ? (double)n / t0 : 0);
	t0 = now();
	n = run_blk(&cfg, image);
	t0 = now() - t0;
	printf("block-decoder %llu insns  %.3f s  %.0f insn/s\n", (unsigned long long)n, t0,
	       t0 > 0 ? (double)n / t0 : 0);
	pt_image_free(image);
	free(buf);
	replay_bundle_free(b);
	return 0;
}
