/*
 * replay/decode/decode.c: libipt's block decoder over one thread's PT stream.
 *
 * The state machine: unsynced (sync to the next PSB, resync there after an
 * error) -> synced (drain pending events, then take the next block) ->
 * end. A block may come with an error that applies after it; it is kept
 * and turned into a gap once the block has been handed out.
 *
 * A thread of a per-cpu bundle has segments (PSB blocks of the cpus'
 * streams, replay/model/percpu.h) instead of a PT file: their bytes are copied
 * one after the other into one buffer, so offsets (PSBs, the index) are
 * offsets in that buffer, but libipt decodes one segment at a time (a
 * decoder over just its bytes), goes to the next at the segment's end, and
 * stops a segment early at an event whose TSC is past the segment's
 * tsc_end (the thread was switched out: a "decoding truncated" gap).
 *
 * A file the bundle holds in memory (a perf.data opened directly) is read
 * there instead of from disk (replay_bundle_mem_find).
 */
#include "replay/decode/decode.h"

#include <errno.h>
#include <fcntl.h>
#include <intel-pt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dwarf/dw_elf.h"
#include "replay/model/bundle.h"
#include "replay/model/image.h"

enum dec_state { DEC_UNSYNCED, DEC_SYNCED, DEC_END };

struct replay_decoder {
	const struct replay_bundle *b;
	struct replay_image *img;
	uint8_t *pt;
	size_t pt_size;
	struct pt_block_decoder *blk;
	enum dec_state state;
	int status;                /* libipt's flags from its last call */
	int after;                 /* an error that came with the last block */
	int gap_err;               /* the error of the last gap chunk */
	bool pending_has_addr;     /* and where it was */
	uint64_t pending_addr;
	uint64_t next_index;       /* of the next chunk */
	/* the block being walked by replay_decoder_next */
	struct pt_block block;
	uint64_t block_index;
	uint16_t done;
	uint64_t ip;
	bool gap_ready;            /* a gap chunk read by skip_to, not yet handed out */
	struct replay_chunk ready;
	/* PSBs: their offsets, found by a packet-level scan when someone
	 * wants to hear of them (libipt's sync offset only moves on an
	 * explicit sync, not when normal decoding passes a PSB) */
	uint64_t *psbs;
	uint64_t *psb_tsc;         /* the TSC in each one's PSB+, or NO_TSC */
	size_t npsbs;
	bool have_psb;
	uint64_t last_psb;
	/* The PSB+ whose status updates libipt is handing out is noted
	 * already (the one synced to, or the first update's): no other event
	 * or block came since. */
	bool psb_noted;
	replay_psb_fn on_psb;
	void *psb_ctx;
	/* segments (per-cpu bundles); nsegs 0 for a PT file */
	const struct replay_pt_segment *segs;
	size_t nsegs, seg;
	uint64_t *seg_base;        /* where each segment starts in pt */
	bool own_pt;               /* pt is malloced (segments), not mapped */
	bool mem_pt;               /* pt is the bundle's in-memory file's */
	struct pt_image *image;    /* the last image given to libipt (img owns it) */
	bool trunc;                /* the current segment was cut short */
	uint64_t idle;             /* instructions decoded since the last packet
				    * of the current stream was read */
	bool have_resume;          /* tracing was disabled asynchronously (FUP +
				    * TIP.PGD) with no instruction since: */
	uint64_t resume_ip;        /* where the thread stood then */
	/* instructions decoded before, by (section, address): a section's
	 * bytes never change, and loops run the same few again and again */
	struct insn_slot *insns;
	const char *gap_text;      /* text of the last gap, when not libipt's */
};

/* After its last packet a trace can only go on along direct branches; a
 * stream cut short inside a loop made of them (`for (;;) n++;`) would
 * decode for ever. Past this many instructions the stream has ended. */
#define REPLAY_DECODE_IDLE_MAX (1u << 16)

static const char idle_text[] =
	"the trace ends inside a loop that needs no packets (it was cut short): decoding stops";

static const char truncated_text[] =
	"decoding truncated: the thread was switched out (TSC past its execution on this cpu)";

