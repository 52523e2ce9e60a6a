/*
 * replay/frontend/frontend_break.h: breakpoint locations of `hindsight replay` into
 * addresses, as GDB's `break` takes them: FUNC (after its prologue: the
 * first address of its second line), FILE:LINE or LINE (the statements of
 * that line, or of the next line that has code, up to 10 lines on), *ADDR.
 * Names and lines come from the DWARF of the recording's mapped files
 * (dwarf/dw_image.h), each at its load bias. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_BREAK_H
#define HINDSIGHT_REPLAY_FRONTEND_BREAK_H

#include <stddef.h>
#include <stdint.h>

struct replay_frontend;

/* Up to @max addresses of @spec into @addrs. Returns how many (0: no such
 * function or line), -EINVAL for a location it cannot read, -ENOMEM. */
int replay_frontend_resolve(struct replay_frontend *f, const char *spec, uint64_t *addrs,
			    size_t max);

/* Frees the DWARF images opened for resolving (f->images). */
void replay_frontend_images_free(struct replay_frontend *f);

#endif
