/*
 * stub/live/stub_break.c: the int3 table and the shadowing of its bytes.
 */
#include "stub/live/stub_break.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "stub/live/stub_mem.h"

#define STUB_INT3 0xcc

void stub_break_table_init(struct stub_break_table *t)
{
	t->v = NULL;
	t->n = 0;
	t->cap = 0;
}

void stub_break_table_release(struct stub_break_table *t)
{
	free(t->v);
	stub_break_table_init(t);
}

static struct stub_break *stub_break_find(const struct stub_break_table *t, uint64_t addr)
{
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].addr == addr)
			return &t->v[i];
	return NULL;
}

bool stub_break_has(const struct stub_break_table *t, uint64_t addr)
{
	return stub_break_find(t, addr) != NULL;
}

static int stub_break_reserve(struct stub_break_table *t)
{
	size_t cap;
	struct stub_break *v;

	if (t->n < t->cap)
		return 0;
	cap = t->cap ? t->cap * 2 : 16;
	v = realloc(t->v, cap * sizeof(*v));
	if (!v)
		return -ENOMEM;
	t->v = v;
	t->cap = cap;
	return 0;
}

int stub_break_insert(struct stub_break_table *t, const struct stub_mem *m, uint64_t addr)
{
	uint8_t orig, int3 = STUB_INT3;
	int r;

	if (stub_break_has(t, addr))
		return 0;
	r = stub_break_reserve(t);
	if (r < 0)
		return r;
	r = stub_mem_read(m, addr, &orig, 1);
	if (r < 0)
		return r;
	r = stub_mem_write(m, addr, &int3, 1);
	if (r < 0)
		return r;
	t->v[t->n].addr = addr;
	t->v[t->n].orig = orig;
	t->n++;
	return 0;
}

int stub_break_remove(struct stub_break_table *t, const struct stub_mem *m, uint64_t addr)
{
	struct stub_break *b = stub_break_find(t, addr);
	uint8_t orig;
	size_t i;

	if (!b)
		return 0;
	orig = b->orig;
	i = (size_t)(b - t->v);
	t->v[i] = t->v[--t->n];
	return stub_mem_write(m, addr, &orig, 1);
}

/* Index of @a in [addr, addr + len) or -1. */
static long stub_break_offset(uint64_t a, uint64_t addr, size_t len)
{
	if (a < addr || a - addr >= len)
		return -1;
	return (long)(a - addr);
}

void stub_break_hide(const struct stub_break_table *t, uint64_t addr, uint8_t *buf, size_t len)
{
	for (size_t i = 0; i < t->n; i++) {
		long off = stub_break_offset(t->v[i].addr, addr, len);

		if (off >= 0)
			buf[off] = t->v[i].orig;
	}
}

int stub_break_write(struct stub_break_table *t, const struct stub_mem *m,
		     uint64_t addr, const uint8_t *buf, size_t len)
{
	uint8_t *copy;
	int r;

	if (len == 0)
		return 0;
	copy = malloc(len);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, buf, len);
	for (size_t i = 0; i < t->n; i++) {
		long off = stub_break_offset(t->v[i].addr, addr, len);

		if (off < 0)
			continue;
		t->v[i].orig = copy[off];
		copy[off] = STUB_INT3;
	}
	r = stub_mem_write(m, addr, copy, len);
	free(copy);
	return r;
}

int stub_break_restore(const struct stub_break_table *t, const struct stub_mem *m)
{
	int first = 0;

	for (size_t i = 0; i < t->n; i++) {
		int r = stub_mem_write(m, t->v[i].addr, &t->v[i].orig, 1);

		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

int stub_break_reinsert(const struct stub_break_table *t, const struct stub_mem *m)
{
	uint8_t int3 = STUB_INT3;
	int first = 0;

	for (size_t i = 0; i < t->n; i++) {
		int r = stub_mem_write(m, t->v[i].addr, &int3, 1);

		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

void stub_break_forget(struct stub_break_table *t)
{
	t->n = 0;
}
