/* dw_pool: append-only arena of chunks; see dw_pool.h. */
#include "dwarf/dw_pool.h"

#include <stdlib.h>
#include <string.h>

struct dw_pool_chunk {
	struct dw_pool_chunk *next;
	size_t size;
	_Alignas(8) unsigned char data[];
};

enum { DW_POOL_CHUNK = 64 * 1024 };

void dw_pool_init(struct dw_pool *p)
{
	memset(p, 0, sizeof(*p));
}

void dw_pool_fini(struct dw_pool *p)
{
	struct dw_pool_chunk *c = p->head;

	while (c) {
		struct dw_pool_chunk *next = c->next;
		free(c);
		c = next;
	}
	dw_pool_init(p);
}

void *dw_pool_alloc(struct dw_pool *p, size_t n)
{
	n = (n + 7) & ~(size_t)7;
	if (!p->head || p->head->size - p->used < n) {
		size_t size = n > DW_POOL_CHUNK ? n : DW_POOL_CHUNK;
		struct dw_pool_chunk *c = malloc(sizeof(*c) + size);

		if (!c)
			return NULL;
		c->next = p->head;
		c->size = size;
		p->head = c;
		p->used = 0;
		p->total += size;
	}
	void *r = p->head->data + p->used;
	p->used += n;
	return r;
}

const char *dw_pool_strndup(struct dw_pool *p, const char *s, size_t n)
{
	char *r = dw_pool_alloc(p, n + 1);

	if (!r)
		return NULL;
	memcpy(r, s, n);
	r[n] = '\0';
	return r;
}

const char *dw_pool_strdup(struct dw_pool *p, const char *s)
{
	return dw_pool_strndup(p, s, strlen(s));
}

const char *dw_pool_join(struct dw_pool *p, const char *a, const char *b, const char *c)
{
	size_t la = strlen(a), lb = strlen(b), lc = c ? strlen(c) : 0;
	char *r = dw_pool_alloc(p, la + lb + lc + 3);

	if (!r)
		return NULL;
	memcpy(r, a, la);
	r[la] = '/';
	memcpy(r + la + 1, b, lb);
	if (c) {
		r[la + 1 + lb] = '/';
		memcpy(r + la + 2 + lb, c, lc + 1);
	} else {
		r[la + 1 + lb] = '\0';
	}
	return r;
}
