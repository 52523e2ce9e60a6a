/*
 * stub/recorders/stub_swpt.c: control-flow events to Intel PT packets (libipt's
 * encoder), mirroring the last IP and return stack a libipt decoder keeps.
 *
 * The encoder writes into a fixed buffer; when less than one packet's worth
 * of room is left the buffer is written to the FILE and the encoder starts
 * again at its beginning (pt_enc_sync_set). TNT bits are emitted as TNT-8
 * packets of up to 6 bits: 6 bits a byte is denser than TNT-64's 47 bits in
 * 8 bytes, and it is what CPUs mostly emit.
 */
#include "stub/recorders/stub_swpt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <intel-pt.h>

#include "stub/recorders/stub_sum.h"

#define STUB_SWPT_ROOM 64          /* more than the largest packet */
#define STUB_SWPT_TNT8_BITS 6

void stub_swpt_retstack_init(struct stub_swpt_retstack *r)
{
	r->top = 0;
	r->bottom = 0;
}

bool stub_swpt_retstack_empty(const struct stub_swpt_retstack *r)
{
	return r->top == r->bottom;
}

void stub_swpt_retstack_push(struct stub_swpt_retstack *r, uint64_t ip)
{
	r->stack[r->top] = ip;
	r->top = r->top == STUB_SWPT_RETSTACK ? 0 : r->top + 1;
	if (r->top == r->bottom)
		r->bottom = r->bottom == STUB_SWPT_RETSTACK ? 0 : r->bottom + 1;
}

bool stub_swpt_retstack_top(const struct stub_swpt_retstack *r, uint64_t *ip)
{
	if (stub_swpt_retstack_empty(r))
		return false;
	*ip = r->stack[r->top ? r->top - 1 : STUB_SWPT_RETSTACK];
	return true;
}

bool stub_swpt_retstack_pop(struct stub_swpt_retstack *r, uint64_t *ip)
{
	if (!stub_swpt_retstack_top(r, ip))
		return false;
	r->top = r->top ? r->top - 1 : STUB_SWPT_RETSTACK;
	return true;
}

int stub_swpt_init(struct stub_swpt *w, FILE *out, uint32_t psb_period, bool retcomp)
{
	struct pt_config cfg;

	memset(w, 0, sizeof(*w));
	w->buf = malloc(STUB_SWPT_BUF);
	if (!w->buf)
		return -ENOMEM;
	pt_config_init(&cfg);
	cfg.begin = w->buf;
	cfg.end = w->buf + STUB_SWPT_BUF;
	w->enc = pt_alloc_encoder(&cfg);
	if (!w->enc) {
		free(w->buf);
		w->buf = NULL;
		return -EINVAL;
	}
	w->out = out;
	w->psb_period = psb_period;
	w->retcomp = retcomp;
	stub_swpt_retstack_init(&w->ret);
	return 0;
}

static uint64_t stub_swpt_pos(const struct stub_swpt *w)
{
	uint64_t off = 0;

	pt_enc_get_offset(w->enc, &off);
	return off;
}

/* Writes the encoder's buffer to the FILE and rewinds the encoder. */
static int stub_swpt_drain(struct stub_swpt *w)
{
	uint64_t n = stub_swpt_pos(w);

	errno = 0;
	if (n && fwrite(w->buf, 1, n, w->out) != n)
		return errno ? -errno : -EIO;  /* ENOSPC said as such */
	stub_sum_feed(w->sum, w->buf, n);
	w->drained += n;
	return pt_enc_sync_set(w->enc, 0) < 0 ? -EINVAL : 0;
}

void stub_swpt_release(struct stub_swpt *w)
{
	if (w->enc) {
		stub_swpt_drain(w);
		pt_free_encoder(w->enc);
	}
	stub_sum_close(w->sum);
	w->sum = NULL;
	free(w->buf);
	w->enc = NULL;
	w->buf = NULL;
}

uint64_t stub_swpt_offset(const struct stub_swpt *w)
{
	return w->drained + stub_swpt_pos(w);
}

/* One packet, with room made first. */
static int stub_swpt_put(struct stub_swpt *w, const struct pt_packet *p)
{
	int r;

	if (stub_swpt_pos(w) + STUB_SWPT_ROOM > STUB_SWPT_BUF) {
		r = stub_swpt_drain(w);
		if (r < 0)
			return r;
	}
	r = pt_enc_next(w->enc, p);
	return r < 0 ? -EINVAL : 0;
}

static int stub_swpt_tnt_flush(struct stub_swpt *w)
{
	struct pt_packet p;

	if (!w->ntnt)
		return 0;
	memset(&p, 0, sizeof(p));
	p.type = ppt_tnt_8;
	p.payload.tnt.bit_size = w->ntnt;
	p.payload.tnt.payload = w->tnt;
	w->ntnt = 0;
	w->tnt = 0;
	return stub_swpt_put(w, &p);
}

/* A packet other than TNT: pending TNT bits go first. */
static int stub_swpt_emit(struct stub_swpt *w, const struct pt_packet *p)
{
	int r = stub_swpt_tnt_flush(w);

	return r < 0 ? r : stub_swpt_put(w, p);
}

