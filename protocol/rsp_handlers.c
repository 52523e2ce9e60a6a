/*
 * protocol/rsp_handlers.c: one handler per request, through one table.
 *
 * Handlers here cover the session (qSupported, no-ack, threads), registers,
 * memory, break / watchpoints, kill and detach; rsp_resume.c has the resume
 * packets and rsp_query.c the qXfer objects, LLDB's queries and monitor
 * commands. Every target error becomes an E reply through rsp_reply_error;
 * -EOPNOTSUPP becomes the empty reply.
 */
#include "protocol/rsp_handlers.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

#include "protocol/rsp_btrace.h"
#include "protocol/rsp_query.h"
#include "protocol/rsp_resume.h"
#include "protocol/rsp_server.h"
#include "protocol/rsp_server_state.h"

typedef int (*handler_fn)(struct rsp_server *s, struct rsp_request *req);

static int reply_err(struct rsp_server *s, int err, const char *text)
{
	return rsp_reply_error(&s->reply, &s->client, err, text);
}

/* OK, the empty reply for -EOPNOTSUPP, or an E reply. */
static int reply_status(struct rsp_server *s, int err)
{
	if (err == -EOPNOTSUPP)
		return 0;
	return err ? reply_err(s, err, NULL) : rsp_reply_ok(&s->reply);
}

static int h_unknown(struct rsp_server *s, struct rsp_request *req)
{
	(void)s;
	(void)req;
	return 0; /* the empty reply */
}

static int h_ok(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	return rsp_reply_ok(&s->reply);
}

static int h_malformed(struct rsp_server *s, struct rsp_request *req)
{
	return reply_err(s, req->error, req->error_text);
}

static int h_supported(struct rsp_server *s, struct rsp_request *req)
{
	static const struct {
		unsigned feature;
		const char *name;
	} xfers[] = {
		{ RSP_TARGET_XFER_AUXV, ";qXfer:auxv:read+" },
		{ RSP_TARGET_XFER_EXEC_FILE, ";qXfer:exec-file:read+" },
		{ RSP_TARGET_XFER_LIBRARIES, ";qXfer:libraries-svr4:read+" },
		{ RSP_TARGET_XFER_SIGINFO, ";qXfer:siginfo:read+" },
	};
	unsigned features = s->target.ops->features(s->target.ctx);
	int err;

	s->client.features = req->u.client_features;
	err = rsp_buf_printf(&s->reply,
		"PacketSize=%x;QStartNoAckMode+;multiprocess+;swbreak+;hwbreak+;"
		"vContSupported+;qXfer:features:read+;qXfer:threads:read+",
		RSP_PACKET_SIZE);
	if (!err && s->target.ops->set_pass_signals)
		err = rsp_buf_puts(&s->reply, ";QPassSignals+");
	/* Announce only what the target serves: GDB treats an empty reply to
	 * an announced qXfer object as a protocol error. */
	for (size_t i = 0; i < sizeof(xfers) / sizeof(xfers[0]) && !err; i++)
		if (features & xfers[i].feature)
			err = rsp_buf_puts(&s->reply, xfers[i].name);
	if (!err && (features & RSP_TARGET_REVERSE))
		err = rsp_buf_puts(&s->reply, ";ReverseStep+;ReverseContinue+");
	return err ? err : rsp_btrace_supported(s, &s->reply);
}

static int h_start_noack(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	s->noack_after_reply = true;
	return rsp_reply_ok(&s->reply);
}

static int h_halt_reason(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	return rsp_server_stop_reply(s, &s->last_stop);
}

/* 0 if @ptid names "any", "all" or a live thread, else -ESRCH. */
static int check_thread(struct rsp_server *s, struct rsp_ptid ptid)
{
	if (ptid.tid <= 0)
		return s->has_process ? 0 : -ESRCH;
	return s->target.ops->thread_alive(s->target.ctx, rsp_server_resolve(s, ptid));
}

