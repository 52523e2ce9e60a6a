/*
 * replay/target/replay_monitor.h: the replay target's monitor commands.
 *
 *   when                    the current position and the history's size
 *   goto N                  move the current thread to position N
 *   record-info             recorder, instructions, threads, gaps, bytes
 *   history [RANGE] [/msrfp]  GDB's record instruction-history
 *   calls [RANGE] [/ilc]    GDB's record function-call-history
 *   last ADDR LEN [--json]  the last write changing [ADDR, ADDR + LEN) before the
 *                           current time, in any thread: where, when, the
 *                           bytes before and after (replay/decode/provenance.h)
 *
 * `history` and `calls` take the range syntax and modifiers of
 * `hindsight history` (replay/decode/history_format.h); `=>` marks the current
 * position. Output is text for GDB's console, at most
 * REPLAY_MONITOR_MAX_TEXT bytes (a longer listing is cut and says so).
 * Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_REPLAY_MONITOR_H
#define HINDSIGHT_REPLAY_REPLAY_MONITOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define REPLAY_MONITOR_MAX_TEXT 48000

struct replay_bundle;
struct replay_cursor;
struct replay_state;
struct replay_symbolizer;
struct replay_timeline;
struct rsp_buf;

/* What a command sees: the recording, every thread's cursor (in the
 * bundle's thread order), the current thread, a symbolizer, the
 * state logs (NULL: none) and the timeline (its time: NULL, none). */
struct replay_monitor_ctx {
	const struct replay_bundle *b;
	struct replay_cursor *const *cursors;
	size_t current;
	const struct replay_symbolizer *sym;
	const struct replay_state *st;
	const struct replay_timeline *tl;
};

/* Runs @cmd, appending its text to @out. 0; -ENOENT for a command that is
 * not one of these; -ENOMEM. Bad arguments are answered with a message
 * (GDB's for ranges), not an error. "help" appends the help lines. */
int replay_monitor_run(const struct replay_monitor_ctx *m, const char *cmd, struct rsp_buf *out);
/* Whether @cmd is one of those commands (but "help"): a target that
 * serves a recording beside other commands sends it these. */
bool replay_monitor_is_command(const char *cmd);

#endif
