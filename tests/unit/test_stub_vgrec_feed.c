/*
 * tests/unit/test_stub_vgrec_feed.c: the Valgrind recorder's stream parser
 * (stub/recorders/stub_vgrec.c) does not depend on how the stream is cut into reads.
 *
 * A real stream is captured once: a small program with threads and stores
 * (compiled here) run by valgrind with hindsight's tool (build/vgtool/),
 * writing into a regular file as stub_vgrec_new's child writes into its
 * FIFO. It is fed to stub_vgrec_feed whole, then in pieces of 1, 7, 4096
 * and random sizes, then with switches to another thread inside a thread's
 * run of state words: every file of each bundle (threads/, trace.json)
 * must be byte-identical to the whole feed's, and so must the bundle
 * written without the worker thread. Skipped without valgrind,
 * the tool or gcc. And a stream made here, where a thread's words come
 * while another's superblock is open (which the tool never writes), must
 * give the bundle of the same stream with that superblock run first, fed
 * whole or byte by byte. A followed rebuild's stop inside a superblock
 * (HSREC_PAUSE before its instruction 1, HSREC_HERE), the thread then
 * running the rest of it, must tell the stop once, save the bundle there,
 * and give the history (decoded by libipt) and instruction count of the
 * same stream without the stop.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <intel-pt.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_vgrec.h"
#include "vgtool/hsrec_proto.h"

static const char prog_src[] =
	"#include <pthread.h>\n"
	"static volatile long g[4][64];\n"
	"static void *work(void *arg)\n"
	"{\n"
	"\tlong id = (long)arg;\n"
	"\tfor (long i = 0; i < 3000; i++)\n"
	"\t\tg[id][i % 64] += i * id;\n"
	"\treturn 0;\n"
	"}\n"
	"int main(void)\n"
	"{\n"
	"\tpthread_t th[3];\n"
	"\tfor (long i = 0; i < 3; i++)\n"
	"\t\tpthread_create(&th[i], 0, work, (void *)(i + 1));\n"
	"\twork(0);\n"
	"\tfor (int i = 0; i < 3; i++)\n"
	"\t\tpthread_join(th[i], 0);\n"
	"\treturn (int)(g[1][5] & 1);\n"
	"}\n";

static char tmp[64];
static uint8_t *stream;
static size_t nstream;
static bool have;               /* the capture was made */
static char why[512];

static int write_file(const char *path, const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	if (!f)
		return -1;
	if (fwrite(p, 1, n, f) != n) {
		fclose(f);
		return -1;
	}
	return fclose(f);
}

static uint8_t *read_file(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	uint8_t *p = NULL;
	long len;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0) {
		p = malloc((size_t)len + 1);
		if (p && fread(p, 1, (size_t)len, f) != (size_t)len) {
			free(p);
			p = NULL;
		}
		*n = (size_t)len;
	}
	fclose(f);
	return p;
}

/* The tool's directory: HINDSIGHT_VGTOOL_DIR, else vgtool/ in the build
 * directory this test runs from (build/tests/..). */
static bool tool_dir(char *dir, size_t size)
{
	const char *env = getenv("HINDSIGHT_VGTOOL_DIR");
	char exe[2048], path[4200];
	ssize_t n;

	if (env && *env) {
		snprintf(dir, size, "%s", env);
	} else {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return false;
		exe[n] = 0;
		*strrchr(exe, '/') = 0;          /* build/tests */
		*strrchr(exe, '/') = 0;          /* build */
		snprintf(dir, size, "%s/vgtool", exe);
	}
	snprintf(path, sizeof(path), "%s/hsrec-amd64-linux", dir);
	return access(path, X_OK) == 0;
}

