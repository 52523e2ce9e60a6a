/*
 * replay/model/auxv.c: AT_ENTRY, AT_PHDR and AT_BASE from the bundle's mappings
 * and the mapped files' ELF headers.
 */
#include "replay/model/auxv.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "protocol/rsp_buf.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"

/* The first mapping of the file the process knew as @path (or, with
 * @substr, whose path contains it). */
static const struct replay_mapping *mapping_of(const struct replay_bundle *b, const char *path,
					       bool substr)
{
	for (size_t i = 0; i < b->nmaps; i++) {
		const char *p = b->maps[i].system_path;

		if (p && (substr ? strstr(p, path) != NULL : !strcmp(p, path)))
			return &b->maps[i];
	}
	return NULL;
}

static int read_ehdr(const char *path, Elf64_Ehdr *eh)
{
	int fd = dw_open_regular(path);
	ssize_t n;

	if (fd < 0)
		return fd;
	n = pread(fd, eh, sizeof(*eh), 0);
	close(fd);
	if (n != (ssize_t)sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	return 0;
}

/* The load bias of @m's file, its ELF header, and the address its program
 * headers are at once loaded. */
static int file_bias(const struct replay_bundle *b, const struct replay_mapping *m,
		     uint64_t *bias, Elf64_Ehdr *eh, uint64_t *phdr)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	char path[4096];
	int n, rc;

	if (!m->file || replay_bundle_path(b, m->file, path, sizeof(path)) < 0)
		return -ENOENT;
	rc = read_ehdr(path, eh);
	n = rc ? rc : replay_elf_load_segments(path, segs);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		const struct replay_elf_segment *s = &segs[i];

		if (m->offset < s->offset || m->offset >= s->offset + s->size)
			continue;
		*bias = m->start - (s->vaddr + (m->offset - s->offset));
		*phdr = *bias + segs[0].vaddr - segs[0].offset + eh->e_phoff;
		return 0;
	}
	return -ENOENT;
}

static int put(struct rsp_buf *out, uint64_t type, uint64_t value)
{
	uint64_t pair[2] = { type, value };

	return rsp_buf_append(out, pair, sizeof(pair));
}

int replay_auxv_build(const struct replay_bundle *b, const char *exec_path, struct rsp_buf *out)
{
	const struct replay_mapping *exe = exec_path ? mapping_of(b, exec_path, false) : NULL;
	const struct replay_mapping *ld = mapping_of(b, "/ld-linux", true);
	uint64_t bias, phdr, ld_bias, ld_phdr;
	Elf64_Ehdr eh, ld_eh;
	int err;

	if (!exe || file_bias(b, exe, &bias, &eh, &phdr) < 0)
		return -ENOENT;
	err = put(out, AT_PHDR, phdr);
	if (!err)
		err = put(out, AT_PHENT, eh.e_phentsize);
	if (!err)
		err = put(out, AT_PHNUM, eh.e_phnum);
	if (!err)
		err = put(out, AT_PAGESZ, 4096);
	if (!err && ld && ld != exe && file_bias(b, ld, &ld_bias, &ld_eh, &ld_phdr) == 0)
		err = put(out, AT_BASE, ld_bias);
	if (!err)
		err = put(out, AT_ENTRY, bias + eh.e_entry);
	if (!err)
		err = put(out, AT_NULL, 0);
	return err;
}
