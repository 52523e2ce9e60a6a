/*
 * replay/frontend/frontend.h: a debugging session over a recording, for
 * `hindsight replay` (cli/cli_replay.c).
 *
 * Holds what the commands need: the bundle, the timeline (replay/
 * timeline.h: a cursor per thread, the logical clock, the breakpoint
 * table), the state log (software recordings; NULL otherwise), the code
 * image, a DWARF symbolizer, each thread's call structure (replay/decode/calls.h,
 * built on first use: it gives the call depth of every position), and the
 * breakpoints' numbers and locations. The moves are GDB's at source
 * level, computed over the current thread's history:
 *
 *   step     instructions forward until the line changes; a call into a
 *            function with line information stops at its first line after
 *            the opening one, into one without is stepped over
 *   next     the same, stepping over every call (deeper call depth)
 *   finish   until the current function has returned (the depth drops)
 *   reverse-step / reverse-next: backward to the start of the previous line
 *   reverse-finish: back to the call instruction of the current function
 *
 * Each stops early at a breakpoint, a gap or an edge of the history, and
 * when *@interrupt (set from a signal handler) becomes non-zero
 * (REPLAY_FRONTEND_INTERRUPTED: continue hands the flag to the cursors,
 * which read it once per block they scan; the others read it after every
 * instruction); building the call structure then gives up with
 * -ECANCELED. With a state log the other threads follow the current
 * thread's time after every move, and continue / reverse-continue are
 * the timeline's: the nearest breakpoint hit in time in any thread, which
 * becomes the current thread (as GDB's over `serve --replay`). Memory is
 * read at the timeline's time. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_H
#define HINDSIGHT_REPLAY_FRONTEND_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/symbols.h"  /* struct replay_symbolizer, in the session */
#include "replay/decode/unwind.h"   /* struct replay_frame, for replay_frontend_backtrace */

struct dw_space;
struct replay_bundle;
struct replay_calls;
struct replay_cursor;
struct replay_dwarf_symbols;
struct replay_frontend;
struct replay_image;
struct replay_rodata;
struct replay_session;
struct replay_state;
struct replay_timeline;

#define REPLAY_FRONTEND_MAX_ADDRS 1024 /* locations of one breakpoint */

struct replay_frontend_break {
	int number;                /* GDB's numbering, from 1 */
	char *spec;                /* as typed */
	uint64_t *addrs;           /* its locations, ascending (GDB's N.1, N.2, ...) */
	size_t naddrs;
	uint64_t hits;             /* stops it made (its condition true), ignored ones too */
	bool enabled;              /* disabled: out of the timeline's table */
	bool temporary;            /* tbreak: the CLI deletes it once it stopped */
	char *cond;                /* stop only if this is nonzero; NULL: always */
	uint64_t ignore;           /* hits still to ignore */
	char cond_error[160];      /* why the last evaluation failed (it then stops), or "" */
	bool stopped;              /* it said stop at the last breakpoint stop */
};

/* Evaluates a breakpoint's condition @expr at the current position (frame
 * 0): *@stop true when nonzero. 0, or < 0 with a message in @err. */
typedef int (*replay_frontend_cond_fn)(struct replay_frontend *f, const char *expr, bool *stop,
				       char *err, size_t errsize);

struct replay_frontend {
	struct replay_session *s;  /* the recording; the next seven are its */
	struct replay_bundle *b;
	struct replay_image *img;
	struct replay_rodata *rodata;  /* the files' read-only data */
	struct replay_state *st;   /* NULL: no state log */
	struct replay_timeline *tl; /* the cursors, the clock, the breakpoint table */
	struct replay_dwarf_symbols *ds;
	/* The session's symbolizer, its images those mapped at the current
	 * time (replay_frontend_sym_now) unless a walk over the history
	 * (history, calls) pinned another time: it unpins at its end. */
	struct replay_symbolizer sym;
	bool sym_pinned;
	struct replay_cursor **cur; /* the timeline's, by thread */
	struct replay_calls *calls; /* per thread; .segs NULL until built */
	bool *calls_built;
	size_t nthreads, current;
	struct replay_frontend_break *breaks;
	size_t nbreaks, capbreaks;
	int next_break;
	volatile sig_atomic_t *interrupt;
	void *images;              /* frontend_images.c's DWARF images, on first use */
	bool msym_values;          /* a name known only by an ELF symbol is a value
				    * (frontend_break.c's *EXPR, while it evaluates) */
	void *vars;                /* frontend_vars.c's C evaluator, on first use */
	void *bt_cache;            /* the last stack unwound (frontend.c) */
	size_t frame;              /* the selected frame's level (frontend_frame.h),
				    * 0 after a move */
	/* The conditions' evaluator: C (replay_frontend_cond_c, set by
	 * replay_frontend_open); the one place to change it. NULL: a
	 * breakpoint with a condition always stops. */
	replay_frontend_cond_fn cond_eval;
	int stopped_break;         /* the breakpoint the last stop was for, or 0 */
	uint64_t watch_addr;       /* the watchpoint of the last _WATCH stop */
};

/* How a move ended. */
enum replay_frontend_stop {
	REPLAY_FRONTEND_DONE,      /* the move completed */
	REPLAY_FRONTEND_BREAK,     /* at a breakpoint */
	REPLAY_FRONTEND_GAP,
	REPLAY_FRONTEND_BEGIN,     /* at the beginning of the history */
	REPLAY_FRONTEND_END,       /* at the end */
	REPLAY_FRONTEND_INTERRUPTED,
	REPLAY_FRONTEND_WATCH,     /* at a watched write (continue: f->watch_addr's) */
};

