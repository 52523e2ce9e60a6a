/*
 * replay/decode/block_cache.c: an open-addressing hash table of blocks whose
 * addresses live in one pool.
 */
#include "replay/decode/block_cache.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	uint64_t ip;
	uint64_t ninsn;            /* 0: empty */
	int isid;
	uint64_t lo, hi;
	size_t off;                /* into the pool */
};

struct replay_block_cache {
	struct slot *slots;
	size_t nslots, used;       /* nslots: a power of two */
	uint64_t *pool;
	size_t npool, cappool;
};

int replay_block_cache_new(struct replay_block_cache **out)
{
	struct replay_block_cache *c = calloc(1, sizeof(*c));

	if (!c)
		return -ENOMEM;
	c->nslots = 4096;
	c->slots = calloc(c->nslots, sizeof(*c->slots));
	if (!c->slots) {
		free(c);
		return -ENOMEM;
	}
	*out = c;
	return 0;
}

void replay_block_cache_free(struct replay_block_cache *c)
{
	if (!c)
		return;
	free(c->slots);
	free(c->pool);
	free(c);
}

static size_t hash(uint64_t ip, uint64_t ninsn, int isid)
{
	uint64_t h = ip * 0x9e3779b97f4a7c15ull ^ (ninsn + ((uint64_t)(unsigned)isid << 32));

	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ull;
	return (size_t)(h ^ (h >> 32));
}

static struct slot *lookup(struct replay_block_cache *c, uint64_t ip, uint64_t ninsn, int isid)
{
	size_t mask = c->nslots - 1, i = hash(ip, ninsn, isid) & mask;

	while (c->slots[i].ninsn &&
	       (c->slots[i].ip != ip || c->slots[i].ninsn != ninsn || c->slots[i].isid != isid))
		i = (i + 1) & mask;
	return &c->slots[i];
}

static void fill(const struct replay_block_cache *c, const struct slot *s, struct replay_block *out)
{
	out->ip = s->ip;
	out->ninsn = s->ninsn;
	out->isid = s->isid;
	out->lo = s->lo;
	out->hi = s->hi;
	out->ips = c->pool + s->off;
}

int replay_block_cache_find(struct replay_block_cache *c, uint64_t ip, uint64_t ninsn, int isid,
			    struct replay_block *out)
{
	struct slot *s;

	/* No section: code the program made, read by time (replay/model/
	 * image.c), whose bytes at an address change: never found again. */
	if (isid <= 0)
		return -ENOENT;
	s = lookup(c, ip, ninsn, isid);
	if (!s->ninsn)
		return -ENOENT;
	fill(c, s, out);
	return 0;
}

static int grow_slots(struct replay_block_cache *c)
{
	struct slot *old = c->slots;
	size_t n = c->nslots;

	c->slots = calloc(n * 2, sizeof(*c->slots));
	if (!c->slots) {
		c->slots = old;
		return -ENOMEM;
	}
	c->nslots = n * 2;
	for (size_t i = 0; i < n; i++)
		if (old[i].ninsn)
			*lookup(c, old[i].ip, old[i].ninsn, old[i].isid) = old[i];
	free(old);
	return 0;
}

static int reserve_pool(struct replay_block_cache *c, size_t n)
{
	size_t cap = c->cappool ? c->cappool : 65536;
	uint64_t *p;

	if (c->npool + n <= c->cappool)
		return 0;
	while (cap < c->npool + n)
		cap *= 2;
	p = realloc(c->pool, cap * sizeof(*p));
	if (!p)
		return -ENOMEM;
	c->pool = p;
	c->cappool = cap;
	return 0;
}

static void clear(struct replay_block_cache *c)
{
	memset(c->slots, 0, c->nslots * sizeof(*c->slots));
	c->used = 0;
	c->npool = 0;
}

int replay_block_cache_add(struct replay_block_cache *c, uint64_t ip, uint64_t ninsn, int isid,
			   const uint64_t *ips, struct replay_block *out)
{
	struct slot *s;

	if (!ninsn)
		return -EINVAL;
	if (isid <= 0) {
		/* Never found (replay_block_cache_find): not kept, lest it
		 * fill the pool and empty the cache of every other block. */
		out->ip = ip;
		out->ninsn = ninsn;
		out->isid = isid;
		out->lo = out->hi = ips[0];
		for (uint64_t i = 1; i < ninsn; i++) {
			out->lo = ips[i] < out->lo ? ips[i] : out->lo;
			out->hi = ips[i] > out->hi ? ips[i] : out->hi;
		}
		out->ips = ips;
		return 0;
	}
	if (c->npool + ninsn > REPLAY_BLOCK_CACHE_MAX)
		clear(c);
	if ((c->used + 1) * 2 > c->nslots && grow_slots(c) < 0)
		return -ENOMEM;
	if (reserve_pool(c, ninsn) < 0)
		return -ENOMEM;
	s = lookup(c, ip, ninsn, isid);
	s->ip = ip;
	s->ninsn = ninsn;
	s->isid = isid;
	s->off = c->npool;
	s->lo = s->hi = ips[0];
	for (uint64_t i = 0; i < ninsn; i++) {
		c->pool[c->npool + i] = ips[i];
		s->lo = ips[i] < s->lo ? ips[i] : s->lo;
		s->hi = ips[i] > s->hi ? ips[i] : s->hi;
	}
	c->npool += ninsn;
	c->used++;
	fill(c, s, out);
	return 0;
}