/* Only the part its checksums vouch for (replay/model/sums.h). */
static int map_pt(struct replay_decoder *d, const struct replay_thread *t)
{
	const char *file = t->pt_file;
	const struct replay_bundle_mem *mem = replay_bundle_mem_find(d->b, file);
	char path[4096];
	struct stat st;
	size_t size;
	void *p;
	int fd, err;

	if (mem) {   /* libipt only reads it */
		d->pt = mem->size ? mem->data : NULL;
		d->pt_size = mem->size;
		d->mem_pt = true;
		return 0;
	}
	if (replay_bundle_path(d->b, file, path, sizeof(path)) < 0)
		return -ENAMETOOLONG;
	fd = dw_open_regular(path);
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	size = (size_t)replay_sums_readable(&t->pt_check, (uint64_t)st.st_size);
	if (size == 0) {
		close(fd);
		return 0;
	}
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	err = p == MAP_FAILED ? -errno : 0;
	close(fd);
	if (err)
		return err;
	d->pt = p;
	d->pt_size = size;
	return 0;
}

/* Copies the thread's segments into one buffer. */
static int load_segments(struct replay_decoder *d, const struct replay_thread *t)
{
	char path[4096];
	uint64_t total = 0;
	int fd;

	d->segs = t->segs;
	d->nsegs = t->nsegs;
	d->seg_base = calloc(t->nsegs, sizeof(*d->seg_base));
	if (!d->seg_base)
		return -ENOMEM;
	for (size_t i = 0; i < t->nsegs; i++) {
		d->seg_base[i] = total;
		total += t->segs[i].size;
	}
	if (!total || total > SIZE_MAX)
		return 0;
	d->pt = malloc((size_t)total);
	if (!d->pt)
		return -ENOMEM;
	d->own_pt = true;
	d->pt_size = (size_t)total;
	for (size_t i = 0; i < t->nsegs; i++) {
		const struct replay_pt_segment *g = &t->segs[i];
		const struct replay_bundle_mem *mem = replay_bundle_mem_find(d->b, g->file);

		if (mem && (g->offset > mem->size || g->size > mem->size - g->offset))
			return -EINVAL;
		if (mem) {
			memcpy(d->pt + d->seg_base[i], mem->data + g->offset, (size_t)g->size);
			continue;
		}
		if (replay_bundle_path(d->b, g->file, path, sizeof(path)) < 0)
			return -ENAMETOOLONG;
		fd = dw_open_regular(path);
		if (fd < 0)
			return fd;
		if (pread(fd, d->pt + d->seg_base[i], g->size, (off_t)g->offset) != (ssize_t)g->size) {
			close(fd);
			return -EIO;
		}
		close(fd);
	}
	return 0;
}

/* Where the current segment starts in pt (0 without segments). */
static uint64_t seg_start(const struct replay_decoder *d)
{
	return d->nsegs ? d->seg_base[d->seg] : 0;
}

static int alloc_blk(struct replay_decoder *d)
{
	struct pt_config cfg;

	pt_config_init(&cfg);
	cfg.begin = d->pt + seg_start(d);
	cfg.end = d->nsegs ? cfg.begin + d->segs[d->seg].size : d->pt + d->pt_size;
	if (!strcmp(d->b->cpu.vendor, "GenuineIntel")) {
		cfg.cpu.vendor = pcv_intel;
		cfg.cpu.family = (uint16_t)d->b->cpu.family;
		cfg.cpu.model = (uint8_t)d->b->cpu.model;
		cfg.cpu.stepping = (uint8_t)d->b->cpu.stepping;
		if (pt_cpu_errata(&cfg.errata, &cfg.cpu) < 0)
			return -EINVAL;
	}
	cfg.mtc_freq = d->b->mtc_freq;
	cfg.nom_freq = d->b->nom_freq;
	cfg.cpuid_0x15_eax = d->b->cpuid_0x15_eax;
	cfg.cpuid_0x15_ebx = d->b->cpuid_0x15_ebx;
	/* libipt 2.0.5 follows a direct jump to itself (`jmp .`) by recursion
	 * without end once the trace has run out: ending blocks at direct
	 * jumps keeps that to one instruction per block (past_the_end stops
	 * the rest). */
	cfg.flags.variant.block.end_on_jump = 1;
	d->blk = pt_blk_alloc_decoder(&cfg);
	if (!d->blk)
		return -EINVAL;
	/* A new decoder (rewind, next segment) gets the current image too:
	 * replay_image_at only reports changes. */
	if (d->image && pt_blk_set_image(d->blk, d->image) < 0)
		return -EINVAL;
	return 0;
}

