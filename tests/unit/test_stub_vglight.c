/*
 * tests/unit/test_stub_vglight.c: what a rebuild reads of a light
 * recording besides its log (stub/recorders/stub_vglight.c): inputs.env,
 * how the run ended, its argv, working directory and environment, and
 * whether the history is still to be rebuilt.
 *
 * A well-formed file gives back every field (an empty argument and an
 * empty environment too); a file cut anywhere, of another format, with an
 * argument count that the file does not hold, or missing, is refused with
 * its name, never half read. The look over the log (record's warning,
 * the rebuild's progress) finds the first syscall a rebuild does not make,
 * and nothing in a log cut inside it, and the run's images and length.
 * The tool's answer naming the threads a clone made that have not run
 * (serve --record valgrind) gives each one's registers where the tool
 * laid them out, and a line cut or of bad digits ends the list there.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "stub/recorders/stub_vglight.h"
#include "vgtool/hsrec_proto.h"

static char dir[64];

static void put(const char *name, const char *bytes, size_t n)
{
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(bytes, 1, n, f), n);
	fclose(f);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_stub_vglight.XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static const char good[] = "hsenv1\0" "139\0" "3\0" "/bin/prog\0" "\0" "-x\0" "/tmp\0"
			   "HOME=/root\0" "A=b=c\0";

static void test_good(void **state)
{
	struct stub_vglight_env env;
	char err[256];

	(void)state;
	put(STUB_VGLIGHT_ENV, good, sizeof(good) - 1);
	assert_int_equal(stub_vglight_load_env(dir, &env, err, sizeof(err)), 0);
	assert_int_equal(env.wstatus, 139);
	assert_string_equal(env.argv[0], "/bin/prog");
	assert_string_equal(env.argv[1], "");
	assert_string_equal(env.argv[2], "-x");
	assert_null(env.argv[3]);
	assert_string_equal(env.cwd, "/tmp");
	assert_int_equal(env.envlen, strlen("HOME=/root") + 1 + strlen("A=b=c") + 1);
	assert_string_equal(env.envp, "HOME=/root");
	assert_string_equal(env.envp + strlen("HOME=/root") + 1, "A=b=c");
	stub_vglight_env_release(&env);

	/* No environment at all. */
	put(STUB_VGLIGHT_ENV, "hsenv1\0" "0\0" "1\0" "p\0" "/\0",
	    sizeof("hsenv1\0" "0\0" "1\0" "p\0" "/\0") - 1);
	assert_int_equal(stub_vglight_load_env(dir, &env, err, sizeof(err)), 0);
	assert_string_equal(env.cwd, "/");
	assert_int_equal(env.envlen, 0);
	stub_vglight_env_release(&env);
}

static void test_bad(void **state)
{
#define BAD(lit) { lit, sizeof(lit) - 1 }
	static const struct {
		const char *bytes;
		size_t n;
	} bad[] = {
		BAD("hsenv2\0" "0\0" "1\0" "p\0" "/\0"),      /* another format */
		BAD("hsenv1\0" "x\0" "1\0" "p\0" "/\0"),      /* a status that is no number */
		BAD("hsenv1\0" "0\0" "5\0" "p\0" "/\0"),      /* 5 arguments, 1 there */
		BAD("hsenv1\0" "0\0" "0\0" "/\0"),             /* no program */
		BAD("hsenv1\0" "0\0" "1\0" "p"),                /* cut inside argv */
		BAD("hsenv1\0" "0\0" "1\0" "p\0"),             /* no working directory */
		BAD("hsenv1"),
		BAD(""),
	};
#undef BAD
	struct stub_vglight_env env;
	char err[256];

	(void)state;
	/* Every cut of the good file but the whole. */
	for (size_t n = 0; n < sizeof(good) - 1; n++) {
		put(STUB_VGLIGHT_ENV, good, n);
		if (stub_vglight_load_env(dir, &env, err, sizeof(err)) == 0) {
			/* Cut after a whole variable: a shorter environment, which
			 * the file cannot tell from a whole one. */
			assert_true(n > 0 && good[n - 1] == 0);
			assert_true(n >= sizeof("hsenv1\0139\0" "3\0/bin/prog\0\0-x\0/tmp"));
			stub_vglight_env_release(&env);
			continue;
		}
		assert_non_null(strstr(err, STUB_VGLIGHT_ENV));
		assert_null(env.argv);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		put(STUB_VGLIGHT_ENV, bad[i].bytes, bad[i].n);
		assert_int_equal(stub_vglight_load_env(dir, &env, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "malformed"));
	}
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGLIGHT_ENV);
	unlink(path);
	assert_true(stub_vglight_load_env(dir, &env, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "cannot read"));
}

