/*
 * tests/unit/test_stub_rec_state.c: the state log is exact.
 *
 * Each program of tests/programs/rec/ is recorded with the hidden state
 * check (stub_rec_options.state_check): every N logical ticks the recorder
 * dumps, as the single-stepper sees them, the thread's registers
 * (PTRACE_GETREGS), its XSAVE area read afresh (x87, SSE, AVX, AVX-512
 * k / zmm), the page of the stack pointer and the page of the last logged
 * write. Then replay/model/state.h rebuilds the same positions from the state
 * logs alone: every general register but rip (the history gives it), the
 * whole XSAVE area, GDB's register block (against stub_regs_from_user's
 * conversion), and every byte of those pages the log claims to know must
 * be equal. Prints B/insn of state and instructions/s.
 */
#include <errno.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/user.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "replay/model/state.h"
#include "stub/recorders/stub_rec.h"
#include "stub/live/stub_regs.h"

#define SRC "tests/programs/rec"

static char work[256];

struct sample {
	uint32_t tid;
	uint64_t index, time;
	struct user_regs_struct regs;
	uint32_t xl;
	uint8_t xs[REPLAY_STATE_XMAX];
	uint64_t page[2];
	uint32_t plen[2];
	uint8_t bytes[2][4096];
};

static bool sample_read(FILE *f, struct sample *s)
{
	char magic[4];

	if (fread(magic, 1, 4, f) != 4)
		return false;
	assert_memory_equal(magic, "HSCK", 4);
	assert_int_equal(fread(&s->tid, 4, 1, f), 1);
	assert_int_equal(fread(&s->index, 8, 1, f), 1);
	assert_int_equal(fread(&s->time, 8, 1, f), 1);
	assert_int_equal(fread(&s->regs, sizeof(s->regs), 1, f), 1);
	assert_int_equal(fread(&s->xl, 4, 1, f), 1);
	assert_true(s->xl <= sizeof(s->xs));
	assert_int_equal(fread(s->xs, 1, s->xl, f), s->xl);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(fread(&s->page[i], 8, 1, f), 1);
		assert_int_equal(fread(&s->plen[i], 4, 1, f), 1);
		assert_int_equal(fread(s->bytes[i], 1, s->plen[i], f), s->plen[i]);
	}
	return true;
}

struct tally {
	size_t samples, known, bytes;
};

/* GDB's view of the sample, as the live stub would give it. */
static void sample_rsp(const struct sample *s, struct rsp_regs *out)
{
	struct user_fpregs_struct fp;

	memset(out, 0, sizeof(*out));
	memcpy(&fp, s->xs, sizeof(fp));
	stub_regs_from_user(&s->regs, &fp, out);
	for (int i = 0; i < 16; i++) {
		static const uint8_t zero[16];

		rsp_regs_set_bytes(out, RSP_REG_YMM0H + i,
				   (s->xs[512] & 4) ? s->xs + 576 + 16 * i : zero);
	}
}

static void check_sample(struct replay_state *st, const struct sample *s, struct tally *t,
			 const char *name)
{
	uint64_t gp[REPLAY_STATE_NGP], time = 0;
	uint8_t xs[REPLAY_STATE_XMAX], buf[4096], known[4096];
	struct rsp_regs want, got;
	size_t xl = 0;

	assert_int_equal(replay_state_raw_at(st, s->tid, s->index + 1, gp, xs, &xl), 0);
	for (int i = 0; i < REPLAY_STATE_NGP; i++) {
		uint64_t v;

		memcpy(&v, (const uint8_t *)&s->regs + 8 * i, 8);
		if (i != 16 && gp[i] != v)
			fail_msg("%s: tid %u insn %" PRIu64 ": register slot %d is %" PRIx64
				 ", stepped %" PRIx64, name, s->tid, s->index, i, gp[i], v);
	}
	assert_int_equal(xl, s->xl);
	for (size_t k = 0; k < xl; k++)
		if (xs[k] != s->xs[k])
			fail_msg("%s: tid %u insn %" PRIu64 ": XSAVE byte %zu is %02x, stepped %02x",
				 name, s->tid, s->index, k, xs[k], s->xs[k]);
	assert_int_equal(replay_state_regs_at(st, s->tid, s->index + 1, &got), 0);
	sample_rsp(s, &want);
	for (int r = 0; r < RSP_REG_COUNT; r++)
		if (r != RSP_REG_RIP && want.avail[r] &&
		    memcmp(rsp_regs_ptr(&want, r), rsp_regs_ptr(&got, r), rsp_reg_descs[r].size))
			fail_msg("%s: insn %" PRIu64 ": register %s differs", name, s->index,
				 rsp_reg_descs[r].name);
	assert_int_equal(replay_state_time_at(st, s->tid, s->index + 1, &time), 0);
	assert_int_equal(time, s->time);
	for (int p = 0; p < 2; p++) {
		if (!s->plen[p])
			continue;
		replay_state_read_mem(st, s->time, s->page[p], buf, s->plen[p], known);
		for (size_t k = 0; k < s->plen[p]; k++) {
			if (!known[k])
				continue;
			t->known++;
			if (buf[k] != s->bytes[p][k])
				fail_msg("%s: tid %u insn %" PRIu64 " time %" PRIu64 ": byte at %" PRIx64
					 " is %02x, stepped %02x", name, s->tid, s->index, s->time,
					 s->page[p] + k, buf[k], s->bytes[p][k]);
		}
		t->bytes += s->plen[p];
	}
	t->samples++;
}

