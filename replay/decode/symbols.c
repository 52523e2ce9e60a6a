/*
 * replay/decode/symbols.c: ELF FUNC symbols by address range.
 */
#include "replay/decode/symbols.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"

/* From libstdc++ (linked for dwarf/): C++ names as GDB shows them. */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct sym {
	uint64_t value, size;
	uint64_t sec_end;          /* end of the symbol's section: a size-0
				    * symbol covers no further */
	char *name;
};

struct symfile {
	char *path;
	struct sym *syms;
	size_t nsyms;
};

struct symmap {
	uint64_t start, size, bias;
	struct symfile *file;      /* NULL if the file could not be read */
};

struct replay_symbols {
	struct symfile *files;
	size_t nfiles;
	struct symmap *maps;
	size_t nmaps;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Sized symbols first, so a lookup prefers them. */
	return (x->size == 0) - (y->size == 0);
}

static char *sym_name(const char *raw)
{
	int status = -1;
	char *d = NULL;

	if (raw[0] == '_' && raw[1] == 'Z')
		d = __cxa_demangle(raw, NULL, NULL, &status);
	if (d && status == 0)
		return d;
	free(d);
	return strdup(raw);
}

static uint64_t section_end(Elf *elf, size_t index)
{
	Elf_Scn *scn = index < SHN_LORESERVE ? elf_getscn(elf, index) : NULL;
	GElf_Shdr sh;

	if (!scn || !gelf_getshdr(scn, &sh))
		return UINT64_MAX;
	return sh.sh_addr + sh.sh_size;
}

static int add_section_syms(struct symfile *f, Elf *elf, Elf_Scn *scn, GElf_Shdr *sh)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n = sh->sh_entsize ? sh->sh_size / sh->sh_entsize : 0;
	struct sym *s;

	if (!data || !n)
		return 0;
	s = realloc(f->syms, (f->nsyms + n) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	f->syms = s;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym gs;
		const char *name;

		if (!gelf_getsym(data, (int)i, &gs) || GELF_ST_TYPE(gs.st_info) != STT_FUNC ||
		    gs.st_shndx == SHN_UNDEF || !gs.st_value)
			continue;
		name = elf_strptr(elf, sh->sh_link, gs.st_name);
		if (!name || !name[0])
			continue;
		s[f->nsyms].value = gs.st_value;
		s[f->nsyms].size = gs.st_size;
		s[f->nsyms].sec_end = section_end(elf, gs.st_shndx);
		s[f->nsyms].name = sym_name(name);
		if (!s[f->nsyms].name)
			return -ENOMEM;
		f->nsyms++;
	}
	return 0;
}

static int load_file(struct symfile *f)
{
	Elf_Scn *scn = NULL;
	Elf *elf;
	int fd, rc = 0;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	fd = dw_open_regular(f->path);
	if (fd < 0)
		return 0;
	elf = elf_begin(fd, ELF_C_READ, NULL);
	while (elf && rc == 0 && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB || sh.sh_type == SHT_DYNSYM))
			rc = add_section_syms(f, elf, scn, &sh);
	}
	elf_end(elf);
	close(fd);
	if (f->nsyms)
		qsort(f->syms, f->nsyms, sizeof(f->syms[0]), cmp_sym);
	return rc;
}

static struct symfile *file_for(struct replay_symbols *s, const char *path, int *rc)
{
	struct symfile *f;

	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	f = &s->files[s->nfiles];
	memset(f, 0, sizeof(*f));
	f->path = strdup(path);
	if (!f->path) {
		*rc = -ENOMEM;
		return NULL;
	}
	s->nfiles++;
	*rc = load_file(f);
	return f;
}

static uint64_t bias_of(const char *path, const struct replay_mapping *m)
{
	struct replay_elf_segment segs[REPLAY_ELF_MAX_SEGMENTS];
	int n = replay_elf_load_segments(path, segs);

	for (int i = 0; i < n; i++)
		if (segs[i].offset == m->offset)
			return m->start - segs[i].vaddr;
	return m->start - m->offset;
}

int replay_symbols_new(const struct replay_bundle *b, struct replay_symbols **out)
{
	struct replay_symbols *s = calloc(1, sizeof(*s));
	int rc = 0;

	*out = NULL;
	if (!s)
		return -ENOMEM;
	s->files = calloc(b->nmaps + 1, sizeof(*s->files));
	s->maps = calloc(b->nmaps + 1, sizeof(*s->maps));
	if (!s->files || !s->maps)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];
		struct symmap *sm = &s->maps[s->nmaps++];
		char path[4096];

		sm->start = m->start;
		sm->size = m->size;
		if (replay_bundle_path(b, m->file, path, sizeof(path)) < 0)
			continue;
		sm->file = file_for(s, path, &rc);
		sm->bias = bias_of(path, m);
	}
	if (rc < 0) {
		replay_symbols_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

void replay_symbols_free(struct replay_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		for (size_t k = 0; k < s->files[i].nsyms; k++)
			free(s->files[i].syms[k].name);
		free(s->files[i].syms);
		free(s->files[i].path);
	}
	free(s->files);
	free(s->maps);
	free(s);
}

/* The symbol of @f holding @v: a sized one that covers it among the last
 * few starting at or before it, else a size-0 one right before it. */
static const struct sym *find(const struct symfile *f, uint64_t v)
{
	size_t lo = 0, hi = f->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].value <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo, k = 0; i-- > 0 && k < 4; k++)
		if (f->syms[i].size && v < f->syms[i].value + f->syms[i].size)
			return &f->syms[i];
	if (lo && f->syms[lo - 1].size == 0 && v < f->syms[lo - 1].sec_end)
		return &f->syms[lo - 1];
	return NULL;
}

int replay_symbols_lookup(void *ctx, uint64_t addr, struct replay_symbol *out)
{
	const struct replay_symbols *s = ctx;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < s->nmaps; i++) {
		const struct symmap *m = &s->maps[i];
		const struct sym *sym;

		if (!m->file || addr < m->start || addr - m->start >= m->size)
			continue;
		sym = find(m->file, addr - m->bias);
		if (!sym)
			continue;
		out->function = sym->name;
		out->start = sym->value + m->bias;
		return 0;
	}
	return -ENOENT;
}
