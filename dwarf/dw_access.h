/* dw_access: whose files the stub reads, and the one check of it.
 *
 * The stub often runs with more rights than whoever connects to it (root
 * serving another user's recording, say). Everything it opens for a
 * recording (its manifest, traces, state logs, images, their debug files,
 * sources) is named by the recording, which its owner wrote: a manifest
 * naming /etc/shadow as an image, a trace that is a link to it, must get
 * a debugger nothing its owner could not read. So serve --replay sets the
 * reader to the recording's owner, and dw_open_regular, through which
 * every such file is opened, refuses (-EACCES) a file that user could not
 * read; dw_served (vFile) checks each served file with the same function.
 */
#ifndef DW_ACCESS_H
#define DW_ACCESS_H

#include <stdbool.h>
#include <stdint.h>

/* The user files are opened on behalf of: -1 (the default) or 0, any file
 * the process can read. Set once, before any file is opened or thread
 * started (it is process-wide, as a file-system uid is). */
void dw_access_set_reader(int64_t uid);
int64_t dw_access_reader(void);

/* Whether user @uid could read the file open at @fd: the file readable by
 * all, or @uid's own and readable by its owner (what a group only may read
 * is refused: the user's groups are not known), and every directory on the
 * way to it (the path the kernel gives the descriptor, links resolved)
 * searchable the same way. Always true for @uid -1 or 0. */
bool dw_access_readable(int fd, int64_t uid);

#endif