static void run(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		print_error("command failed (%d): %s\n", r, cmd);
	assert_int_equal(r, 0);
}

/* Right after each checkpoint (one every 16384 instructions, docs/record.md)
 * the reader restarts from it: registers there were once read back as all
 * zero. rsp is never 0 in a running thread. Deterministic, unlike sampling. */
static void check_after_checkpoints(struct replay_state *st, const struct replay_thread *th)
{
	uint64_t gp[REPLAY_STATE_NGP];

	for (uint64_t cp = 16384; cp + 5 <= th->instructions; cp += 16384) {
		for (uint64_t j = 0; j < 5; j++) {
			assert_int_equal(replay_state_raw_at(st, th->tid, cp + j, gp, NULL, NULL), 0);
			if (gp[offsetof(struct user_regs_struct, rsp) / 8] == 0)
				fail_msg("thread %" PRId64 " index %" PRIu64 ": rsp read back as 0",
					 th->tid, cp + j);
		}
	}
}

/* Records @argv with state samples every @every ticks and checks each
 * sample against the log. @snapshot > 0: the recording keeps only about
 * its newest @snapshot bytes of trace and state (one thread): samples
 * from before the cut are skipped, the others are checked at positions
 * counted from the cut. */
static void record_check_snap(const char *name, char *const argv[], uint32_t every,
			      uint64_t snapshot)
{
	struct stub_rec_options o;
	struct stub_rec *r = NULL;
	struct stub_rec_summary s;
	struct replay_state *st = NULL;
	struct sample *smp = malloc(sizeof(*smp));
	struct tally t = { 0 };
	struct timeval t0, t1;
	char dir[512], chk[512], err[256];
	FILE *f;
	pid_t pid;
	double secs;

	assert_non_null(smp);
	snprintf(dir, sizeof(dir), "%s/%s.bundle", work, name);
	snprintf(chk, sizeof(chk), "%s/%s.check", work, name);
	memset(&o, 0, sizeof(o));
	o.dir = dir;
	o.state_check = chk;
	o.state_check_every = every;
	o.snapshot = snapshot;
	gettimeofday(&t0, NULL);
	assert_int_equal(stub_rec_spawn(argv, &pid), 0);
	assert_int_equal(stub_rec_new(&r, &o, pid, argv, false), 0);
	assert_int_equal(stub_rec_run(r), 0);
	gettimeofday(&t1, NULL);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_usec - t0.tv_usec) / 1e6;
	stub_rec_get_summary(r, &s);
	assert_int_equal(replay_state_open(stub_rec_bundle(r), &st, err, sizeof(err)), 0);
	for (size_t i = 0; i < stub_rec_bundle(r)->nthreads; i++) {
		const struct replay_thread *th = &stub_rec_bundle(r)->threads[i];

		assert_true(replay_state_last_index(st, th->tid) <= th->instructions);
		assert_true(replay_state_last_index(st, th->tid) + 2 >= th->instructions);
		check_after_checkpoints(st, th);
	}
	/* A cut happened: fewer instructions kept than recorded. */
	if (snapshot)
		assert_true(stub_rec_bundle(r)->threads[0].instructions < s.instructions);
	f = fopen(chk, "rb");
	assert_non_null(f);
	while (sample_read(f, smp)) {
		if (snapshot) {
			/* Single thread: what was cut is the clock minus what is kept. */
			uint64_t cut = s.instructions - stub_rec_bundle(r)->threads[0].instructions;

			if (smp->index < cut)
				continue;
			smp->index -= cut;
		}
		check_sample(st, smp, &t, name);
	}
	fclose(f);
	printf("  %-18s %9" PRIu64 " insns %9" PRIu64 " state bytes %6.2f B/insn %7.0f insns/s, "
	       "%zu samples, %zu of %zu bytes known (%.0f%%), %zu gaps\n", name, s.instructions,
	       s.state_bytes, (double)s.state_bytes / (double)s.instructions,
	       (double)s.instructions / secs, t.samples, t.known, t.bytes,
	       t.bytes ? 100.0 * (double)t.known / (double)t.bytes : 0.0,
	       stub_rec_bundle(r)->ngaps);
	for (size_t i = 0; i < stub_rec_bundle(r)->ngaps; i++)
		printf("    gap: %s %s\n", stub_rec_bundle(r)->gaps[i].kind,
		       stub_rec_bundle(r)->gaps[i].text);
	assert_true(t.samples > 10);
	assert_true(t.known * 10 > t.bytes);   /* the log is not silent */
	replay_state_free(st);
	stub_rec_free(r);
	free(smp);
}

