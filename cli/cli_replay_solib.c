/*
 * cli/cli_replay_solib.c: `info sharedlibrary` of `hindsight replay` as
 * GDB 13 prints it: "From To Syms Read Shared Object Library", each
 * library's .text range where the recording loaded it, "Yes (*)" and the
 * footnote for one without debugging information (in the file or a
 * separate debug file). The libraries are those replay/svr4.h gives GDB
 * over `serve --replay`: the mapped files with a dynamic section but the
 * program and [vdso], in mapping order, at the end of the recording (the
 * list serve's GDB sees).
 */
#include "cli/cli_replay_solib.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "dwarf/dw_debugfile.h"
#include "dwarf/dw_elf.h"
#include "replay/bundle.h"
#include "replay/elf_load.h"
#include "replay/frontend.h"

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

/* One row; false when the file's .text cannot be had. *@nodebug is set
 * for a library without debugging information. */
static bool print_library(const struct replay_mapping *m, const char *path, bool *nodebug)
{
	struct dw_elf *e = NULL, *dbg = NULL;
	char found[4096];
	uint64_t bias;
	size_t text;
	bool debug;

	if (replay_elf_mapping_bias(path, m->start, m->offset, &bias) || dw_elf_open(path, &e) < 0)
		return false;
	text = dw_elf_find(e, ".text");
	if (!text) {
		dw_elf_free(e);
		return false;
	}
	debug = dw_elf_has_data(e, ".debug_info") ||
		dw_debugfile_find(e, path, &dbg, found, sizeof(found)) == 0;
	printf("0x%016" PRIx64 "  0x%016" PRIx64 "  %-12s%s\n", e->sections[text].addr + bias,
	       e->sections[text].addr + e->sections[text].size + bias, debug ? "Yes" : "Yes (*)",
	       m->system_path ? m->system_path : m->file);
	*nodebug |= !debug;
	dw_elf_free(dbg);
	dw_elf_free(e);
	return true;
}

int cli_replay_info_sharedlibrary(struct cli_session *s, const char *args)
{
	const struct replay_bundle *b = s->f->b;
	const char *exec = replay_bundle_program_path(b);
	bool any = false, nodebug = false;
	char path[4096];

	(void)args;
	for (size_t i = 0; i < b->nmaps; i++) {
		if (!is_library(b, i, exec, path, sizeof(path)))
			continue;
		if (!any)
			printf("From                To                  Syms Read   "
			       "Shared Object Library\n");
		any |= print_library(&b->maps[i], path, &nodebug);
	}
	if (!any)
		printf("No shared libraries loaded at this time.\n");
	if (nodebug)
		printf("(*): Shared library is missing debugging information.\n");
	return 0;
}
