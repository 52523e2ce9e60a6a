/*
 * stub/recorders/stub_rec_maps.h: the executable mappings of a recorded process,
 * kept in step with /proc/PID/maps as bundle mappings over time.
 *
 * Each update reads the maps file, and for every executable mapping that
 * appeared adds a replay_mapping from @time (a file by its path and
 * build-id; the vDSO dumped from memory into DIR/images/vdso-PID.so), and
 * for every one that went away sets its time_unmap. Anonymous executable
 * memory cannot be referenced: it is skipped and reported once as an
 * "image-missing" gap. Lifetime: stub_rec_maps_init / stub_rec_maps_release.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_MAPS_H
#define HINDSIGHT_STUB_STUB_REC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct replay_bundle;

struct stub_rec_map {
	uint64_t start, end, offset;
	char *path;
	size_t index;              /* in the bundle's maps */
};

struct stub_rec_maps {
	struct stub_rec_map *v;
	size_t n;
	bool anon_reported;
	/* The recorder keeps code that runs in anonymous memory itself
	 * (stub_rec_code.h): no gap for it here. */
	bool keeps_code;
};

void stub_rec_maps_init(struct stub_rec_maps *m);
/* Whether @ip lies in a mapping the bundle has the bytes of (a file, the
 * vDSO), as of the last update. */
bool stub_rec_maps_imaged(const struct stub_rec_maps *m, uint64_t ip);
void stub_rec_maps_release(struct stub_rec_maps *m);

/* Brings @m and @b up to date with /proc/@pid/maps at @time; @mem_fd reads
 * the vDSO. 1 if executable mappings changed, 0 if not, or a negative
 * errno. */
int stub_rec_maps_update(struct stub_rec_maps *m, struct replay_bundle *b, pid_t pid,
			 int mem_fd, uint64_t time);
/* Every mapping ends at @time (an exec replaced the address space). */
void stub_rec_maps_unmap_all(struct stub_rec_maps *m, struct replay_bundle *b, uint64_t time);

/* The vDSO of @pid, [@start, +@len) read through @mem_fd, into
 * @dir/images/vdso-PID.so; its bundle-relative name in @rel. 0 or a
 * negative errno. */
int stub_rec_dump_vdso(const char *dir, pid_t pid, int mem_fd, uint64_t start, uint64_t len,
		       char *rel, size_t size);

/* The GNU build-id of ELF file @path as hex into @hex (at least 81
 * bytes). 0, -ENOENT if it has none, or a negative errno. */
int stub_rec_build_id(const char *path, char *hex, size_t size);

#endif
