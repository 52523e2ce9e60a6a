/*
 * tests/fuzz/fuzz_state.c: libFuzzer target over the state log reader
 * (replay/model/state*.c): its parse at open (checkpoints, time bases, mapping
 * records, the chunk index by block, padding), then registers at positions
 * (redone from checkpoints), memory at times (chunks parsed on demand),
 * the write searches both ways, and how far a log cut short is whole.
 *
 * The input is split at its first byte: that many bytes (mod the input's
 * length) are thread 1's log, the rest thread 2's, both behind a valid
 * header so the records themselves are what varies. Any step may fail;
 * none may crash, leak or hit undefined behaviour.
 *
 * fuzz-build: replay/model/state*.c replay/model/bundle.c dwarf/dw_elf.c dwarf/dw_access.c protocol -lelf
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "protocol/rsp_regs.h"
#include "replay/model/bundle.h"
#include "replay/model/state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

/* "HSSTATE2", tid, xsave_len 16, 27 general registers; thread 2's log is
 * of the first version ("HSSTATE1": MEM lengths without the same bit). */
static const uint8_t header[] = { 'H', 'S', 'S', 'T', 'A', 'T', 'E', '2', 1, 16, 27 };

static int put(const char *name, const uint8_t *p, size_t n)
{
	uint8_t h[sizeof(header)];
	char path[128];
	FILE *f;

	memcpy(h, header, sizeof(h));
	if (name[0] == '2')
		h[7] = '1';
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -1;
	fwrite(h, 1, sizeof(h), f);
	fwrite(p, 1, n, f);
	return fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_bundle *b = NULL;
	struct replay_state *st = NULL;
	size_t split;
	char err[256];

	if (!dir[0]) {
		snprintf(dir, sizeof(dir), "/tmp/fuzz-state.XXXXXX");
		if (!mkdtemp(dir))
			abort();
	}
	if (size < 1)
		return 0;
	split = data[0] % size;
	data++;
	size--;
	if (put("1.state", data, split < size ? split : size) < 0 ||
	    put("2.state", data + (split < size ? split : size), size - (split < size ? split : size)) < 0)
		return 0;
	if (replay_bundle_new(&b) < 0)
		return 0;
	if (replay_bundle_set_str(&b->dir, dir) < 0 || replay_bundle_add_thread(b, 1, "1.pt") < 0 ||
	    replay_bundle_add_thread(b, 2, "2.pt") < 0 ||
	    replay_bundle_set_str(&b->threads[0].state_file, "1.state") < 0 ||
	    replay_bundle_set_str(&b->threads[1].state_file, "2.state") < 0)
		goto out;
	if (replay_state_open(b, &st, err, sizeof(err)) < 0)
		goto out;
	for (int64_t tid = 1; tid <= 2; tid++) {
		uint64_t last = replay_state_last_index(st, tid), pos, time;
		struct rsp_regs regs;

		replay_state_cut(st, tid, &pos, &time);

		for (uint64_t i = 1; i <= last + 2 && i < 64; i++) {
			replay_state_regs_at(st, tid, i, &regs);
			if (replay_state_time_at(st, tid, i, &time) == 0)
				replay_state_position_at(st, tid, time, &pos);
		}
		replay_state_regs_at(st, tid, last, &regs);
		replay_state_regs_at(st, tid, 1, &regs);      /* backward: from a checkpoint */
	}
	for (uint64_t time = 0; time < 48; time += 3) {
		static const uint64_t addrs[] = { 0, 0x10, 0x1ff, 0x1000, 0xfff8, 1ull << 56 };
		uint8_t buf[600], status[600];
		struct replay_state_write w;

		for (size_t k = 0; k < sizeof(addrs) / sizeof(addrs[0]); k++) {
			replay_state_read_mem_status(st, time, addrs[k], buf, sizeof(buf), status);
			replay_state_write_before(st, addrs[k], 64, time, &w);
			replay_state_write_after(st, addrs[k], 4096, time, &w);
		}
	}
out:
	replay_state_free(st);
	replay_bundle_free(b);
	return 0;
}
