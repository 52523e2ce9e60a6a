/*
 * tests/unit/test_rsp_server.c: the server end to end over a socketpair,
 * against a fake in-memory target.
 *
 * Each test writes what a client would send (framed packets, acks, noise),
 * closes its end, lets rsp_server_serve() run to the end of the stream, then
 * reads back every packet the server sent and compares them with what GDB
 * or LLDB must get. The fake target has two threads (0x64, 0x65), 4 KiB of
 * memory at 0x1000 and records what it was asked to do.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "protocol/rsp_frame.h"
#include "protocol/rsp_server.h"

#define MEM_BASE 0x1000
#define MEM_SIZE 0x1000
#define PID 0x64

struct fake {
	uint8_t mem[MEM_SIZE];
	struct rsp_regs regs;
	uint64_t bp_addr;          /* a Z0 breakpoint, 0 if none */
	struct rsp_resume resumed[4];
	size_t nresumed;
	uint8_t pass[RSP_NSIG];
	bool killed;
	int point_calls;
};

static struct fake fake;

static unsigned f_features(void *ctx)
{
	(void)ctx;
	return RSP_TARGET_AVX | RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_LIBRARIES;
}

static int f_threads(void *ctx, struct rsp_thread_info *out, size_t max)
{
	(void)ctx;
	if (fake.killed)
		return 0;
	for (size_t i = 0; i < 2 && i < max; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		out[i].ptid = (struct rsp_ptid){ PID, PID + (int64_t)i };
		snprintf(out[i].name, sizeof(out[i].name), "fake<%zu>", i);
		out[i].core = (int)i;
	}
	return 2;
}

static int f_thread_alive(void *ctx, struct rsp_ptid t)
{
	(void)ctx;
	return t.tid == PID || t.tid == PID + 1 ? 0 : -ESRCH;
}

static int f_read_regs(void *ctx, struct rsp_ptid t, struct rsp_regs *out)
{
	(void)ctx;
	(void)t;
	*out = fake.regs;
	return 0;
}

static int f_write_regs(void *ctx, struct rsp_ptid t, const struct rsp_regs *in)
{
	(void)ctx;
	(void)t;
	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (in->avail[r])
			memcpy(rsp_regs_ptr(&fake.regs, r), in->bytes + rsp_reg_descs[r].offset,
			       rsp_reg_descs[r].size);
	return 0;
}

static int f_read_mem(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < MEM_BASE || addr >= MEM_BASE + MEM_SIZE)
		return -EIO;
	if (len > MEM_BASE + MEM_SIZE - addr)
		len = MEM_BASE + MEM_SIZE - addr;
	memcpy(buf, fake.mem + (addr - MEM_BASE), len);
	return (int)len;
}

static int f_write_mem(void *ctx, uint64_t addr, const void *buf, size_t len)
{
	(void)ctx;
	if (addr < MEM_BASE || addr + len > MEM_BASE + MEM_SIZE)
		return -EIO;
	memcpy(fake.mem + (addr - MEM_BASE), buf, len);
	return 0;
}

static int f_insert_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	(void)ctx;
	(void)kind;
	fake.point_calls++;
	if (type == RSP_POINT_READ_WATCH)
		return -EOPNOTSUPP;
	if (type == RSP_POINT_SW_BREAK)
		fake.bp_addr = addr;
	return 0;
}

static int f_remove_point(void *ctx, enum rsp_point_type type, uint64_t addr, int kind)
{
	(void)ctx;
	(void)addr;
	(void)kind;
	if (type == RSP_POINT_SW_BREAK)
		fake.bp_addr = 0;
	return 0;
}

static int f_resume(void *ctx, const struct rsp_resume *a, size_t n)
{
	(void)ctx;
	fake.nresumed = n < 4 ? n : 4;
	memcpy(fake.resumed, a, fake.nresumed * sizeof(*a));
	return 0;
}

static int f_event_fd(void *ctx)
{
	(void)ctx;
	return -1;
}

