/*
 * replay/decode/decode.h: one thread's history, instruction by instruction.
 *
 * libipt's block decoder over the thread's PT file (mmapped), configured
 * from the bundle (cpu and errata, timing), with an image of the mappings
 * valid at the decoder's logical time (replay/model/image.h). Blocks are walked
 * with pt_blk_next / pt_blk_event; the instructions inside a block are
 * found by decoding lengths with Zydis (replay/decode/insn.h). Each decode error
 * becomes a gap item with libipt's error text, and decoding resumes at the
 * next PSB. Items are numbered from 1 as GDB numbers its instruction
 * history: a gap takes a number too.
 *
 * Two speeds: replay_decoder_next_chunk gives whole blocks (what the
 * index counts), replay_decoder_next single instructions. Nothing here
 * prints.
 */
#ifndef HINDSIGHT_REPLAY_DECODE_H
#define HINDSIGHT_REPLAY_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/insn.h"

struct replay_bundle;
struct replay_decoder;

enum replay_item_kind { REPLAY_ITEM_INSN, REPLAY_ITEM_GAP };

struct replay_item {
	enum replay_item_kind kind;
	uint64_t index;            /* 1-based position in the thread's history */
	uint64_t time;             /* logical time (0 if the trace has none) */
	/* REPLAY_ITEM_INSN */
	struct replay_insn insn;   /* insn.ip always; size 0 if the bytes were unreadable */
	int bits;                  /* 64, 32 or 16 */
	/* REPLAY_ITEM_GAP */
	int error;                 /* libipt's negative error code; 0 for "overflow" */
	const char *text;          /* libipt's text (static) */
	bool has_addr;
	uint64_t addr;             /* where decoding failed, when known */
};

/* A run of instructions (one libipt block) or a gap. */
struct replay_chunk {
	bool gap;
	uint64_t index;            /* of its first instruction, or of the gap */
	uint64_t ninsn;            /* instructions; 0 for a gap */
	uint64_t ip;               /* the first instruction */
	int isid;                  /* libipt's image section id of the block (0 if none) */
};

/* Called when decoding passes a PSB: its offset in the PT file, the index
 * of the next item, and the logical time there. */
typedef void (*replay_psb_fn)(void *ctx, uint64_t offset, uint64_t index, uint64_t time);

/* A decoder for thread @thread of @b (which must outlive it), positioned
 * before the first item. Returns 0, -EINVAL (no such thread, or libipt
 * refuses the configuration: e.g. "unknown cpu"), -errno (the PT file
 * cannot be read), -ENOMEM. */
int replay_decoder_new(const struct replay_bundle *b, size_t thread, struct replay_decoder **out);
void replay_decoder_free(struct replay_decoder *d);

/* Asks for @fn at every PSB from now on (the trace is scanned for PSBs
 * once). 0 or -ENOMEM. */
int replay_decoder_on_psb(struct replay_decoder *d, replay_psb_fn fn, void *ctx);
/* The same for a decoder that will never be before offset @from (it is
 * sought there, replay_decoder_seek): the trace is scanned from @from on
 * only (from 0 for a trace in segments). 0 or -ENOMEM. */
int replay_decoder_on_psb_from(struct replay_decoder *d, replay_psb_fn fn, void *ctx,
			       uint64_t from);

/* The next item: 1 and @it filled, 0 at the end of the history, -ENOMEM. */
int replay_decoder_next(struct replay_decoder *d, struct replay_item *it);
/* Where the thread stood when tracing was last disabled asynchronously
 * (FUP + TIP.PGD: a software recording's pause, signal or thread switch)
 * if no instruction came since: after the last item of a stream, the pc
 * of its end. 0, or -ENODATA. */
int replay_decoder_resume_ip(const struct replay_decoder *d, uint64_t *ip);

/* The next whole chunk (must not be mixed with a half-walked block: call
 * it only right after a seek, or after replay_decoder_next finished a
 * block). 1, 0 at the end, -ENOMEM. */
int replay_decoder_next_chunk(struct replay_decoder *d, struct replay_chunk *c);

/* Positions the decoder at the PSB at @offset, whose next item is number
 * @index (as replay_psb_fn reported them). 0 or -EINVAL. */
int replay_decoder_seek(struct replay_decoder *d, uint64_t offset, uint64_t index);

/* Back to before the first item. 0 or -ENOMEM. */
int replay_decoder_rewind(struct replay_decoder *d);

/* Skips forward so that the next item is number @index (>= the next one).
 * 0, or -ENOENT if the history ends before it. */
int replay_decoder_skip_to(struct replay_decoder *d, uint64_t index);

/* The number the next item will get. */
uint64_t replay_decoder_position(const struct replay_decoder *d);

#endif
