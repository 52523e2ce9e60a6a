/*
 * tests/fuzz/fuzz_rsp.c: libFuzzer target for the RSP protocol layer.
 * fuzz-build: protocol
 *
 * The input is what a client might send: it is fed to an rsp_frame decoder
 * one byte at a time, and every complete packet is copied into a buffer with
 * exactly one spare byte (what rsp_request_parse is allowed to touch), parsed,
 * and answered with the reply builders that fit its request, the way the
 * server would. A small client state carries what the packets negotiate
 * (qSupported features, LLDB's error strings and thread lists), so later
 * replies are spelled for that client. Properties checked besides "no crash"
 * under ASan and UBSan:
 *   - the payload re-encoded with rsp_frame_encode decodes to the same bytes;
 *   - pointers in the request point into the packet's buffer;
 *   - every reply is NUL-terminated at its length.
 * Build and run: tests/fuzz/run.sh SECONDS fuzz_rsp (make fuzz).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_buf.h"
#include "protocol/rsp_frame.h"
#include "protocol/rsp_packet.h"
#include "protocol/rsp_regs.h"
#include "protocol/rsp_reply.h"
#include "protocol/rsp_signals.h"
#include "protocol/target.h"

#define MAX_PAYLOAD 2048

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(cond) do { if (!(cond)) __builtin_trap(); } while (0)

struct session {
	struct rsp_client client;
	struct rsp_ptid thread;   /* last thread a packet named */
	struct rsp_regs regs;
	struct rsp_buf reply;
	struct rsp_frame check;   /* decodes the re-encoded payload */
	struct rsp_buf wire;
};

static void check_reply(const struct rsp_buf *b)
{
	CHECK(b->len == 0 || b->data[b->len] == 0);
	CHECK(rsp_buf_str(b)[b->len] == 0);
}

/* True if @p lies inside the packet buffer [@buf, @buf + @len]. */
static bool inside(const void *p, const uint8_t *buf, size_t len)
{
	const uint8_t *q = p;

	return q >= buf && q <= buf + len;
}

/* rsp_frame_encode, then decode: the same payload must come back. */
static void check_round_trip(struct session *s, const uint8_t *payload, size_t len)
{
	enum rsp_frame_event ev = RSP_FRAME_NONE;

	rsp_buf_reset(&s->wire);
	if (rsp_frame_encode(&s->wire, payload, len))
		return;
	for (size_t i = 0; i < s->wire.len; i++) {
		ev = rsp_frame_feed(&s->check, s->wire.data[i]);
		CHECK(ev == RSP_FRAME_NONE || i == s->wire.len - 1);
	}
	CHECK(ev == RSP_FRAME_PACKET);
	CHECK(s->check.csum_ok);
	CHECK(s->check.payload.len == len);
	CHECK(len == 0 || memcmp(s->check.payload.data, payload, len) == 0);
}

static int host_signal(int gdb_signo)
{
	int sig = rsp_signal_from_gdb(gdb_signo);

	return sig < 0 ? 0 : sig;
}

/* A stop reply as the server would send after a resume. */
static void reply_stop(struct session *s, enum rsp_stop_kind kind, int signo, uint64_t addr,
		       const struct rsp_request *req)
{
	struct rsp_thread_info threads[4];
	uint64_t pcs[4];
	size_t n = 0;
	struct rsp_stop stop = {
		.kind = kind, .thread = s->thread, .signo = signo, .status = (int)(addr & 0xff),
		.reason = (enum rsp_stop_reason)(addr % (RSP_REASON_REPLAY_END + 1)),
		.watch_addr = addr,
	};
	struct rsp_stop_extra extra = { .regs = &s->regs };

	if (req->type == RSP_REQ_VCONT)
		for (; n < req->u.vcont.n && n < 4; n++) {
			memset(&threads[n], 0, sizeof(threads[n]));
			threads[n].ptid = req->u.vcont.actions[n].thread;
			threads[n].core = -1;
			pcs[n] = req->u.vcont.actions[n].range_start;
		}
	extra.threads = n ? threads : NULL;
	extra.thread_pcs = n ? pcs : NULL;
	extra.nthreads = n;
	CHECK(rsp_reply_stop(&s->reply, &s->client, &stop, &extra) == 0);
}

