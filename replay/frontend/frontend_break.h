/*
 * replay/frontend/frontend_break.h: breakpoint locations of `hindsight replay` into
 * addresses, as GDB's `break` takes them: FUNC (every place of the name in
 * every image, each where GDB 13 puts it: dwarf/dw_break.h), FILE:LINE or
 * LINE (the statements of that line, or of the next line that has code, up
 * to 10 lines on), *EXPR (any expression's value as an address).
 * Names and lines come from the DWARF of the recording's mapped files
 * (frontend_images.h: dwarf/dw_image.h's, each at its load bias). Nothing
 * here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_BREAK_H
#define HINDSIGHT_REPLAY_FRONTEND_BREAK_H

#include <stddef.h>
#include <stdint.h>

struct replay_frontend;

/* Up to @max addresses of @spec into @addrs, ascending. Returns how many
 * (0: no such function or line), -EINVAL for a location it cannot read,
 * -E2BIG when there are more than @max, -ENOMEM. */
int replay_frontend_resolve(struct replay_frontend *f, const char *spec, uint64_t *addrs,
			    size_t max);

#endif
