/*
 * protocol/rsp_query.c: qXfer objects, LLDB's host / process / memory
 * queries, and monitor commands.
 *
 * qXfer objects are built whole (they are small) and sliced by offset and
 * length; the target description is built once per server. Monitor output
 * goes to the client as `O` console packets followed by `OK`.
 */
#include "protocol/rsp_query.h"

#include <errno.h>
#include <string.h>

#include "protocol/rsp_btrace.h"
#include "protocol/rsp_server.h"
#include "protocol/rsp_server_state.h"

static int reply_err(struct rsp_server *s, int err, const char *text)
{
	return rsp_reply_error(&s->reply, &s->client, err, text);
}

static int threads_xml(struct rsp_server *s, struct rsp_buf *out)
{
	int n = rsp_server_threads(s), err;

	if (n < 0)
		return n;
	err = rsp_buf_puts(out, "<?xml version=\"1.0\"?>\n<threads>\n");
	for (int i = 0; i < n && !err; i++) {
		const struct rsp_thread_info *t = &s->threads[i];

		err = rsp_buf_puts(out, "<thread id=\"");
		if (!err)
			err = rsp_reply_ptid(out, &s->client, t->ptid);
		if (!err && t->core >= 0)
			err = rsp_buf_printf(out, "\" core=\"%x", t->core);
		if (!err && t->name[0]) {
			err = rsp_buf_puts(out, "\" name=\"");
			if (!err)
				err = rsp_reply_xml_text(out, t->name);
		}
		if (!err)
			err = rsp_buf_puts(out, "\"/>\n");
	}
	return err ? err : rsp_buf_puts(out, "</threads>\n");
}

int rsp_handle_xfer(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_buf *obj = &s->scratch;
	int err = 0;

	rsp_buf_reset(obj);
	switch (req->u.xfer.kind) {
	case RSP_XFER_KIND_BTRACE:
	case RSP_XFER_KIND_BTRACE_CONF:
		return rsp_btrace_xfer(s, req);
	case RSP_XFER_KIND_FEATURES:
		if (strcmp(req->u.xfer.annex, "target.xml"))
			return reply_err(s, -ENOENT, "no such target description annex");
		if (s->tdesc.len == 0)
			err = rsp_regs_tdesc(s->target.ops->features(s->target.ctx), &s->tdesc);
		obj = &s->tdesc;
		break;
	case RSP_XFER_KIND_THREADS:
		err = threads_xml(s, obj);
		break;
	case RSP_XFER_KIND_TARGET:
		if (!s->target.ops->xfer_read)
			return 0;
		err = s->target.ops->xfer_read(s->target.ctx, req->u.xfer.object,
					       req->u.xfer.annex, obj);
		if (err == -EOPNOTSUPP)
			return 0;
		break;
	}
	if (err)
		return reply_err(s, err, strerror(-err));
	return rsp_reply_xfer(&s->reply, obj->data, obj->len, req->u.xfer.offset, req->u.xfer.len);
}

static const struct {
	const char *name;
	const char *help;
} monitor_commands[] = {
	{ "help", "List the monitor commands." },
	{ "exit", "Stop the stub when this connection closes." },
};

static int monitor_help(struct rsp_server *s, struct rsp_buf *out)
{
	int err = rsp_buf_printf(out, "%s monitor commands:\n", s->opt.name ? s->opt.name : "stub");

	for (size_t i = 0; i < sizeof(monitor_commands) / sizeof(monitor_commands[0]) && !err; i++)
		err = rsp_buf_printf(out, "  %-12s %s\n", monitor_commands[i].name,
				     monitor_commands[i].help);
	if (!err && s->target.ops->monitor) {
		int r = s->target.ops->monitor(s->target.ctx, "help", out);

		err = r == -ENOENT ? 0 : r;
	}
	return err;
}