static void test_pending(void **state)
{
	char path[128];

	(void)state;
	assert_false(stub_vglight_pending(dir));          /* no inputs */
	put(STUB_VGLIGHT_LOG, "x", 1);
	assert_true(stub_vglight_pending(dir));           /* inputs, no history */
	put("trace.json", "{}", 2);
	assert_false(stub_vglight_pending(dir));          /* rebuilt */
	snprintf(path, sizeof(path), "%s/trace.json", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGLIGHT_LOG);
	unlink(path);
}

/* An input log: HSIN_HELLO, then @n records, each a syscall record
 * (HSIN_SYSCALL, 96 bytes: tid, nr, 6 args, result, pc, ...) of @nr[i]
 * with @prot, @flags and @res behind a record of another kind
 * (HSIN_MEMW) of 5 bytes, then HSIN_END with a count of 777. */
static size_t log_of(uint8_t *buf, const uint32_t *nr, size_t n, uint64_t prot,
		     uint64_t flags, int64_t res)
{
	uint32_t hello[2] = { 1, 3 }, end[2] = { 9, 12 };
	uint64_t count = 777;
	size_t at = 11;

	memcpy(buf, hello, 8);
	memcpy(buf + 8, "abc", 3);
	for (size_t i = 0; i < n; i++) {
		uint32_t memw[2] = { 3, 5 }, head[2] = { 4, 96 };
		uint8_t rec[96] = { 0 };
		uint64_t pc = 0x401000 + 0x10 * i;

		memcpy(buf + at, memw, 8);
		memset(buf + at + 8, 0xee, 5);
		at += 13;
		memcpy(rec + 4, &nr[i], 4);
		memcpy(rec + 8 + 2 * 8, &prot, 8);
		memcpy(rec + 8 + 3 * 8, &flags, 8);
		memcpy(rec + 56, &res, 8);
		memcpy(rec + 64, &pc, 8);
		memcpy(buf + at, head, 8);
		memcpy(buf + at + 8, rec, sizeof(rec));
		at += 8 + sizeof(rec);
	}
	memcpy(buf + at, end, 8);
	memset(buf + at + 8, 0, 4);
	memcpy(buf + at + 12, &count, 8);
	return at + 20;
}

static struct stub_vglight_scan scan_of(const uint8_t *buf, size_t n)
{
	struct stub_vglight_scan s;
	char path[128];

	put(STUB_VGLIGHT_LOG, (const char *)buf, n);
	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGLIGHT_LOG);
	assert_int_equal(stub_vglight_scan(path, &s), 0);
	return s;
}

/* The first syscall the rebuild does not make is found, with the address
 * of its syscall instruction; those it makes (a writable shared mapping
 * too: what the program reads there is logged), failed calls, and a log
 * cut inside that record are not; the run's images and its end's count
 * are read; a missing log is an error. */