static void record_check(const char *name, char *const argv[], uint32_t every)
{
	record_check_snap(name, argv, every, 0);
}

static void build(const char *out, const char *src, const char *flags)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "gcc -g %s -o %s/%s %s/%s", flags, work, out, SRC, src);
	run(cmd);
}

static void prog(const char *name, const char *src, const char *flags, uint32_t every)
{
	char exe[512];
	char *argv[] = { exe, NULL };

	build(name, src, flags);
	snprintf(exe, sizeof(exe), "%s/%s", work, name);
	record_check(name, argv, every);
}

static void test_control_O0_pie(void **state)
{
	(void)state;
	prog("control-O0-pie", "control.c", "-O0 -pie -fPIE", 97);
}

static void test_control_O2_static(void **state)
{
	(void)state;
	prog("control-O2-static", "control.c", "-O2 -static", 89);
}

static void test_signals(void **state)
{
	(void)state;
	prog("signals-O0", "signals.c", "-O0", 31);
}

static void test_threads(void **state)
{
	(void)state;
	prog("threads-O2", "threads.c", "-O2 -pthread", 101);
}

static void test_strings(void **state)
{
	(void)state;
	prog("strings-O2-static", "strings.c", "-O2 -static", 53);
}

/* --snapshot: the trace is cut at a PSB and the state log at the
 * checkpoint written there; the state of every kept position is exact. */
static void test_snapshot(void **state)
{
	char exe[512];
	char *argv[] = { exe, NULL };

	(void)state;
	build("control-snap", "control.c", "-O0 -static");
	snprintf(exe, sizeof(exe), "%s/control-snap", work);
	record_check_snap("control-snap", argv, 61, 128 << 10);
}

static void test_dlopen(void **state)
{
	char exe[512], lib[512];
	char *argv[] = { exe, lib, NULL };
	(void)state;

	build("libdlib.so", "dlib.c", "-O2 -shared -fPIC");
	build("dl-O2", "dl.c", "-O2");
	snprintf(exe, sizeof(exe), "%s/dl-O2", work);
	snprintf(lib, sizeof(lib), "%s/libdlib.so", work);
	record_check("dl-O2", argv, 97);
}

static void test_forkexec(void **state)
{
	(void)state;
	prog("forkexec-static", "forkexec.c", "-O2 -static", 97);
}

static int setup(void **state)
{
	(void)state;
	snprintf(work, sizeof(work), "/tmp/hindsight-rec-state.XXXXXX");
	return mkdtemp(work) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	if (getenv("KEEP_WORK"))
		return 0;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
	return system(cmd) == 0 ? 0 : -1;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_O0_pie),
		cmocka_unit_test(test_control_O2_static),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_dlopen),
		cmocka_unit_test(test_snapshot),
		cmocka_unit_test(test_forkexec),
	};

	if (access(SRC "/control.c", R_OK) != 0) {
		fprintf(stderr, "run from the repository root (no %s)\n", SRC);
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
