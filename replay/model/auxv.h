/*
 * replay/model/auxv.h: an auxiliary vector for a recording, made from its
 * mappings.
 *
 * A recording has no process to read /proc/PID/auxv from, but GDB needs
 * AT_ENTRY to find where a position-independent executable was loaded (and
 * AT_BASE for the dynamic linker) before `break func` means anything. Both
 * follow from the bundle: the load bias of a file is where its executable
 * mapping starts minus where its PT_LOAD segment wants it. The vector
 * holds AT_PHDR, AT_PHENT, AT_PHNUM, AT_PAGESZ, AT_BASE, AT_ENTRY, AT_NULL
 * (those that are known). Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_AUXV_H
#define HINDSIGHT_REPLAY_AUXV_H

struct replay_bundle;
struct rsp_buf;

/* Appends the vector for the executable at @exec_path (the path the
 * process mapped, as in the bundle's systemPath) to @out. 0, -ENOENT when
 * the executable's mapping or file is not in the recording, -ENOMEM. */
int replay_auxv_build(const struct replay_bundle *b, const char *exec_path, struct rsp_buf *out);

#endif
