/* What a recording costs its disk, said while it grows.
 *
 * A recorder that logs every effect of every instruction writes several
 * bytes per instruction: a few seconds of a real program are gigabytes.
 * The recorders call stub_rec_disk_note at each save of the bundle with
 * what they wrote so far and what the disk has left; it says (a line at a
 * time, for the caller to print) how big the recording has grown, at 1 GiB
 * and at each fourfold after, and warns before the disk fills: once the
 * file system has less than 1 GiB left, and again at each quarter of what
 * it had at the last warning. Pure: no I/O, so tests give it any numbers.
 */
#ifndef HINDSIGHT_STUB_REC_DISK_H
#define HINDSIGHT_STUB_REC_DISK_H

#include <stddef.h>
#include <stdint.h>

#define STUB_REC_DISK_SIZE_FIRST (1ull << 30)  /* the first size said */
#define STUB_REC_DISK_LOW (1ull << 30)         /* free space first warned at */

struct stub_rec_disk {
	uint64_t next_size;        /* bytes written at which the size is said next */
	uint64_t next_low;         /* free bytes under which the next warning comes */
};

void stub_rec_disk_init(struct stub_rec_disk *d);

/* One line about a recording in @dir of @trace + @state bytes for @insns
 * instructions (0: not counted) written over @secs seconds, on a file
 * system with @avail bytes free (UINT64_MAX: unknown), in @line (without a
 * "hindsight: " prefix); "" when there is nothing new to say. The warning
 * about free space comes first: call again until the line is empty. */
void stub_rec_disk_note(struct stub_rec_disk *d, const char *dir, uint64_t trace,
			uint64_t state, uint64_t insns, double secs, uint64_t avail, char *line,
			size_t size);

#endif
