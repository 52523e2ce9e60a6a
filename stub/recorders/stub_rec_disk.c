/* What a recording costs its disk, said while it grows (stub_rec_disk.h). */
#include "stub/recorders/stub_rec_disk.h"

#include <stdio.h>

void stub_rec_disk_init(struct stub_rec_disk *d)
{
	d->next_size = STUB_REC_DISK_SIZE_FIRST;
	d->next_low = STUB_REC_DISK_LOW;
}

/* @n bytes as a person reads them: "812 KiB", "3.2 GiB". */
static const char *human(uint64_t n, char *buf, size_t size)
{
	static const char *const units[] = { "bytes", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)n;
	size_t u = 0;

	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu bytes", (unsigned long long)n);
	else
		snprintf(buf, size, v < 10 ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

/* " (B bytes per instruction: T of trace, S of state)", or "" uncounted. */
static const char *per_insn(uint64_t trace, uint64_t state, uint64_t insns, char *buf,
			    size_t size)
{
	if (!insns)
		buf[0] = 0;
	else
		snprintf(buf, size, " (%.2f bytes per instruction: %.3f of trace, %.2f of state)",
			 (double)(trace + state) / (double)insns, (double)trace / (double)insns,
			 (double)state / (double)insns);
	return buf;
}

void stub_rec_disk_note(struct stub_rec_disk *d, const char *dir, uint64_t trace,
			uint64_t state, uint64_t insns, double secs, uint64_t avail, char *line,
			size_t size)
{
	uint64_t bytes = trace + state;
	char a[32], b[32], r[32], p[96], g[192] = "";

	line[0] = 0;
	if (avail != UINT64_MAX && avail < d->next_low) {
		while (avail < d->next_low && d->next_low > 1)
			d->next_low /= 4;
		if (bytes && secs > 0)
			snprintf(g, sizeof(g), ", and the recording grows by %s a second%s",
				 human((uint64_t)((double)bytes / secs), r, sizeof(r)),
				 per_insn(trace, state, insns, p, sizeof(p)));
		snprintf(line, size, "warning: %s has %s left on its file system%s: the "
			 "recording stops when the disk is full, keeping what it wrote (--snapshot "
			 "SIZE keeps only the newest SIZE per thread)", dir, human(avail, a, sizeof(a)),
			 g);
		return;
	}
	if (bytes >= d->next_size) {
		while (bytes >= d->next_size && d->next_size < UINT64_MAX / 4)
			d->next_size *= 4;
		snprintf(line, size, "the recording in %s is %s so far%s; --snapshot SIZE keeps "
			 "only the newest SIZE per thread", dir, human(bytes, b, sizeof(b)),
			 per_insn(trace, state, insns, p, sizeof(p)));
	}
}
