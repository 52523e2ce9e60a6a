/* dw_elf: libelf access for dwarf/; see dw_elf.h. */
#include "dwarf/dw_elf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_access.h"

static int dw_elf_read_sections(struct dw_elf *e)
{
	size_t shstrndx;

	if (elf_kind(e->elf) != ELF_K_ELF || !gelf_getehdr(e->elf, &e->ehdr))
		return -ENOEXEC;
	if (e->ehdr.e_ident[EI_CLASS] != ELFCLASS64 || e->ehdr.e_ident[EI_DATA] != ELFDATA2LSB)
		return -ENOEXEC;
	if (elf_getshdrnum(e->elf, &e->nsections) != 0 || elf_getshdrstrndx(e->elf, &shstrndx) != 0)
		return -ENOEXEC;
	e->sections = calloc(e->nsections ? e->nsections : 1, sizeof(*e->sections));
	if (!e->sections)
		return -ENOMEM;
	for (size_t i = 1; i < e->nsections; i++) {
		struct dw_elf_section *s = &e->sections[i];
		GElf_Shdr sh;

		s->scn = elf_getscn(e->elf, i);
		if (!s->scn || !gelf_getshdr(s->scn, &sh))
			continue;
		s->name = elf_strptr(e->elf, shstrndx, sh.sh_name);
		if (!s->name)
			s->name = "";
		s->addr = sh.sh_addr;
		s->size = sh.sh_size;
		s->offset = sh.sh_offset;
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->entsize = sh.sh_entsize;
		if (sh.sh_type == SHT_NOBITS)
			continue;
		if (sh.sh_flags & SHF_COMPRESSED) {
			GElf_Chdr ch;

			s->compressed = true;
			s->size = gelf_getchdr(s->scn, &ch) ? ch.ch_size : 0;
		} else if (strncmp(s->name, ".zdebug", 7) == 0) {
			s->compressed = s->gnu_zdebug = true;
			s->name += 2; /* ".zdebug_info" -> "debug_info", fixed below */
			s->size = 0;
		}
	}
	return 0;
}

/* .zdebug names: keep ".debug_x" as a pool-free name by pointing at a copy. */
static int dw_elf_fix_zdebug_names(struct dw_elf *e)
{
	for (size_t i = 1; i < e->nsections; i++) {
		struct dw_elf_section *s = &e->sections[i];

		if (!s->gnu_zdebug)
			continue;
		char *n = malloc(strlen(s->name) + 2);
		if (!n)
			return -ENOMEM;
		n[0] = '.';
		strcpy(n + 1, s->name);
		s->name = n;
		s->name_owned = true;
		/* Size is known only after inflating; inflate now (rare format). */
		const void *d;
		size_t sz;
		if (dw_elf_load(e, i, &d, &sz) != 0)
			s->size = 0;
	}
	return 0;
}

static int dw_elf_finish_open(struct dw_elf *e, struct dw_elf **out)
{
	int rc;

	e->elf = e->image ? elf_memory(e->image, (size_t)e->fd) : elf_begin(e->fd, ELF_C_READ_MMAP, NULL);
	if (e->image)
		e->fd = -1;
	rc = e->elf ? dw_elf_read_sections(e) : -ENOEXEC;
	if (rc == 0)
		rc = dw_elf_fix_zdebug_names(e);
	if (rc != 0) {
		dw_elf_free(e);
		return rc;
	}
	*out = e;
	return 0;
}

static struct dw_elf *dw_elf_alloc(const char *path)
{
	struct dw_elf *e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->fd = -1;
	e->path = strdup(path ? path : "");
	if (!e->path) {
		free(e);
		return NULL;
	}
	return e;
}

int dw_open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC), e;

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) < 0) {
		e = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		return e;
	}
	if (!dw_access_readable(fd, dw_access_reader())) {
		close(fd);
		return -EACCES;
	}
	return fd;
}

FILE *dw_fopen_regular(const char *path)
{
	int fd = dw_open_regular(path);
	FILE *f;

	if (fd < 0) {
		errno = -fd;
		return NULL;
	}
	f = fdopen(fd, "rb");
	if (!f)
		close(fd);
	return f;
}

int dw_elf_open(const char *path, struct dw_elf **out)
{
	struct dw_elf *e;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	e = dw_elf_alloc(path);
	if (!e)
		return -ENOMEM;
	e->fd = dw_open_regular(path);
	if (e->fd < 0) {
		/* a directory, a FIFO, a device: not an ELF file either */
		int rc = e->fd == -EISDIR || e->fd == -EINVAL ? -ENOEXEC : e->fd;

		dw_elf_free(e);
		return rc;
	}
	return dw_elf_finish_open(e, out);
}

int dw_elf_open_fd(int fd, const char *name, struct dw_elf **out)
{
	struct dw_elf *e;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	e = dw_elf_alloc(name);
	if (!e)
		return -ENOMEM;
	e->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
	if (e->fd < 0) {
		int rc = -errno;

		dw_elf_free(e);
		return rc;
	}
	return dw_elf_finish_open(e, out);
}

