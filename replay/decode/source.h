/*
 * replay/decode/source.h: lines of source files, for listings with source.
 *
 * Keeps the last file read (listings go through one file at a time), so a
 * listing reads each file once per run of its lines. Files that cannot be
 * read (not on this machine) simply give no text. Lifetime: zero-initialise,
 * then replay_source_release.
 */
#ifndef HINDSIGHT_REPLAY_SOURCE_H
#define HINDSIGHT_REPLAY_SOURCE_H

#include <stddef.h>

struct replay_source {
	char *path;                /* the file held, or NULL */
	char *text;
	size_t *starts;            /* offset of each line in text */
	size_t nlines;
};

/* Line @line (1-based) of @path without its newline, its length in *@len;
 * NULL if the file cannot be read or is shorter. Valid until the next call. */
const char *replay_source_line(struct replay_source *s, const char *path, unsigned line,
			       size_t *len);
void replay_source_release(struct replay_source *s);

#endif
