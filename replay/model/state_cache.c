/*
 * replay/model/state_cache.c: the decoded writes of the state-log chunks read
 * last (replay/model/state_cache.h), least recently used evicted first.
 */
#include "replay/model/state_cache.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

void state_cache_init(struct state_cache *c, size_t entries)
{
	memset(c, 0, sizeof(*c));
	c->cap_entries = entries < STATE_CACHE_ENTRIES ? entries : STATE_CACHE_ENTRIES;
}

static void drop(struct state_cache *c, struct state_centry *e)
{
	c->bytes -= (e->n + e->nwide) * sizeof(*e->w);
	free(e->w);
	memset(e, 0, sizeof(*e));
}

void state_cache_clear(struct state_cache *c)
{
	for (size_t i = 0; i < STATE_CACHE_ENTRIES; i++)
		if (c->e[i].used)
			drop(c, &c->e[i]);
}

static bool same_key(const struct state_ckey *a, const struct state_ckey *b)
{
	return a->thread == b->thread && a->off == b->off && a->end == b->end;
}

const struct state_centry *state_cache_find(struct state_cache *c, const struct state_ckey *key)
{
	for (size_t i = 0; i < c->cap_entries; i++) {
		if (c->e[i].used && same_key(&c->e[i].key, key)) {
			c->e[i].used = ++c->clock;
			c->hits++;
			return &c->e[i];
		}
	}
	c->misses++;
	return NULL;
}

static int cmp_addr(const void *a, const void *b)
{
	const struct state_cwrite *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

void state_cache_sort(struct state_centry *e)
{
	size_t n = e->n + e->nwide, k = 0;
	struct state_cwrite t;

	for (size_t i = 0; i < n; i++) {   /* the narrow ones first */
		if (e->w[i].len > STATE_CACHE_WIDE)
			continue;
		t = e->w[k];
		e->w[k++] = e->w[i];
		e->w[i] = t;
	}
	if (k > 1)
		qsort(e->w, k, sizeof(*e->w), cmp_addr);
	e->n = k;
	e->nwide = n - k;
}

/* An empty entry if there is one, else the least recently used; with
 * @used, the least recently used of those in use (there is one). */
static struct state_centry *victim(struct state_cache *c, bool used)
{
	struct state_centry *v = NULL;

	for (size_t i = 0; i < c->cap_entries; i++)
		if ((!used || c->e[i].used) && (!v || c->e[i].used < v->used))
			v = &c->e[i];
	return v;
}

const struct state_centry *state_cache_put(struct state_cache *c, const struct state_centry *e)
{
	size_t bytes = (e->n + e->nwide) * sizeof(*e->w);
	struct state_centry *v;

	if (!c->cap_entries || bytes > STATE_CACHE_BYTES / 2)
		return NULL;
	while (c->bytes + bytes > STATE_CACHE_BYTES)
		drop(c, victim(c, true));
	v = victim(c, false);
	if (v->used)
		drop(c, v);
	*v = *e;
	v->used = ++c->clock;
	c->bytes += bytes;
	return v;
}

size_t state_cache_first(const struct state_centry *e, uint64_t lo)
{
	uint64_t from = lo > STATE_CACHE_WIDE ? lo - STATE_CACHE_WIDE : 0;
	size_t a = 0, b = e->n;

	while (a < b) {                    /* the first narrow write at or after from */
		size_t m = a + (b - a) / 2;

		if (e->w[m].addr < from)
			a = m + 1;
		else
			b = m;
	}
	return a;
}
