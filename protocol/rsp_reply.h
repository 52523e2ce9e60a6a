/*
 * protocol/rsp_reply.h: typed reply builders.
 *
 * Each builder appends one reply payload (unframed) to a buffer. The server
 * decides what to answer; these decide how it is spelled. rsp_reply_error is
 * the one place a negative errno becomes an `E` reply.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_REPLY_H
#define HINDSIGHT_PROTOCOL_RSP_REPLY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "protocol/rsp_buf.h"
#include "protocol/target.h"

/* What the client negotiated: how replies must be spelled for it. */
struct rsp_client {
	unsigned features;     /* RSP_CLIENT_* from qSupported */
	bool error_strings;    /* LLDB's QEnableErrorStrings was acked */
	bool thread_suffix;    /* LLDB's QThreadSuffixSupported was acked */
	bool threads_in_stop;  /* LLDB's QListThreadsInStopReply was acked */
};

/* All return 0 or -ENOMEM. */
int rsp_reply_ok(struct rsp_buf *out);

/* An error reply for negative errno @err: `Exx` (xx = the errno, at most
 * 0xff), or `Exx;<hex text>` for LLDB once it enabled error strings. GDB 13
 * takes `E.<text>` only for the packets it checks with packet_check_result
 * (qXfer and its kin; `m`, for one, wants exactly two hex digits), so the
 * text form is used only when @text is given: pass it for such packets
 * only. With @text NULL, LLDB gets strerror(-err). */
int rsp_reply_error(struct rsp_buf *out, const struct rsp_client *client, int err,
		    const char *text);

/* A thread id as the client wants it: `p<pid>.<tid>` or `<tid>`. */
int rsp_reply_ptid(struct rsp_buf *out, const struct rsp_client *client,
		   struct rsp_ptid ptid);

/* `m<slice>` or `l<slice>` for qXfer: @len bytes at @offset of @obj. */
int rsp_reply_xfer(struct rsp_buf *out, const void *obj, size_t obj_len,
		   uint64_t offset, uint64_t len);

/* Whether @client is LLDB (it acked QThreadSuffixSupported or
 * QEnableErrorStrings, which GDB never sends). */
bool rsp_client_is_lldb(const struct rsp_client *client);

/* Host signal @sig as the client numbers it: GDB's numbers for GDB (as
 * gdbserver sends them), the host's for LLDB (as lldb-server sends them:
 * LLDB reads a Linux target's numbers as Linux's, so GDB's 30 for SIGUSR1
 * was its SIGPWR). 0 for 0. */
int rsp_client_signal(const struct rsp_client *client, int sig);
/* The host signal for @n as the client numbers it; 0 for 0 and for a
 * number the host has no signal for. */
int rsp_client_host_signal(const struct rsp_client *client, int n);

/* Registers as hex. An unavailable register is `xx` bytes for GDB, which
 * shows <unavailable>; LLDB 14 decodes `x` as 0xcc bytes and shows them as
 * the register's value, so for LLDB a `p` of an unavailable register and a
 * `g` holding one are refused with `E15`, as lldb-server refuses a register
 * it cannot read (LLDB then shows the register as unavailable). */
int rsp_reply_regs(struct rsp_buf *out, const struct rsp_client *client,
		   const struct rsp_regs *regs, size_t count);
int rsp_reply_reg(struct rsp_buf *out, const struct rsp_client *client,
		  const struct rsp_regs *regs, enum rsp_reg r);

/* Text as an `O<hex>` console-output packet. */
int rsp_reply_console(struct rsp_buf *out, const char *text);

/* Extra facts for a stop reply. */
struct rsp_stop_extra {
	const struct rsp_regs *regs;          /* expedited rbp/rsp/rip, or NULL */
	const struct rsp_thread_info *threads; /* for LLDB's threads:, or NULL */
	const uint64_t *thread_pcs;           /* parallel to threads, or NULL */
	size_t nthreads;
};

/* `T..`, `W..` or `X..` (or `N`) for @stop. The swbreak / hwbreak keys are
 * only sent to clients that asked for them; other reasons use the GDB keys
 * (watch, rwatch, awatch, replaylog) that both clients read. */
int rsp_reply_stop(struct rsp_buf *out, const struct rsp_client *client,
		   const struct rsp_stop *stop, const struct rsp_stop_extra *extra);

/* Appends @s with XML's five special characters escaped and control
 * characters (not allowed in XML 1.0) replaced by '?'. */
int rsp_reply_xml_text(struct rsp_buf *out, const char *s);

#endif