/* A continue runs to the breakpoint; a step moves rip by one. */
static int f_wait(void *ctx, struct rsp_stop *out, bool block)
{
	(void)ctx;
	(void)block;
	memset(out, 0, sizeof(*out));
	out->kind = RSP_STOP_SIGNAL;
	out->thread = fake.resumed[0].thread;
	out->signo = SIGTRAP;
	if (fake.resumed[0].kind == RSP_RESUME_CONTINUE && fake.bp_addr) {
		rsp_regs_set(&fake.regs, RSP_REG_RIP, fake.bp_addr);
		out->reason = RSP_REASON_SWBREAK;
	} else {
		rsp_regs_set(&fake.regs, RSP_REG_RIP, rsp_regs_get(&fake.regs, RSP_REG_RIP) + 1);
		out->reason = RSP_REASON_STEP;
	}
	return 1;
}

static int f_interrupt(void *ctx)
{
	(void)ctx;
	return 0;
}

static int f_kill(void *ctx)
{
	(void)ctx;
	fake.killed = true;
	return 0;
}

static int f_detach(void *ctx)
{
	(void)ctx;
	return 0;
}

static int f_xfer_read(void *ctx, enum rsp_xfer_object obj, const char *annex, struct rsp_buf *out)
{
	(void)ctx;
	(void)annex;
	return obj == RSP_XFER_AUXV ? rsp_buf_puts(out, "AUXVDATA") : -EOPNOTSUPP;
}

static int f_process_info(void *ctx, struct rsp_process_info *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	out->pid = PID;
	out->ppid = 1;
	return 0;
}

static int f_shlib_info_addr(void *ctx, uint64_t *addr)
{
	(void)ctx;
	*addr = 0x2000;
	return 0;
}

static int f_memory_region(void *ctx, uint64_t addr, struct rsp_region *out)
{
	(void)ctx;
	memset(out, 0, sizeof(*out));
	out->start = MEM_BASE;
	out->size = MEM_SIZE;
	out->mapped = addr >= MEM_BASE && addr < MEM_BASE + MEM_SIZE;
	out->read = out->write = out->exec = true;
	return 0;
}

static int f_set_pass_signals(void *ctx, const uint8_t pass[RSP_NSIG])
{
	(void)ctx;
	memcpy(fake.pass, pass, RSP_NSIG);
	return 0;
}

static int f_monitor(void *ctx, const char *cmd, struct rsp_buf *out)
{
	(void)ctx;
	if (!strcmp(cmd, "help"))
		return rsp_buf_puts(out, "  fake-cmd     a command of the target\n");
	if (!strcmp(cmd, "fake-cmd"))
		return rsp_buf_puts(out, "fake output\n");
	return -ENOENT;
}

static const struct rsp_target_ops fake_ops = {
	.features = f_features, .threads = f_threads, .thread_alive = f_thread_alive,
	.read_regs = f_read_regs, .write_regs = f_write_regs, .read_mem = f_read_mem,
	.write_mem = f_write_mem, .insert_point = f_insert_point,
	.remove_point = f_remove_point, .resume = f_resume, .event_fd = f_event_fd,
	.wait = f_wait, .interrupt = f_interrupt, .kill = f_kill, .detach = f_detach,
	.xfer_read = f_xfer_read, .process_info = f_process_info,
	.shlib_info_addr = f_shlib_info_addr, .memory_region = f_memory_region,
	.set_pass_signals = f_set_pass_signals, .monitor = f_monitor,
};

/* Branch tracing: one traced thread at most; "PT" bytes are fixed. */
static struct {
	bool on;
	enum rsp_btrace_format format;
	uint64_t size;
	int reads;
} bt;

static unsigned f_features_bt(void *ctx)
{
	(void)ctx;
	return RSP_TARGET_AVX | RSP_TARGET_BTRACE_PT | RSP_TARGET_BTRACE_BTS |
	       RSP_TARGET_XFER_AUXV | RSP_TARGET_XFER_LIBRARIES;
}

static int f_btrace_enable(void *ctx, struct rsp_ptid t, enum rsp_btrace_format f, uint64_t size)
{
	(void)ctx;
	(void)t;
	if (bt.on)
		return -EALREADY;
	bt.on = true;
	bt.format = f;
	bt.size = size;
	return 0;
}

