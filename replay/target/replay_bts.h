/*
 * replay/target/replay_bts.h: a thread's history as Branch Trace Store blocks,
 * for GDB's `record btrace bts` on the replay target.
 *
 * A block is a run of instructions at consecutive addresses, `begin` to
 * `end` inclusive (end: the address of its last instruction), as the
 * kernel's BTS records delimit them: GDB walks each block by decoding
 * instruction lengths from memory, so a block never holds a taken branch
 * but its last instruction. The blocks cover the history up to the
 * cursor's position, newest first; the newest ends at the position's pc,
 * which has not run (GDB's convention). A gap ends a block. Instruction
 * lengths come from the code bytes a callback reads (Zydis), each address
 * decoded once. Lifetime: replay_bts_new / replay_bts_free. Nothing here
 * prints.
 */
#ifndef HINDSIGHT_REPLAY_REPLAY_BTS_H
#define HINDSIGHT_REPLAY_REPLAY_BTS_H

#include <stddef.h>
#include <stdint.h>

#include "protocol/target.h"

struct replay_bts;
struct replay_cursor;

/* A block builder reading code through @read (bytes read, or < 0), which
 * must stay valid as long as it. 0 or -ENOMEM. */
int replay_bts_new(int (*read)(void *ctx, uint64_t addr, uint8_t *buf, size_t len), void *ctx,
		   struct replay_bts **out);
void replay_bts_free(struct replay_bts *b);

/* The blocks of @cur's history up to its position, newest first, at most
 * @max of them (0: all; the oldest are left out), into *@out (allocated
 * here, freed by the caller with free()) and their number into *@n. Moves
 * nothing but the cursor's window. 0, -ENOMEM, or the cursor's errors. */
int replay_bts_blocks(struct replay_bts *b, struct replay_cursor *cur, size_t max,
		      struct rsp_btrace_block **out, size_t *n);

#endif
