/*
 * protocol/rsp_packet.c: payload -> typed request, through one table.
 *
 * Each row of `packets` names a packet, how its name is matched and which
 * function parses its arguments. A name ending in a separator (`:` `,` `;`)
 * is a prefix, and the separator is part of the match, so `qXfer:` never
 * takes `qXferX`; a word (`qSupported`) must be followed by the end or a
 * separator. No packet a client sends shares its first letter with the
 * single-letter rows (`m`, `H`, ...), so whatever follows one is its
 * arguments, and bad arguments make the packet malformed.
 * Rows are tried in order: longer names sharing a prefix come first.
 */
#include "protocol/rsp_packet.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "protocol/rsp_hex.h"
#include "protocol/rsp_signals.h"

/* Cursor over the arguments after the packet name. */
struct args {
	const char *p;
	const char *end;
	uint8_t *payload; /* the whole payload, writable */
};

typedef int (*parse_fn)(struct args *a, struct rsp_request *req);

enum match {
	MATCH_EXACT,   /* the whole payload is the name */
	MATCH_PREFIX,  /* the payload starts with the name; arguments follow */
	MATCH_WORD,    /* the name, then the end or one of `:` `,` `;` */
};

struct packet_row {
	const char *name;
	enum match match;
	enum rsp_req_type type;
	parse_fn parse;     /* NULL: no arguments */
};

static bool at_end(const struct args *a)
{
	return a->p >= a->end;
}

static bool eat(struct args *a, char c)
{
	if (at_end(a) || *a->p != c)
		return false;
	a->p++;
	return true;
}

static int hex(struct args *a, uint64_t *out)
{
	return rsp_hex_u64(&a->p, a->end, out);
}

static int done(const struct args *a)
{
	return at_end(a) ? 0 : -EINVAL;
}

/* LLDB appends `;thread:<tid>;` to register and memory packets once
 * QThreadSuffixSupported is on. Strips it from the end of the arguments. */
static int take_thread_suffix(struct args *a, struct rsp_request *req)
{
	static const char key[] = ";thread:";
	const char *s = memmem(a->p, (size_t)(a->end - a->p), key, sizeof(key) - 1);
	const char *q;

	if (!s)
		return 0;
	q = s + sizeof(key) - 1;
	if (rsp_ptid_parse(&q, a->end, &req->thread))
		return -EINVAL;
	if (q < a->end && *q == ';')
		q++;
	if (q != a->end)
		return -EINVAL;
	req->has_thread = true;
	a->end = s;
	return 0;
}

/* One id field: hex, or "-1" for all. */
static int ptid_field(const char **p, const char *end, int64_t *out)
{
	uint64_t v;

	if (end - *p >= 2 && (*p)[0] == '-' && (*p)[1] == '1') {
		*p += 2;
		*out = -1;
		return 0;
	}
	if (rsp_hex_u64(p, end, &v) || v > INT64_MAX)
		return -EINVAL;
	*out = (int64_t)v;
	return 0;
}

int rsp_ptid_parse(const char **p, const char *end, struct rsp_ptid *out)
{
	const char *s = *p;

	if (s < end && *s == 'p') {
		s++;
		if (ptid_field(&s, end, &out->pid))
			return -EINVAL;
		out->tid = -1;
		if (s < end && *s == '.') {
			s++;
			if (ptid_field(&s, end, &out->tid))
				return -EINVAL;
		}
	} else {
		if (ptid_field(&s, end, &out->tid))
			return -EINVAL;
		out->pid = out->tid == -1 ? -1 : 0;
	}
	*p = s;
	return 0;
}

static int parse_supported(struct args *a, struct rsp_request *req)
{
	static const struct { const char *name; unsigned bit; } known[] = {
		{ "multiprocess+", RSP_CLIENT_MULTIPROCESS },
		{ "swbreak+", RSP_CLIENT_SWBREAK },
		{ "hwbreak+", RSP_CLIENT_HWBREAK },
		{ "vContSupported+", RSP_CLIENT_VCONT_SUPPORTED },
		{ "no-resumed+", RSP_CLIENT_NO_RESUMED },
	};

	req->u.client_features = 0;
	if (!eat(a, ':'))
		return done(a);
	while (!at_end(a)) {
		const char *semi = memchr(a->p, ';', (size_t)(a->end - a->p));
		size_t len = (size_t)((semi ? semi : a->end) - a->p);

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (strlen(known[i].name) == len && !memcmp(a->p, known[i].name, len))
				req->u.client_features |= known[i].bit;
		a->p += len + (semi != NULL);
	}
	return 0;
}

