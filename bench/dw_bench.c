/* dw_bench: dwarf/ timings on libc with its debug file: time to the first
 * answer (open + one lookup, cold), lookups per second (first pass loads
 * units lazily, then warm), and bytes per line-table row kept. Built and run
 * by `make bench`. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "dwarf/dw_elf.h"
#include "dwarf/dw_image.h"
#include "dwarf/dw_unit.h"

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/lib/x86_64-linux-gnu/libc.so.6";
	struct dw_image *img;
	struct dw_location loc;
	struct dw_elf *e;
	uint64_t lo, hi, n = 0;
	size_t idx;

	if (dw_elf_open(path, &e) != 0 || !(idx = dw_elf_find(e, ".text")))
		return 1;
	lo = e->sections[idx].addr;
	hi = lo + e->sections[idx].size;
	dw_elf_free(e);

	double t0 = now();
	if (dw_image_open(path, &img) != 0)
		return 1;
	int rc = dw_image_lookup(img, lo + (hi - lo) / 3, &loc);
	double t1 = now();
	printf("%s: first answer (open + lookup) %.1f ms: %s %s:%u%s\n", path, (t1 - t0) * 1e3,
	       rc == 0 && loc.frames[0].function ? loc.frames[0].function : "??",
	       rc == 0 && loc.frames[0].file ? loc.frames[0].file : "??", rc == 0 ? loc.frames[0].line : 0,
	       dw_image_note(img) ? " (note set)" : "");
	t0 = now();
	for (uint64_t a = lo; a < hi; a += 7, n++)
		dw_image_lookup(img, a, &loc);
	t1 = now();
	printf("first pass over .text (loads every unit): %lu lookups, %.0f lookups/s\n", (unsigned long)n,
	       (double)n / (t1 - t0));
	n = 0;
	t0 = now();
	for (uint64_t a = lo; a < hi; a += 7, n++)
		dw_image_lookup(img, a, &loc);
	t1 = now();
	printf("warm: %.0f lookups/s (%.0f ns each)\n", (double)n / (t1 - t0), (t1 - t0) * 1e9 / (double)n);
	printf("line-table row kept: %zu bytes (struct dw_row); sequence: %zu bytes\n", sizeof(struct dw_row),
	       sizeof(struct dw_seq));
	dw_image_free(img);
	return 0;
}