/* The cheapest compression that gives @ip from the decoder's last IP. */
static enum pt_ip_compression stub_swpt_ipc(uint64_t last, uint64_t ip)
{
	if ((ip >> 16) == (last >> 16))
		return pt_ipc_update_16;
	if ((ip >> 32) == (last >> 32))
		return pt_ipc_update_32;
	if ((uint64_t)((int64_t)(ip << 16) >> 16) == ip)
		return pt_ipc_sext_48;
	if ((ip >> 48) == (last >> 48))
		return pt_ipc_update_48;
	return pt_ipc_full;
}

static int stub_swpt_ip_packet(struct stub_swpt *w, enum pt_packet_type type, uint64_t ip)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	p.payload.ip.ipc = stub_swpt_ipc(w->last_ip, ip);
	p.payload.ip.ip = ip;
	w->last_ip = ip;
	return stub_swpt_emit(w, &p);
}

static int stub_swpt_simple(struct stub_swpt *w, enum pt_packet_type type)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = type;
	return stub_swpt_emit(w, &p);
}

static int stub_swpt_tsc(struct stub_swpt *w, uint64_t time)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tsc;
	p.payload.tsc.tsc = time;
	w->last_tsc = time;
	return stub_swpt_emit(w, &p);
}

static int stub_swpt_mode_exec(struct stub_swpt *w)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_mode;
	p.payload.mode.leaf = pt_mol_exec;
	p.payload.mode.bits.exec.csl = 1;
	return stub_swpt_emit(w, &p);
}

int stub_swpt_psb(struct stub_swpt *w, uint64_t next_ip, uint64_t time)
{
	int r;

	r = stub_swpt_tnt_flush(w);
	if (r < 0)
		return r;
	w->last_psb = stub_swpt_offset(w);
	stub_sum_mark(w->sum, w->last_psb);   /* where --snapshot may cut */
	/* A decoder synchronising here starts with no last IP and an empty
	 * return stack (pt_qry_read_psb_header, pt_insn_reset). */
	w->last_ip = 0;
	stub_swpt_retstack_init(&w->ret);
	r = stub_swpt_simple(w, ppt_psb);
	if (r >= 0)
		r = stub_swpt_mode_exec(w);
	if (r >= 0)
		r = stub_swpt_tsc(w, time);
	if (r >= 0 && w->enabled)
		r = stub_swpt_ip_packet(w, ppt_fup, next_ip);
	if (r >= 0)
		r = stub_swpt_simple(w, ppt_psbend);
	w->started = true;
	return r < 0 ? r : 0;
}

int stub_swpt_begin(struct stub_swpt *w, uint64_t time)
{
	w->enabled = false;
	return stub_swpt_psb(w, 0, time);
}

int stub_swpt_enable(struct stub_swpt *w, uint64_t ip, uint64_t time)
{
	int r = stub_swpt_tsc(w, time);

	if (r < 0)
		return r;
	w->enabled = true;
	return stub_swpt_ip_packet(w, ppt_tip_pge, ip);
}

int stub_swpt_disable(struct stub_swpt *w)
{
	struct pt_packet p;

	memset(&p, 0, sizeof(p));
	p.type = ppt_tip_pgd;
	p.payload.ip.ipc = pt_ipc_suppressed;
	w->enabled = false;
	return stub_swpt_emit(w, &p);
}

int stub_swpt_async_disable(struct stub_swpt *w, uint64_t ip)
{
	int r = stub_swpt_ip_packet(w, ppt_fup, ip);

	return r < 0 ? r : stub_swpt_disable(w);
}

int stub_swpt_cond(struct stub_swpt *w, bool taken)
{
	w->tnt = (w->tnt << 1) | (taken ? 1 : 0);
	if (++w->ntnt == STUB_SWPT_TNT8_BITS)
		return stub_swpt_tnt_flush(w);
	return 0;
}

int stub_swpt_indirect(struct stub_swpt *w, uint64_t target)
{
	return stub_swpt_ip_packet(w, ppt_tip, target);
}

void stub_swpt_call(struct stub_swpt *w, uint64_t ret)
{
	stub_swpt_retstack_push(&w->ret, ret);
}

int stub_swpt_ret(struct stub_swpt *w, uint64_t target)
{
	uint64_t top;

	if (w->retcomp && stub_swpt_retstack_top(&w->ret, &top) && top == target) {
		stub_swpt_retstack_pop(&w->ret, &top);
		return stub_swpt_cond(w, true);
	}
	return stub_swpt_indirect(w, target);
}

int stub_swpt_boundary(struct stub_swpt *w, uint64_t next_ip, uint64_t time)
{
	int r;

	if (!w->psb_asked &&
	    (!w->psb_period || stub_swpt_offset(w) - w->last_psb < w->psb_period))
		return 0;
	w->psb_asked = false;
	r = stub_swpt_psb(w, next_ip, time);
	return r < 0 ? r : 1;
}

int stub_swpt_flush(struct stub_swpt *w)
{
	int r = stub_swpt_tnt_flush(w);

	if (r >= 0)
		r = stub_swpt_drain(w);
	errno = 0;
	if (r >= 0 && fflush(w->out))
		r = errno ? -errno : -EIO;
	return r < 0 ? r : stub_sum_flush(w->sum);
}
