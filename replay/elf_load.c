/*
 * replay/elf_load.c: the PT_LOAD segments of an ELF file, with libelf.
 */
#include "replay/elf_load.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <unistd.h>

#define PAGE 4096u

static int read_segments(Elf *elf, struct replay_elf_segment *segs)
{
	size_t nph;
	int n = 0;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) != 0)
		return -ENOEXEC;
	for (size_t i = 0; i < nph && n < REPLAY_ELF_MAX_SEGMENTS; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph))
			return -ENOEXEC;
		if (ph.p_type != PT_LOAD)
			continue;
		segs[n].vaddr = ph.p_vaddr & ~(uint64_t)(PAGE - 1);
		segs[n].offset = ph.p_offset & ~(uint64_t)(PAGE - 1);
		segs[n].size = ph.p_offset + ph.p_filesz - segs[n].offset;
		segs[n].executable = (ph.p_flags & PF_X) != 0;
		n++;
	}
	return n;
}

int replay_elf_load_segments(const char *path, struct replay_elf_segment *segs)
{
	Elf *elf;
	int fd, n;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf ? read_segments(elf, segs) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return n;
}
