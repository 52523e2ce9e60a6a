/*
 * replay/decode/source.c: a one-file cache of source lines.
 */
#include "replay/decode/source.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dwarf/dw_elf.h"

#define SOURCE_MAX (64u << 20)     /* larger "sources" are not read */

void replay_source_release(struct replay_source *s)
{
	free(s->path);
	free(s->text);
	free(s->starts);
	memset(s, 0, sizeof(*s));
}

static char *read_all(const char *path, size_t *size)
{
	FILE *f = dw_fopen_regular(path);
	char *buf = NULL;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && (size_t)n < SOURCE_MAX &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
		*size = fread(buf, 1, (size_t)n, f);
		buf[*size] = 0;
	}
	fclose(f);
	return buf;
}

/* Loads @path (or remembers that it cannot be: text NULL, path set). */
static void load(struct replay_source *s, const char *path)
{
	size_t size = 0, cap = 0;

	replay_source_release(s);
	s->path = strdup(path);
	s->text = read_all(path, &size);
	for (size_t off = 0; s->text && off < size;) {
		const char *nl = memchr(s->text + off, '\n', size - off);

		if (s->nlines == cap) {
			size_t *grown = realloc(s->starts, (cap ? cap * 2 : 256) * sizeof(*grown));

			if (!grown) {
				free(s->text);
				s->text = NULL;
				return;
			}
			s->starts = grown;
			cap = cap ? cap * 2 : 256;
		}
		s->starts[s->nlines++] = off;
		off = nl ? (size_t)(nl - s->text) + 1 : size;
	}
}

const char *replay_source_line(struct replay_source *s, const char *path, unsigned line,
			       size_t *len)
{
	const char *start, *nl;

	if (!s->path || strcmp(s->path, path))
		load(s, path);
	if (!s->text || line == 0 || line > s->nlines)
		return NULL;
	start = s->text + s->starts[line - 1];
	nl = strchr(start, '\n');
	*len = nl ? (size_t)(nl - start) : strlen(start);
	return start;
}
