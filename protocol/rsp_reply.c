/*
 * protocol/rsp_reply.c: how replies are spelled.
 *
 * Payloads only: rsp_frame_encode adds the framing. Numbers in stop replies
 * and thread ids are lower-case hex without leading zeros; register values
 * are little-endian bytes as hex.
 */
#include "protocol/rsp_reply.h"

#include <errno.h>
#include <string.h>

#include "protocol/rsp_packet.h"
#include "protocol/rsp_signals.h"

int rsp_reply_ok(struct rsp_buf *out)
{
	return rsp_buf_puts(out, "OK");
}

int rsp_reply_error(struct rsp_buf *out, const struct rsp_client *client, int err,
		    const char *text)
{
	int code = err < 0 ? -err : err;
	int e;

	if (code <= 0 || code > 0xff)
		code = 0xff;
	if (text && (client->features & RSP_CLIENT_VCONT_SUPPORTED))
		return rsp_buf_printf(out, "E.%s", text);
	e = rsp_buf_printf(out, "E%02x", code);
	if (e || !client->error_strings)
		return e;
	if (!text)
		text = strerror(code);
	e = rsp_buf_putc(out, ';');
	return e ? e : rsp_buf_put_hex(out, text, strlen(text));
}

static int put_id(struct rsp_buf *out, int64_t id)
{
	return id < 0 ? rsp_buf_puts(out, "-1") : rsp_buf_printf(out, "%llx", (unsigned long long)id);
}

int rsp_reply_ptid(struct rsp_buf *out, const struct rsp_client *client, struct rsp_ptid ptid)
{
	int err = 0;

	if (client->features & RSP_CLIENT_MULTIPROCESS) {
		err = rsp_buf_putc(out, 'p');
		if (!err)
			err = put_id(out, ptid.pid);
		if (!err)
			err = rsp_buf_putc(out, '.');
	}
	return err ? err : put_id(out, ptid.tid);
}

int rsp_reply_xfer(struct rsp_buf *out, const void *obj, size_t obj_len, uint64_t offset,
		   uint64_t len)
{
	size_t n = 0;
	int err;

	if (offset < obj_len)
		n = obj_len - (size_t)offset < len ? obj_len - (size_t)offset : (size_t)len;
	err = rsp_buf_putc(out, offset + n < obj_len ? 'm' : 'l');
	if (err || n == 0)
		return err;
	return rsp_buf_append(out, (const uint8_t *)obj + offset, n);
}

bool rsp_client_is_lldb(const struct rsp_client *client)
{
	return client->thread_suffix || client->error_strings;
}

int rsp_client_signal(const struct rsp_client *client, int sig)
{
	return rsp_client_is_lldb(client) ? sig : rsp_signal_to_gdb(sig);
}

int rsp_client_host_signal(const struct rsp_client *client, int n)
{
	int sig;

	if (rsp_client_is_lldb(client))
		return n > 0 && n < 65 ? n : 0;
	sig = rsp_signal_from_gdb(n);
	return sig < 0 ? 0 : sig;
}

/* lldb-server's answer to a register it cannot read (Handle_p, Handle_g):
 * E15, with a text once LLDB enabled error strings. */
static int reg_refused(struct rsp_buf *out, const struct rsp_client *client)
{
	static const char text[] = "register unavailable";
	int e = rsp_buf_puts(out, "E15");

	if (e || !client->error_strings)
		return e;
	e = rsp_buf_putc(out, ';');
	return e ? e : rsp_buf_put_hex(out, text, strlen(text));
}

static int put_reg(struct rsp_buf *out, const struct rsp_regs *regs, enum rsp_reg r)
{
	const struct rsp_reg_desc *d = &rsp_reg_descs[r];

	if (regs->avail[r])
		return rsp_buf_put_hex(out, regs->bytes + d->offset, d->size);
	for (unsigned i = 0; i < d->size; i++)
		if (rsp_buf_puts(out, "xx"))
			return -ENOMEM;
	return 0;
}

int rsp_reply_reg(struct rsp_buf *out, const struct rsp_client *client,
		  const struct rsp_regs *regs, enum rsp_reg r)
{
	if (!regs->avail[r] && rsp_client_is_lldb(client))
		return reg_refused(out, client);
	return put_reg(out, regs, r);
}

int rsp_reply_regs(struct rsp_buf *out, const struct rsp_client *client,
		   const struct rsp_regs *regs, size_t count)
{
	if (count > RSP_REG_COUNT)
		count = RSP_REG_COUNT;
	for (size_t r = 0; r < count && rsp_client_is_lldb(client); r++)
		if (!regs->avail[r])
			return reg_refused(out, client);
	for (size_t r = 0; r < count; r++)
		if (put_reg(out, regs, (enum rsp_reg)r))
			return -ENOMEM;
	return 0;
}

int rsp_reply_console(struct rsp_buf *out, const char *text)
{
	int err = rsp_buf_putc(out, 'O');

	return err ? err : rsp_buf_put_hex(out, text, strlen(text));
}