static uint64_t now(struct replay_decoder *d)
{
	uint64_t t = 0;
	uint32_t lost_mtc, lost_cyc;

	if (pt_blk_time(d->blk, &t, &lost_mtc, &lost_cyc) < 0)
		return 0;
	return t;
}

/* Brings the image to @time. */
static int update_image_at(struct replay_decoder *d, uint64_t time)
{
	struct pt_image *image;
	int rc = replay_image_at(d->img, time, &image);

	if (rc == 1) {
		d->image = image;
		if (pt_blk_set_image(d->blk, image) < 0)
			return -EINVAL;
	}
	return rc < 0 ? rc : 0;
}

/* Brings the image to the decoder's time. */
static int update_image(struct replay_decoder *d)
{
	return update_image_at(d, now(d));
}

int replay_decoder_new(const struct replay_bundle *b, size_t thread, struct replay_decoder **out)
{
	struct replay_decoder *d;
	int rc;

	*out = NULL;
	if (thread >= b->nthreads)
		return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->b = b;
	d->next_index = 1;
	d->state = DEC_END;
	rc = replay_image_new(b, &d->img);
	if (!rc && b->threads[thread].pt_file)
		rc = map_pt(d, &b->threads[thread]);
	else if (!rc && b->threads[thread].nsegs)
		rc = load_segments(d, &b->threads[thread]);
	if (!rc && d->pt_size) {
		rc = alloc_blk(d);
		d->state = DEC_UNSYNCED;
		if (!rc)
			rc = update_image(d);
	}
	if (rc < 0) {
		replay_decoder_free(d);
		return rc;
	}
	*out = d;
	return 0;
}

void replay_decoder_free(struct replay_decoder *d)
{
	if (!d)
		return;
	pt_blk_free_decoder(d->blk);
	replay_image_free(d->img);
	if (d->pt && d->own_pt)
		free(d->pt);
	else if (d->pt && !d->mem_pt)
		munmap(d->pt, d->pt_size);
	free(d->seg_base);
	free(d->psbs);
	free(d->psb_tsc);
	free(d->insns);
	free(d);
}


#define NO_TSC UINT64_MAX

/* The TSC packet of the PSB+ @p stands at the PSB of, or NO_TSC. */
static uint64_t psb_plus_tsc(struct pt_packet_decoder *p)
{
	struct pt_packet pkt;

	for (int i = 0; i < 32 && pt_pkt_next(p, &pkt, sizeof(pkt)) >= 0; i++) {
		if (pkt.type == ppt_tsc)
			return pkt.payload.tsc.tsc;
		if (pkt.type == ppt_psbend)
			break;
	}
	return NO_TSC;
}

/* The offsets of every PSB in the trace from @from on, into d->psbs, and
 * the TSC in each one's PSB+ into d->psb_tsc. */
static int scan_psbs(struct replay_decoder *d, uint64_t from)
{
	struct pt_packet_decoder *p;
	struct pt_config cfg;
	size_t cap = 0;
	uint64_t off;

	if (from >= d->pt_size)
		return 0;
	pt_config_init(&cfg);
	cfg.begin = d->pt + from;
	cfg.end = d->pt + d->pt_size;
	p = pt_pkt_alloc_decoder(&cfg);
	if (!p)
		return -ENOMEM;
	while (pt_pkt_sync_forward(p) >= 0 && pt_pkt_get_sync_offset(p, &off) >= 0) {
		if (d->npsbs == cap) {
			uint64_t *n, *t;

			cap = cap ? cap * 2 : 64;
			n = realloc(d->psbs, cap * sizeof(*n));
			if (n)
				d->psbs = n;
			t = n ? realloc(d->psb_tsc, cap * sizeof(*t)) : NULL;
			if (!t) {
				pt_pkt_free_decoder(p);
				return -ENOMEM;
			}
			d->psb_tsc = t;
		}
		d->psbs[d->npsbs] = from + off;
		d->psb_tsc[d->npsbs++] = psb_plus_tsc(p);
	}
	pt_pkt_free_decoder(p);
	return 0;
}