/* The stream of the program under valgrind with the tool, into a file. */
static int capture(void)
{
	char dir[4096], cmd[9000], path[128];

	if (!tool_dir(dir, sizeof(dir))) {
		snprintf(why, sizeof(why), "the Valgrind tool is not built (%.400s)", dir);
		return -1;
	}

	if (system("command -v valgrind >/dev/null 2>&1 && command -v gcc >/dev/null 2>&1")) {
		snprintf(why, sizeof(why), "valgrind or gcc is not installed");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/prog.c", tmp);
	assert_int_equal(write_file(path, prog_src, strlen(prog_src)), 0);
	snprintf(path, sizeof(path), "%s/stream", tmp);
	assert_int_equal(write_file(path, "", 0), 0);
	/* As vgrec_child runs it; $$ is the shell's pid, which valgrind takes. */
	snprintf(cmd, sizeof(cmd),
		 "cd %s && gcc -O0 -pthread prog.c -o prog && VALGRIND_LIB='%s' exec valgrind -q "
		 "--tool=hsrec --trace-children=yes --run-libc-freeres=no --run-cxx-freeres=no "
		 "--log-file=%s/valgrind.log --hsrec-out=%s/stream --hsrec-pid=$$ -- ./prog",
		 tmp, dir, tmp, tmp);
	if (system(cmd) == -1)
		return -1;
	stream = read_file(path, &nstream);
	assert_non_null(stream);
	assert_true(nstream > 1000);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	snprintf(tmp, sizeof(tmp), "/tmp/test-vgfeed.XXXXXX");
	assert_non_null(mkdtemp(tmp));
	have = capture() == 0;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	free(stream);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmp);
	return system(cmd) == 0 ? 0 : -1;
}

/* @s fed into the bundle directory tmp/@name in pieces of @size bytes (0:
 * random sizes from a fixed seed); the recording must succeed. */
static void feed(const char *name, const uint8_t *s, size_t n, size_t size)
{
	struct stub_vgrec_options opt = { 0 };
	struct stub_vgrec *r = NULL;
	char dir[128], err[512];
	uint32_t seed = 12345;

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	opt.dir = dir;
	assert_int_equal(stub_vgrec_feed_new(&r, &opt, err, sizeof(err)), 0);
	for (size_t at = 0; at < n;) {
		size_t k = size;

		if (!k) {
			seed = seed * 1103515245u + 12345u;
			k = 1 + (seed >> 8) % ((seed & 3) ? 64 : 200000);
		}
		if (k > n - at)
			k = n - at;
		if (stub_vgrec_feed(r, s + at, k) < 0)
			fail_msg("%s: at %zu: %s", name, at, err);
		at += k;
	}
	if (stub_vgrec_feed_end(r, 0) < 0)
		fail_msg("%s: at the end: %s", name, err);
	stub_vgrec_free(r);
}

/* Every regular file of tmp/@ref/@sub is in tmp/@name/@sub, byte for
 * byte, and no other; @n counts them. */