static int put_exit(struct rsp_buf *out, const struct rsp_client *client,
		    const struct rsp_stop *stop)
{
	int code = stop->kind == RSP_STOP_EXITED ? stop->status & 0xff
						 : rsp_client_signal(client, stop->signo);
	int err = rsp_buf_printf(out, "%c%02x", stop->kind == RSP_STOP_EXITED ? 'W' : 'X', code);

	if (!err && (client->features & RSP_CLIENT_MULTIPROCESS))
		err = rsp_buf_printf(out, ";process:%llx", (unsigned long long)stop->thread.pid);
	return err;
}

static int put_expedited(struct rsp_buf *out, const struct rsp_regs *regs)
{
	static const enum rsp_reg expedite[] = { RSP_REG_RBP, RSP_REG_RSP, RSP_REG_RIP };
	int err = 0;

	for (size_t i = 0; i < 3 && !err; i++) {
		if (!regs->avail[expedite[i]])
			continue;
		err = rsp_buf_printf(out, "%02x:", (unsigned)expedite[i]);
		if (!err)
			err = put_reg(out, regs, expedite[i]);
		if (!err)
			err = rsp_buf_putc(out, ';');
	}
	return err;
}

static int put_reason(struct rsp_buf *out, const struct rsp_client *client,
		      const struct rsp_stop *stop)
{
	unsigned long long addr = (unsigned long long)stop->watch_addr;

	switch (stop->reason) {
	case RSP_REASON_SWBREAK:
		return client->features & RSP_CLIENT_SWBREAK ? rsp_buf_puts(out, "swbreak:;") : 0;
	case RSP_REASON_HWBREAK:
		return client->features & RSP_CLIENT_HWBREAK ? rsp_buf_puts(out, "hwbreak:;") : 0;
	case RSP_REASON_WATCH:
		return rsp_buf_printf(out, "watch:%llx;", addr);
	case RSP_REASON_RWATCH:
		return rsp_buf_printf(out, "rwatch:%llx;", addr);
	case RSP_REASON_AWATCH:
		return rsp_buf_printf(out, "awatch:%llx;", addr);
	case RSP_REASON_REPLAY_BEGIN:
		return rsp_buf_puts(out, "replaylog:begin;");
	case RSP_REASON_REPLAY_END:
		return rsp_buf_puts(out, "replaylog:end;");
	case RSP_REASON_NONE:
	case RSP_REASON_STEP:
		return 0;
	}
	return 0;
}

/* LLDB's threads:<tid>,..;thread-pcs:<pc>,..; */
static int put_thread_list(struct rsp_buf *out, const struct rsp_stop_extra *extra)
{
	int err = rsp_buf_puts(out, "threads:");

	for (size_t i = 0; i < extra->nthreads && !err; i++)
		err = rsp_buf_printf(out, "%s%llx", i ? "," : "",
				     (unsigned long long)extra->threads[i].ptid.tid);
	if (!err)
		err = rsp_buf_putc(out, ';');
	if (err || !extra->thread_pcs)
		return err;
	err = rsp_buf_puts(out, "thread-pcs:");
	for (size_t i = 0; i < extra->nthreads && !err; i++)
		err = rsp_buf_printf(out, "%s%llx", i ? "," : "",
				     (unsigned long long)extra->thread_pcs[i]);
	return err ? err : rsp_buf_putc(out, ';');
}

int rsp_reply_stop(struct rsp_buf *out, const struct rsp_client *client,
		   const struct rsp_stop *stop, const struct rsp_stop_extra *extra)
{
	int err;

	if (stop->kind == RSP_STOP_EXITED || stop->kind == RSP_STOP_TERMINATED)
		return put_exit(out, client, stop);
	if (stop->kind == RSP_STOP_NO_RESUMED)
		return rsp_buf_putc(out, 'N');
	err = rsp_buf_printf(out, "T%02x", rsp_client_signal(client, stop->signo));
	if (!err && extra && extra->regs)
		err = put_expedited(out, extra->regs);
	if (!err)
		err = put_reason(out, client, stop);
	if (!err)
		err = rsp_buf_puts(out, "thread:");
	if (!err)
		err = rsp_reply_ptid(out, client, stop->thread);
	if (!err)
		err = rsp_buf_putc(out, ';');
	if (!err && client->threads_in_stop && extra && extra->threads)
		err = put_thread_list(out, extra);
	return err;
}

int rsp_reply_xml_text(struct rsp_buf *out, const char *s)
{
	int err = 0;

	for (; *s && !err; s++) {
		switch (*s) {
		case '<': err = rsp_buf_puts(out, "&lt;"); break;
		case '>': err = rsp_buf_puts(out, "&gt;"); break;
		case '&': err = rsp_buf_puts(out, "&amp;"); break;
		case '"': err = rsp_buf_puts(out, "&quot;"); break;
		case '\'': err = rsp_buf_puts(out, "&apos;"); break;
		default:
			/* XML 1.0 has no control characters, escaped or not. */
			err = rsp_buf_putc(out, (uint8_t)*s < 0x20 || *s == 0x7f ? '?' : (uint8_t)*s);
			break;
		}
	}
	return err;
}