/* Runs @cmd, appending what to print to @out. */
static int monitor_run(struct rsp_server *s, const char *cmd, struct rsp_buf *out)
{
	int r;

	while (*cmd == ' ')
		cmd++;
	if (!strcmp(cmd, "help"))
		return monitor_help(s, out);
	if (!strcmp(cmd, "exit")) {
		s->exit_requested = true;
		return rsp_buf_puts(out, "The stub will exit when this connection closes.\n");
	}
	r = s->target.ops->monitor ? s->target.ops->monitor(s->target.ctx, cmd, out) : -ENOENT;
	if (r == -ENOENT)
		return rsp_buf_printf(out, "Unknown monitor command '%s'. Try \"monitor help\".\n", cmd);
	if (r < 0)
		return rsp_buf_printf(out, "monitor %s: %s\n", cmd, strerror(-r));
	return 0;
}

int rsp_handle_monitor(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_buf *text = &s->scratch;
	int err;

	rsp_buf_reset(text);
	err = monitor_run(s, req->u.monitor.text, text);
	if (err)
		return reply_err(s, err, NULL);
	if (text->len) {
		struct rsp_buf packet;

		rsp_buf_init(&packet);
		err = rsp_reply_console(&packet, rsp_buf_str(text));
		if (!err)
			err = rsp_server_send(s, &packet);
		rsp_buf_release(&packet);
		if (err)
			return err;
	}
	return rsp_reply_ok(&s->reply);
}

int rsp_handle_host_info(struct rsp_server *s, struct rsp_request *req)
{
	static const char triple[] = "x86_64-pc-linux-gnu";
	int err = rsp_buf_puts(&s->reply, "triple:");

	(void)req;
	if (!err)
		err = rsp_buf_put_hex(&s->reply, triple, strlen(triple));
	if (!err)
		err = rsp_buf_puts(&s->reply, ";ptrsize:8;endian:little;ostype:linux;vendor:pc;"
				   "watchpoint_exceptions_received:after;");
	return err;
}

int rsp_handle_process_info(struct rsp_server *s, struct rsp_request *req)
{
	static const char triple[] = "x86_64-pc-linux-gnu";
	struct rsp_process_info pi;
	int err = s->target.ops->process_info ? s->target.ops->process_info(s->target.ctx, &pi)
					      : -EOPNOTSUPP;

	(void)req;
	if (err == -EOPNOTSUPP)
		return 0;
	if (err)
		return reply_err(s, err, NULL);
	err = rsp_buf_printf(&s->reply,
			     "pid:%llx;parent-pid:%llx;real-uid:%x;real-gid:%x;"
			     "effective-uid:%x;effective-gid:%x;triple:",
			     (unsigned long long)pi.pid, (unsigned long long)pi.ppid, pi.uid,
			     pi.gid, pi.euid, pi.egid);
	if (!err)
		err = rsp_buf_put_hex(&s->reply, triple, strlen(triple));
	return err ? err : rsp_buf_puts(&s->reply, ";ostype:linux;endian:little;ptrsize:8;");
}

int rsp_handle_shlib_info_addr(struct rsp_server *s, struct rsp_request *req)
{
	uint64_t addr;
	int err = s->target.ops->shlib_info_addr
			  ? s->target.ops->shlib_info_addr(s->target.ctx, &addr) : -EOPNOTSUPP;

	(void)req;
	if (err == -EOPNOTSUPP)
		return 0;
	if (err)
		return reply_err(s, err, NULL);
	return rsp_buf_printf(&s->reply, "%llx", (unsigned long long)addr);
}

int rsp_handle_memory_region(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_region r;
	int err = s->target.ops->memory_region
			  ? s->target.ops->memory_region(s->target.ctx, req->u.addr, &r) : -EOPNOTSUPP;

	if (err == -EOPNOTSUPP)
		return 0;
	if (err)
		return reply_err(s, err, NULL);
	err = rsp_buf_printf(&s->reply, "start:%llx;size:%llx;", (unsigned long long)r.start,
			     (unsigned long long)r.size);
	if (!err && r.mapped)
		err = rsp_buf_printf(&s->reply, "permissions:%s%s%s;", r.read ? "r" : "",
				     r.write ? "w" : "", r.exec ? "x" : "");
	if (!err && r.mapped && r.name[0]) {
		err = rsp_buf_puts(&s->reply, "name:");
		if (!err)
			err = rsp_buf_put_hex(&s->reply, r.name, strlen(r.name));
		if (!err)
			err = rsp_buf_putc(&s->reply, ';');
	}
	return err;
}
