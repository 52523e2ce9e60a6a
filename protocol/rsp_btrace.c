/*
 * protocol/rsp_btrace.c: GDB's branch-trace packets.
 *
 * `record btrace pt|bts` in GDB sends Qbtrace-conf:<fmt>:size=<n> (for
 * future enables), Qbtrace:<fmt> on the Hg thread, then reads
 * qXfer:btrace-conf:read and, when it needs the history,
 * qXfer:btrace:read:{delta,new,all}. The target produces the trace; this
 * file spells it as GDB's btrace / btrace-conf XML (gdb/features/btrace.dtd)
 * and answers errors with gdbserver's texts, which GDB prints. A btrace
 * object is built when offset 0 is read and served in slices from then on,
 * so reading it in chunks never mixes two traces.
 */
#include "protocol/rsp_btrace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_server.h"
#include "protocol/rsp_server_state.h"

static const char *const format_names[] = { "bts", "pt" };

void rsp_btrace_init(struct rsp_btrace_state *b)
{
	b->size[RSP_BTRACE_BTS] = 64 * 1024; /* GDB's defaults */
	b->size[RSP_BTRACE_PT] = 16 * 1024;
	rsp_buf_init(&b->object);
}

void rsp_btrace_release(struct rsp_btrace_state *b)
{
	rsp_buf_release(&b->object);
}

static int reply_text(struct rsp_server *s, int err, const char *text)
{
	return rsp_reply_error(&s->reply, &s->client, err, text);
}

static bool supports(struct rsp_server *s, enum rsp_btrace_format f)
{
	unsigned want = f == RSP_BTRACE_PT ? RSP_TARGET_BTRACE_PT : RSP_TARGET_BTRACE_BTS;

	return s->target.ops->btrace_enable && (s->target.ops->features(s->target.ctx) & want);
}

int rsp_btrace_supported(struct rsp_server *s, struct rsp_buf *out)
{
	bool pt = supports(s, RSP_BTRACE_PT), bts = supports(s, RSP_BTRACE_BTS);
	int err = 0;

	if (!pt && !bts)
		return 0;
	if (pt)
		err = rsp_buf_puts(out, ";Qbtrace:pt+;Qbtrace-conf:pt:size+");
	if (!err && bts)
		err = rsp_buf_puts(out, ";Qbtrace:bts+;Qbtrace-conf:bts:size+");
	if (!err)
		err = rsp_buf_puts(out, ";Qbtrace:off+;qXfer:btrace:read+;qXfer:btrace-conf:read+");
	return err;
}

int rsp_handle_btrace(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_ptid t = rsp_server_resolve(s, s->g_thread);
	enum rsp_btrace_format f = req->u.btrace.format;
	int err;

	if (req->u.btrace.off) {
		err = s->target.ops->btrace_disable ? s->target.ops->btrace_disable(s->target.ctx, t)
						    : -ENOENT;
		if (err == -ENOENT)
			return reply_text(s, err, "Branch tracing not enabled.");
		return err ? reply_text(s, err, strerror(-err)) : rsp_reply_ok(&s->reply);
	}
	if (!supports(s, f))
		return reply_text(s, -EOPNOTSUPP, "Target does not support branch tracing.");
	err = s->target.ops->btrace_enable(s->target.ctx, t, f, s->btrace.size[f]);
	if (err == -EALREADY)
		return reply_text(s, err, "Btrace already enabled.");
	if (err == -ESRCH)
		return reply_text(s, err, "No such thread.");
	return err ? reply_text(s, err, strerror(-err)) : rsp_reply_ok(&s->reply);
}

int rsp_handle_btrace_conf(struct rsp_server *s, struct rsp_request *req)
{
	s->btrace.size[req->u.btrace.format] = req->u.btrace.size;
	return rsp_reply_ok(&s->reply);
}

