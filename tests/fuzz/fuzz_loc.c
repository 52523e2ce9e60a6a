/* libFuzzer target for dwarf/dw_loc.c: the input is a DWARF expression.
 * It is run as a location (dw_loc_eval) and as a value
 * (dw_loc_eval_value) over made-up registers, CFA, frame base and memory,
 * and rewritten (dw_loc_rewrite) then run again; every answer must be a
 * clean one (no crash, no read outside the input).
 * fuzz-build: dwarf/dw_loc.c
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "dwarf/dw_loc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Memory: every byte is its address's low byte, but the first page. */
static int fuzz_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	for (size_t i = 0; i < len; i++)
		((uint8_t *)buf)[i] = (uint8_t)(addr + i);
	return addr < 4096 ? -5 : 0;
}

static int fuzz_addr(void *ctx, uint64_t index, uint64_t *addr)
{
	(void)ctx;
	*addr = 0x4000 + index * 8;
	return index < 64 ? 0 : -22;
}

static int fuzz_type(void *ctx, uint64_t off, unsigned *size, bool *is_signed, bool *is_float)
{
	(void)ctx;
	*size = (unsigned)(off % 17);
	*is_signed = off & 1;
	*is_float = off % 5 == 0;
	return off < 1000 ? 0 : -22;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint64_t regs[DW_LOC_NREGS] = { 1, 2, 3, 4, 5, 6, 0x7000, 0x7010, 9 };
	static const bool known[DW_LOC_NREGS] = { true, true, true, true, false, true, true, true };
	static const uint8_t fb[] = { 0x9c };
	const struct dw_loc_rewriter rw = { fuzz_addr, fuzz_type, NULL };
	struct dw_loc_env env = { .regs = regs, .known = known, .cfa_known = true, .cfa = 0x7100,
				  .frame_base = fb, .frame_base_len = 1, .bias = 0x1000,
				  .read = fuzz_read };
	struct dw_loc loc;
	uint64_t v;
	uint8_t *out;
	size_t n;

	(void)dw_loc_eval(data, size, &env, &loc);
	(void)dw_loc_eval_value(data, size, &env, size & 1, 0x7200, &v);
	/* the expression as its own frame base */
	env.frame_base = data;
	env.frame_base_len = size;
	(void)dw_loc_eval((const uint8_t[]){ 0x91, 0x10 }, 2, &env, &loc);
	env.frame_base = fb;
	env.frame_base_len = 1;
	if (dw_loc_rewrite(data, size, &rw, &out, &n) == 0) {
		(void)dw_loc_eval(out, n, &env, &loc);
		free(out);
	}
	return 0;
}
