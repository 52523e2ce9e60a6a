/*
 * tests/fuzz/fuzz_vgstream.c: libFuzzer target over the Valgrind
 * recorder's stream parser (stub/recorders/stub_vgrec.c, through stub_vgrec_feed):
 * superblock descriptions, entries and exits, state words kept in the
 * read buffer or copied, thread switches, pauses, signals, mappings, the
 * state log and PT streams written from them, the end of the stream.
 *
 * The input, behind a valid HELLO record so the rest is what varies, is
 * fed in two pieces cut at its first byte (mod its length), then ended;
 * an odd first byte also asks for --snapshot (a ring of 1 KB, a PSB every
 * 64 bytes of trace), its bit 1 for a followed rebuild's stream (each
 * HSREC_HERE a stop to save at and go on from).
 * Any step may fail (a negative errno with a message); none may crash,
 * leak or hit undefined behaviour. The seeds: the start of a real capture
 * (a program with two threads), and a small stream made by hand with every
 * kind of record (two threads, stores, a signal, a thread's exit, the end),
 * and one where a followed rebuild stops inside a superblock and goes on.
 *
 * fuzz-build: stub replay dwarf protocol -lipt -lZydis -ljansson -ldwarf -lelf -lz -lstdc++
 */
#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stub/recorders/stub_vgrec.h"
#include "vgtool/hsrec_proto.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

/* HELLO: version 1, pid 1, "./p". */
static const uint8_t hello[] = { 0x0b, 0x00, 0x01, 0xff, 1, 0, 0, 0, 1, 0, 0, 0, '.', '/', 'p' };

/* The files a run left in @sub of the bundle directory are removed (the
 * next run's threads may have other ids). */
static void clean(const char *sub)
{
	char path[256];
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	dp = opendir(path);
	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/%s", dir, sub, d->d_name);
		unlink(path);
	}
	closedir(dp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct stub_vgrec_options opt = { 0 };
	struct stub_vgrec *r = NULL;
	char err[512];
	size_t split;
	int e;

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-vgstream.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	if (size < 1)
		return 0;
	split = data[0] % size;
	data++;
	size--;
	if (split > size)
		split = size;
	opt.dir = dir;
	if (data[-1] & 1) {        /* --snapshot, with PSBs often enough to cut */
		opt.snapshot = 1024;
		opt.psb_period = 64;
	}
	opt.follow = data[-1] & 2;
	if (stub_vgrec_feed_new(&r, &opt, err, sizeof(err)) < 0)
		abort();           /* a fixed directory: no reason to fail */
	e = stub_vgrec_feed(r, hello, sizeof(hello));
	if (e >= 0)
		e = stub_vgrec_feed(r, data, split);
	if (e >= 0)
		e = stub_vgrec_feed(r, data + split, size - split);
	e = stub_vgrec_feed_end(r, 0);
	if (e < 0 && !err[0])
		abort();           /* every failure says why */
	stub_vgrec_free(r);
	clean("threads");
	clean("images");
	return 0;
}