static int parse_thread_arg(struct args *a, struct rsp_request *req)
{
	req->has_thread = true;
	if (rsp_ptid_parse(&a->p, a->end, &req->thread))
		return -EINVAL;
	return done(a);
}

static int parse_set_thread(struct args *a, struct rsp_request *req)
{
	if (at_end(a) || (*a->p != 'g' && *a->p != 'c'))
		return -EINVAL;
	req->u.thread_op = *a->p++;
	return parse_thread_arg(a, req);
}

static int parse_optional_pid(struct args *a, struct rsp_request *req, char sep)
{
	uint64_t v;

	req->u.pid = -1;
	if (!eat(a, sep))
		return done(a);
	if (hex(a, &v) || v > INT64_MAX)
		return -EINVAL;
	req->u.pid = (int64_t)v;
	return done(a);
}

static int parse_attached(struct args *a, struct rsp_request *req)
{
	return parse_optional_pid(a, req, ':');
}

static int parse_detach(struct args *a, struct rsp_request *req)
{
	return parse_optional_pid(a, req, ';');
}

static int parse_vkill(struct args *a, struct rsp_request *req)
{
	if (at_end(a))
		return -EINVAL;
	return parse_optional_pid(a, req, ';');
}

static int parse_no_args_suffix(struct args *a, struct rsp_request *req)
{
	if (take_thread_suffix(a, req))
		return -EINVAL;
	return done(a);
}

/* Decodes the hex at the cursor in place; sets *data / *len. */
static int take_hex_data(struct args *a, const uint8_t **data, size_t *len)
{
	uint8_t *dst = (uint8_t *)a->p;
	int n = rsp_hex_decode(a->p, (size_t)(a->end - a->p), dst);

	if (n < 0)
		return n;
	*data = dst;
	*len = (size_t)n;
	a->p = a->end;
	return 0;
}

static int parse_write_regs(struct args *a, struct rsp_request *req)
{
	if (take_thread_suffix(a, req))
		return -EINVAL;
	return take_hex_data(a, &req->u.reg.data, &req->u.reg.len);
}

static int parse_regno(struct args *a, struct rsp_request *req)
{
	uint64_t n;

	if (hex(a, &n) || n > 0xffff)
		return -EINVAL;
	req->u.reg.regno = (unsigned)n;
	return 0;
}

static int parse_read_reg(struct args *a, struct rsp_request *req)
{
	if (take_thread_suffix(a, req) || parse_regno(a, req))
		return -EINVAL;
	return done(a);
}

static int parse_write_reg(struct args *a, struct rsp_request *req)
{
	if (take_thread_suffix(a, req) || parse_regno(a, req) || !eat(a, '='))
		return -EINVAL;
	return take_hex_data(a, &req->u.reg.data, &req->u.reg.len);
}

static int parse_addr_len(struct args *a, struct rsp_request *req)
{
	uint64_t len;

	if (hex(a, &req->u.mem.addr) || !eat(a, ',') || hex(a, &len) || len > SIZE_MAX)
		return -EINVAL;
	req->u.mem.len = (size_t)len;
	req->u.mem.data = NULL;
	return 0;
}

static int parse_read_mem(struct args *a, struct rsp_request *req)
{
	if (take_thread_suffix(a, req) || parse_addr_len(a, req))
		return -EINVAL;
	return done(a);
}

static int parse_write_mem_hex(struct args *a, struct rsp_request *req)
{
	size_t want;
	size_t got;

	if (parse_addr_len(a, req) || !eat(a, ':'))
		return -EINVAL;
	want = req->u.mem.len;
	if ((size_t)(a->end - a->p) != 2 * want)
		return -EINVAL;
	if (take_hex_data(a, &req->u.mem.data, &got))
		return -EINVAL;
	return got == want ? 0 : -EINVAL;
}