static int h_set_thread(struct rsp_server *s, struct rsp_request *req)
{
	int err = check_thread(s, req->thread);

	if (err)
		return reply_err(s, err, NULL);
	if (req->u.thread_op == 'g')
		s->g_thread = rsp_server_resolve(s, req->thread);
	else
		s->c_thread = req->thread;
	return rsp_reply_ok(&s->reply);
}

static int h_thread_alive(struct rsp_server *s, struct rsp_request *req)
{
	int err = check_thread(s, req->thread);

	return err ? reply_err(s, err, NULL) : rsp_reply_ok(&s->reply);
}

static int h_current_thread(struct rsp_server *s, struct rsp_request *req)
{
	int err = rsp_buf_puts(&s->reply, "QC");

	(void)req;
	return err ? err : rsp_reply_ptid(&s->reply, &s->client, rsp_server_resolve(s, s->g_thread));
}

static int h_thread_info_first(struct rsp_server *s, struct rsp_request *req)
{
	int n = rsp_server_threads(s), err = 0;

	(void)req;
	if (n < 0)
		return reply_err(s, n, NULL);
	if (n == 0)
		return rsp_buf_putc(&s->reply, 'l');
	err = rsp_buf_putc(&s->reply, 'm');
	for (int i = 0; i < n && !err; i++) {
		if (i)
			err = rsp_buf_putc(&s->reply, ',');
		if (!err)
			err = rsp_reply_ptid(&s->reply, &s->client, s->threads[i].ptid);
	}
	return err;
}

static int h_thread_info_next(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	return rsp_buf_putc(&s->reply, 'l');
}

static int h_attached(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_process_info pi;
	int err = s->target.ops->process_info(s->target.ctx, &pi);

	(void)req;
	if (err)
		return reply_err(s, err, NULL);
	return rsp_buf_putc(&s->reply, pi.attached ? '1' : '0');
}

/* The thread a register / memory request is for: LLDB's suffix or Hg. */
static struct rsp_ptid req_thread(struct rsp_server *s, const struct rsp_request *req)
{
	return rsp_server_resolve(s, req->has_thread ? req->thread : s->g_thread);
}

static size_t reg_count(struct rsp_server *s)
{
	return rsp_regs_count(s->target.ops->features(s->target.ctx));
}

static int h_read_regs(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_regs regs;
	int err;

	memset(&regs, 0, sizeof(regs));
	err = s->target.ops->read_regs(s->target.ctx, req_thread(s, req), &regs);
	if (err)
		return reply_err(s, err, NULL);
	return rsp_reply_regs(&s->reply, &s->client, &regs, reg_count(s));
}

static int h_write_regs(struct rsp_server *s, struct rsp_request *req)
{
	size_t count = reg_count(s);
	struct rsp_regs regs;

	memset(&regs, 0, sizeof(regs));
	if (req->u.reg.len > rsp_regs_size(s->target.ops->features(s->target.ctx)))
		return reply_err(s, -EINVAL, NULL);
	memcpy(regs.bytes, req->u.reg.data, req->u.reg.len);
	for (size_t r = 0; r < count; r++)
		regs.avail[r] = rsp_reg_descs[r].offset + rsp_reg_descs[r].size <= req->u.reg.len;
	return reply_status(s, s->target.ops->write_regs(s->target.ctx, req_thread(s, req), &regs));
}

static int h_read_reg(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_regs regs;
	int err;

	if (req->u.reg.regno >= reg_count(s))
		return reply_err(s, -EINVAL, NULL);
	memset(&regs, 0, sizeof(regs));
	err = s->target.ops->read_regs(s->target.ctx, req_thread(s, req), &regs);
	if (err)
		return reply_err(s, err, NULL);
	return rsp_reply_reg(&s->reply, &s->client, &regs, (enum rsp_reg)req->u.reg.regno);
}

