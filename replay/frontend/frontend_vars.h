/*
 * replay/frontend/frontend_vars.h: the C of `hindsight replay`: the session's C
 * evaluator (replay/frontend/cexpr.h) with its world, the selected frame.
 *
 * A name is looked up as GDB looks it up from the selected frame
 * (replay/frontend/frontend_frame.h): the locals of the blocks holding its pc,
 * innermost first, and its arguments (of the inlined function the frame
 * stands in, when it is one), then the globals of the pc's compilation
 * unit and of every image, then functions (dwarf/dw_vars.h). A variable's
 * location (dwarf/dw_loc.h) is computed from that frame's registers and
 * CFA as the unwinder recovered them (replay/decode/unwind.h); a register the
 * frame does not know, or memory the recording never saw, is unavailable,
 * never guessed. Memory is the session's at the timeline's time
 * (replay_frontend_read). Types come from the DWARF of the image the pc is
 * in first. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_VARS_H
#define HINDSIGHT_REPLAY_FRONTEND_VARS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct cexpr;
struct cexpr_value;
struct replay_frontend;

/* The session's evaluator (made on first use, freed with the session), or
 * NULL on ENOMEM. Its value history lives as long as the session. */
struct cexpr *replay_frontend_cexpr(struct replay_frontend *f);
/* Frees it (replay_frontend_free calls this). */
void replay_frontend_cexpr_free(struct replay_frontend *f);

/* Calls @each for the arguments (@args) or the locals of the selected
 * frame, in `info args` / `info locals` order, with the value or, when it
 * cannot be had, NULL and GDB's message for it. Returns how many, 0 when
 * there are none, -ENOENT when the frame's function has no debug
 * information (GDB: "No symbol table info available."), -ENODATA when no
 * frame can be had, -ENOMEM. */
int replay_frontend_frame_vars(struct replay_frontend *f, bool args,
			       void (*each)(void *ctx, const char *name,
					    const struct cexpr_value *v, const char *err),
			       void *ctx);

/* The arguments of GDB frame @level as its frame lines show them
 * ("n=1, p=0x4052a0, s=...", GDB's `print frame-arguments scalars` and
 * `print entry-values default`: "x=x@entry=5" where the value at entry,
 * from the caller's call site, is known and the same, "x=6, x@entry=5"
 * where it differs): malloc'd, "" when there are none or the frame has no
 * debug information; NULL on ENOMEM. */
char *replay_frontend_frame_args(struct replay_frontend *f, size_t level);

/* Names the @len bytes at @addr at the current position as C, for the
 * crash's origin: the global they are in ("table[2].next", by the symbol
 * covering them and its DWARF type), then the locals and arguments of the
 * innermost four frames that hold them or point at them ("e->next", "*p",
 * "buf[3]"), joined with ", ". A pointer names only bytes in the object it
 * points into (the global of its symbol, a frame's variable, the heap
 * block glibc's chunk header bounds; else the one element it points at):
 * never through an index past that object's end. 0 with the text in @buf, -ENOENT when
 * nothing names them, -ENOMEM. */
int replay_frontend_name_address(struct replay_frontend *f, uint64_t addr, uint64_t len,
				 char *buf, size_t size);

/* The condition evaluator of breakpoints (struct replay_frontend's
 * cond_eval) in C: nonzero stops. */
int replay_frontend_cond_c(struct replay_frontend *f, const char *expr, bool *stop, char *err,
			   size_t errsize);

#endif
