/*
 * stub/live/stub_thread.c: the set of traced threads of one process, an array.
 */
#include "stub/live/stub_thread.h"

#include <stdlib.h>
#include <string.h>

void stub_thread_list_init(struct stub_thread_list *l)
{
	l->v = NULL;
	l->n = 0;
	l->cap = 0;
}

void stub_thread_list_release(struct stub_thread_list *l)
{
	free(l->v);
	stub_thread_list_init(l);
}

struct stub_thread *stub_thread_find(struct stub_thread_list *l, pid_t tid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].tid == tid)
			return &l->v[i];
	return NULL;
}

static int stub_thread_grow(struct stub_thread_list *l)
{
	size_t cap = l->cap ? l->cap * 2 : 8;
	struct stub_thread *v = realloc(l->v, cap * sizeof(*v));

	if (!v)
		return -1;
	l->v = v;
	l->cap = cap;
	return 0;
}

struct stub_thread *stub_thread_add(struct stub_thread_list *l, pid_t tid)
{
	struct stub_thread *t = stub_thread_find(l, tid);

	if (t)
		return t;
	if (l->n == l->cap && stub_thread_grow(l) < 0)
		return NULL;
	t = &l->v[l->n++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->kind = RSP_RESUME_STOP;
	return t;
}

void stub_thread_remove(struct stub_thread_list *l, pid_t tid)
{
	struct stub_thread *t = stub_thread_find(l, tid);
	size_t i;

	if (!t)
		return;
	i = (size_t)(t - l->v);
	memmove(&l->v[i], &l->v[i + 1], (l->n - i - 1) * sizeof(*t));
	l->n--;
}