static int h_write_reg(struct rsp_server *s, struct rsp_request *req)
{
	enum rsp_reg r = (enum rsp_reg)req->u.reg.regno;
	struct rsp_regs regs;

	if (req->u.reg.regno >= reg_count(s))
		return reply_err(s, -EINVAL, NULL);
	if (req->u.reg.len != rsp_reg_descs[r].size)
		return reply_err(s, -EINVAL, NULL);
	memset(&regs, 0, sizeof(regs));
	rsp_regs_set_bytes(&regs, r, req->u.reg.data);
	return reply_status(s, s->target.ops->write_regs(s->target.ctx, req_thread(s, req), &regs));
}

static int h_read_mem(struct rsp_server *s, struct rsp_request *req)
{
	size_t len = req->u.mem.len;
	int n, err;

	/* The reply is two hex digits a byte and must fit a packet. */
	if (len > (RSP_PACKET_SIZE - 4) / 2)
		len = (RSP_PACKET_SIZE - 4) / 2;
	if (len == 0)
		return 0;
	rsp_buf_reset(&s->scratch);
	err = rsp_buf_reserve(&s->scratch, len);
	if (err)
		return reply_err(s, err, NULL);
	/* All or nothing, as gdbserver and LLDB 14's lldb-server answer: LLDB
	 * 14's memory cache crashes on a short reply whose rest it then asks
	 * for and is refused (fixed in LLDB 17). A recording's known bytes can
	 * end anywhere in a page, so short replies would be common here. */
	n = s->target.ops->read_mem(s->target.ctx, req->u.mem.addr, s->scratch.data, len);
	if (n >= 0 && (size_t)n < len)
		n = -EIO;
	if (n <= 0)
		return reply_err(s, n < 0 ? n : -EIO, NULL);
	return rsp_buf_put_hex(&s->reply, s->scratch.data, (size_t)n);
}

static int h_write_mem(struct rsp_server *s, struct rsp_request *req)
{
	if (req->u.mem.len == 0)
		return rsp_reply_ok(&s->reply); /* GDB's probe for X */
	return reply_status(s, s->target.ops->write_mem(s->target.ctx, req->u.mem.addr,
							req->u.mem.data, req->u.mem.len));
}

static int h_point(struct rsp_server *s, struct rsp_request *req)
{
	int (*op)(void *, enum rsp_point_type, uint64_t, int) =
		req->type == RSP_REQ_INSERT_POINT ? s->target.ops->insert_point
						  : s->target.ops->remove_point;

	if (!op)
		return 0;
	return reply_status(s, op(s->target.ctx, req->u.point.type, req->u.point.addr,
				  req->u.point.kind));
}

static int h_vcont_query(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	return rsp_buf_puts(&s->reply, "vCont;c;C;s;S;t;r");
}

/* The process is gone by our hand: remember how, for `?`. */
static void forget_process(struct rsp_server *s, enum rsp_stop_kind kind, int signo)
{
	s->has_process = false;
	s->last_stop.kind = kind;
	s->last_stop.signo = signo;
	s->last_stop.status = 0;
	s->last_stop.reason = RSP_REASON_NONE;
}

/* `k`: GDB wants no reply; LLDB waits for X09 / W00. */
static int h_kill(struct rsp_server *s, struct rsp_request *req)
{
	int err = s->has_process ? s->target.ops->kill(s->target.ctx) : 0;

	if (err)
		return reply_err(s, err, NULL);
	(void)req;
	forget_process(s, RSP_STOP_TERMINATED, SIGKILL);
	return rsp_reply_stop(&s->reply, &s->client, &s->last_stop, NULL);
}

/* vKill;PID and D;PID name the served process or are refused (E01, as
 * gdbserver answers), rather than acting on it. */
static int other_process(struct rsp_server *s, const struct rsp_request *req)
{
	struct rsp_process_info pi;

	return req->u.pid > 0 && s->target.ops->process_info(s->target.ctx, &pi) == 0 &&
	       pi.pid != req->u.pid;
}

