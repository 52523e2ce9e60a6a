/*
 * tests/fuzz/fuzz_perf.c: libFuzzer target over the perf.data reader
 * (replay/model/perf_data.c, perf_file.c, perf_record.c, perf_sideband.c).
 *
 * The input is read as a whole perf.data file, then as a sequence of
 * kernel sideband records (as the hardware recorder's DATA ring holds
 * them) applied to a bundle. Either may fail; neither may crash, leak or
 * hit undefined behaviour.
 *
 * fuzz-build: replay/model/perf_*.c replay/model/bundle*.c replay/model/percpu.c replay/model/elf_load.c replay/model/image_find.c dwarf/dw_elf.c dwarf/dw_access.c -lipt -ljansson -lelf
 */
#include <linux/perf_event.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/model/bundle.h"
#include "replay/model/perf_data.h"
#include "replay/model/perf_record.h"
#include "replay/model/perf_sideband.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void records(const uint8_t *data, size_t size)
{
	static const struct replay_perf_sid_layout l = {
		true, PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_IDENTIFIER
	};
	struct replay_perf_tconv tc = { true, 31, 672770566, 18446744061102431664ULL };
	struct replay_perf_sideband sb;
	struct replay_bundle *b;

	if (replay_bundle_new(&b))
		return;
	replay_perf_sideband_init(&sb, b, &tc, -1);
	while (size) {
		struct replay_perf_record r;
		int n = replay_perf_record_parse(data, size, &l, &r, NULL);

		if (n <= 0)
			break;
		if (replay_perf_sideband_add(&sb, &r))
			break;
		data += n;
		size -= (size_t)n;
	}
	replay_bundle_free(b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct replay_perf_data *pd = NULL;
	char err[256];

	if (replay_perf_data_parse(data, size, "fuzz", &pd, err, sizeof(err)) == 0)
		replay_perf_data_free(pd);
	records(data, size);
	return 0;
}
