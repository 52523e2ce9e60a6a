/* dw_elf: one ELF file through libelf: its section table, section contents
 * (decompressed on first use when SHF_COMPRESSED or .zdebug_*), build-id and
 * .gnu_debuglink. The file is mapped, not read; nothing is decoded before it
 * is asked for. */
#ifndef DW_ELF_H
#define DW_ELF_H

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct dw_elf_section {
	const char *name;   /* as in the file; ".zdebug_x" is reported as ".debug_x" */
	uint64_t addr, size, offset; /* size: decompressed size when compressed */
	uint32_t type, link, info;
	uint64_t flags, entsize;
	Elf_Scn *scn;
	bool compressed;    /* SHF_COMPRESSED or .zdebug */
	bool gnu_zdebug;    /* the .zdebug kind */
	bool name_owned;    /* name was allocated (renamed .zdebug) */
	bool loaded;
	bool checked, hidden; /* dw_debug: header chain checked; hidden from libdwarf when bad */
	const void *data;   /* once loaded */
	size_t data_size;
};

struct dw_elf {
	char *path;
	int fd;
	void *image;        /* owned copy for dw_elf_open_memory */
	Elf *elf;
	GElf_Ehdr ehdr;
	size_t nsections;
	struct dw_elf_section *sections; /* index as in the file; [0] is the null section */
};

/* Returns 0, -ENOENT / -EACCES / ... from open(2), -ENOEXEC when not a
 * 64-bit little-endian ELF file with a readable section table, -ENOMEM. */
int dw_elf_open(const char *path, struct dw_elf **out);
/* open(@path, O_RDONLY | O_CLOEXEC) for a regular file only: a FIFO, a
 * device or a directory is refused at once (-EINVAL, -EISDIR), never
 * waited on; -EACCES for a file the reader could not read (dw_access.h:
 * serve --replay of another user's recording). The descriptor, or a
 * negative errno. Every reader of recordings, images and sources opens
 * through it. */
int dw_open_regular(const char *path);
/* fdopen of dw_open_regular(@path) for reading; NULL with errno set. */
FILE *dw_fopen_regular(const char *path);
/* Same, over a copy of @len bytes at @buf; @name is kept for messages. */
int dw_elf_open_memory(const void *buf, size_t len, const char *name, struct dw_elf **out);
/* As dw_elf_open, over a duplicate of @fd (a regular file open for reading; the
 * caller keeps @fd); @name is kept for messages. */
int dw_elf_open_fd(int fd, const char *name, struct dw_elf **out);
void dw_elf_free(struct dw_elf *e);

/* Returns the section index, or 0 when there is no section of that name. */
size_t dw_elf_find(const struct dw_elf *e, const char *name);
/* Returns true when @name exists and is not SHT_NOBITS. */
bool dw_elf_has_data(const struct dw_elf *e, const char *name);
/* Loads section @idx (decompressing it). Returns 0, -EINVAL for a bad index
 * or a NOBITS section, -EIO when libelf cannot read or inflate it. */
int dw_elf_load(struct dw_elf *e, size_t idx, const void **data, size_t *size);
/* Index of the SHF_ALLOC section holding @addr (first in section order), or 0. */
size_t dw_elf_section_at(const struct dw_elf *e, uint64_t addr);

/* Build-id bytes (pointer into the file) and length, or 0 when none. */
size_t dw_elf_build_id(struct dw_elf *e, const uint8_t **id);
/* The .gnu_debuglink file name (pointer into the file), or NULL. */
const char *dw_elf_debuglink(struct dw_elf *e, uint32_t *crc);

#endif
