/* libFuzzer target for dwarf/: the input is an ELF image (seed it with small
 * test binaries); it is opened from memory and asked everything: note,
 * build-id, lookups over its first executable section, file:line and name
 * to addresses.
 * fuzz-build: dwarf -ldwarf -lelf -lz -lstdc++
 */
#include <stddef.h>
#include <stdint.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_image.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
	for (uint64_t k = 0; k < n; k += 3) /* wraps at the top of the space: fine */
		(void)dw_image_lookup(img, lo + k, &loc);
	(void)dw_image_lookup(img, 0, &loc);
	(void)dw_image_line_addrs(img, "a.c", 3, addrs, 8);
	(void)dw_image_function_addrs(img, "main", addrs, 8);
	dw_image_free(img);
	return 0;
}