int dw_elf_open_memory(const void *buf, size_t len, const char *name, struct dw_elf **out)
{
	struct dw_elf *e;

	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	if (len == 0 || len > INT32_MAX)
		return -ENOEXEC;
	e = dw_elf_alloc(name);
	if (!e)
		return -ENOMEM;
	e->image = malloc(len);
	if (!e->image) {
		dw_elf_free(e);
		return -ENOMEM;
	}
	memcpy(e->image, buf, len);
	e->fd = (int)len; /* length handed to dw_elf_finish_open */
	return dw_elf_finish_open(e, out);
}

void dw_elf_free(struct dw_elf *e)
{
	if (!e)
		return;
	for (size_t i = 1; e->sections && i < e->nsections; i++)
		if (e->sections[i].name_owned)
			free((char *)e->sections[i].name);
	free(e->sections);
	if (e->elf)
		elf_end(e->elf);
	if (e->fd >= 0)
		close(e->fd);
	free(e->image);
	free(e->path);
	free(e);
}

size_t dw_elf_find(const struct dw_elf *e, const char *name)
{
	for (size_t i = 1; i < e->nsections; i++)
		if (e->sections[i].name && strcmp(e->sections[i].name, name) == 0)
			return i;
	return 0;
}

bool dw_elf_has_data(const struct dw_elf *e, const char *name)
{
	size_t i = dw_elf_find(e, name);

	return i && e->sections[i].type != SHT_NOBITS && e->sections[i].size > 0;
}

int dw_elf_load(struct dw_elf *e, size_t idx, const void **data, size_t *size)
{
	struct dw_elf_section *s;

	if (idx == 0 || idx >= e->nsections)
		return -EINVAL;
	s = &e->sections[idx];
	if (!s->scn || s->type == SHT_NOBITS)
		return -EINVAL;
	if (!s->loaded) {
		Elf_Data *d;

		s->loaded = true;
		if (s->compressed) {
			int r = s->gnu_zdebug ? elf_compress_gnu(s->scn, 0, 0) : elf_compress(s->scn, 0, 0);
			if (r < 0)
				return -EIO;
		}
		d = elf_getdata(s->scn, NULL);
		if (!d || (d->d_size && !d->d_buf))
			return -EIO;
		s->data = d->d_buf;
		s->data_size = d->d_size;
		if (s->compressed)
			s->size = d->d_size;
	}
	if (!s->data && s->data_size)
		return -EIO;
	if (s->compressed && !s->data)
		return -EIO;
	*data = s->data;
	*size = s->data_size;
	return 0;
}

size_t dw_elf_section_at(const struct dw_elf *e, uint64_t addr)
{
	for (size_t i = 1; i < e->nsections; i++) {
		const struct dw_elf_section *s = &e->sections[i];

		if ((s->flags & SHF_ALLOC) && addr >= s->addr && addr - s->addr < s->size)
			return i;
	}
	return 0;
}

static size_t dw_elf_note_build_id(const void *data, size_t size, const uint8_t **id)
{
	const uint8_t *p = data;
	size_t off = 0;

	while (size - off >= 12) {
		uint32_t nsz, dsz, type;

		memcpy(&nsz, p + off, 4);
		memcpy(&dsz, p + off + 4, 4);
		memcpy(&type, p + off + 8, 4);
		off += 12;
		size_t nal = ((size_t)nsz + 3) & ~(size_t)3, dal = ((size_t)dsz + 3) & ~(size_t)3;
		if (nal > size - off || dal > size - off - nal)
			return 0;
		if (type == NT_GNU_BUILD_ID && nsz == 4 && memcmp(p + off, "GNU", 4) == 0 && dsz > 0) {
			*id = p + off + nal;
			return dsz;
		}
		off += nal + dal;
	}
	return 0;
}

size_t dw_elf_build_id(struct dw_elf *e, const uint8_t **id)
{
	for (size_t i = 1; i < e->nsections; i++) {
		const void *d;
		size_t sz, n;

		if (e->sections[i].type != SHT_NOTE || dw_elf_load(e, i, &d, &sz) != 0)
			continue;
		n = dw_elf_note_build_id(d, sz, id);
		if (n)
			return n;
	}
	return 0;
}

const char *dw_elf_debuglink(struct dw_elf *e, uint32_t *crc)
{
	size_t i = dw_elf_find(e, ".gnu_debuglink"), sz, len;
	const void *d;

	if (!i || dw_elf_load(e, i, &d, &sz) != 0 || sz < 8)
		return NULL;
	len = strnlen(d, sz);
	if (len == 0 || len >= sz)
		return NULL;
	size_t crc_off = (len + 4) & ~(size_t)3;
	if (crc_off + 4 > sz)
		return NULL;
	if (crc)
		memcpy(crc, (const char *)d + crc_off, 4);
	return d;
}