static void same_dir(const char *ref, const char *name, const char *sub, size_t *n)
{
	char a[256], b[256], pa[600], pb[600];
	struct dirent *d;
	size_t count = 0, other = 0;
	DIR *dir;

	snprintf(a, sizeof(a), "%s/%s/%s", tmp, ref, sub);
	snprintf(b, sizeof(b), "%s/%s/%s", tmp, name, sub);
	dir = opendir(a);
	assert_non_null(dir);
	while ((d = readdir(dir))) {
		struct stat st;
		uint8_t *x, *y;
		size_t nx, ny;

		snprintf(pa, sizeof(pa), "%s/%s", a, d->d_name);
		snprintf(pb, sizeof(pb), "%s/%s", b, d->d_name);
		if (stat(pa, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		x = read_file(pa, &nx);
		y = read_file(pb, &ny);
		assert_non_null(x);
		if (!y || nx != ny || memcmp(x, y, nx))
			fail_msg("%s differs from %s", pb, pa);
		free(x);
		free(y);
		count++;
	}
	closedir(dir);
	dir = opendir(b);
	assert_non_null(dir);
	while ((d = readdir(dir)))
		other += d->d_type == DT_REG;
	closedir(dir);
	assert_int_equal(other, count);
	*n += count;
}

/* The bundle tmp/@name is tmp/@ref's, of @nth threads. */
static void same_bundle(const char *ref, const char *name, size_t nth)
{
	size_t n = 0;

	same_dir(ref, name, ".", &n);
	same_dir(ref, name, "threads", &n);
	assert_int_equal(n, 1 + 4 * nth);  /* trace.json, each thread's .pt, .state, their .sum */
}

static void test_whole(void **state)
{
	(void)state;
	if (!have)
		skip();
	feed("whole", stream, nstream, nstream);
	same_bundle("whole", "whole", 4);
}

static void test_pieces(void **state)
{
	static const size_t sizes[] = { 1, 7, 4096, 0 };

	(void)state;
	if (!have)
		skip();
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char name[32];

		snprintf(name, sizeof(name), "by%zu", sizes[i]);
		feed(name, stream, nstream, sizes[i]);
		same_bundle("whole", name, 4);
	}
}

/* Without the worker thread (HINDSIGHT_VGREC_WORKER=0) the reading thread
 * writes the state logs itself: the same bundle, so the worker runs the
 * superblocks' words in their order, between the same other records. */
static void test_no_worker(void **state)
{
	(void)state;
	if (!have)
		skip();
	assert_int_equal(setenv("HINDSIGHT_VGREC_WORKER", "0", 1), 0);
	feed("inline", stream, nstream, nstream);
	feed("inline_by7", stream, nstream, 7);
	unsetenv("HINDSIGHT_VGREC_WORKER");
	same_bundle("whole", "inline", 4);
	same_bundle("whole", "inline_by7", 4);
}

/* The bytes a record at @p (@left bytes) takes, 0 if it is cut short. */
static size_t record_len(const uint8_t *p, size_t left)
{
	uint32_t w, st[] = { 8, 0, 16 };
	size_t n = 4;

	if (left < 4)
		return 0;
	memcpy(&w, p, 4);
	if ((w & HSREC_ST_MASK) == HSREC_ST)
		n += HSREC_ST_KIND(w) == HSREC_ST_STORE ? 8 + 2 * HSREC_ST_ARG(w) :
		     st[HSREC_ST_KIND(w) % 3];
	else if ((w & HSREC_CTL) == HSREC_CTL)
		n += HSREC_CTL_LEN(w);
	return n <= left ? n : 0;
}

/* Inside the runs of state words of every thread but the first, SWITCH to
 * the first thread and back (nothing runs): the words before the switch
 * leave the read buffer's place for a copy, and the bundle is the same. */
static void test_switch_inside_words(void **state)
{
	uint8_t *s = malloc(nstream * 3 + 64), sw[8];
	uint32_t first = 0, cur = 0, ctl = HSREC_CTL | (HSREC_SWITCH << 16) | 4;
	size_t n = 0, inserted = 0, len;
	bool prev_st = false;

	(void)state;
	if (!have)
		skip();
	assert_non_null(s);
	for (size_t at = 0; at < nstream; at += len) {
		uint32_t w;

		len = record_len(stream + at, nstream - at);
		assert_true(len > 0);
		memcpy(&w, stream + at, 4);
		if ((w & HSREC_ST_MASK) == HSREC_ST) {
			if (prev_st && cur != first && inserted++ % 3 == 0) {
				memcpy(sw, &ctl, 4);
				memcpy(sw + 4, &first, 4);
				memcpy(s + n, sw, 8);
				memcpy(sw + 4, &cur, 4);
				memcpy(s + n + 8, sw, 8);
				n += 16;
			}
			prev_st = true;
		} else {
			prev_st = false;
		}
		if (w == ctl) {
			memcpy(&cur, stream + at + 4, 4);
			if (!first)
				first = cur;
		}
		memcpy(s + n, stream + at, len);
		n += len;
	}
	assert_true(inserted > 10);      /* the capture has threads with stores */
	feed("switched", s, n, n);
	same_bundle("whole", "switched", 4);
	feed("switched7", s, n, 7);
	same_bundle("whole", "switched7", 4);
	free(s);
}

/* --- A stream made here: words of two threads' open superblocks -------- */

struct buf {
	uint8_t p[4096];
	size_t n;
};

static void put(struct buf *b, const void *p, size_t n)
{
	assert_true(b->n + n <= sizeof(b->p));
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void put32(struct buf *b, uint32_t v)
{
	put(b, &v, 4);
}

static void put64(struct buf *b, uint64_t v)
{
	put(b, &v, 8);
}

static void ctl(struct buf *b, unsigned kind, size_t len)
{
	put32(b, HSREC_CTL | kind << 16 | (uint32_t)len);
}

static void tid_rec(struct buf *b, unsigned kind, uint32_t tid)
{
	ctl(b, kind, 4);
	put32(b, tid);
}

/* Every register of @tid (rip at the block below), the thread runs. */
static void dump(struct buf *b, uint32_t tid)
{
	tid_rec(b, HSREC_SWITCH, tid);
	ctl(b, HSREC_DUMP, 4 + 8 * HSREC_NGP);
	put32(b, tid);
	for (unsigned i = 0; i < HSREC_NGP; i++)
		put64(b, i == 16 ? 0x401000 : i == 18 ? 0x202 : 0x1000 * i);
}

static void st_reg(struct buf *b, unsigned insn, unsigned slot, uint64_t v)
{
	put32(b, HSREC_ST | HSREC_ST_REG << 24 | insn << 8 | slot);
	put64(b, v);
}

static void st_store(struct buf *b, uint64_t addr, uint8_t old, uint8_t now)
{
	uint8_t x[16];

	put32(b, HSREC_ST | HSREC_ST_STORE << 24 | 0 << 8 | 8);
	put64(b, addr);
	memset(x, old, 8);
	memset(x + 8, now, 8);
	put(b, x, 16);
}

/* HELLO, superblock 0 at 0x401000 (mov [rax],rbx; add rax,8; jne back,
 * its exit), threads 101 and 100 with their registers; 100 runs next. */
static void prologue(struct buf *b)
{
	static const uint8_t code[] = { 0x48, 0x89, 0x18, 0x48, 0x83, 0xc0, 0x08, 0x75, 0xf7 };
	static const uint8_t len[] = { 3, 4, 2 };
	uint64_t ip = 0x401000;

	ctl(b, HSREC_HELLO, 11);
	put32(b, HSREC_VERSION);
	put32(b, 100);
	put(b, "./p", 3);
	ctl(b, HSREC_BLOCK, 12 + 3 * 9 + 12 + sizeof(code));
	put32(b, 0);
	put32(b, 3);
	put32(b, 1);
	for (int i = 0; i < 3; ip += len[i++]) {
		put64(b, ip);
		put(b, &len[i], 1);
	}
	put32(b, 2);
	put64(b, 0x401000);
	put(b, code, sizeof(code));
	dump(b, 101);
	dump(b, 100);
}

/* Thread 100 enters the superblock and stores; then 101 enters it and
 * stores while 100's words are still open (its superblock has not ended:
 * no PAUSE before the SWITCH, as the tool never writes but a stream may
 * say), then 100 goes on and leaves, then 101 does. The same as when 100's
 * superblock ran whole before 101 entered (test_other_thread_words). */
static void interleaved(struct buf *b, bool split)
{
	prologue(b);
	put32(b, 0);
	st_store(b, 0x7000, 1, 2);
	st_reg(b, 0, 0, 0x1111);
	if (split) {
		tid_rec(b, HSREC_SWITCH, 101);
		put32(b, 0);
		st_store(b, 0x8000, 3, 4);
		tid_rec(b, HSREC_SWITCH, 100);
	}
	st_reg(b, 1, 10, 0x7008);
	st_reg(b, 2, 18, 0x246);
	put32(b, HSREC_EXIT_BIT | 0);
	ctl(b, HSREC_PAUSE, 12);
	put32(b, 100);
	put64(b, 0x401000);
	tid_rec(b, HSREC_SWITCH, 101);
	if (!split) {
		put32(b, 0);
		st_store(b, 0x8000, 3, 4);
	}
	st_reg(b, 1, 10, 0x8008);
	put32(b, HSREC_EXIT_BIT | 0);
	ctl(b, HSREC_PAUSE, 12);
	put32(b, 101);
	put64(b, 0x401000);
	ctl(b, HSREC_END, 4);
	put32(b, 0);
}

static void test_other_thread_words(void **state)
{
	struct buf *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	char path[128];
	size_t n;
	uint8_t *x;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	interleaved(a, false);
	interleaved(b, true);
	feed("ran", a->p, a->n, a->n);
	feed("split", b->p, b->n, b->n);
	same_bundle("ran", "split", 2);
	feed("split1", b->p, b->n, 1);
	same_bundle("ran", "split1", 2);
	/* Both threads' stores are in their logs. */
	snprintf(path, sizeof(path), "%s/ran/threads/100.state", tmp);
	x = read_file(path, &n);
	assert_non_null(x);
	assert_non_null(memmem(x, n, "\x02\x02\x02\x02\x02\x02\x02\x02", 8));
	free(x);
	snprintf(path, sizeof(path), "%s/ran/threads/101.state", tmp);
	x = read_file(path, &n);
	assert_non_null(x);
	assert_non_null(memmem(x, n, "\x04\x04\x04\x04\x04\x04\x04\x04", 8));
	free(x);
	free(a);
	free(b);
}

/* --- A followed rebuild's stop inside a superblock --------------------- */

/* Thread 100 runs superblock 0 once (its store, two registers) and leaves
 * by its back branch; @here: stopped before its instruction 1 (count 7)
 * and going on from there. */
static void one_pass(struct buf *b, bool here)
{
	prologue(b);
	put32(b, 0);
	st_store(b, 0x7000, 1, 2);
	st_reg(b, 0, 0, 0x1111);
	if (here) {
		ctl(b, HSREC_PAUSE, 16);
		put32(b, 100);
		put64(b, 0x401003);
		put32(b, 2 + 1);
		ctl(b, HSREC_HERE, 16);
		put64(b, 7);
		put64(b, 0x401003);
	}
	st_reg(b, 1, 10, 0x7008);
	st_reg(b, 2, 18, 0x246);
	put32(b, HSREC_EXIT_BIT | 0);
	ctl(b, HSREC_PAUSE, 12);
	put32(b, 100);
	put64(b, 0x401000);
	ctl(b, HSREC_END, 4);
	put32(b, 0);
}

struct here_seen {
	unsigned n;
	uint64_t count, ip;
	bool saved;                /* the bundle was on disk then */
};

static int on_here(void *ctx, uint64_t count, uint64_t ip)
{
	struct here_seen *h = ctx;
	char path[128];

	h->n++;
	h->count = count;
	h->ip = ip;
	snprintf(path, sizeof(path), "%s/here/trace.json", tmp);
	h->saved = access(path, F_OK) == 0;
	return 0;
}

static int code_read(uint8_t *buf, size_t size, const struct pt_asid *asid, uint64_t ip,
		     void *ctx)
{
	static const uint8_t code[] = { 0x48, 0x89, 0x18, 0x48, 0x83, 0xc0, 0x08, 0x75, 0xf7 };

	(void)asid;
	(void)ctx;
	if (ip < 0x401000 || ip >= 0x401000 + sizeof(code))
		return -pte_nomap;
	if (size > 0x401000 + sizeof(code) - ip)
		size = 0x401000 + sizeof(code) - ip;
	memcpy(buf, code + (ip - 0x401000), size);
	return (int)size;
}

/* Thread 100's history in tmp/@name as libipt decodes it: its ips into
 * @ips (at most @max), their number. */
static size_t decode_ips(const char *name, uint64_t *ips, size_t max)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	struct pt_insn insn;
	char path[128];
	uint8_t *pt;
	size_t n = 0, len;
	int st;

	snprintf(path, sizeof(path), "%s/%s/threads/100.pt", tmp, name);
	pt = read_file(path, &len);
	assert_non_null(pt);
	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + len;
	d = pt_insn_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_int_equal(pt_image_set_callback(pt_insn_get_image(d), code_read, NULL), 0);
	for (st = pt_insn_sync_forward(d); st >= 0;) {
		while (st & pts_event_pending) {
			struct pt_event ev;

			st = pt_insn_event(d, &ev, sizeof(ev));
			if (st < 0)
				break;
		}
		if (st < 0)
			break;
		st = pt_insn_next(d, &insn, sizeof(insn));
		if (st < 0)
			break;
		if (n < max)
			ips[n] = insn.ip;
		n++;
	}
	pt_insn_free_decoder(d);
	free(pt);
	return n;
}

static uint64_t instructions(const char *name)
{
	struct replay_bundle *b = NULL;
	char dir[128], err[256];
	uint64_t n;

	snprintf(dir, sizeof(dir), "%s/%s", tmp, name);
	assert_int_equal(replay_bundle_load(dir, &b, err, sizeof(err)), 0);
	assert_int_equal(b->nthreads, 2);
	n = b->threads[0].tid == 100 ? b->threads[0].instructions : b->threads[1].instructions;
	replay_bundle_free(b);
	return n;
}

static void test_here_inside(void **state)
{
	struct buf *a = calloc(1, sizeof(*a)), *b = calloc(1, sizeof(*b));
	struct stub_vgrec_options opt = { 0 };
	struct here_seen seen = { 0 };
	struct stub_vgrec *r = NULL;
	uint64_t ia[16], ib[16];
	char dir[128], err[512];
	size_t na, nb;

	(void)state;
	assert_non_null(a);
	assert_non_null(b);
	one_pass(a, false);
	one_pass(b, true);
	feed("pass", a->p, a->n, a->n);
	snprintf(dir, sizeof(dir), "%s/here", tmp);
	opt.dir = dir;
	opt.follow = true;
	opt.here = on_here;
	opt.here_ctx = &seen;
	assert_int_equal(stub_vgrec_feed_new(&r, &opt, err, sizeof(err)), 0);
	for (size_t at = 0; at < b->n; at++)   /* byte by byte */
		if (stub_vgrec_feed(r, b->p + at, 1) < 0)
			fail_msg("here: at %zu: %s", at, err);
	if (stub_vgrec_feed_end(r, 0) < 0)
		fail_msg("here: at the end: %s", err);
	stub_vgrec_free(r);
	assert_int_equal(seen.n, 1);
	assert_int_equal(seen.count, 7);
	assert_int_equal(seen.ip, 0x401003);
	assert_true(seen.saved);
	na = decode_ips("pass", ia, 16);
	nb = decode_ips("here", ib, 16);
	assert_int_equal(na, 3);   /* mov, add, jne: the pass's whole superblock */
	assert_int_equal(nb, na);
	assert_memory_equal(ia, ib, na * sizeof(ia[0]));
	assert_int_equal(instructions("here"), instructions("pass"));
	free(a);
	free(b);
}

/* A special instruction sequence of Valgrind's whose marker transfers
 * control where its bytes do not say (here a call without redirection,
 * `xchg %rdx,%rdx`), which the tool leaves one IMark of 19 bytes: refused,
 * saying what it is, not as 19 bytes that decode as no instruction. (A
 * client request's, which the tool describes as its five instructions, is
 * in t_record_light.) */
static void test_special_refused(void **state)
{
	static const uint8_t code[19] = { 0x48, 0xc1, 0xc7, 0x03, 0x48, 0xc1, 0xc7, 0x0d,
					  0x48, 0xc1, 0xc7, 0x3d, 0x48, 0xc1, 0xc7, 0x33,
					  0x48, 0x87, 0xd2 };
	struct buf *b = calloc(1, sizeof(*b));
	struct stub_vgrec_options opt = { 0 };
	struct stub_vgrec *r = NULL;
	char dir[128], err[512] = "";
	uint8_t len = sizeof(code);

	(void)state;
	assert_non_null(b);
	ctl(b, HSREC_HELLO, 11);
	put32(b, HSREC_VERSION);
	put32(b, 100);
	put(b, "./p", 3);
	ctl(b, HSREC_BLOCK, 12 + 9 + sizeof(code));
	put32(b, 0);
	put32(b, 1);
	put32(b, 0);
	put64(b, 0x401000);
	put(b, &len, 1);
	put(b, code, sizeof(code));
	snprintf(dir, sizeof(dir), "%s/special", tmp);
	opt.dir = dir;
	assert_int_equal(stub_vgrec_feed_new(&r, &opt, err, sizeof(err)), 0);
	assert_true(stub_vgrec_feed(r, b->p, b->n) < 0);
	assert_non_null(strstr(err, "at 0x401000, a special instruction sequence of Valgrind's"));
	stub_vgrec_free(r);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole),
		cmocka_unit_test(test_pieces),
		cmocka_unit_test(test_no_worker),
		cmocka_unit_test(test_switch_inside_words),
		cmocka_unit_test(test_other_thread_words),
		cmocka_unit_test(test_here_inside),
		cmocka_unit_test(test_special_refused),
	};
	int e = cmocka_run_group_tests(tests, setup, teardown);

	if (!have && why[0])
		fprintf(stderr, "test_stub_vgrec_feed: skipped: %s\n", why);
	return e;
}
