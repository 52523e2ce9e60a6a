/* dw_pool: an append-only string and block arena. Everything dwarf/ hands
 * out as a string (joined file paths, demangled names) lives in the pool of
 * its image, so it stays valid until the image is freed and needs no
 * per-string free. */
#ifndef DW_POOL_H
#define DW_POOL_H

#include <stddef.h>

struct dw_pool_chunk;

struct dw_pool {
	struct dw_pool_chunk *head;
	size_t used; /* bytes used in head */
	size_t total; /* bytes allocated over all chunks */
};

void dw_pool_init(struct dw_pool *p);
void dw_pool_fini(struct dw_pool *p);
/* Returns @n bytes aligned to 8, or NULL when out of memory. */
void *dw_pool_alloc(struct dw_pool *p, size_t n);
/* Returns a copy of @s (or of its first @n bytes for _strndup), or NULL. */
const char *dw_pool_strdup(struct dw_pool *p, const char *s);
const char *dw_pool_strndup(struct dw_pool *p, const char *s, size_t n);
/* Returns "a/b" or "a/b/c" (c may be NULL), or NULL when out of memory. */
const char *dw_pool_join(struct dw_pool *p, const char *a, const char *b, const char *c);

#endif
