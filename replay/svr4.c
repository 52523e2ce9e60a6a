/*
 * replay/svr4.c: a libraries-svr4 list from a recording's mappings.
 */
#include "replay/svr4.h"

#include <errno.h>
#include <string.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_reply.h"
#include "replay/bundle.h"
#include "replay/elf_load.h"

static bool alive(const struct replay_mapping *m, uint64_t time)
{
	return m->time_map <= time && time < m->time_unmap;
}

/* True if an earlier mapping alive at @time has the same file as maps[i]:
 * each file is listed once. */
static bool seen_before(const struct replay_bundle *b, size_t i, uint64_t time)
{
	for (size_t j = 0; j < i; j++)
		if (alive(&b->maps[j], time) && !strcmp(b->maps[j].file, b->maps[i].file))
			return true;
	return false;
}

static int put_library(struct rsp_buf *out, const struct replay_mapping *m, const char *path,
		       size_t lm)
{
	uint64_t bias, dyn;
	int err;

	if (replay_elf_mapping_bias(path, m->start, m->offset, &bias) ||
	    replay_elf_dynamic_vaddr(path, &dyn))
		return 0; /* not a shared object GDB could load */
	err = rsp_buf_puts(out, "<library name=\"");
	if (!err)
		err = rsp_reply_xml_text(out, m->system_path ? m->system_path : m->file);
	if (!err)
		err = rsp_buf_printf(out,
				     "\" lm=\"0x%zx\" l_addr=\"0x%llx\" l_ld=\"0x%llx\" lmid=\"0x0\"/>",
				     lm, (unsigned long long)bias, (unsigned long long)(bias + dyn));
	return err;
}

int replay_svr4_build(const struct replay_bundle *b, const char *exec_path, uint64_t time,
		      struct rsp_buf *out)
{
	char path[4096];
	int err = rsp_buf_puts(out, "<library-list-svr4 version=\"1.0\" main-lm=\"0x1\">");

	for (size_t i = 0; i < b->nmaps && !err; i++) {
		const struct replay_mapping *m = &b->maps[i];

		/* [vdso] and the like are no files GDB could open; GDB finds the
		 * vDSO itself. */
		if (!alive(m, time) || seen_before(b, i, time) ||
		    (m->system_path && m->system_path[0] == '[') ||
		    (exec_path && m->system_path && !strcmp(m->system_path, exec_path)) ||
		    replay_bundle_path(b, m->file, path, sizeof(path)))
			continue;
		err = put_library(out, m, path, i + 2);
	}
	return err ? err : rsp_buf_puts(out, "</library-list-svr4>");
}