static void test_scan(void **state)
{
	static const uint32_t calls[] = { 0, 1, 9, 425, 9 };   /* read write mmap io_uring mmap */
	uint8_t buf[11 + 5 * 117 + 20];
	struct stub_vglight_scan s;
	char path[128];
	size_t n;

	(void)state;
	/* mmap MAP_SHARED (1) with PROT_WRITE (2), made; io_uring made (a
	 * result of 0x7f...): the fourth record. */
	n = log_of(buf, calls, 5, 3, 1, 0x7f0000000000);
	s = scan_of(buf, n);
	assert_true(s.stop);
	assert_non_null(strstr(s.what, "io_uring"));
	assert_int_equal(s.pc, 0x401030 - 2);
	assert_int_equal(s.images, 1);
	assert_int_equal(s.end_blocks, 777);
	/* Read-only, or private: the same. */
	s = scan_of(buf, log_of(buf, calls, 5, 1, 1, 3));
	assert_true(s.stop);
	assert_non_null(strstr(s.what, "io_uring"));
	assert_int_equal(s.pc, 0x401030 - 2);
	s = scan_of(buf, log_of(buf, calls, 5, 3, 2, 3));
	assert_true(s.stop && strstr(s.what, "io_uring"));
	/* Each failed (-ENOSYS): nothing, and the end still read. */
	s = scan_of(buf, log_of(buf, calls, 5, 3, 1, -38));
	assert_false(s.stop);
	assert_int_equal(s.end_blocks, 777);
	/* Cut anywhere inside the first one the rebuild does not make: not
	 * found, and no end. */
	n = log_of(buf, calls, 4, 3, 1, 0x7f0000000000) - 20;
	for (size_t cut = n - 1; cut > n - 117; cut -= 7) {
		s = scan_of(buf, cut);
		assert_false(s.stop);
		assert_int_equal(s.end_blocks, 0);
		assert_int_equal(s.images, 1);
	}
	snprintf(path, sizeof(path), "%s/%s", dir, STUB_VGLIGHT_LOG);
	unlink(path);
	assert_int_equal(stub_vglight_scan(path, &s), -ENOENT);
}

/* "TID HEX\n" of a thread whose registers are @seed + their place. */
static size_t born_line(char *out, long tid, uint8_t seed)
{
	uint8_t raw[HSREC_BORN_BYTES];
	size_t n = (size_t)sprintf(out, "%ld ", tid);

	for (size_t i = 0; i < sizeof(raw); i++)
		raw[i] = (uint8_t)(seed + i);
	for (size_t i = 0; i < sizeof(raw); i++)
		n += (size_t)sprintf(out + n, "%02x", raw[i]);
	out[n++] = '\n';
	out[n] = 0;
	return n;
}

static uint64_t le64_at(uint8_t seed, size_t off)
{
	uint64_t v = 0;

	for (int b = 7; b >= 0; b--)
		v = v << 8 | (uint8_t)(seed + off + (size_t)b);
	return v;
}

