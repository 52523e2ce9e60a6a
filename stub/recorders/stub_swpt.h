/*
 * stub/recorders/stub_swpt.h: software Intel PT, one packet stream per thread.
 *
 * The writer takes control-flow events (a conditional branch taken or not,
 * an indirect branch, a call, a return, tracing disabled / enabled, a
 * periodic synchronisation point) and writes the packets an Intel CPU
 * tracing user space would emit, through libipt's encoder (pt_enc_next):
 * PSB+ (MODE.Exec 64-bit, TSC, FUP when enabled, PSBEND), TNT-8, TIP,
 * TIP.PGE / TIP.PGD, FUP, TSC. It mirrors the state a libipt decoder keeps:
 * the last IP (IP compression, reset at every PSB) and the return stack
 * for return compression (pt_retstack.c: 64 entries, circular, the oldest
 * dropped when full, reset at every PSB here so that a decoder starting at
 * any PSB agrees). docs/record.md lists the rules and where they come from.
 *
 * Bytes go to a FILE (use open_memstream for memory). Pending TNT bits are
 * flushed before any other packet. Lifetime: stub_swpt_init /
 * stub_swpt_release. Nothing here prints.
 */
#ifndef HINDSIGHT_STUB_STUB_SWPT_H
#define HINDSIGHT_STUB_STUB_SWPT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct pt_encoder;
struct stub_sum;

#define STUB_SWPT_RETSTACK 64      /* libipt's pt_retstack_size */
#define STUB_SWPT_BUF 65536        /* encoder buffer drained to the FILE */

/* A mirror of libipt's struct pt_retstack (pt_retstack.c). */
struct stub_swpt_retstack {
	uint64_t stack[STUB_SWPT_RETSTACK + 1];
	uint8_t top, bottom;
};

struct stub_swpt {
	struct pt_encoder *enc;
	uint8_t *buf;              /* STUB_SWPT_BUF bytes the encoder writes */
	FILE *out;                 /* borrowed: must outlive the writer */
	struct stub_sum *sum;      /* @out's checksums, or NULL; owned (released here) */
	uint64_t drained;          /* bytes already written to @out */
	uint64_t last_psb;         /* offset of the last PSB */
	uint64_t last_tsc;         /* the time the last TSC packet gave */
	uint32_t psb_period;       /* 0: no periodic PSB */
	bool psb_asked;            /* a PSB at the next boundary, period or not */
	bool retcomp;
	bool enabled;              /* between TIP.PGE and TIP.PGD */
	bool started;              /* the first PSB+ is written */
	uint64_t last_ip;          /* the decoder's last IP (pt_last_ip.c) */
	uint64_t tnt;              /* pending TNT bits, oldest highest */
	uint8_t ntnt;
	struct stub_swpt_retstack ret;
};

void stub_swpt_retstack_init(struct stub_swpt_retstack *r);
bool stub_swpt_retstack_empty(const struct stub_swpt_retstack *r);
void stub_swpt_retstack_push(struct stub_swpt_retstack *r, uint64_t ip);
/* The top entry into *@ip without popping; false if empty. */
bool stub_swpt_retstack_top(const struct stub_swpt_retstack *r, uint64_t *ip);
/* Pops the top entry; false if empty. */
bool stub_swpt_retstack_pop(struct stub_swpt_retstack *r, uint64_t *ip);

/* 0, -ENOMEM, or -EINVAL if libipt refuses the encoder configuration. */
int stub_swpt_init(struct stub_swpt *w, FILE *out, uint32_t psb_period, bool retcomp);
/* Writes what is encoded (not pending TNT bits) and frees; safe twice. */
void stub_swpt_release(struct stub_swpt *w);

/* The stream's start: PSB, MODE.Exec 64-bit, TSC(@time), PSBEND, with
 * tracing disabled. 0 or a negative errno (-EIO on a write error). */
int stub_swpt_begin(struct stub_swpt *w, uint64_t time);
/* Tracing starts (again) at @ip: TSC(@time), TIP.PGE(@ip). */
int stub_swpt_enable(struct stub_swpt *w, uint64_t ip, uint64_t time);
/* A far transfer into the kernel (syscall, int n): TIP.PGD, IP
 * suppressed. It binds to the instruction just reported. */
int stub_swpt_disable(struct stub_swpt *w);
/* Asynchronous disable before the instruction at @ip (signal, fault,
 * preemption): FUP(@ip), TIP.PGD with the IP suppressed. */
int stub_swpt_async_disable(struct stub_swpt *w, uint64_t ip);
/* A conditional branch: one TNT bit. */
int stub_swpt_cond(struct stub_swpt *w, bool taken);
/* An indirect branch (jump, call, far transfer in user space) to @target. */
int stub_swpt_indirect(struct stub_swpt *w, uint64_t target);
/* A call whose return address is @ret pushed on the return stack. */
void stub_swpt_call(struct stub_swpt *w, uint64_t ret);
/* A near return to @target: a taken TNT bit if return compression is on
 * and @target is the top of the return stack (popped), else TIP. */
int stub_swpt_ret(struct stub_swpt *w, uint64_t target);
/* After an instruction, with @next_ip the next one: writes PSB+ (FUP
 * @next_ip when enabled) if psb_period bytes were written since the last
 * PSB, or psb_asked is set (then cleared). 1 if a PSB was written (stub_swpt_last_psb tells where), 0 if not,
 * or a negative errno. */
int stub_swpt_boundary(struct stub_swpt *w, uint64_t next_ip, uint64_t time);
/* PSB+ now, as stub_swpt_boundary does when the period is over. */
int stub_swpt_psb(struct stub_swpt *w, uint64_t next_ip, uint64_t time);
/* Writes pending TNT bits and encoded bytes to the FILE, and fflush. */
int stub_swpt_flush(struct stub_swpt *w);
/* Bytes written so far (encoded, not counting pending TNT bits). */
uint64_t stub_swpt_offset(const struct stub_swpt *w);

#endif
