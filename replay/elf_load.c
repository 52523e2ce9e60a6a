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

static int read_segments(Elf *elf, void *arg)
{
	struct replay_elf_segment *segs = arg;
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
		segs[n].writable = (ph.p_flags & PF_W) != 0;
		n++;
	}
	return n;
}

static int find_dynamic(Elf *elf, void *arg)
{
	uint64_t *vaddr = arg;
	size_t nph;

	if (elf_kind(elf) != ELF_K_ELF || elf_getphdrnum(elf, &nph) != 0)
		return -ENOEXEC;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_DYNAMIC) {
			*vaddr = ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

/* Opens @path with libelf and runs @fn on it. */
static int with_elf(const char *path, int (*fn)(Elf *, void *), void *arg)
{
	Elf *elf;
	int fd, n;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOEXEC;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	n = elf ? fn(elf, arg) : -ENOEXEC;
	elf_end(elf);
	close(fd);
	return n;
}

int replay_elf_load_segments(const char *path, struct replay_elf_segment *segs)
{
	return with_elf(path, read_segments, segs);
}

int replay_elf_dynamic_vaddr(const char *path, uint64_t *vaddr)
{
	return with_elf(path, find_dynamic, vaddr);
}

int replay_elf_mapping_bias(const char *path, uint64_t start, uint64_t offset, uint64_t *bias)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	int n = replay_elf_load_segments(path, segs);

	for (int i = 0; i < n; i++) {
		if (offset >= segs[i].offset && offset < segs[i].offset + segs[i].size) {
			*bias = start - (segs[i].vaddr + (offset - segs[i].offset));
			return 0;
		}
	}
	return n < 0 ? n : -ENOENT;
}
