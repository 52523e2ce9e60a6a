/* libFuzzer target for dwarf/: the input is an ELF image (seed it with small
 * test binaries); it is opened from memory and asked everything: note,
 * build-id, lookups and call frame rows over its first executable section
 * (every expression of a row run over made-up registers and memory),
 * file:line and name to addresses.
 * fuzz-build: dwarf -ldwarf -lelf -lz -lstdc++
 */
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_cfi.h"
#include "dwarf/dw_elf.h"
#include "dwarf/dw_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Memory: every word holds its own address, but the first page. */
static int fuzz_read(void *ctx, uint64_t addr, uint64_t *out)
{
	(void)ctx;
	*out = addr;
	return addr < 4096 ? -5 : 0;
}

static void fuzz_row(const struct dw_cfi_row *row)
{
	static const uint64_t regs[DW_CFI_NREGS] = { 0x7000, 0x7008, 0x7010, 0x7018, 0x7020, 0x7028,
						     0x7030, 0x7038, 0x7040, 0x7048, 0x7050, 0x7058,
						     0x7060, 0x7068, 0x7070, 0x7078, 0x401000 };
	static const bool known[DW_CFI_NREGS] = { true, true, true, true, true, true, true, true,
						  true, true, true, true, true, true, true, true,
						  true };
	struct dw_cfi_env env = { regs, known, fuzz_read, NULL };
	uint64_t v;

	if (row->cfa_expr)
		(void)dw_cfi_expr_eval(row->expr, row->exprlen, &env, false, 0, &v);
	for (size_t i = 0; i < DW_CFI_NREGS; i++)
		if (row->regs[i].kind == DW_CFI_EXPR || row->regs[i].kind == DW_CFI_VAL_EXPR)
			(void)dw_cfi_expr_eval(row->regs[i].expr, row->regs[i].exprlen, &env, true,
					       0x7100, &v);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct dw_image *img;
	struct dw_location loc;
	uint64_t addrs[8], lo = 0, n = 0;
	uint8_t id[32];

	if (dw_image_open_memory(data, size, "fuzz", &img) != 0)
		return 0;
	(void)dw_image_note(img);
	(void)dw_image_build_id(img, id, sizeof(id));
	/* The lowest executable section, at most 512 addresses of it. */
	struct dw_elf *e;
	if (dw_elf_open_memory(data, size, "fuzz", &e) == 0) {
		for (size_t i = 1; i < e->nsections; i++)
			if ((e->sections[i].flags & SHF_EXECINSTR) && e->sections[i].size) {
				lo = e->sections[i].addr;
				n = e->sections[i].size < 512 ? e->sections[i].size : 512;
				break;
			}
		dw_elf_free(e);
	}
	for (uint64_t k = 0; k < n; k += 3) { /* wraps at the top of the space: fine */
		struct dw_cfi_row row;

		(void)dw_image_lookup(img, lo + k, &loc);
		if (dw_image_cfi_row(img, lo + k, &row) == 0)
			fuzz_row(&row);
	}
	(void)dw_image_lookup(img, 0, &loc);
	(void)dw_image_line_addrs(img, "a.c", 3, addrs, 8);
	(void)dw_image_function_addrs(img, "main", addrs, 8);
	dw_image_free(img);
	return 0;
}
