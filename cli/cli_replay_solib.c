/*
 * cli/cli_replay_solib.c: `info sharedlibrary` of `hindsight replay` as
 * GDB 13 prints it: "From To Syms Read Shared Object Library", each
 * library's .text range where the recording loaded it, "Yes (*)" and the
 * footnote for one without debugging information (in the file or a
 * separate debug file). The libraries are replay/frontend/frontend_solib.h's.
 */
#include "cli/cli_replay_solib.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "replay/frontend/frontend.h"
#include "replay/frontend/frontend_solib.h"

int cli_replay_info_sharedlibrary(struct cli_session *s, const char *args)
{
	struct replay_frontend_library *ls;
	bool any = false, nodebug = false;
	size_t n;

	(void)args;
	if (replay_frontend_libraries(s->f, &ls, &n) < 0) {
		fprintf(stderr, "info sharedlibrary: out of memory.\n");
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		if (!any)
			printf("From                To                  Syms Read   "
			       "Shared Object Library\n");
		if (!ls[i].ok)
			continue;
		printf("0x%016" PRIx64 "  0x%016" PRIx64 "  %-12s%s\n", ls[i].from, ls[i].to,
		       ls[i].debug ? "Yes" : "Yes (*)", ls[i].name);
		nodebug |= !ls[i].debug;
		any = true;
	}
	free(ls);
	if (!any)
		printf("No shared libraries loaded at this time.\n");
	if (nodebug)
		printf("(*): Shared library is missing debugging information.\n");
	return 0;
}
