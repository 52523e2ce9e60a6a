/*
 * replay/model/bundle.c: the recording model in memory (replay/model/bundle.h).
 *
 * Allocation, the appenders and paths. Reading and writing trace.json are
 * in bundle_load.c and bundle_save.c, which implement the rest of
 * bundle.h; docs/bundle.md describes the format.
 */
#include "replay/model/bundle.h"

#include <errno.h>
#include <ftw.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int replay_bundle_new(struct replay_bundle **out)
{
	struct replay_bundle *b = calloc(1, sizeof(*b));

	*out = NULL;
	if (!b)
		return -ENOMEM;
	b->version = REPLAY_BUNDLE_VERSION;
	b->owner = -1;
	b->end_time = 0;
	*out = b;
	return 0;
}

static void free_mapping(struct replay_mapping *m)
{
	free(m->file);
	free(m->system_path);
	free(m->uuid);
}

static int bundle_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

void replay_bundle_remove_tree(const char *dir)
{
	nftw(dir, bundle_rm, 16, FTW_DEPTH | FTW_PHYS);
}

void replay_bundle_free(struct replay_bundle *b)
{
	if (!b)
		return;
	free(b->perf_file);
	for (size_t i = 0; i < b->nmem; i++) {
		free(b->mem[i].file);
		free(b->mem[i].data);
	}
	free(b->mem);
	free(b->dir);
	free(b->recorder);
	free(b->exit_kind);
	free(b->start);
	for (char **a = b->argv; a && *a; a++)
		free(*a);
	free(b->argv);
	for (size_t i = 0; i < b->nthreads; i++) {
		free(b->threads[i].pt_file);
		free(b->threads[i].state_file);
		free(b->threads[i].pt_sums);
		free(b->threads[i].state_sums);
		for (size_t j = 0; j < b->threads[i].nsegs; j++)
			free(b->threads[i].segs[j].file);
		free(b->threads[i].segs);
	}
	free(b->threads);
	for (size_t i = 0; i < b->nmaps; i++)
		free_mapping(&b->maps[i]);
	free(b->maps);
	for (size_t i = 0; i < b->ngaps; i++) {
		free(b->gaps[i].kind);
		free(b->gaps[i].text);
	}
	free(b->gaps);
	for (size_t i = 0; i < b->nnotes; i++)
		free(b->notes[i]);
	free(b->notes);
	free(b);
}

/* Grows *@arr (of @n elements of @size bytes) by one zeroed element. */
static void *grow(void *arr, size_t n, size_t size)
{
	char *p;

	/* Capacity doubles at powers of two: no separate capacity field. */
	if (n && (n & (n - 1)))
		return arr;
	p = realloc(arr, (n ? n * 2 : 1) * size);
	return p;
}

/* A copy of @s, or NULL for NULL; *@err is set on allocation failure. */
static char *dup_opt(const char *s, int *err)
{
	char *d;

	if (!s)
		return NULL;
	d = strdup(s);
	if (!d)
		*err = -ENOMEM;
	return d;
}

int replay_bundle_set_str(char **field, const char *s)
{
	int err = 0;
	char *d = dup_opt(s, &err);

	if (err)
		return err;
	free(*field);
	*field = d;
	return 0;
}