static int h_vkill(struct rsp_server *s, struct rsp_request *req)
{
	int err = !s->has_process ? -ESRCH : other_process(s, req) ? -EPERM :
		  s->target.ops->kill(s->target.ctx);

	if (err)
		return reply_err(s, err, NULL);
	forget_process(s, RSP_STOP_TERMINATED, SIGKILL);
	return rsp_reply_ok(&s->reply);
}

static int h_detach(struct rsp_server *s, struct rsp_request *req)
{
	int err = !s->has_process ? -ESRCH : other_process(s, req) ? -EPERM :
		  s->target.ops->detach(s->target.ctx);

	if (err)
		return reply_err(s, err, NULL);
	forget_process(s, RSP_STOP_EXITED, 0);
	s->detached = true;
	return rsp_reply_ok(&s->reply);
}

static int h_pass_signals(struct rsp_server *s, struct rsp_request *req)
{
	uint8_t host[RSP_NSIG] = { 0 };

	if (!s->target.ops->set_pass_signals)
		return 0;
	if (!rsp_client_is_lldb(&s->client))
		memcpy(host, req->u.pass.host, sizeof(host));
	for (int n = 1; n < 256 && rsp_client_is_lldb(&s->client); n++)
		if (req->u.pass.raw[n] && rsp_client_host_signal(&s->client, n))
			host[rsp_client_host_signal(&s->client, n)] = 1;
	return reply_status(s, s->target.ops->set_pass_signals(s->target.ctx, host));
}

static int h_non_stop(struct rsp_server *s, struct rsp_request *req)
{
	if (req->u.flag)
		return reply_err(s, -EOPNOTSUPP, NULL);
	return rsp_reply_ok(&s->reply);
}

static int h_thread_suffix(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	s->client.thread_suffix = true;
	return rsp_reply_ok(&s->reply);
}

static int h_threads_in_stop(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	s->client.threads_in_stop = true;
	return rsp_reply_ok(&s->reply);
}

static int h_error_strings(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	s->client.error_strings = true;
	return rsp_reply_ok(&s->reply);
}

/* qThreadStopInfo: why this thread stopped; others of an all-stop stop
 * were only halted (signal 0). */
static int h_thread_stop_info(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_stop stop = s->last_stop;
	struct rsp_ptid t = rsp_server_resolve(s, req->thread);

	if (stop.kind == RSP_STOP_SIGNAL && t.tid != stop.thread.tid) {
		if (check_thread(s, t))
			return reply_err(s, -ESRCH, NULL);
		stop.thread = t;
		stop.signo = 0;
		stop.reason = RSP_REASON_NONE;
	}
	return rsp_server_stop_reply(s, &stop);
}

static int h_server_version(struct rsp_server *s, struct rsp_request *req)
{
	(void)req;
	return rsp_buf_printf(&s->reply, "name:%s;version:%s;", s->opt.name ? s->opt.name : "stub",
			      s->opt.version ? s->opt.version : "0");
}

static int h_vfile(struct rsp_server *s, struct rsp_request *req)
{
	return rsp_vfile_handle(&s->vfile, req->u.vfile_args, &s->reply);
}

