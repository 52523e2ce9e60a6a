/*
 * replay/model/elf_load.h: the PT_LOAD segments of an ELF file, its dynamic
 * section, where a mapping of it puts its addresses, its build-id and
 * whether it holds code (replay/model/image_find.h checks candidates with them).
 *
 * LLDB's trace bundles give a module's load address only; the mappings a
 * decoder needs (address, file offset, size) come from the file's program
 * headers. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_ELF_LOAD_H
#define HINDSIGHT_REPLAY_ELF_LOAD_H

#include <stddef.h>
#include <stdint.h>

struct replay_elf_segment {
	uint64_t vaddr;            /* p_vaddr, page-aligned down */
	uint64_t offset;           /* p_offset, page-aligned down */
	uint64_t size;             /* file bytes from offset to the segment's end */
	uint64_t pages;            /* what the loader maps of the file: size rounded
				    * up to a page (the last page's bytes past the
				    * segment are the file's, past its end zero) */
	uint64_t file_end;         /* p_vaddr + p_filesz */
	uint64_t mem_end;          /* p_vaddr + p_memsz: from file_end on, zero (bss) */
	int executable;            /* PF_X */
	int writable;              /* PF_W */
};

#define REPLAY_ELF_MAX_SEGMENTS 16

/* Reads @path's PT_LOAD headers into @segs (at most
 * REPLAY_ELF_MAX_SEGMENTS, in file order). Returns their number, -errno if
 * the file cannot be opened, -ENOEXEC if it is not an ELF file with
 * program headers. */
int replay_elf_load_segments(const char *path, struct replay_elf_segment *segs);

/* The p_vaddr of @path's PT_DYNAMIC: 0, -ENOENT (a static program), or the
 * errors of replay_elf_load_segments. */
int replay_elf_dynamic_vaddr(const char *path, uint64_t *vaddr);

/* The load bias of a mapping of @path at @start from file @offset: where it
 * puts the file's addresses (runtime = file address + bias). 0, -ENOENT if
 * no PT_LOAD segment holds @offset, or the errors above. */
int replay_elf_mapping_bias(const char *path, uint64_t start, uint64_t offset, uint64_t *bias);

/* The GNU build-id of @path (NT_GNU_BUILD_ID) as lowercase hex into @hex
 * (2 * bytes + 1; 129 holds any). 0, -ENOENT if it has none, -ENOSPC if
 * @size is too small, or the errors of replay_elf_load_segments. */
int replay_elf_build_id(const char *path, char *hex, size_t size);

/* Whether @path holds the bytes of its code: 1 if an executable section
 * (or, without section headers, an executable PT_LOAD) has contents in the
 * file, 0 if not (a separate debug file: its .text is NOBITS), or the
 * errors of replay_elf_load_segments. */
int replay_elf_has_code(const char *path);

#endif
