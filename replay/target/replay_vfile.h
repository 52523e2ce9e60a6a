/*
 * replay/target/replay_vfile.h: the files of a recording a debugger may read
 * through serve --replay (vFile; rsp_target_ops.vfile_open).
 *
 * There is no process: the files are the stub's own, and they are the
 * recording's images, under the paths the process mapped them by, opened
 * where the recording found them (the recorded path, perf's build-id
 * cache, --image-dir; the vDSO's copy in the bundle), and their separate
 * debug files (dwarf/dw_served.h), those the recording's owner may read.
 * /proc files are not served: the recorded pid is some other process now,
 * or none.
 */
#ifndef HINDSIGHT_REPLAY_REPLAY_VFILE_H
#define HINDSIGHT_REPLAY_REPLAY_VFILE_H

struct dw_served;
struct replay_bundle;

/* Initialises @s with every image of @b (release it with
 * dw_served_release, failure or not), readable for the owner of the
 * recording's directory (or perf.data). 0, -EACCES (its owner cannot be told), -ENOMEM. */
int replay_vfile_served(const struct replay_bundle *b, struct dw_served *s);

#endif
