/*
 * replay/model/image_find.h: a recording's image, found on this machine.
 *
 * A recording names each image by the path it had where it was recorded
 * and, usually, by its GNU build-id (perf.data's HEADER_BUILD_ID or MMAP2
 * build-ids, LLDB's module "uuid", the recorders' own). When that path is
 * not here, or holds another build of the file, the image is looked for
 * where users keep copies:
 *   1. the path itself, if its build-id is the recording's;
 *   2. perf's build-id cache ($PERF_BUILDID_DIR, else ~/.debug), which
 *      `perf record` / `perf buildid-cache` fill:
 *      .build-id/NN/REST/elf (or /vdso), .build-id/NN/REST when it is the
 *      file itself (older perf), SYSTEM_PATH/BUILDID/elf and
 *      SYSTEM_PATH/BUILDID (older perf);
 *   3. directories the user gives (--image-dir) and the one next to the
 *      recording: by build-id, DIR/.build-id/NN/REST (a file, or perf's
 *      layout under it) and DIR/.build-id/NN/REST.debug (only if it holds
 *      code: separate debug files usually do not); then by base name,
 *      DIR/NAME.
 * NN is the build-id's first byte in hex, REST the others. A candidate
 * whose build-id differs from the recording's is never taken; one without
 * a build-id is, when found by name (LLDB gives a checksum as the uuid of
 * files without build-id). Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_IMAGE_FIND_H
#define HINDSIGHT_REPLAY_IMAGE_FIND_H

#include <stddef.h>

#define REPLAY_IMAGE_DIRS_MAX 16

/* The directories of step 3 for every lookup of this process (cli sets
 * them from --image-dir before loading anything). @dirs must outlive the
 * lookups; at most REPLAY_IMAGE_DIRS_MAX are used. */
void replay_image_set_dirs(const char *const *dirs, size_t n);

/* A build-id in any spelling (hex, upper or lower case, with LLDB's
 * dashes "6AA9A4E2-6F28-2F33-377D-59FECE874C71-5B41261A") as lowercase
 * hex in @hex. 0, or -EINVAL (not hex, an odd number of digits, none, or
 * longer than @size allows). */
int replay_image_build_id(const char *uuid, char *hex, size_t size);

/* Finds the image recorded as @path (a path here: a bundle-relative name
 * already resolved; may be NULL) mapped from @system_path (the recording
 * machine's path; may be NULL) with build-id @uuid (NULL: unknown),
 * searching as above with @near (NULL: none) before the --image-dir
 * directories. Returns 0 with the file in @out and, if @how is not NULL,
 * where it was found ("as recorded", "perf's build-id cache", "an image
 * directory, by build-id", "an image directory, by name"); -ENOENT if no
 * fitting file is anywhere; -ENAMETOOLONG. */
int replay_image_find(const char *path, const char *system_path, const char *uuid,
		      const char *near, char *out, size_t size, const char **how);

#endif