static const handler_fn handlers[RSP_REQ_COUNT] = {
	[RSP_REQ_UNKNOWN] = h_unknown,
	[RSP_REQ_MALFORMED] = h_malformed,
	[RSP_REQ_SUPPORTED] = h_supported,
	[RSP_REQ_START_NOACK] = h_start_noack,
	[RSP_REQ_HALT_REASON] = h_halt_reason,
	[RSP_REQ_SET_THREAD] = h_set_thread,
	[RSP_REQ_THREAD_ALIVE] = h_thread_alive,
	[RSP_REQ_CURRENT_THREAD] = h_current_thread,
	[RSP_REQ_THREAD_INFO_FIRST] = h_thread_info_first,
	[RSP_REQ_THREAD_INFO_NEXT] = h_thread_info_next,
	[RSP_REQ_THREAD_EXTRA_INFO] = h_unknown,
	[RSP_REQ_ATTACHED] = h_attached,
	[RSP_REQ_READ_REGS] = h_read_regs,
	[RSP_REQ_WRITE_REGS] = h_write_regs,
	[RSP_REQ_READ_REG] = h_read_reg,
	[RSP_REQ_WRITE_REG] = h_write_reg,
	[RSP_REQ_READ_MEM] = h_read_mem,
	[RSP_REQ_WRITE_MEM] = h_write_mem,
	[RSP_REQ_INSERT_POINT] = h_point,
	[RSP_REQ_REMOVE_POINT] = h_point,
	[RSP_REQ_CONTINUE] = rsp_handle_legacy_resume,
	[RSP_REQ_STEP] = rsp_handle_legacy_resume,
	[RSP_REQ_VCONT] = rsp_handle_vcont,
	[RSP_REQ_VCONT_QUERY] = h_vcont_query,
	[RSP_REQ_REVERSE_STEP] = rsp_handle_reverse,
	[RSP_REQ_REVERSE_CONTINUE] = rsp_handle_reverse,
	[RSP_REQ_KILL] = h_kill,
	[RSP_REQ_VKILL] = h_vkill,
	[RSP_REQ_DETACH] = h_detach,
	[RSP_REQ_XFER_READ] = rsp_handle_xfer,
	[RSP_REQ_MONITOR] = rsp_handle_monitor,
	[RSP_REQ_PASS_SIGNALS] = h_pass_signals,
	[RSP_REQ_PROGRAM_SIGNALS] = h_ok,
	[RSP_REQ_NON_STOP] = h_non_stop,
	[RSP_REQ_SYMBOL] = h_ok,
	[RSP_REQ_HOST_INFO] = rsp_handle_host_info,
	[RSP_REQ_PROCESS_INFO] = rsp_handle_process_info,
	[RSP_REQ_SHLIB_INFO_ADDR] = rsp_handle_shlib_info_addr,
	[RSP_REQ_MEMORY_REGION_INFO] = rsp_handle_memory_region,
	[RSP_REQ_THREAD_SUFFIX] = h_thread_suffix,
	[RSP_REQ_THREADS_IN_STOP] = h_threads_in_stop,
	[RSP_REQ_ERROR_STRINGS] = h_error_strings,
	[RSP_REQ_THREAD_STOP_INFO] = h_thread_stop_info,
	[RSP_REQ_SERVER_VERSION] = h_server_version,
	[RSP_REQ_VFILE] = h_vfile,
	[RSP_REQ_BTRACE] = rsp_handle_btrace,
	[RSP_REQ_BTRACE_CONF] = rsp_handle_btrace_conf,
};

/* Requests that need a process; without one they get an error. */
static bool needs_process(enum rsp_req_type t)
{
	switch (t) {
	case RSP_REQ_READ_REGS: case RSP_REQ_WRITE_REGS: case RSP_REQ_READ_REG:
	case RSP_REQ_WRITE_REG: case RSP_REQ_READ_MEM: case RSP_REQ_WRITE_MEM:
	case RSP_REQ_INSERT_POINT: case RSP_REQ_CONTINUE: case RSP_REQ_STEP:
	case RSP_REQ_VCONT: case RSP_REQ_DETACH:
		return true;
	default:
		return false;
	}
}

int rsp_handle_request(struct rsp_server *s, struct rsp_request *req)
{
	size_t n = sizeof(handlers) / sizeof(handlers[0]);
	handler_fn h = (size_t)req->type < n ? handlers[req->type] : NULL;

	if (!h)
		return 0;
	if (needs_process(req->type) && !s->has_process)
		return reply_err(s, -ESRCH, NULL);
	return h(s, req);
}