int replay_bundle_add_thread(struct replay_bundle *b, int64_t tid, const char *pt_file)
{
	struct replay_thread *t = grow(b->threads, b->nthreads, sizeof(*t));
	int err = 0;

	if (!t)
		return -ENOMEM;
	b->threads = t;
	t = &b->threads[b->nthreads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pt_file = dup_opt(pt_file, &err);
	if (err)
		return err;
	return (int)b->nthreads++;
}

bool replay_mapping_generated(const struct replay_mapping *m)
{
	return m->system_path && !strcmp(m->system_path, REPLAY_GENERATED_CODE);
}

int replay_bundle_add_mapping(struct replay_bundle *b, const struct replay_mapping *m)
{
	struct replay_mapping *d = grow(b->maps, b->nmaps, sizeof(*d));
	int err = 0;

	if (!d)
		return -ENOMEM;
	b->maps = d;
	d = &b->maps[b->nmaps];
	*d = *m;
	d->file = dup_opt(m->file, &err);
	d->system_path = dup_opt(m->system_path, &err);
	d->uuid = dup_opt(m->uuid, &err);
	if (err) {
		free_mapping(d);
		return err;
	}
	return (int)b->nmaps++;
}

int replay_bundle_add_gap(struct replay_bundle *b, int64_t tid, uint64_t time,
			  const char *kind, const char *text)
{
	struct replay_gap *g = grow(b->gaps, b->ngaps, sizeof(*g));
	int err = 0;

	if (!g)
		return -ENOMEM;
	b->gaps = g;
	g = &b->gaps[b->ngaps];
	g->tid = tid;
	g->time = time;
	g->kind = dup_opt(kind, &err);
	g->text = dup_opt(text, &err);
	if (err) {
		free(g->kind);
		free(g->text);
		return err;
	}
	return (int)b->ngaps++;
}

int replay_bundle_add_note(struct replay_bundle *b, const char *text)
{
	char **v, *s;

	for (size_t i = 0; i < b->nnotes; i++)
		if (!strcmp(b->notes[i], text))
			return 0;
	v = grow(b->notes, b->nnotes, sizeof(*v));
	if (!v)
		return -ENOMEM;
	b->notes = v;
	s = strdup(text);
	if (!s)
		return -ENOMEM;
	b->notes[b->nnotes++] = s;
	return 0;
}

int replay_bundle_add_mem(struct replay_bundle *b, const char *file, uint8_t *data, size_t size)
{
	struct replay_bundle_mem *v = grow(b->mem, b->nmem, sizeof(*v));
	char *name = v ? strdup(file) : NULL;

	if (v)
		b->mem = v;
	if (!name) {
		free(data);
		return -ENOMEM;
	}
	b->mem[b->nmem++] = (struct replay_bundle_mem){ name, data, size };
	return 0;
}

const struct replay_bundle_mem *replay_bundle_mem_find(const struct replay_bundle *b,
						       const char *file)
{
	for (size_t i = 0; file && i < b->nmem; i++)
		if (!strcmp(b->mem[i].file, file))
			return &b->mem[i];
	return NULL;
}

int replay_bundle_file_size(const struct replay_bundle *b, const char *file, uint64_t *size)
{
	const struct replay_bundle_mem *m = replay_bundle_mem_find(b, file);
	char path[4096];
	struct stat st;

	*size = 0;
	if (!file)
		return -ENOENT;
	if (m) {
		*size = m->size;
		return 0;
	}
	if (replay_bundle_path(b, file, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	if (stat(path, &st) < 0)
		return -errno;
	*size = (uint64_t)st.st_size;
	return 0;
}

int replay_bundle_set_argv(struct replay_bundle *b, char *const argv[])
{
	size_t n = 0;
	char **v;

	while (argv && argv[n])
		n++;
	v = calloc(n + 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = strdup(argv[i]);
		if (!v[i]) {
			while (i--)
				free(v[i]);
			free(v);
			return -ENOMEM;
		}
	}
	for (char **a = b->argv; a && *a; a++)
		free(*a);
	free(b->argv);
	b->argv = v;
	return 0;
}

void replay_bundle_thread_file(const struct replay_bundle *b, int64_t tid, const char *ext,
			       char *buf, size_t size)
{
	for (size_t i = 0; i < b->nthreads; i++)
		if (b->threads[i].tid == tid) {
			snprintf(buf, size, "threads/%lld.%zu.%s", (long long)tid, b->nthreads, ext);
			return;
		}
	snprintf(buf, size, "threads/%lld.%s", (long long)tid, ext);
}

int replay_bundle_path(const struct replay_bundle *b, const char *file, char *buf, size_t size)
{
	int n;

	if (file[0] == '/' || !b->dir || !b->dir[0])
		n = snprintf(buf, size, "%s", file);
	else
		n = snprintf(buf, size, "%s/%s", b->dir, file);
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

const char *replay_bundle_program_path(const struct replay_bundle *b)
{
	const char *name = b->argv && b->argv[0] ? strrchr(b->argv[0], '/') : NULL;

	name = name ? name + 1 : (b->argv ? b->argv[0] : NULL);
	for (size_t i = 0; name && i < b->nmaps; i++) {
		const char *p = b->maps[i].system_path, *base = p ? strrchr(p, '/') : NULL;

		if (base && !strcmp(base + 1, name))
			return p;
	}
	return b->argv ? b->argv[0] : NULL;
}