static int f_btrace_disable(void *ctx, struct rsp_ptid t)
{
	(void)ctx;
	(void)t;
	if (!bt.on)
		return -ENOENT;
	bt.on = false;
	return 0;
}

static int f_btrace_conf(void *ctx, struct rsp_ptid t, enum rsp_btrace_format *f, uint64_t *size)
{
	(void)ctx;
	(void)t;
	if (!bt.on)
		return -ENOENT;
	*f = bt.format;
	*size = bt.size;
	return 0;
}

static int f_btrace_read(void *ctx, struct rsp_ptid t, enum rsp_btrace_read kind,
			 struct rsp_btrace_data *out)
{
	(void)ctx;
	(void)t;
	if (!bt.on)
		return -ENOENT;
	if (kind == RSP_BTRACE_READ_DELTA && bt.format == RSP_BTRACE_PT)
		return -EOPNOTSUPP;
	if (kind == RSP_BTRACE_READ_NEW && bt.reads++ > 0)
		return 1;
	out->format = bt.format;
	if (bt.format == RSP_BTRACE_PT) {
		snprintf(out->cpu_vendor, sizeof(out->cpu_vendor), "GenuineIntel");
		out->cpu_family = 6;
		out->cpu_model = 140;
		out->cpu_stepping = 1;
		return rsp_buf_append(out->raw, "\x02\x82\x02\x82", 4);
	}
	out->blocks = calloc(2, sizeof(*out->blocks));
	out->blocks[0] = (struct rsp_btrace_block){ 0x1010, 0x1010 };
	out->blocks[1] = (struct rsp_btrace_block){ 0x1000, 0x100c };
	out->nblocks = 2;
	return 0;
}

static struct rsp_target_ops fake_bt_ops;
static const struct rsp_target_ops *ops_under_test = &fake_ops;

static int setup(void **state)
{
	(void)state;
	ops_under_test = &fake_ops;
	memset(&bt, 0, sizeof(bt));
	memset(&fake, 0, sizeof(fake));
	for (int i = 0; i < MEM_SIZE; i++)
		fake.mem[i] = (uint8_t)i;
	for (int r = 0; r < RSP_REG_COUNT; r++)
		rsp_regs_set(&fake.regs, r, 0x1100 + (uint64_t)r);
	return 0;
}

/* The server's whole output, split into acks ("+" / "-") and payloads. */
struct transcript {
	char *items[64];
	size_t n;
};

static void transcript_free(struct transcript *t)
{
	for (size_t i = 0; i < t->n; i++)
		free(t->items[i]);
}

static void split_output(const uint8_t *data, size_t len, struct transcript *t)
{
	struct rsp_frame f;

	rsp_frame_init(&f, 1 << 20);
	t->n = 0;
	for (size_t i = 0; i < len && t->n < 64; i++) {
		switch (rsp_frame_feed(&f, data[i])) {
		case RSP_FRAME_ACK: t->items[t->n++] = strdup("+"); break;
		case RSP_FRAME_NACK: t->items[t->n++] = strdup("-"); break;
		case RSP_FRAME_PACKET:
			assert_true(f.csum_ok);
			t->items[t->n++] = strndup((const char *)f.payload.data, f.payload.len);
			break;
		default: break;
		}
	}
	rsp_frame_release(&f);
}

/* Sends @packets (framed; "!" prefix: raw bytes; "+", "-", "\x03" as
 * they are) to a fresh server, after QStartNoAckMode when @noack, and
 * returns what the server sent, minus the no-ack handshake. */
static void exchange(const char *const *packets, size_t npackets, bool noack,
		     struct transcript *t, struct rsp_server *srv)
{
	struct rsp_server_options opt = { .name = "test", .version = "1" };
	struct rsp_buf in;
	int sv[2];
	uint8_t buf[1 << 16];
	struct rsp_buf out;
	ssize_t n;

