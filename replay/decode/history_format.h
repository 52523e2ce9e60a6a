/*
 * replay/decode/history_format.h: GDB's record-history syntax and line layout.
 *
 * What `hindsight history` / `hindsight calls` (cli/cli_history.c) and the
 * replay target's `monitor history` / `monitor calls` share: the range
 * syntax of `record instruction-history` (N, N,M, N,+K, N,-K, plus N, and
 * ,M), the modifiers (/m /s /r /f /p; /i /l /c for calls), and the lines
 * themselves, written to a stream the caller owns (a terminal for cli/, a
 * memory stream for the monitor). Nothing here prints on its own.
 */
#ifndef HINDSIGHT_REPLAY_HISTORY_FORMAT_H
#define HINDSIGHT_REPLAY_HISTORY_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "replay/decode/source.h"

#include "replay/decode/calls.h"
#include "replay/decode/decode.h"
#include "replay/decode/symbols.h"

struct replay_history_opts {
	bool intel;                /* Intel syntax (default AT&T) */
	/* history: /m /s (source), /r (raw), /f (no function), /p (no prefix);
	 * calls: /i (instruction range), /l (lines), /c (indent) */
	bool src, raw, nofunc, noprefix, insns, lines, indent;
};

/* The last source line printed, so a /s listing prints each once. */
struct replay_history_src {
	const char *file;
	unsigned line;
	struct replay_source source;  /* the text of the lines */
};

/* Frees what a listing's source state holds. */
void replay_history_src_release(struct replay_history_src *last);

/* Applies the modifiers of "/xyz" (@m includes the slash) for a history
 * (@calls false) or calls listing. 0, or -EINVAL with the offending
 * character in *@bad. */
int replay_history_modifiers(const char *m, bool calls, struct replay_history_opts *o, char *bad);

/* A number as the range syntax and the commands' options take it (decimal,
 * 0x hex, 0 octal; no sign): 0 or -EINVAL. */
int replay_history_parse_u64(const char *s, uint64_t *out);

/* Resolves GDB's range syntax @r over items 1..@total into [*@begin,
 * *@end]; @size is the length of a range without an end. An empty @r is the
 * @size items ending at @last (pass @total for "the end"). 0, or -EINVAL
 * with GDB's message in @msg ("No trace.", "Range out of bounds.",
 * "Bad range.", "Expected positive number, got: X."). */
int replay_history_range(const char *r, uint64_t size, uint64_t total, uint64_t last,
			 uint64_t *begin, uint64_t *end, char *msg, size_t msgsize);

/* One instruction line (with a file:line line before it under /s when the
 * line changed), GDB's layout; @current marks our position with "=> ". */
void replay_history_print_insn(FILE *out, const struct replay_symbolizer *sym,
			       const struct replay_history_opts *o, const struct replay_item *it,
			       bool current, struct replay_history_src *last);
/* A gap's text: "[decode error (E): text]" or "[overflow]", and a newline. */
void replay_history_print_gap(FILE *out, int error, const char *text);
/* One function segment numbered @number, GDB's function-call-history
 * layout. */
void replay_history_print_segment(FILE *out, const struct replay_history_opts *o,
				  uint64_t number, const struct replay_segment *g);

#endif