static int conf_xml(struct rsp_server *s, struct rsp_ptid t, struct rsp_buf *out)
{
	enum rsp_btrace_format f;
	uint64_t size;
	int err = s->target.ops->btrace_conf ? s->target.ops->btrace_conf(s->target.ctx, t, &f, &size)
					     : -ENOENT;

	if (err)
		return err;
	return rsp_buf_printf(out,
			      "<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
			      "<btrace-conf version=\"1.0\">\n<%s size=\"0x%llx\"/>\n</btrace-conf>\n",
			      format_names[f], (unsigned long long)size);
}

static int pt_xml(const struct rsp_btrace_data *d, struct rsp_buf *out)
{
	int err = rsp_buf_puts(out, "<pt>\n");

	if (!err && d->cpu_vendor[0])
		err = rsp_buf_printf(out,
				     "<pt-config>\n<cpu vendor=\"%s\" family=\"%u\" model=\"%u\" "
				     "stepping=\"%u\"/>\n</pt-config>\n",
				     d->cpu_vendor, d->cpu_family, d->cpu_model, d->cpu_stepping);
	if (!err && d->raw->len) {
		err = rsp_buf_puts(out, "<raw>\n");
		if (!err)
			err = rsp_buf_put_hex(out, d->raw->data, d->raw->len);
		if (!err)
			err = rsp_buf_puts(out, "\n</raw>\n");
	}
	return err ? err : rsp_buf_puts(out, "</pt>\n");
}

static int bts_xml(const struct rsp_btrace_data *d, struct rsp_buf *out)
{
	int err = 0;

	for (size_t i = 0; i < d->nblocks && !err; i++)
		err = rsp_buf_printf(out, "<block begin=\"0x%llx\" end=\"0x%llx\"/>\n",
				     (unsigned long long)d->blocks[i].begin,
				     (unsigned long long)d->blocks[i].end);
	return err;
}

static int trace_xml(struct rsp_server *s, struct rsp_ptid t, enum rsp_btrace_read kind,
		     struct rsp_buf *out)
{
	struct rsp_btrace_data d;
	struct rsp_buf raw;
	int r, err;

	if (!s->target.ops->btrace_read)
		return -ENOENT;
	memset(&d, 0, sizeof(d));
	rsp_buf_init(&raw);
	d.raw = &raw;
	r = s->target.ops->btrace_read(s->target.ctx, t, kind, &d);
	err = r < 0 ? r : rsp_buf_puts(out, "<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
					    "<btrace version=\"1.0\">\n");
	if (!err && r == 0)
		err = d.format == RSP_BTRACE_PT ? pt_xml(&d, out) : bts_xml(&d, out);
	if (!err)
		err = rsp_buf_puts(out, "</btrace>\n");
	free(d.blocks);
	rsp_buf_release(&raw);
	return err;
}

int rsp_btrace_xfer(struct rsp_server *s, struct rsp_request *req)
{
	struct rsp_ptid t = rsp_server_resolve(s, s->g_thread);
	struct rsp_buf *obj = &s->btrace.object;
	int err = 0;

	if (!supports(s, RSP_BTRACE_PT) && !supports(s, RSP_BTRACE_BTS))
		return 0; /* not announced: the empty reply, as for any unknown */
	if (req->u.xfer.offset == 0) {
		rsp_buf_reset(obj);
		if (req->u.xfer.kind == RSP_XFER_KIND_BTRACE_CONF)
			err = conf_xml(s, t, obj);
		else
			err = trace_xml(s, t, req->u.xfer.btrace_read, obj);
	}
	if (err == -ENOENT)
		return reply_text(s, err, "Btrace not enabled.");
	if (err == -EOPNOTSUPP)
		return reply_text(s, err, "Delta not supported for this trace format.");
	if (err)
		return reply_text(s, err, strerror(-err));
	return rsp_reply_xfer(&s->reply, obj->data, obj->len, req->u.xfer.offset, req->u.xfer.len);
}