	rsp_buf_init(&in);
	rsp_buf_init(&out);
	if (noack)
		assert_int_equal(rsp_frame_encode(&in, "QStartNoAckMode", 15), 0);
	for (size_t i = 0; i < npackets; i++) {
		if (packets[i][0] == '\x03' || packets[i][0] == '+' || packets[i][0] == '-')
			rsp_buf_puts(&in, packets[i]);
		else if (packets[i][0] == '!')
			rsp_buf_puts(&in, packets[i] + 1); /* raw bytes, pre-framed */
		else
			rsp_frame_encode(&in, packets[i], strlen(packets[i]));
	}
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	/* A child writes the input (it may exceed the socket buffer) and
	 * closes the client's sending side; the server reads to the end. */
	if (fork() == 0) {
		for (size_t off = 0; off < in.len;) {
			ssize_t w = write(sv[1], in.data + off, in.len - off);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
		}
		shutdown(sv[1], SHUT_WR);
		_exit(0);
	}
	assert_int_equal(rsp_server_init(srv, (struct rsp_target){ ops_under_test, &fake }, &opt), 0);
	assert_true(rsp_server_serve(srv, sv[0]) >= 0);
	close(sv[0]);
	while ((n = read(sv[1], buf, sizeof(buf))) > 0)
		rsp_buf_append(&out, buf, (size_t)n);
	close(sv[1]);
	wait(NULL);
	split_output(out.data, out.len, t);
	/* Drop the no-ack handshake: "+", "OK". */
	if (noack) {
		assert_true(t->n >= 2);
		assert_string_equal(t->items[0], "+");
		assert_string_equal(t->items[1], "OK");
		free(t->items[0]);
		free(t->items[1]);
		memmove(t->items, t->items + 2, (t->n - 2) * sizeof(t->items[0]));
		t->n -= 2;
	}
	rsp_buf_release(&in);
	rsp_buf_release(&out);
}

#define EXCHANGE(t, srv, ...) do { \
	static const char *const pk[] = { __VA_ARGS__ }; \
	exchange(pk, sizeof(pk) / sizeof(pk[0]), true, (t), (srv)); \
} while (0)

static const char gdb_supported[] =
	"qSupported:multiprocess+;swbreak+;hwbreak+;qRelocInsn+;fork-events+;"
	"vfork-events+;exec-events+;vContSupported+;QThreadEvents+;no-resumed+;"
	"memory-tagging+;xmlRegisters=i386";