/* Remembers what the request negotiates or names. */
static void track(struct session *s, const struct rsp_request *req)
{
	if (req->has_thread)
		s->thread = req->thread;
	switch (req->type) {
	case RSP_REQ_SUPPORTED:
		s->client.features = req->u.client_features;
		break;
	case RSP_REQ_ERROR_STRINGS:
		s->client.error_strings = true;
		break;
	case RSP_REQ_THREAD_SUFFIX:
		s->client.thread_suffix = true;
		break;
	case RSP_REQ_THREADS_IN_STOP:
		s->client.threads_in_stop = true;
		break;
	case RSP_REQ_WRITE_REGS:
		memcpy(s->regs.bytes, req->u.reg.data,
		       req->u.reg.len < RSP_REGS_SIZE ? req->u.reg.len : RSP_REGS_SIZE);
		for (size_t r = 0; r < RSP_REG_COUNT; r++)
			s->regs.avail[r] = r * 8 < req->u.reg.len;
		break;
	case RSP_REQ_WRITE_REG:
		if (req->u.reg.regno < RSP_REG_COUNT &&
		    req->u.reg.len == rsp_reg_descs[req->u.reg.regno].size)
			rsp_regs_set_bytes(&s->regs, req->u.reg.regno, req->u.reg.data);
		break;
	default:
		break;
	}
}

/* The reply the server would build, with the builders that fit. */
static void reply(struct session *s, const struct rsp_request *req, const uint8_t *buf,
		  size_t len)
{
	rsp_buf_reset(&s->reply);
	switch (req->type) {
	case RSP_REQ_MALFORMED:
		CHECK(req->error < 0);
		CHECK(rsp_reply_error(&s->reply, &s->client, req->error, req->error_text) == 0);
		break;
	case RSP_REQ_XFER_READ:
		CHECK(inside(req->u.xfer.annex, buf, len));
		CHECK(rsp_reply_xfer(&s->reply, buf, len, req->u.xfer.offset, req->u.xfer.len) == 0);
		break;
	case RSP_REQ_MONITOR:
		CHECK(inside(req->u.monitor.text, buf, len));
		CHECK(rsp_reply_console(&s->reply, req->u.monitor.text) == 0);
		CHECK(rsp_reply_xml_text(&s->reply, req->u.monitor.text) == 0);
		CHECK(rsp_reply_ok(&s->reply) == 0);
		break;
	case RSP_REQ_WRITE_MEM:
		CHECK(req->u.mem.len == 0 || inside(req->u.mem.data, buf, len));
		CHECK(req->u.mem.len == 0 || inside(req->u.mem.data + req->u.mem.len, buf, len));
		check_round_trip(s, req->u.mem.data, req->u.mem.len);
		CHECK(rsp_reply_ok(&s->reply) == 0);
		break;
	case RSP_REQ_WRITE_REG:
	case RSP_REQ_WRITE_REGS:
		CHECK(req->u.reg.len == 0 || inside(req->u.reg.data + req->u.reg.len, buf, len));
		CHECK(rsp_reply_ok(&s->reply) == 0);
		break;
	case RSP_REQ_READ_REGS:
		CHECK(rsp_reply_regs(&s->reply, &s->client, &s->regs, RSP_REG_COUNT) == 0);
		break;
	case RSP_REQ_READ_REG:
		if (req->u.reg.regno < RSP_REG_COUNT)
			CHECK(rsp_reply_reg(&s->reply, &s->client, &s->regs, req->u.reg.regno) == 0);
		else
			CHECK(rsp_reply_error(&s->reply, &s->client, -EINVAL, NULL) == 0);
		break;
	case RSP_REQ_CONTINUE:
	case RSP_REQ_STEP:
		reply_stop(s, RSP_STOP_SIGNAL, host_signal(req->u.resume.gdb_signo),
			   req->u.resume.addr, req);
		break;
	case RSP_REQ_VCONT:
		CHECK(req->u.vcont.n <= RSP_VCONT_MAX);
		for (size_t i = 0; i < req->u.vcont.n; i++)
			reply_stop(s, (enum rsp_stop_kind)(i % 4),
				   host_signal(req->u.vcont.actions[i].gdb_signo),
				   req->u.vcont.actions[i].range_end, req);
		break;
	case RSP_REQ_HALT_REASON:
	case RSP_REQ_THREAD_STOP_INFO:
	case RSP_REQ_REVERSE_STEP:
	case RSP_REQ_REVERSE_CONTINUE:
		reply_stop(s, RSP_STOP_SIGNAL, (int)(len % RSP_NSIG), len, req);
		break;
	case RSP_REQ_KILL:
	case RSP_REQ_VKILL:
		reply_stop(s, RSP_STOP_TERMINATED, (int)(req->u.pid % 80), 0, req);
		break;
	case RSP_REQ_DETACH:
		reply_stop(s, RSP_STOP_EXITED, 0, (uint64_t)req->u.pid, req);
		break;
	case RSP_REQ_PASS_SIGNALS:
		for (int sig = 0; sig < RSP_NSIG; sig++)
			if (req->u.pass[sig])
				CHECK(rsp_signal_from_gdb(rsp_signal_to_gdb(sig)) == sig);
		CHECK(rsp_reply_ok(&s->reply) == 0);
		break;
	case RSP_REQ_SET_THREAD:
	case RSP_REQ_THREAD_ALIVE:
	case RSP_REQ_CURRENT_THREAD:
	case RSP_REQ_THREAD_EXTRA_INFO:
		CHECK(rsp_reply_ptid(&s->reply, &s->client, s->thread) == 0);
		break;
	case RSP_REQ_VFILE:
		CHECK(inside(req->u.vfile_args, buf, len));
		CHECK(inside(req->u.vfile_args + strlen(req->u.vfile_args), buf, len));
		CHECK(rsp_reply_error(&s->reply, &s->client, -ENOSYS, req->u.vfile_args) == 0);
		break;
	case RSP_REQ_UNKNOWN:
		break;
	default:
		CHECK(rsp_reply_error(&s->reply, &s->client, -(int)(len % 300) - 1, NULL) == 0);
		break;
	}
	check_reply(&s->reply);
}

