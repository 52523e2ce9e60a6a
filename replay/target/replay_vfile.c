/*
 * replay/target/replay_vfile.c: the files of a recording a debugger may read; see
 * replay_vfile.h.
 */
#include "replay/target/replay_vfile.h"

#include <errno.h>
#include <limits.h>

#include "dwarf/dw_served.h"
#include "replay/model/bundle.h"

int replay_vfile_served(const struct replay_bundle *b, struct dw_served *s)
{
	char path[PATH_MAX];
	int r = 0;

	dw_served_init(s, NULL);
	/* The debugger reads what the recording's owner may read: a
	 * recording of one's own names any files it likes. (A perf.data's
	 * bundle is the stub's: the perf.data's owner.) The owner is the one
	 * of when the recording was opened. */
	if (b->owner < 0)
		return -EACCES;
	dw_served_set_reader(s, b->owner);
	for (size_t i = 0; r == 0 && i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];

		if (!m->file || replay_mapping_generated(m) ||
		    replay_bundle_path(b, m->file, path, sizeof(path)))
			continue;
		r = dw_served_add_object(s, m->system_path ? m->system_path : m->file, path, NULL);
	}
	return r;
}