static const char lldb_supported[] =
	"qSupported:xmlRegisters=i386,arm,mips,arc;multiprocess+;fork-events+;vfork-events+";

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void test_supported_announces_only_what_works(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported);
	assert_int_equal(t.n, 1);
	assert_true(starts_with(t.items[0], "PacketSize=20000;QStartNoAckMode+;"));
	assert_non_null(strstr(t.items[0], "swbreak+"));
	assert_non_null(strstr(t.items[0], "qXfer:libraries-svr4:read+"));
	assert_non_null(strstr(t.items[0], "qXfer:auxv:read+"));
	assert_null(strstr(t.items[0], "qXfer:siginfo:read+")); /* the fake has none */
	assert_null(strstr(t.items[0], "ReverseStep+"));  /* a live target */
	assert_null(strstr(t.items[0], "Qbtrace"));
	assert_null(strstr(t.items[0], "Tracepoints"));
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_ack_mode_nacks_bad_checksum_and_resends(void **state)
{
	static const char *const pk[] = { "!$?#00", "?", "-" };
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	exchange(pk, 3, false, &t, &srv);
	/* bad checksum: "-"; then "?": "+", the stop reply; "-": resent. */
	assert_int_equal(t.n, 4);
	assert_string_equal(t.items[0], "-");
	assert_string_equal(t.items[1], "+");
	assert_true(starts_with(t.items[2], "T05"));
	assert_string_equal(t.items[3], t.items[2]);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_halt_reason_expedites_rbp_rsp_rip(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "?", gdb_supported, "?");
	/* Before qSupported: plain thread ids; after: p<pid>.<tid>. */
	assert_string_equal(t.items[0],
		"T0506:0611000000000000;07:0711000000000000;10:1011000000000000;thread:64;");
	assert_string_equal(t.items[2],
		"T0506:0611000000000000;07:0711000000000000;10:1011000000000000;thread:p64.64;");
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_registers_read_and_write(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "g", "p10", "P10=efbeadde00000000", "p10", "p4c", "P10=ef");
	assert_int_equal(strlen(t.items[0]), 2 * RSP_REGS_SIZE);
	assert_true(starts_with(t.items[0], "0011000000000000" "0111000000000000"));
	assert_string_equal(t.items[1], "1011000000000000");
	assert_string_equal(t.items[2], "OK");
	assert_string_equal(t.items[3], "efbeadde00000000");
	assert_true(starts_with(t.items[4], "E"));  /* no register 0x4c */
	assert_true(starts_with(t.items[5], "E"));  /* wrong size */
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_memory_read_write_and_errors(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "m1004,4", "M1004,2:abcd", "m1004,4", "X1000,0:", "m0,4",
		 gdb_supported, "m0,4", "mzz,1", "m1ffe,10");
	assert_string_equal(t.items[0], "04050607");
	assert_string_equal(t.items[1], "OK");
	assert_string_equal(t.items[2], "abcd0607");
	assert_string_equal(t.items[3], "OK");
	assert_string_equal(t.items[4], "E05");                      /* EIO, plain */
	assert_string_equal(t.items[6], "E05");  /* GDB 13 wants Exx after m */
	assert_string_equal(t.items[7], "E.malformed packet");
	assert_string_equal(t.items[8], "E05");   /* all or nothing, as gdbserver */
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_breakpoint_stop_reason_only_when_asked(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, lldb_supported, "Z0,1010,1", "c", gdb_supported, "Z3,1010,4",
		 "Z0,1010,1", "vCont;c:p64.-1");
	assert_string_equal(t.items[1], "OK");
	/* LLDB 14 did not ask for swbreak: no key, the pc is the breakpoint. */
	assert_string_equal(t.items[2],
		"T0506:0611000000000000;07:0711000000000000;10:1010000000000000;thread:p64.64;");
	assert_string_equal(t.items[4], "");  /* Z3: not supported */
	assert_string_equal(t.items[5], "OK");
	assert_non_null(strstr(t.items[6], "swbreak:;"));
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_vcont_leftmost_action_per_thread(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported, "vCont?", "vCont;s:p64.65;c:p64.-1");
	assert_string_equal(t.items[1], "vCont;c;C;s;S;t;r");
	assert_int_equal(fake.nresumed, 2);
	assert_int_equal(fake.resumed[0].thread.tid, 0x64);
	assert_int_equal(fake.resumed[0].kind, RSP_RESUME_CONTINUE);
	assert_int_equal(fake.resumed[1].thread.tid, 0x65);
	assert_int_equal(fake.resumed[1].kind, RSP_RESUME_STEP);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_vcont_range_and_signal(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported, "vCont;r1000,1008:p64.64;C1e:p64.65");
	assert_int_equal(fake.nresumed, 2);
	assert_int_equal(fake.resumed[0].kind, RSP_RESUME_RANGE);
	assert_int_equal(fake.resumed[0].range_start, 0x1000);
	assert_int_equal(fake.resumed[0].range_end, 0x1008);
	assert_int_equal(fake.resumed[1].kind, RSP_RESUME_CONTINUE);
	assert_int_equal(fake.resumed[1].signo, SIGUSR1); /* GDB 0x1e is SIGUSR1 */
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_legacy_step_acts_on_hc_thread_only(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "Hc65", "S0b");
	assert_string_equal(t.items[0], "OK");
	assert_int_equal(fake.nresumed, 1);
	assert_int_equal(fake.resumed[0].thread.tid, 0x65);
	assert_int_equal(fake.resumed[0].kind, RSP_RESUME_STEP);
	assert_int_equal(fake.resumed[0].signo, SIGSEGV);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_threads(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported, "qfThreadInfo", "qsThreadInfo", "qC", "Hgp64.65",
		 "Hgp64.99", "Tp64.65", "T99", "qXfer:threads:read::0,1000");
	assert_string_equal(t.items[1], "mp64.64,p64.65");
	assert_string_equal(t.items[2], "l");
	assert_string_equal(t.items[3], "QCp64.64");
	assert_string_equal(t.items[4], "OK");
	assert_string_equal(t.items[5], "E03");  /* ESRCH */
	assert_string_equal(t.items[6], "OK");
	assert_string_equal(t.items[7], "E03");
	assert_non_null(strstr(t.items[8], "<thread id=\"p64.65\" core=\"1\" name=\"fake&lt;1&gt;\"/>"));
	assert_true(starts_with(t.items[8], "l<?xml"));
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_xfer_objects_and_slices(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "qXfer:features:read:target.xml:0,10",
		 "qXfer:features:read:target.xml:fffff,10", "qXfer:features:read:other.xml:0,10",
		 "qXfer:auxv:read::0,1000", "qXfer:auxv:read::4,2",
		 "qXfer:libraries-svr4:read::0,1000", "qXfer:btrace-conf:read::0,1000");
	assert_string_equal(t.items[0], "m<?xml version=\"1");
	assert_string_equal(t.items[1], "l");
	assert_true(starts_with(t.items[2], "E"));
	assert_string_equal(t.items[3], "lAUXVDATA");
	assert_string_equal(t.items[4], "mDA");
	assert_string_equal(t.items[5], "");  /* the target does not serve it */
	assert_string_equal(t.items[6], "");  /* btrace-conf: never at connect */
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_monitor_commands(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	/* help, fake-cmd, nope, exit */
	EXCHANGE(&t, &srv, "qRcmd,68656c70", "qRcmd,66616b652d636d64", "qRcmd,6e6f7065",
		 "qRcmd,65786974");
	assert_int_equal(t.n, 8);
	assert_true(starts_with(t.items[0], "O"));
	assert_string_equal(t.items[1], "OK");
	assert_string_equal(t.items[2], "O66616b65206f75747075740a"); /* "fake output\n" */
	assert_string_equal(t.items[3], "OK");
	assert_string_equal(t.items[5], "OK");
	assert_string_equal(t.items[7], "OK");
	assert_true(srv.exit_requested);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_kill_and_after(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported, "qAttached", "vKill;64", "?", "g", "k");
	assert_string_equal(t.items[1], "0");
	assert_string_equal(t.items[2], "OK");
	assert_string_equal(t.items[3], "X09;process:64");
	assert_string_equal(t.items[4], "E03");  /* no process any more */
	assert_string_equal(t.items[5], "X09;process:64");
	assert_true(fake.killed);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_unknown_and_malformed(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "vMustReplyEmpty", "qTStatus", "vFile:setfs:0", "", "Z9,0,1",
		 "QNonStop:0", "QNonStop:1", "qSymbol::", "qOffsets");
	assert_string_equal(t.items[0], "");
	assert_string_equal(t.items[1], "");
	assert_string_equal(t.items[2], "F0");  /* vFile:setfs */
	assert_string_equal(t.items[3], "");
	assert_string_equal(t.items[4], "");  /* Z9: a type nobody knows */
	assert_string_equal(t.items[5], "OK");
	assert_true(starts_with(t.items[6], "E"));
	assert_string_equal(t.items[7], "OK");
	assert_string_equal(t.items[8], "");
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_oversized_packet_keeps_connection(void **state)
{
	size_t big = RSP_PACKET_SIZE + 16;
	char *huge = malloc(big + 1);
	const char *pk[2];
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	memset(huge, 'm', big);
	huge[big] = 0;
	pk[0] = huge;
	pk[1] = "?";
	exchange(pk, 2, true, &t, &srv);
	assert_int_equal(t.n, 2);
	assert_true(starts_with(t.items[0], "E"));
	assert_true(starts_with(t.items[1], "T05"));
	free(huge);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_lldb_session(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, lldb_supported, "QThreadSuffixSupported", "QListThreadsInStopReply",
		 "p10;thread:65;", "?", "qHostInfo", "qShlibInfoAddr",
		 "qMemoryRegionInfo:1000", "qMemoryRegionInfo:9000", "QEnableErrorStrings",
		 "m0,4", "qProcessInfo", "qThreadStopInfo65");
	assert_string_equal(t.items[1], "OK");
	assert_string_equal(t.items[3], "1011000000000000");
	assert_non_null(strstr(t.items[4], "threads:64,65;thread-pcs:1110,1110;"));
	assert_true(starts_with(t.items[5], "triple:7838365f36342d70632d6c696e75782d676e75;"));
	assert_string_equal(t.items[6], "2000");
	assert_string_equal(t.items[7], "start:1000;size:1000;permissions:rwx;");
	assert_string_equal(t.items[8], "start:1000;size:1000;");
	assert_string_equal(t.items[10], "E05;496e7075742f6f7574707574206572726f72");
	assert_true(starts_with(t.items[11], "pid:64;parent-pid:1;"));
	assert_true(starts_with(t.items[12], "T00"));
	assert_non_null(strstr(t.items[12], "thread:p64.65;"));
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_pass_signals_in_host_numbers(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, "QPassSignals:0e;14;1e");
	assert_string_equal(t.items[0], "OK");
	assert_true(fake.pass[SIGALRM]);
	assert_true(fake.pass[SIGCHLD]);
	assert_true(fake.pass[SIGUSR1]);
	assert_false(fake.pass[SIGINT]);
	transcript_free(&t);
	rsp_server_release(&srv);
}

/* LLDB numbers signals as the host does (lldb-server's numbers): its
 * vCont;C0a and QPassSignals:0a;11 are SIGUSR1 and SIGCHLD, not GDB's
 * SIGBUS and SIGSTOP. */
static void test_lldb_signals_in_host_numbers(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, lldb_supported, "QThreadSuffixSupported", "QPassSignals:0a;11",
		 "vCont;C0a:p64.65");
	assert_string_equal(t.items[2], "OK");
	assert_true(fake.pass[SIGUSR1]);
	assert_true(fake.pass[SIGCHLD]);
	assert_false(fake.pass[SIGBUS]);
	assert_false(fake.pass[SIGSTOP]);
	assert_int_equal(fake.resumed[0].signo, SIGUSR1);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static int setup_btrace(void **state)
{
	setup(state);
	fake_bt_ops = fake_ops;
	fake_bt_ops.features = f_features_bt;
	fake_bt_ops.btrace_enable = f_btrace_enable;
	fake_bt_ops.btrace_disable = f_btrace_disable;
	fake_bt_ops.btrace_conf = f_btrace_conf;
	fake_bt_ops.btrace_read = f_btrace_read;
	ops_under_test = &fake_bt_ops;
	return 0;
}

/* GDB's `record btrace pt` flow (RSP-REFERENCE.md 5.3 / 8.1): nothing is
 * configured at connect; Qbtrace:pt on the Hg thread; the configuration;
 * delta refused for PT; `new` gives the whole trace once, then an empty one;
 * the object is read in slices; Qbtrace:off. */
static void test_btrace_pt_session(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported, "qXfer:btrace-conf:read::0,1000",
		 "Qbtrace-conf:pt:size=0x10000", "Hgp64.64", "Qbtrace:pt", "Qbtrace:pt",
		 "qXfer:btrace-conf:read::0,1000", "qXfer:btrace:read:delta:0,1000",
		 "qXfer:btrace:read:new:0,40", "qXfer:btrace:read:new:40,1000",
		 "qXfer:btrace:read:new:0,1000", "qXfer:btrace:read:bogus:0,1000",
		 "Qbtrace:off", "Qbtrace:off", "Qbtrace:xyz");
	assert_non_null(strstr(t.items[0], ";Qbtrace:pt+;Qbtrace-conf:pt:size+"));
	assert_non_null(strstr(t.items[0], ";qXfer:btrace:read+;qXfer:btrace-conf:read+"));
	assert_string_equal(t.items[1], "E.Btrace not enabled.");
	assert_string_equal(t.items[2], "OK");
	assert_string_equal(t.items[4], "OK");
	assert_string_equal(t.items[5], "E.Btrace already enabled.");
	assert_string_equal(t.items[6], "l<!DOCTYPE btrace-conf SYSTEM \"btrace-conf.dtd\">\n"
		"<btrace-conf version=\"1.0\">\n<pt size=\"0x10000\"/>\n</btrace-conf>\n");
	assert_true(starts_with(t.items[7], "E.Delta not supported"));
	/* The first slice, then the rest of the same object. */
	assert_true(starts_with(t.items[8], "m<!DOCTYPE btrace SYSTEM"));
	assert_true(starts_with(t.items[9], "l"));
	{
		char whole[4096];

		snprintf(whole, sizeof(whole), "%s%s", t.items[8] + 1, t.items[9] + 1);
		assert_non_null(strstr(whole, "<cpu vendor=\"GenuineIntel\" family=\"6\" model=\"140\" stepping=\"1\"/>"));
		assert_non_null(strstr(whole, "<raw>\n02820282\n</raw>"));
	}
	/* Read again: nothing new. */
	assert_string_equal(t.items[10], "l<!DOCTYPE btrace SYSTEM \"btrace.dtd\">\n"
		"<btrace version=\"1.0\">\n</btrace>\n");
	assert_string_equal(t.items[11], "E.Bad annex.");
	assert_string_equal(t.items[12], "OK");
	assert_string_equal(t.items[13], "E.Branch tracing not enabled.");
	assert_string_equal(t.items[14], "E.Bad Qbtrace operation.  Use bts, pt, or off.");
	assert_int_equal(bt.size, 0x10000);
	transcript_free(&t);
	rsp_server_release(&srv);
}

static void test_btrace_bts_blocks(void **state)
{
	struct transcript t;
	struct rsp_server srv;

	(void)state;
	EXCHANGE(&t, &srv, gdb_supported, "Qbtrace-conf:bts:size=4096", "Qbtrace:bts",
		 "qXfer:btrace:read:all:0,1000", "Qbtrace-conf:bts:size=zz");
	assert_string_equal(t.items[1], "OK");
	assert_string_equal(t.items[2], "OK");
	assert_non_null(strstr(t.items[3], "<block begin=\"0x1010\" end=\"0x1010\"/>\n"
				"<block begin=\"0x1000\" end=\"0x100c\"/>\n</btrace>"));
	assert_string_equal(t.items[4], "E.Bad size value.");
	assert_int_equal(bt.size, 4096);
	transcript_free(&t);
	rsp_server_release(&srv);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_supported_announces_only_what_works, setup),
		cmocka_unit_test_setup(test_ack_mode_nacks_bad_checksum_and_resends, setup),
		cmocka_unit_test_setup(test_halt_reason_expedites_rbp_rsp_rip, setup),
		cmocka_unit_test_setup(test_registers_read_and_write, setup),
		cmocka_unit_test_setup(test_memory_read_write_and_errors, setup),
		cmocka_unit_test_setup(test_breakpoint_stop_reason_only_when_asked, setup),
		cmocka_unit_test_setup(test_vcont_leftmost_action_per_thread, setup),
		cmocka_unit_test_setup(test_vcont_range_and_signal, setup),
		cmocka_unit_test_setup(test_legacy_step_acts_on_hc_thread_only, setup),
		cmocka_unit_test_setup(test_threads, setup),
		cmocka_unit_test_setup(test_xfer_objects_and_slices, setup),
		cmocka_unit_test_setup(test_monitor_commands, setup),
		cmocka_unit_test_setup(test_kill_and_after, setup),
		cmocka_unit_test_setup(test_unknown_and_malformed, setup),
		cmocka_unit_test_setup(test_oversized_packet_keeps_connection, setup),
		cmocka_unit_test_setup(test_lldb_session, setup),
		cmocka_unit_test_setup(test_pass_signals_in_host_numbers, setup),
		cmocka_unit_test_setup(test_lldb_signals_in_host_numbers, setup),
		cmocka_unit_test_setup(test_btrace_pt_session, setup_btrace),
		cmocka_unit_test_setup(test_btrace_bts_blocks, setup_btrace),
	};

	return cmocka_run_group_tests_name("rsp_server", tests, NULL, NULL);
}
