/*
 * replay/frontend/frontend_solib.c: the recording's shared libraries for `info
 * sharedlibrary` (see frontend_solib.h).
 */
#include "replay/frontend/frontend_solib.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_debugfile.h"
#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/frontend/frontend.h"

static bool alive(const struct replay_mapping *m, uint64_t time)
{
	return m->time_map <= time && time < m->time_unmap;
}

/* Whether maps[i] is a library svr4.c lists: alive, the first mapping of
 * its file, not the program nor a [pseudo] mapping, with a dynamic
 * section. Its file's path into @path. */
static bool is_library(const struct replay_bundle *b, size_t i, const char *exec, char *path,
		       size_t size)
{
	const struct replay_mapping *m = &b->maps[i];
	uint64_t dyn;

	if (!alive(m, b->end_time) || (m->system_path && m->system_path[0] == '[') ||
	    (exec && m->system_path && !strcmp(m->system_path, exec)) ||
	    replay_bundle_path(b, m->file, path, size) || replay_elf_dynamic_vaddr(path, &dyn))
		return false;
	for (size_t j = 0; j < i; j++)
		if (alive(&b->maps[j], b->end_time) && !strcmp(b->maps[j].file, m->file))
			return false;
	return true;
}

/* One library's row into *@l (l->ok false when the file's .text cannot
 * be had). */
static void library(const struct replay_mapping *m, const char *path,
		    struct replay_frontend_library *l)
{
	struct dw_elf *e = NULL, *dbg = NULL;
	char found[4096];
	uint64_t bias;
	size_t text;

	memset(l, 0, sizeof(*l));
	if (replay_elf_mapping_bias(path, m->start, m->offset, &bias) || dw_elf_open(path, &e) < 0)
		return;
	text = dw_elf_find(e, ".text");
	if (!text) {
		dw_elf_free(e);
		return;
	}
	l->ok = true;
	l->debug = dw_elf_has_data(e, ".debug_info") ||
		   dw_debugfile_find(e, path, &dbg, found, sizeof(found)) == 0;
	l->from = e->sections[text].addr + bias;
	l->to = e->sections[text].addr + e->sections[text].size + bias;
	l->name = m->system_path ? m->system_path : m->file;
	dw_elf_free(dbg);
	dw_elf_free(e);
}

int replay_frontend_libraries(struct replay_frontend *f, struct replay_frontend_library **out,
			      size_t *n)
{
	const struct replay_bundle *b = f->b;
	const char *exec = replay_bundle_program_path(b);
	struct replay_frontend_library *ls = NULL;
	size_t k = 0;
	char path[4096];

	for (size_t i = 0; i < b->nmaps; i++) {
		struct replay_frontend_library *nl;

		if (!is_library(b, i, exec, path, sizeof(path)))
			continue;
		nl = realloc(ls, (k + 1) * sizeof(*ls));
		if (!nl) {
			free(ls);
			return -ENOMEM;
		}
		ls = nl;
		library(&b->maps[i], path, &ls[k++]);
	}
	*out = ls;
	*n = k;
	return 0;
}