static void handle_packet(struct session *s, const struct rsp_buf *payload)
{
	size_t len = payload->len;
	uint8_t *buf = malloc(len + 1);   /* exactly one spare byte */
	struct rsp_request req;

	if (!buf)
		return;
	if (len)
		memcpy(buf, payload->data, len);
	buf[len] = 0;
	check_round_trip(s, buf, len);

	memset(&req, 0xa5, sizeof(req));
	CHECK(rsp_request_parse(buf, len, &req) == 0);
	CHECK((unsigned)req.type < RSP_REQ_COUNT);
	track(s, &req);
	reply(s, &req, buf, len);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct session s;
	struct rsp_frame f;

	memset(&s, 0, sizeof(s));
	rsp_buf_init(&s.reply);
	rsp_buf_init(&s.wire);
	rsp_frame_init(&s.check, 4 * MAX_PAYLOAD);
	rsp_frame_init(&f, MAX_PAYLOAD);

	for (size_t i = 0; i < size; i++) {
		enum rsp_frame_event ev = rsp_frame_feed(&f, data[i]);

		if (ev == RSP_FRAME_PACKET)
			handle_packet(&s, &f.payload);
		else if (ev == RSP_FRAME_ERROR)
			CHECK(f.error == -EMSGSIZE || f.error == -EBADMSG);
		if (ev == RSP_FRAME_PACKET || ev == RSP_FRAME_ERROR)
			CHECK(f.payload.len <= MAX_PAYLOAD);
	}

	rsp_frame_release(&f);
	rsp_frame_release(&s.check);
	rsp_buf_release(&s.wire);
	rsp_buf_release(&s.reply);
	return 0;
}
