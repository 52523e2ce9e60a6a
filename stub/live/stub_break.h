/*
 * stub/live/stub_break.h: software breakpoints (int3) with shadowed bytes.
 *
 * A set of addresses, each with the original byte the int3 replaced. No
 * reference counts: inserting twice is a no-op and one remove removes it,
 * like gdbserver's Z0 / z0. Reads are patched so that the client sees the
 * original bytes; writes over an int3 update its shadow and keep the int3.
 * Lifetime: stub_break_table_init / stub_break_table_release.
 */
#ifndef HINDSIGHT_STUB_STUB_BREAK_H
#define HINDSIGHT_STUB_STUB_BREAK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct stub_mem;

struct stub_break {
	uint64_t addr;
	uint8_t orig;
};

struct stub_break_table {
	struct stub_break *v;
	size_t n, cap;
};

void stub_break_table_init(struct stub_break_table *t);
void stub_break_table_release(struct stub_break_table *t);

/* 0 (also when already there), -EIO if @addr is not readable / writable,
 * -ENOMEM. */
int stub_break_insert(struct stub_break_table *t, const struct stub_mem *m, uint64_t addr);
/* 0 (also when not there) or -EIO if the original byte could not be put
 * back (the breakpoint is forgotten all the same). */
int stub_break_remove(struct stub_break_table *t, const struct stub_mem *m, uint64_t addr);
bool stub_break_has(const struct stub_break_table *t, uint64_t addr);

/* Puts the original bytes into @buf, @len bytes read from @addr. */
void stub_break_hide(const struct stub_break_table *t, uint64_t addr, uint8_t *buf, size_t len);
/* Writes @buf at @addr keeping inserted int3s (their shadows take the new
 * bytes); 0, -ENOMEM or the error of stub_mem_write. */
int stub_break_write(struct stub_break_table *t, const struct stub_mem *m,
		     uint64_t addr, const uint8_t *buf, size_t len);
/* Puts every original byte back into @m (the traced process or a forked
 * copy of it). 0 or the first error; the table is unchanged. */
int stub_break_restore(const struct stub_break_table *t, const struct stub_mem *m);
/* Writes every int3 again (after a vfork child left the shared memory). */
int stub_break_reinsert(const struct stub_break_table *t, const struct stub_mem *m);
/* Forgets every breakpoint without touching memory (after exec). */
void stub_break_forget(struct stub_break_table *t);

#endif
