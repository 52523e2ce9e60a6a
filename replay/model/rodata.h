/*
 * replay/model/rodata.h: the read-only data of a recording's files.
 *
 * The bundle maps code; a debugger also reads string literals and other
 * read-only data (a `char *` argument, `.rodata` tables). Those are the
 * non-writable PT_LOAD segments of the same files, at the same load bias,
 * and never change, so the file's bytes are exact at any time. Writable
 * segments are left out: their file bytes are only the initial values (the
 * state log answers for what the program wrote), except in a recording
 * that saw every write since the program's first instruction (bundle
 * `start` "exec", no --snapshot cut): there a writable segment mapped from
 * the start holds its file's bytes, then zeros for the bss, wherever the
 * log says nothing ever wrote (REPLAY_STATE_UNTOUCHED): a global the
 * program never wrote reads as its initial value, as a live debugger
 * reads it. Lifetime: new / free.
 */
#ifndef HINDSIGHT_REPLAY_RODATA_H
#define HINDSIGHT_REPLAY_RODATA_H

#include <stddef.h>
#include <stdint.h>

struct replay_bundle;
struct replay_rodata;

/* The read-only segments of every file @b maps (files that cannot be read
 * are skipped). 0 or -ENOMEM. */
int replay_rodata_new(const struct replay_bundle *b, struct replay_rodata **out);
void replay_rodata_free(struct replay_rodata *r);

/* Reads up to @len bytes at @addr from the segment holding it: the number
 * read (up to the segment's end), or -ENOENT when none holds @addr. */
int replay_rodata_read(const struct replay_rodata *r, uint64_t addr, void *buf, size_t len);

/* The same for a byte the state log says nothing ever touched: also the
 * initial bytes of writable segments, where the recording allows them. */
int replay_rodata_read_untouched(const struct replay_rodata *r, uint64_t addr, void *buf,
				 size_t len);

#endif