/* X: the framer has already undone the escapes; the rest is raw bytes. */
static int parse_write_mem_bin(struct args *a, struct rsp_request *req)
{
	if (parse_addr_len(a, req) || !eat(a, ':'))
		return -EINVAL;
	if ((size_t)(a->end - a->p) != req->u.mem.len)
		return -EINVAL;
	req->u.mem.data = (const uint8_t *)a->p;
	a->p = a->end;
	return 0;
}

static int parse_point(struct args *a, struct rsp_request *req)
{
	uint64_t type, kind;

	if (hex(a, &type) || !eat(a, ','))
		return -EINVAL;
	if (type > RSP_POINT_ACCESS_WATCH)
		return -ENOENT; /* a type we do not know: the empty reply */
	if (hex(a, &req->u.point.addr) || !eat(a, ',') || hex(a, &kind) || kind > 0xffff)
		return -EINVAL;
	req->u.point.type = (enum rsp_point_type)type;
	req->u.point.kind = (int)kind;
	/* Conditions and commands (;X...) are not supported; GDB only sends
	 * them when ConditionalBreakpoints+ was announced. */
	return done(a);
}

static int parse_signal(struct args *a, int *gdb_signo)
{
	uint64_t v;

	if (hex(a, &v) || v > 0xff)
		return -EINVAL;
	*gdb_signo = (int)v;
	return 0;
}

/* c[addr] / s[addr] */
static int parse_resume(struct args *a, struct rsp_request *req)
{
	req->u.resume.gdb_signo = 0;
	req->u.resume.has_addr = !at_end(a);
	if (req->u.resume.has_addr && hex(a, &req->u.resume.addr))
		return -EINVAL;
	return done(a);
}

/* C<sig>[;addr] / S<sig>[;addr] */
static int parse_resume_signal(struct args *a, struct rsp_request *req)
{
	if (parse_signal(a, &req->u.resume.gdb_signo))
		return -EINVAL;
	req->u.resume.has_addr = eat(a, ';');
	if (req->u.resume.has_addr && hex(a, &req->u.resume.addr))
		return -EINVAL;
	return done(a);
}