static void test_born(void **state)
{
	static char text[4 * (2 * HSREC_BORN_BYTES + 32)];
	struct stub_vglight_born *b;
	size_t n, len;

	(void)state;

	len = (size_t)sprintf(text, "hindsight.born 2\n");
	len += born_line(text + len, 4242, 1);
	len += born_line(text + len, 4243, 7);
	assert_int_equal(stub_vglight_born_parse(text, len, true, &b, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(b[0].tid, 4242);
	assert_int_equal(b[1].tid, 4243);
	assert_int_equal(rsp_regs_get(&b[0].regs, RSP_REG_RAX), le64_at(1, 0));
	assert_int_equal(rsp_regs_get(&b[0].regs, RSP_REG_RSP), le64_at(1, 7 * 8));
	assert_int_equal(rsp_regs_get(&b[1].regs, RSP_REG_R15), le64_at(7, 15 * 8));
	assert_int_equal(rsp_regs_get(&b[1].regs, RSP_REG_RIP), le64_at(7, 16 * 8));
	assert_int_equal(rsp_regs_get(&b[1].regs, RSP_REG_EFLAGS), (uint32_t)le64_at(7, 17 * 8));
	assert_int_equal(rsp_regs_get(&b[1].regs, RSP_REG_FS_BASE), le64_at(7, 18 * 8));
	/* FXSAVE: mxcsr at 24, xmm0 at 160; the upper half of ymm15 last. */
	assert_int_equal(rsp_regs_get(&b[0].regs, RSP_REG_MXCSR),
			 (uint32_t)le64_at(1, HSREC_BORN_FXSAVE + 24));
	assert_int_equal(rsp_regs_get(&b[0].regs, RSP_REG_XMM0), le64_at(1, HSREC_BORN_FXSAVE + 160));
	assert_int_equal(rsp_regs_get(&b[0].regs, RSP_REG_YMM0H + 15),
			 le64_at(1, HSREC_BORN_YMMH + 15 * 16));
	assert_false(b[0].regs.avail[RSP_REG_ORIG_RAX]);
	assert_false(b[0].regs.avail[RSP_REG_GS_BASE]);
	free(b);

	/* Without AVX, no ymm halves. */
	assert_int_equal(stub_vglight_born_parse(text, len, false, &b, &n), 0);
	assert_int_equal(n, 2);
	assert_false(b[0].regs.avail[RSP_REG_YMM0H]);
	free(b);

	/* Cut inside the second line, or a bad digit in it: the first. */
	assert_int_equal(stub_vglight_born_parse(text, len - 9, true, &b, &n), 0);
	assert_int_equal(n, 1);
	free(b);
	text[len - 40] = 'g';
	assert_int_equal(stub_vglight_born_parse(text, len, true, &b, &n), 0);
	assert_int_equal(n, 1);
	free(b);

	/* None; another answer; a count past any real one. */
	assert_int_equal(stub_vglight_born_parse("hindsight.born 0\n", 17, true, &b, &n), 0);
	assert_int_equal(n, 0);
	assert_null(b);
	assert_int_equal(stub_vglight_born_parse("unknown command\n", 16, true, &b, &n), -EBADMSG);
	assert_int_equal(stub_vglight_born_parse("hindsight.born 99999999\n", 24, true, &b, &n),
			 -EBADMSG);
	assert_int_equal(stub_vglight_born_parse("hindsight.born", 14, true, &b, &n), -EBADMSG);
}

/* Valgrind's re-raise of a fatal signal that failed (its log as Valgrind
 * 3.19 writes it, seen in t_rebuild_window): the program died of the
 * signal; any other status, or a log that does not say both, is as it
 * was. */
static void test_wstatus(void **state)
{
	static const char panic[] =
		"==1== Process terminating with default action of signal 11 (SIGSEGV)\n"
		"==1==    at 0x1092AE: worker (racy.c:50)\n\n"
		"valgrind: the 'impossible' happened:\n"
		"   main(): signal was supposed to be fatal\n";
	static const char died[] = "==1== Process terminating with default action of signal 11 "
				   "(SIGSEGV)\n";
	char path[128];
	int st;

	(void)state;
	snprintf(path, sizeof(path), "%s/vg.log", dir);
	put("vg.log", panic, sizeof(panic) - 1);
	st = stub_vgtool_wstatus(path, 1 << 8);          /* exited with 1 */
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
	assert_int_equal(stub_vgtool_wstatus(path, 2 << 8), 2 << 8);
	assert_int_equal(stub_vgtool_wstatus(path, SIGSEGV), SIGSEGV);
	put("vg.log", died, sizeof(died) - 1);
	assert_int_equal(stub_vgtool_wstatus(path, 1 << 8), 1 << 8);
	unlink(path);
	assert_int_equal(stub_vgtool_wstatus(path, 1 << 8), 1 << 8);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good),
		cmocka_unit_test(test_bad),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_born),
		cmocka_unit_test(test_wstatus),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
