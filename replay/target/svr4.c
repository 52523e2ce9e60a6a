/*
 * replay/target/svr4.c: a libraries-svr4 list from a recording's mappings,
 * written by protocol/rsp_svr4.c.
 */
#include "replay/target/svr4.h"

#include <errno.h>
#include <string.h>

#include "protocol/rsp_svr4.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"

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

/* The library of mapping @m (the file at @path), link_map identity @lm,
 * if it is a shared object GDB could load. 0 or -ENOMEM. */
static int add_library(struct rsp_svr4_list *list, const struct replay_mapping *m,
		       const char *path, uint64_t lm)
{
	uint64_t bias, dyn;

	if (replay_elf_mapping_bias(path, m->start, m->offset, &bias) ||
	    replay_elf_dynamic_vaddr(path, &dyn))
		return 0;
	return rsp_svr4_list_add(list, m->system_path ? m->system_path : m->file, lm, bias,
				 bias + dyn, 0);
}

int replay_svr4_build(const struct replay_bundle *b, const char *exec_path, uint64_t time,
		      struct rsp_buf *out)
{
	char path[4096];
	struct rsp_svr4_list list;
	int err = 0;

	rsp_svr4_list_init(&list);
	list.main_lm = 1;
	for (size_t i = 0; i < b->nmaps && !err; i++) {
		const struct replay_mapping *m = &b->maps[i];

		/* [vdso] and the like are no files GDB could open; GDB finds the
		 * vDSO itself. */
		if (!alive(m, time) || seen_before(b, i, time) ||
		    (m->system_path && m->system_path[0] == '[') ||
		    (exec_path && m->system_path && !strcmp(m->system_path, exec_path)) ||
		    replay_bundle_path(b, m->file, path, sizeof(path)))
			continue;
		err = add_library(&list, m, path, i + 2);
	}
	if (!err)
		err = rsp_svr4_xml(&list, out);
	rsp_svr4_list_release(&list);
	return err;
}
