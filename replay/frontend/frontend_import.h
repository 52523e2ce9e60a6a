/*
 * replay/frontend/frontend_import.h: `hindsight import`'s work, others' Intel PT
 * recordings (a perf.data, an LLDB trace bundle or its manifest, a raw PT
 * stream with ptxed's options) saved as a hindsight bundle whose images
 * are looked for here (by build-id, then by name). Lines for the user go
 * to the caller's function; nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_IMPORT_H
#define HINDSIGHT_REPLAY_FRONTEND_IMPORT_H

#include <stdbool.h>
#include <stddef.h>

#define REPLAY_FRONTEND_IMPORT_ELFS 64
#define REPLAY_FRONTEND_IMPORT_IMAGE_DIRS 16

/* What to import and how. */
struct replay_frontend_import {
	const char *src;           /* the perf.data, LLDB bundle or manifest, raw PT file */
	bool raw;                  /* src is a raw PT stream: */
	const char *cpu;           /* FAMILY/MODEL/STEPPING */
	const char *elfs[REPLAY_FRONTEND_IMPORT_ELFS]; /* FILE[:ADDR], loaded as ptxed does */
	size_t nelfs;
	long mtc_freq, nom_freq, cpuid_eax, cpuid_ebx, tid;
	const char *image_dirs[REPLAY_FRONTEND_IMPORT_IMAGE_DIRS]; /* also looked in for images */
	size_t nimage_dirs;
	/* Called with each line for the user (a warning, an image not found),
	 * without "hindsight: "; NULL: none said. */
	void (*say)(void *ctx, const char *line);
	void *ctx;
};

/* Imports @a into the bundle directory @dir (created) and checks it by
 * loading it back: its threads and mappings into *@nthreads, *@nmaps. 0,
 * or a negative errno with the reason in @why (may be empty: then
 * strerror's). */
int replay_frontend_import_run(const struct replay_frontend_import *a, const char *dir,
			       size_t *nthreads, size_t *nmaps, char *why, size_t n);

#endif