static int parse_vcont_action(struct args *a, struct rsp_vcont_action *act)
{
	if (at_end(a))
		return -EINVAL;
	memset(act, 0, sizeof(*act));
	act->action = *a->p++;
	switch (act->action) {
	case 'c': case 's': case 't':
		break;
	case 'C': case 'S':
		if (parse_signal(a, &act->gdb_signo))
			return -EINVAL;
		break;
	case 'r':
		if (hex(a, &act->range_start) || !eat(a, ',') || hex(a, &act->range_end))
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (eat(a, ':')) {
		act->has_thread = true;
		if (rsp_ptid_parse(&a->p, a->end, &act->thread))
			return -EINVAL;
	}
	return 0;
}

static int parse_vcont(struct args *a, struct rsp_request *req)
{
	req->u.vcont.n = 0;
	do {
		if (req->u.vcont.n == RSP_VCONT_MAX)
			return -E2BIG;
		if (parse_vcont_action(a, &req->u.vcont.actions[req->u.vcont.n++]))
			return -EINVAL;
	} while (eat(a, ';'));
	return done(a);
}

/* Splits off the next `:`-terminated field and NUL-terminates it. */
static const char *take_field(struct args *a)
{
	char *start = (char *)a->p;
	char *colon = memchr(start, ':', (size_t)(a->end - a->p));

	if (!colon)
		return NULL;
	*colon = 0;
	a->p = colon + 1;
	return start;
}

/* The annex of qXfer:btrace:read. */
static int parse_btrace_annex(struct rsp_request *req)
{
	static const char *const names[] = { "all", "new", "delta" };

	for (int i = 0; i < 3; i++) {
		if (!strcmp(req->u.xfer.annex, names[i])) {
			req->u.xfer.btrace_read = (enum rsp_btrace_read)i;
			return 0;
		}
	}
	req->error_text = "Bad annex.";
	return -EINVAL;
}

static int parse_xfer(struct args *a, struct rsp_request *req)
{
	static const struct { const char *name; enum rsp_xfer_kind kind; enum rsp_xfer_object obj; } objects[] = {
		{ "features", RSP_XFER_KIND_FEATURES, 0 },
		{ "threads", RSP_XFER_KIND_THREADS, 0 },
		{ "btrace", RSP_XFER_KIND_BTRACE, 0 },
		{ "btrace-conf", RSP_XFER_KIND_BTRACE_CONF, 0 },
		{ "auxv", RSP_XFER_KIND_TARGET, RSP_XFER_AUXV },
		{ "exec-file", RSP_XFER_KIND_TARGET, RSP_XFER_EXEC_FILE },
		{ "libraries-svr4", RSP_XFER_KIND_TARGET, RSP_XFER_LIBRARIES_SVR4 },
		{ "siginfo", RSP_XFER_KIND_TARGET, RSP_XFER_SIGINFO },
	};
	const char *object = take_field(a), *op = take_field(a), *annex = take_field(a);
	size_t i, n = sizeof(objects) / sizeof(objects[0]);

	if (!object || !op || !annex)
		return -EINVAL;
	for (i = 0; i < n && strcmp(objects[i].name, object); i++)
		;
	if (i == n || strcmp(op, "read"))
		return -ENOENT; /* an object or operation we do not serve */
	req->u.xfer.kind = objects[i].kind;
	req->u.xfer.object = objects[i].obj;
	req->u.xfer.annex = annex;
	if (hex(a, &req->u.xfer.offset) || !eat(a, ',') || hex(a, &req->u.xfer.len))
		return -EINVAL;
	if (req->u.xfer.kind == RSP_XFER_KIND_BTRACE && parse_btrace_annex(req))
		return -EINVAL;
	return done(a);
}

static int parse_monitor(struct args *a, struct rsp_request *req)
{
	uint8_t *dst = (uint8_t *)a->p;
	int n = rsp_hex_decode(a->p, (size_t)(a->end - a->p), dst);

	if (n < 0 || memchr(dst, 0, (size_t)n))
		return -EINVAL;
	dst[n] = 0;
	req->u.monitor.text = (const char *)dst;
	a->p = a->end;
	return 0;
}

static int parse_pass_signals(struct args *a, struct rsp_request *req)
{
	memset(&req->u.pass, 0, sizeof(req->u.pass));
	while (!at_end(a)) {
		int gsig, sig;

		if (parse_signal(a, &gsig))
			return -EINVAL;
		sig = rsp_signal_from_gdb(gsig);
		if (sig > 0 && sig < RSP_NSIG)
			req->u.pass.host[sig] = 1;
		if (gsig >= 0 && gsig < 256)
			req->u.pass.raw[gsig] = 1;
		if (!eat(a, ';'))
			break;
	}
	return done(a);
}

static int parse_skip_args(struct args *a, struct rsp_request *req)
{
	(void)req;
	a->p = a->end;
	return 0;
}

static int parse_flag(struct args *a, struct rsp_request *req)
{
	if (at_end(a) || (*a->p != '0' && *a->p != '1'))
		return -EINVAL;
	req->u.flag = *a->p++ == '1';
	return done(a);
}

static int parse_addr(struct args *a, struct rsp_request *req)
{
	if (hex(a, &req->u.addr))
		return -EINVAL;
	return done(a);
}

static int parse_vfile(struct args *a, struct rsp_request *req)
{
	req->u.vfile_args = (char *)a->p; /* NUL-terminated by the parser */
	a->p = a->end;
	return 0;
}

static int parse_btrace_format(struct args *a, enum rsp_btrace_format *out)
{
	size_t n = (size_t)(a->end - a->p);

	if (n >= 3 && !memcmp(a->p, "bts", 3)) {
		*out = RSP_BTRACE_BTS;
		a->p += 3;
		return 0;
	}
	if (n >= 2 && !memcmp(a->p, "pt", 2)) {
		*out = RSP_BTRACE_PT;
		a->p += 2;
		return 0;
	}
	return -EINVAL;
}

/* Qbtrace:bts | pt | off, with gdbserver's error text. */
static int parse_btrace(struct args *a, struct rsp_request *req)
{
	req->u.btrace.off = (size_t)(a->end - a->p) == 3 && !memcmp(a->p, "off", 3);
	if (req->u.btrace.off)
		a->p = a->end;
	if (!req->u.btrace.off && (parse_btrace_format(a, &req->u.btrace.format) || !at_end(a))) {
		req->error_text = "Bad Qbtrace operation.  Use bts, pt, or off.";
		return -EINVAL;
	}
	return 0;
}

/* Qbtrace-conf:bts:size=<n> | pt:size=<n>; n in C syntax (GDB sends 0x..). */
static int parse_btrace_conf(struct args *a, struct rsp_request *req)
{
	static const char key[] = ":size=";
	char *end;

	if (parse_btrace_format(a, &req->u.btrace.format) ||
	    (size_t)(a->end - a->p) < sizeof(key) - 1 || memcmp(a->p, key, sizeof(key) - 1)) {
		req->error_text = "Bad Qbtrace configuration option.";
		return -EINVAL;
	}
	a->p += sizeof(key) - 1;
	errno = 0;
	req->u.btrace.size = strtoull(a->p, &end, 0);
	if (end == a->p || end != a->end || errno || req->u.btrace.size > UINT32_MAX) {
		req->error_text = "Bad size value.";
		return -EINVAL;
	}
	a->p = a->end;
	return 0;
}

static int parse_stop_info(struct args *a, struct rsp_request *req)
{
	return parse_thread_arg(a, req);
}

static const struct packet_row packets[] = {
	{ "qSupported", MATCH_WORD, RSP_REQ_SUPPORTED, parse_supported },
	{ "QStartNoAckMode", MATCH_EXACT, RSP_REQ_START_NOACK, NULL },
	{ "?", MATCH_EXACT, RSP_REQ_HALT_REASON, NULL },
	{ "H", MATCH_PREFIX, RSP_REQ_SET_THREAD, parse_set_thread },
	{ "T", MATCH_PREFIX, RSP_REQ_THREAD_ALIVE, parse_thread_arg },
	{ "qC", MATCH_EXACT, RSP_REQ_CURRENT_THREAD, NULL },
	{ "qfThreadInfo", MATCH_EXACT, RSP_REQ_THREAD_INFO_FIRST, NULL },
	{ "qsThreadInfo", MATCH_EXACT, RSP_REQ_THREAD_INFO_NEXT, NULL },
	{ "qThreadExtraInfo,", MATCH_PREFIX, RSP_REQ_THREAD_EXTRA_INFO, parse_thread_arg },
	{ "qAttached", MATCH_WORD, RSP_REQ_ATTACHED, parse_attached },
	{ "g", MATCH_PREFIX, RSP_REQ_READ_REGS, parse_no_args_suffix },
	{ "G", MATCH_PREFIX, RSP_REQ_WRITE_REGS, parse_write_regs },
	{ "p", MATCH_PREFIX, RSP_REQ_READ_REG, parse_read_reg },
	{ "P", MATCH_PREFIX, RSP_REQ_WRITE_REG, parse_write_reg },
	{ "m", MATCH_PREFIX, RSP_REQ_READ_MEM, parse_read_mem },
	{ "M", MATCH_PREFIX, RSP_REQ_WRITE_MEM, parse_write_mem_hex },
	{ "X", MATCH_PREFIX, RSP_REQ_WRITE_MEM, parse_write_mem_bin },
	{ "Z", MATCH_PREFIX, RSP_REQ_INSERT_POINT, parse_point },
	{ "z", MATCH_PREFIX, RSP_REQ_REMOVE_POINT, parse_point },
	{ "c", MATCH_PREFIX, RSP_REQ_CONTINUE, parse_resume },
	{ "C", MATCH_PREFIX, RSP_REQ_CONTINUE, parse_resume_signal },
	{ "s", MATCH_PREFIX, RSP_REQ_STEP, parse_resume },
	{ "S", MATCH_PREFIX, RSP_REQ_STEP, parse_resume_signal },
	{ "vCont?", MATCH_EXACT, RSP_REQ_VCONT_QUERY, NULL },
	{ "vCont;", MATCH_PREFIX, RSP_REQ_VCONT, parse_vcont },
	{ "bs", MATCH_EXACT, RSP_REQ_REVERSE_STEP, NULL },
	{ "bc", MATCH_EXACT, RSP_REQ_REVERSE_CONTINUE, NULL },
	{ "k", MATCH_EXACT, RSP_REQ_KILL, NULL },
	{ "vKill", MATCH_WORD, RSP_REQ_VKILL, parse_vkill },
	{ "D", MATCH_PREFIX, RSP_REQ_DETACH, parse_detach },
	{ "qXfer:", MATCH_PREFIX, RSP_REQ_XFER_READ, parse_xfer },
	{ "qRcmd,", MATCH_PREFIX, RSP_REQ_MONITOR, parse_monitor },
	{ "QPassSignals:", MATCH_PREFIX, RSP_REQ_PASS_SIGNALS, parse_pass_signals },
	{ "QProgramSignals:", MATCH_PREFIX, RSP_REQ_PROGRAM_SIGNALS, parse_skip_args },
	{ "QNonStop:", MATCH_PREFIX, RSP_REQ_NON_STOP, parse_flag },
	{ "qSymbol:", MATCH_PREFIX, RSP_REQ_SYMBOL, parse_skip_args },
	{ "qHostInfo", MATCH_EXACT, RSP_REQ_HOST_INFO, NULL },
	{ "qProcessInfo", MATCH_EXACT, RSP_REQ_PROCESS_INFO, NULL },
	{ "qShlibInfoAddr", MATCH_EXACT, RSP_REQ_SHLIB_INFO_ADDR, NULL },
	{ "qMemoryRegionInfo:", MATCH_PREFIX, RSP_REQ_MEMORY_REGION_INFO, parse_addr },
	{ "QThreadSuffixSupported", MATCH_EXACT, RSP_REQ_THREAD_SUFFIX, NULL },
	{ "QListThreadsInStopReply", MATCH_EXACT, RSP_REQ_THREADS_IN_STOP, NULL },
	{ "QEnableErrorStrings", MATCH_EXACT, RSP_REQ_ERROR_STRINGS, NULL },
	{ "qThreadStopInfo", MATCH_PREFIX, RSP_REQ_THREAD_STOP_INFO, parse_stop_info },
	{ "qGDBServerVersion", MATCH_EXACT, RSP_REQ_SERVER_VERSION, NULL },
	{ "vFile:", MATCH_PREFIX, RSP_REQ_VFILE, parse_vfile },
	{ "Qbtrace:", MATCH_PREFIX, RSP_REQ_BTRACE, parse_btrace },
	{ "Qbtrace-conf:", MATCH_PREFIX, RSP_REQ_BTRACE_CONF, parse_btrace_conf },
};

static const struct packet_row *find_row(const char *payload, size_t len)
{
	for (size_t i = 0; i < sizeof(packets) / sizeof(packets[0]); i++) {
		const struct packet_row *row = &packets[i];
		size_t n = strlen(row->name);

		if (n > len || memcmp(payload, row->name, n))
			continue;
		if (row->match == MATCH_EXACT && n != len)
			continue;
		if (row->match == MATCH_WORD && n < len && !strchr(":,;", payload[n]))
			continue;
		return row;
	}
	return NULL;
}

int rsp_request_parse(uint8_t *payload, size_t len, struct rsp_request *req)
{
	const struct packet_row *row;
	struct args a;
	int err = 0;

	memset(req, 0, sizeof(*req));
	payload[len] = 0;
	row = find_row((const char *)payload, len);
	if (!row) {
		req->type = RSP_REQ_UNKNOWN;
		return 0;
	}
	req->type = row->type;
	a.payload = payload;
	a.p = (const char *)payload + strlen(row->name);
	a.end = (const char *)payload + len;
	if (row->parse)
		err = row->parse(&a, req);
	if (err == -ENOENT) {
		req->type = RSP_REQ_UNKNOWN;
	} else if (err) {
		req->type = RSP_REQ_MALFORMED;
		req->error = err;
		if (!req->error_text)
			req->error_text = "malformed packet";
	}
	return 0;
}