/* The number of PSBs that start before @at. */
static size_t psbs_before(const struct replay_decoder *d, uint64_t at)
{
	size_t lo = 0, hi = d->npsbs;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (d->psbs[mid] < at)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The PSB whose PSB+ status update @ev is of: one after the last PSB
 * noted and before the decoder's offset. libipt reads on, and after a
 * PSB+ that a few straight-line instructions follow (a thread enabled and
 * saved at once) it can be past the next PSB already, so the last before
 * the offset is not it: that one, given the index of the instructions
 * before it, would make a seek number from too early. The one whose PSB+
 * holds @ev's TSC, else the only one there; with none of those, none is
 * noted (a seek starts from an earlier one). 0 with *@off, or -1 (*@off
 * then the last PSB passed, if any). */
static int psb_of_update(const struct replay_decoder *d, const struct pt_event *ev,
			 uint64_t *off)
{
	uint64_t cur;
	size_t from, to, found = 0, at = 0;

	if (pt_blk_get_offset(d->blk, &cur) < 0)
		return -1;
	cur += seg_start(d);
	to = psbs_before(d, cur);
	from = d->have_psb ? psbs_before(d, d->last_psb + 1) : to ? to - 1 : 0;
	if (to)
		*off = d->psbs[to - 1];
	for (size_t i = from; ev->has_tsc && i < to; i++)
		if (d->psb_tsc[i] == ev->tsc) {
			found++;
			at = i;
		}
	if (found == 1) {
		*off = d->psbs[at];
		return 0;
	}
	return to == from + 1 ? 0 : -1;
}

int replay_decoder_on_psb(struct replay_decoder *d, replay_psb_fn fn, void *ctx)
{
	return replay_decoder_on_psb_from(d, fn, ctx, 0);
}

int replay_decoder_on_psb_from(struct replay_decoder *d, replay_psb_fn fn, void *ctx,
			       uint64_t from)
{
	d->on_psb = fn;
	d->psb_ctx = ctx;
	return fn && !d->psbs ? scan_psbs(d, d->nsegs ? 0 : from) : 0;
}

/* @ev NULL: right after an explicit sync (libipt knows the offset);
 * otherwise at status update @ev, which normal decoding gives for each
 * PSB+ it passes (psb_of_update). @time: the PSB+'s (the time libipt had before it handed the
 * event out: handing it out fetches the next event, whose timing packets
 * a file that ends right after the PSB+ does not have yet, so an index
 * built then and one built over the whole file would differ). */
static void note_psb(struct replay_decoder *d, const struct pt_event *ev, uint64_t time)
{
	uint64_t off = 0;

	if (!d->on_psb)
		return;
	if (!ev) {
		if (pt_blk_get_sync_offset(d->blk, &off) < 0)
			return;
		off += seg_start(d);
	} else if (psb_of_update(d, ev, &off) < 0) {
		if (d->have_psb && off > d->last_psb)
			d->last_psb = off;      /* passed, not noted */
		return;
	}
	if (d->have_psb && off == d->last_psb)
		return;
	d->have_psb = true;
	d->last_psb = off;
	if (d->on_psb)
		d->on_psb(d->psb_ctx, off, d->next_index, time);
}

static int gap(struct replay_decoder *d, struct replay_chunk *c, int err)
{
	c->gap = true;
	c->index = d->next_index++;
	c->ninsn = 0;
	c->ip = 0;
	c->isid = 0;
	d->state = DEC_UNSYNCED;
	d->gap_err = err;
	d->gap_text = NULL;
	return 1;
}

/* Makes segment @i the current one, before its first PSB. 0, -ENOMEM. */
static int use_segment(struct replay_decoder *d, size_t i)
{
	pt_blk_free_decoder(d->blk);
	d->blk = NULL;
	d->seg = i;
	d->trunc = false;
	if (alloc_blk(d) < 0)
		return -ENOMEM;
	return update_image(d);
}

/* The end of the current stream: the next segment, or the end. */
static int end_of_stream(struct replay_decoder *d)
{
	if (d->seg + 1 >= d->nsegs) {
		d->state = DEC_END;
		return 0;
	}
	d->state = DEC_UNSYNCED;
	return use_segment(d, d->seg + 1);
}

/* Where the instruction after @blk's last one is, for errors that are
 * about fetching it (as ptxed reports them). */
static void addr_after(struct replay_decoder *d, const struct pt_block *blk, int err)
{
	struct replay_insn in;
	uint8_t buf[15];
	int n;

	d->pending_has_addr = false;
	if (!blk->ninsn) {
		d->pending_has_addr = blk->ip != 0;
		d->pending_addr = blk->ip;
		return;
	}
	if (err != -pte_nomap && err != -pte_bad_insn)
		return;
	n = replay_image_read(d->img, blk->isid, blk->end_ip, buf, sizeof(buf));
	if (n <= 0 || replay_insn_decode(&in, buf, (size_t)n, blk->end_ip,
					 blk->mode == ptem_32bit ? 32 : blk->mode == ptem_16bit ? 16 : 64) < 0)
		return;
	if (in.kind == REPLAY_INSN_COND || ((in.kind == REPLAY_INSN_JUMP || in.kind == REPLAY_INSN_CALL) &&
					    !in.direct) || in.kind == REPLAY_INSN_RET || in.kind == REPLAY_INSN_FAR)
		return;
	d->pending_has_addr = true;
	d->pending_addr = replay_insn_next_ip(&in);
}

static int sync_next(struct replay_decoder *d, struct replay_chunk *c)
{
	int st = d->trunc ? -pte_eos : pt_blk_sync_forward(d->blk);

	if (st == -pte_eos) {
		if (end_of_stream(d) < 0)
			return -ENOMEM;
		return d->state == DEC_END ? 0 : 3;
	}
	if (st < 0) {
		d->pending_has_addr = false;
		return gap(d, c, st);
	}
	d->status = st;
	d->state = DEC_SYNCED;
	d->psb_noted = true;
	note_psb(d, NULL, now(d));
	return update_image(d) < 0 ? -ENOMEM : 2;
}

/* Drains pending events. 2 to go on, 1 with a gap in @c, < 0. */
static int drain_events(struct replay_decoder *d, struct replay_chunk *c)
{
	while (d->status & pts_event_pending) {
		struct pt_event ev;
		uint64_t before = now(d);
		int st = pt_blk_event(d->blk, &ev, sizeof(ev));

		if (st < 0) {
			d->pending_has_addr = false;
			return gap(d, c, st);
		}
		d->status = st;
		if (ev.type == ptev_async_disabled) {
			d->have_resume = true;
			d->resume_ip = ev.variant.async_disabled.at;
		} else if (ev.type == ptev_disabled) {
			d->have_resume = false;
		}
		if (d->nsegs && ev.has_tsc && ev.tsc >= d->segs[d->seg].tsc_end) {
			d->pending_has_addr = false;
			gap(d, c, 0);
			d->gap_text = truncated_text;
			d->trunc = true;
			return 1;
		}
		/* A PSB+ hands out several status updates: its first notes it. */
		if (ev.status_update && !d->psb_noted) {
			note_psb(d, &ev, before);
			d->psb_noted = true;
		}
		if (!ev.status_update)
			d->psb_noted = false;
		/* The image of the event's own time: libipt has fetched the
		 * next event already, and its time is the decoder's now (two
		 * PSBs with no packet between them come at once), but the
		 * instructions up to it run at this one's (code the program
		 * wrote over between the two would be read as it is later). */
		if (update_image_at(d, ev.has_tsc ? ev.tsc : before) < 0)
			return -ENOMEM;
		if (ev.type == ptev_overflow) {
			gap(d, c, 0);
			d->state = DEC_SYNCED;   /* libipt goes on after an overflow */
			d->pending_has_addr = false;
			return 1;
		}
	}
	return 2;
}

/* Whether @blk, decoded with every packet of the stream read, goes
 * beyond what can be believed (REPLAY_DECODE_IDLE_MAX). */
static bool past_the_end(struct replay_decoder *d, const struct pt_block *blk)
{
	uint64_t off, size = d->nsegs ? d->segs[d->seg].size : d->pt_size;

	if (pt_blk_get_offset(d->blk, &off) < 0 || off < size) {
		d->idle = 0;
		return false;
	}
	d->idle += blk->ninsn;
	return d->idle > REPLAY_DECODE_IDLE_MAX;
}

int replay_decoder_next_chunk(struct replay_decoder *d, struct replay_chunk *c)
{
	struct pt_block blk;
	int st, rc;

	for (;;) {
		if (d->after) {
			st = d->after;
			d->after = 0;
			return gap(d, c, st);
		}
		if (d->state == DEC_END)
			return 0;
		if (d->state == DEC_UNSYNCED) {
			rc = sync_next(d, c);
			if (rc == 3)
				continue;
			if (rc != 2)
				return rc;
		}
		rc = drain_events(d, c);
		if (rc != 2)
			return rc;
		memset(&blk, 0, sizeof(blk));
		st = pt_blk_next(d->blk, &blk, sizeof(blk));
		if (st < 0 && st != -pte_eos)
			addr_after(d, &blk, st);
		if (blk.ninsn && past_the_end(d, &blk)) {
			gap(d, c, 0);
			d->gap_text = idle_text;
			d->state = DEC_END;
			return 1;
		}
		if (blk.ninsn) {
			d->have_resume = false;
			d->psb_noted = false;
			d->block = blk;
			d->block_index = d->next_index;
			d->done = 0;
			d->ip = blk.ip;
			c->gap = false;
			c->index = d->next_index;
			c->ninsn = blk.ninsn;
			c->ip = blk.ip;
			c->isid = blk.isid;
			d->next_index += blk.ninsn;
			if (st == -pte_eos) {
				if (end_of_stream(d) < 0)
					return -ENOMEM;
			} else if (st < 0)
				d->after = st;     /* it applies after the block */
			else
				d->status = st;
			return 1;
		}
		if (st == -pte_eos) {
			if (end_of_stream(d) < 0)
				return -ENOMEM;
			continue;
		}
		if (st < 0)
			return gap(d, c, st);
		d->status = st;
	}
}

static int bits_of(const struct pt_block *blk)
{
	return blk->mode == ptem_32bit ? 32 : blk->mode == ptem_16bit ? 16 : 64;
}

#define INSN_SLOTS 8192

struct insn_slot {
	int isid;                  /* 0: empty */
	int bits;
	struct replay_insn insn;
};

static struct insn_slot *insn_slot(struct replay_decoder *d, int isid, uint64_t ip)
{
	if (isid <= 0)
		return NULL;
	if (!d->insns)
		d->insns = calloc(INSN_SLOTS, sizeof(*d->insns));
	return d->insns ? &d->insns[(ip ^ (ip >> 13) ^ (uint64_t)isid * 0x9e37u) % INSN_SLOTS] : NULL;
}

/* The next instruction of the current block into @it, and steps past it. */
static void walk_one(struct replay_decoder *d, struct replay_item *it)
{
	const struct pt_block *blk = &d->block;
	bool truncated = blk->truncated && d->done + 1 == blk->ninsn;
	struct insn_slot *slot = truncated ? NULL : insn_slot(d, blk->isid, d->ip);
	uint8_t buf[15];
	int n;

	memset(it, 0, sizeof(*it));
	it->kind = REPLAY_ITEM_INSN;
	it->index = d->block_index + d->done;
	it->bits = bits_of(blk);
	it->insn.ip = d->ip;
	d->done++;
	if (slot && slot->isid == blk->isid && slot->insn.ip == d->ip && slot->bits == it->bits) {
		it->insn = slot->insn;
		d->ip = replay_insn_next_ip(&it->insn);
		return;
	}
	if (truncated) {
		memcpy(buf, blk->raw, blk->size);
		n = blk->size;
	} else {
		n = replay_image_read(d->img, blk->isid, d->ip, buf, sizeof(buf));
	}
	if (n <= 0 || replay_insn_decode(&it->insn, buf, (size_t)n, d->ip, it->bits) < 0) {
		it->insn.ip = d->ip;
		it->insn.size = 0;
		return;
	}
	d->ip = replay_insn_next_ip(&it->insn);
	if (slot) {
		slot->isid = blk->isid;
		slot->bits = it->bits;
		slot->insn = it->insn;
	}
}

static void gap_item(struct replay_decoder *d, const struct replay_chunk *c, struct replay_item *it)
{
	memset(it, 0, sizeof(*it));
	it->kind = REPLAY_ITEM_GAP;
	it->index = c->index;
	it->error = d->gap_err;
	it->text = d->gap_text ? d->gap_text
		   : d->gap_err ? pt_errstr(pt_errcode(d->gap_err)) : "overflow";
	it->has_addr = d->pending_has_addr;
	it->addr = d->pending_addr;
}

int replay_decoder_next(struct replay_decoder *d, struct replay_item *it)
{
	struct replay_chunk c;
	int rc;

	if (d->gap_ready) {
		d->gap_ready = false;
		gap_item(d, &d->ready, it);
		it->time = now(d);
		return 1;
	}
	if (d->done >= d->block.ninsn) {
		rc = replay_decoder_next_chunk(d, &c);
		if (rc <= 0)
			return rc;
		if (c.gap) {
			gap_item(d, &c, it);
			it->time = d->blk ? now(d) : 0;
			return 1;
		}
	}
	walk_one(d, it);
	it->time = now(d);
	return 1;
}

int replay_decoder_resume_ip(const struct replay_decoder *d, uint64_t *ip)
{
	if (!d->have_resume)
		return -ENODATA;
	*ip = d->resume_ip;
	return 0;
}

int replay_decoder_rewind(struct replay_decoder *d)
{
	if (!d->blk)
		return 0;
	pt_blk_free_decoder(d->blk);
	d->blk = NULL;
	d->seg = 0;
	d->trunc = false;
	if (alloc_blk(d) < 0)
		return -ENOMEM;
	d->state = DEC_UNSYNCED;
	d->status = 0;
	d->after = 0;
	d->gap_ready = false;
	d->next_index = 1;
	d->block.ninsn = 0;
	d->done = 0;
	d->have_psb = false;
	return update_image(d);
}

int replay_decoder_seek(struct replay_decoder *d, uint64_t offset, uint64_t index)
{
	int st;

	if (!d->blk)
		return -EINVAL;
	if (d->nsegs) {
		size_t i = d->nsegs;

		while (i > 0 && d->seg_base[i - 1] > offset)
			i--;
		if (i == 0)
			return -EINVAL;
		if ((i - 1 != d->seg || d->trunc) && use_segment(d, i - 1) < 0)
			return -ENOMEM;
		offset -= seg_start(d);
	}
	st = pt_blk_sync_set(d->blk, offset);
	if (st < 0)
		return -EINVAL;
	d->status = st;
	d->state = DEC_SYNCED;
	d->after = 0;
	d->gap_ready = false;
	d->next_index = index;
	d->block.ninsn = 0;
	d->done = 0;
	d->have_psb = true;
	d->last_psb = offset + seg_start(d);
	d->psb_noted = true;       /* its PSB+'s updates are its own */
	return update_image(d);
}

uint64_t replay_decoder_position(const struct replay_decoder *d)
{
	if (d->gap_ready)
		return d->ready.index;
	if (d->done < d->block.ninsn)
		return d->block_index + d->done;
	return d->next_index;
}

int replay_decoder_skip_to(struct replay_decoder *d, uint64_t index)
{
	struct replay_item it;
	struct replay_chunk c;
	int rc;

	while (replay_decoder_position(d) < index) {
		if (d->gap_ready) {
			d->gap_ready = false;
			continue;
		}
		if (d->done < d->block.ninsn) {
			if (d->block_index + d->block.ninsn <= index)
				d->done = d->block.ninsn;
			else
				walk_one(d, &it);
			continue;
		}
		rc = replay_decoder_next_chunk(d, &c);
		if (rc < 0)
			return rc;
		if (rc == 0)
			return -ENOENT;
		if (c.gap && c.index == index) {
			d->ready = c;
			d->gap_ready = true;
		}
	}
	return 0;
}
