/*
 * replay/frontend/frontend_solib.h: the shared libraries of a recording as GDB 13's
 * `info sharedlibrary` lists them: those replay/target/svr4.h gives GDB over
 * `serve --replay` (the mapped files with a dynamic section but the
 * program and [vdso], in mapping order, at the end of the recording), each
 * with its .text range where the recording loaded it and whether it has
 * debugging information (in the file or a separate debug file).
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_SOLIB_H
#define HINDSIGHT_REPLAY_FRONTEND_SOLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_frontend;

struct replay_frontend_library {
	bool ok;                   /* its .text was found; false: nothing else is set */
	uint64_t from, to;         /* its .text, loaded */
	bool debug;                /* it has debugging information */
	const char *name;          /* as the recording names it (lives as long as the session) */
};

/* The libraries into *@out (an array to free) and their count into *@n.
 * 0 or -ENOMEM. */
int replay_frontend_libraries(struct replay_frontend *f, struct replay_frontend_library **out,
			      size_t *n);

#endif
