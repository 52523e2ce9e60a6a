/*
 * replay/model/elf_load.c: the PT_LOAD segments, build-id and code of an ELF
 * file, with libelf.
 */
#include "replay/model/elf_load.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"

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
		segs[n].pages = (segs[n].size + PAGE - 1) & ~(uint64_t)(PAGE - 1);
		segs[n].file_end = ph.p_vaddr + ph.p_filesz;
		segs[n].mem_end = ph.p_vaddr + (ph.p_memsz > ph.p_filesz ? ph.p_memsz : ph.p_filesz);
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
	fd = dw_open_regular(path);
	if (fd < 0)
		return fd;
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

struct build_id_out {
	char *hex;
	size_t size;
};

/* The NT_GNU_BUILD_ID in note data @d: 0, -ENOENT, -ENOSPC. */
static int note_build_id(Elf_Data *d, struct build_id_out *o)
{
	GElf_Nhdr nh;
	size_t off = 0, noff, doff;

	while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
		const uint8_t *id = (const uint8_t *)d->d_buf + doff;

		if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
		    memcmp((const char *)d->d_buf + noff, "GNU", 4) || !nh.n_descsz)
			continue;
		if (o->size < 2 * (size_t)nh.n_descsz + 1)
			return -ENOSPC;
		for (size_t i = 0; i < nh.n_descsz; i++)
			snprintf(o->hex + 2 * i, 3, "%02x", id[i]);
		return 0;
	}
	return -ENOENT;
}

static int find_build_id(Elf *elf, void *arg)
{
	struct build_id_out *o = arg;
	Elf_Scn *scn = NULL;
	size_t nph;
	int rc = -ENOENT;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	while (rc == -ENOENT && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_NOTE && (d = elf_getdata(scn, NULL)))
			rc = note_build_id(d, o);
	}
	if (rc != -ENOENT || elf_getphdrnum(elf, &nph) != 0)
		return rc;
	/* no section headers: the PT_NOTE segments */
	for (size_t i = 0; i < nph && rc == -ENOENT; i++) {
		GElf_Phdr ph;
		Elf_Data *d;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_NOTE)
			continue;
		d = elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR);
		if (d)
			rc = note_build_id(d, o);
	}
	return rc;
}

int replay_elf_build_id(const char *path, char *hex, size_t size)
{
	struct build_id_out o = { hex, size };

	return with_elf(path, find_build_id, &o);
}

static int find_code(Elf *elf, void *arg)
{
	off_t *file_size = arg;
	Elf_Scn *scn = NULL;
	size_t nph;
	bool sections = false;

	if (elf_kind(elf) != ELF_K_ELF)
		return -ENOEXEC;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		sections = true;
		if (sh.sh_type != SHT_NOBITS && sh.sh_size)
			return 1;
	}
	if (sections || elf_getphdrnum(elf, &nph) != 0)
		return 0;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD && (ph.p_flags & PF_X) &&
		    ph.p_filesz && ph.p_offset + ph.p_filesz <= (uint64_t)*file_size)
			return 1;
	}
	return 0;
}

int replay_elf_has_code(const char *path)
{
	struct stat st;
	off_t size;

	if (stat(path, &st) < 0)
		return -errno;
	size = st.st_size;
	return with_elf(path, find_code, &size);
}