/* Opens the recording @dir (a hindsight bundle, an LLDB bundle or its
 * manifest, an import). Every thread at the end of its history. 0, or a
 * negative errno with a one-line reason in @err. */
int replay_frontend_open(const char *dir, struct replay_frontend **out, char *err, size_t errsize);
void replay_frontend_free(struct replay_frontend *f);

struct replay_cursor *replay_frontend_cursor(struct replay_frontend *f);
/* The recording's DWARF images and ELF symbols (dwarf/dw_space.h), for
 * minimal symbols and call frame rules. */
struct dw_space *replay_frontend_space(struct replay_frontend *f);
/* The symbolizer's images (f->sym, f->ds, replay_frontend_space): those
 * mapped at the current time (an exec maps other files at the same
 * addresses), unless a walk pinned another. */
void replay_frontend_sym_now(struct replay_frontend *f);
int64_t replay_frontend_tid(const struct replay_frontend *f);
/* Whether thread @i exists at the current time: the current thread, or one
 * that ran its first instruction by then (replay_timeline_started) and has
 * not exited since (replay_timeline_exited). */
bool replay_frontend_thread_exists(const struct replay_frontend *f, size_t i);
/* Whether thread @i has exited by the current time (replay_timeline_exited):
 * gone for GDB, still there to look at for `hindsight replay`, said so. */
bool replay_frontend_thread_exited(const struct replay_frontend *f, size_t i);

/* The current thread's call structure (built now if need be). 0 or < 0. */
int replay_frontend_calls(struct replay_frontend *f, const struct replay_calls **out);
/* The call depth of item @pos of the current thread, or -1 if unknown. */
int replay_frontend_level(struct replay_frontend *f, uint64_t pos);

/* The location at the current position: the pc and its symbol. 0, or
 * -ENODATA (pc unknown), -ENOENT (pc known, nothing else: *@pc is set). */
int replay_frontend_where(struct replay_frontend *f, uint64_t *pc, struct replay_symbol *sym);

/* Registers of the current position as struct user_regs_struct's fields
 * (rip from the history). 0; 1 when the history does not know the pc
 * there (the end of a trace cut short, a gap: gp's rip is 0, not a
 * value); -ENODATA without a state log, -ERANGE past where a state log
 * cut short ends (replay_state_cut). */
int replay_frontend_regs(struct replay_frontend *f, uint64_t gp[27]);
/* Up to @len bytes at @addr at the current position; the count read, or
 * -ENODATA / -EIO. */
int replay_frontend_read(struct replay_frontend *f, uint64_t addr, void *buf, size_t len);

/* The call stack at the current position, unwound from its registers and
 * memory (replay/decode/unwind.h): up to @max frames, why it stopped in *@end.
 * The number of frames, or -ENODATA (no state log: no registers), -ERANGE
 * (past where a state log cut short ends), -ESRCH (the history does not
 * know the pc there), -ENOMEM. */
int replay_frontend_backtrace(struct replay_frontend *f, struct replay_frame *frames, size_t max,
			      struct replay_unwind_end *end);

/* The moves; each returns an enum replay_frontend_stop or < 0. continue
 * may stop in another thread: f->current is then that thread. */
int replay_frontend_stepi(struct replay_frontend *f, bool reverse, bool over);
int replay_frontend_step(struct replay_frontend *f, bool reverse, bool over);
int replay_frontend_finish(struct replay_frontend *f, bool reverse);
int replay_frontend_continue(struct replay_frontend *f, bool reverse);
/* The current thread to position @n (1 .. size + 1), the others to its
 * time. 0, -ENOENT (no such position), -ENOMEM. */
int replay_frontend_goto(struct replay_frontend *f, uint64_t n);

/* Breakpoints: adds one at the addresses @addrs (@spec kept for `info
 * breakpoints`); returns its number or -ENOMEM. Deletes number @n (0:
 * all): 0 or -ENOENT. */
int replay_frontend_break_add(struct replay_frontend *f, const char *spec, const uint64_t *addrs,
			      size_t n);
int replay_frontend_break_delete(struct replay_frontend *f, int n);
/* Enables (@on) or disables breakpoint @n (0: all). 0 or -ENOENT. */
int replay_frontend_break_enable(struct replay_frontend *f, int n, bool on);
/* Whether the breakpoints at the current pc stop a move there, as GDB
 * decides at a hit: each enabled one whose condition is true (or fails to
 * evaluate: cond_error) counts a hit, then stops unless its ignore count
 * was left (those set their @stopped); the first into f->stopped_break. */
bool replay_frontend_break_stops(struct replay_frontend *f);
/* The breakpoint at @pc, or NULL. */
struct replay_frontend_break *replay_frontend_break_at(struct replay_frontend *f, uint64_t pc);

/*
 * The rest of the session's API is in the room's other doors, each
 * included by the files that use it: breakpoint locations
 * (frontend_break.h), the stack's frames (frontend_frame.h), the current
 * thread's history (frontend_history.h: history, bt without registers),
 * the code at an address (frontend_insn.h: x/i, disassemble), source lines
 * as GDB reads them and $_ (frontend_line.h: info line, disassemble /s /m), what `last`
 * follows and `watch` watches (frontend_last.h), where a bad address came
 * from (frontend_origin.h: origin, hindsight run), the shared libraries
 * (frontend_solib.h), variables and C expressions (frontend_vars.h,
 * cexpr.h: print, display, x, conditions). Of replay/decode, only the
 * types a caller must hold come with this one (symbols.h, unwind.h); a
 * cursor and the call structure are those files' own.
 */

#endif
