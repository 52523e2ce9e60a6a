/*
 * replay/decode/session.h: one door into a recording.
 *
 * A session opens any recording replay_bundle_load accepts (a hindsight
 * bundle, an LLDB Intel PT bundle or its manifest, a perf.data file) and
 * sets up, on request, what a reader of the past needs: the images at the
 * end of time, the files' read-only data, the state log, the timeline
 * (a cursor per thread and the clock) and the DWARF symbols. The caller
 * asks only for what it uses (a want set of REPLAY_SESSION_* bits): the
 * history of one thread pays for no state log. More can be asked for
 * later (replay_session_want), e.g. symbols on first use.
 *
 * The members are read directly; the session owns them all. Lifetime:
 * replay_session_open / replay_session_free. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_SESSION_H
#define HINDSIGHT_REPLAY_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/symbols.h"

struct dw_cfi_row;
struct replay_bundle;
struct replay_dwarf_symbols;
struct replay_image;
struct replay_rodata;
struct replay_state;
struct replay_timeline;

enum {
	REPLAY_SESSION_THREADS = 1u << 0,  /* refuse a recording without a thread */
	REPLAY_SESSION_IMAGES = 1u << 1,   /* img, at the end of time */
	REPLAY_SESSION_RODATA = 1u << 2,   /* rodata */
	REPLAY_SESSION_STATE = 1u << 3,    /* st: NULL without a state log; an
					    * unreadable one fails the open */
	REPLAY_SESSION_STATE_LAX = 1u << 4,/* st: NULL if there is none or it
					    * cannot be read */
	REPLAY_SESSION_TIMELINE = 1u << 5, /* tl over st (STATE unless STATE_LAX) */
	REPLAY_SESSION_SYMBOLS = 1u << 6,  /* ds and sym */
	/* What the debugger targets use. */
	REPLAY_SESSION_ALL = REPLAY_SESSION_IMAGES | REPLAY_SESSION_RODATA |
			     REPLAY_SESSION_STATE | REPLAY_SESSION_TIMELINE |
			     REPLAY_SESSION_SYMBOLS,
};

struct replay_session {
	struct replay_bundle *b;         /* always */
	struct replay_image *img;        /* IMAGES */
	struct replay_rodata *rodata;    /* RODATA */
	struct replay_state *st;         /* STATE / STATE_LAX; NULL: no state log */
	struct replay_timeline *tl;      /* TIMELINE */
	struct replay_dwarf_symbols *ds; /* SYMBOLS */
	struct replay_symbolizer sym;    /* SYMBOLS: over ds */
	unsigned have;                   /* the REPLAY_SESSION_* bits set up */
	bool states_checked;             /* the state logs against their sums (STATE):
					  * only a command that reads them pays for it */
	char *path;                      /* as opened, for messages */
	struct replay_bundle *retired;   /* a failed replay_session_extend's old one */
};

/* Opens the recording at @path with what @want asks for. 0, or a negative
 * errno with a one-line reason in @err: replay_bundle_load's (a missing
 * directory, a damaged trace.json, a truncated perf.data), -ENOENT "PATH:
 * the recording has no thread" (THREADS), replay_state_open's -EINVAL
 * (STATE), -errno "PATH: thread TID: ..." for a thread whose trace cannot
 * be opened (TIMELINE), -ENOMEM "out of memory". */
int replay_session_open(const char *path, unsigned want, struct replay_session **out,
			char *err, size_t errsize);

/* What a finished recording claims of thread @i (trace.json's count) is
 * checked against the @n instructions its trace decodes: a trace cut
 * short or altered decodes another count, and the user hears it (a note
 * in the bundle, said as a warning by every command) rather than reading
 * a shorter or other past as the program's. A recording that did not
 * finish (killed, a full disk) claims nothing. The timeline does it for
 * every thread; a command that indexes one thread itself calls it. 0 or
 * -ENOMEM. */
int replay_session_check_count(struct replay_session *s, size_t i, uint64_t n);

/* Sets up what @want asks for that @s has not yet. 0, or replay_session_open's
 * errors (what failed stays unset; what was set up before stays). */
int replay_session_want(struct replay_session *s, unsigned want, char *err, size_t errsize);

/* Extends @s to what its recording became since it was opened (a live
 * recording saved again: the traces and state logs grown, new threads,
 * new mappings): the state log (replay_state_extend) and the timeline
 * (replay_timeline_extend, its points kept) cost what was recorded since;
 * the images and read-only data are set up again, the symbols on next
 * use. Afterwards @s answers as replay_session_open would, but for the
 * timeline's points, which stay. 0; -ESTALE with a reason when the
 * recording is not the old one grown (another process, a thread's trace
 * replaced, a mapping changed, an exec) or when a state log came where
 * there was none; replay_bundle_load's errors (@s is then unchanged), or
 * a decoder's. On any error but replay_bundle_load's, @s is only good for
 * taking the timeline's points and replay_session_free: open the
 * recording again. */
int replay_session_extend(struct replay_session *s, char *err, size_t errsize);

/* The call frame rules at @pc from @session's symbols (SYMBOLS), as
 * struct replay_unwind_env's cfi with the session as its context: 0 or
 * replay_dwarf_symbols_cfi's errors. */
int replay_session_cfi(void *session, uint64_t pc, struct dw_cfi_row *out);

/* Frees @s and all it holds; NULL is allowed. */
void replay_session_free(struct replay_session *s);

#endif
