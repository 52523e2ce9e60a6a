/*
 * tests/unit/test_stub_rec_roundtrip.c: the software recorder, end to end.
 *
 * Each program of tests/programs/rec/ is compiled (several ways), recorded
 * with stub/recorders/stub_rec.h and an instruction log ("tid ip" for every stepped
 * instruction, "psb tid offset index" for every PSB), then every thread's
 * PT stream is decoded with libipt's instruction decoder over an image made
 * of the bundle's mappings, and the decoded instructions must equal the
 * logged ones exactly: from the start, and again from every PSB (the
 * suffix from that PSB's index). Single-threaded programs are also run
 * under tests/e2e/tools/stepper.c, an independent single-stepper that runs
 * CPUID itself (a step over it loses its trap on some hypervisors): its
 * instructions must be the recorder's, one for one. Address-space
 * randomization is off for every program run here, so both runs execute
 * the same instructions. Prints counts and bytes per instruction. Needs
 * gcc; the programs are run from a temporary directory.
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
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>
#include <intel-pt.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec.h"

#define SRC "tests/programs/rec"

static char work[256];
/* The program takes timer signals: where they land differs from run to
 * run, so no second run is compared with the recorded one. */
static bool async_signals;

struct tlog {
	int tid;
	uint64_t *ip;
	size_t n, cap;
	uint64_t (*psb)[2];        /* offset, index */
	size_t npsb, cappsb;
};

struct iplog {
	struct tlog *t;
	size_t n;
};

static struct tlog *iplog_thread(struct iplog *l, int tid)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->t[i].tid == tid)
			return &l->t[i];
	l->t = realloc(l->t, (l->n + 1) * sizeof(*l->t));
	assert_non_null(l->t);
	memset(&l->t[l->n], 0, sizeof(l->t[0]));
	l->t[l->n].tid = tid;
	return &l->t[l->n++];
}

static void iplog_read(const char *path, struct iplog *l)
{
	FILE *f = fopen(path, "r");
	char line[128];

	assert_non_null(f);
	memset(l, 0, sizeof(*l));
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b;
		int tid;
		struct tlog *t;

		if (sscanf(line, "psb %d %" SCNu64 " %" SCNu64, &tid, &a, &b) == 3) {
			t = iplog_thread(l, tid);
			if (t->npsb == t->cappsb) {
				t->cappsb = t->cappsb ? 2 * t->cappsb : 64;
				t->psb = realloc(t->psb, t->cappsb * sizeof(*t->psb));
			}
			t->psb[t->npsb][0] = a;
			t->psb[t->npsb++][1] = b;
		} else if (sscanf(line, "%d %" SCNx64, &tid, &a) == 2) {
			t = iplog_thread(l, tid);
			if (t->n == t->cap) {
				t->cap = t->cap ? 2 * t->cap : 4096;
				t->ip = realloc(t->ip, t->cap * sizeof(*t->ip));
			}
			t->ip[t->n++] = a;
		}
	}
	fclose(f);
}

static void iplog_free(struct iplog *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->t[i].ip);
		free(l->t[i].psb);
	}
	free(l->t);
}

static uint8_t *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)n + 1);
	assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

/* Every mapping, in the order they appeared (later ones replace older
 * ones where they overlap). */
static struct pt_image *image_of(const struct replay_bundle *b)
{
	struct pt_image *img = pt_image_alloc("roundtrip");
	char path[4096];

	assert_non_null(img);
	for (size_t i = 0; i < b->nmaps; i++) {
		const struct replay_mapping *m = &b->maps[i];

		assert_int_equal(replay_bundle_path(b, m->file, path, sizeof(path)), 0);
		pt_image_add_file(img, path, m->offset, m->size, NULL, m->start);
	}
	return img;
}

/* Decodes @pt from @offset (UINT64_MAX: sync forward) and compares with
 * @want[0..n). Returns the number of instructions that matched. */
static size_t decode_compare(uint8_t *pt, size_t len, struct pt_image *img, uint64_t offset,
			     const uint64_t *want, size_t n, const char *what)
{
	struct pt_config cfg;
	struct pt_insn_decoder *d;
	struct pt_insn insn;
	size_t k = 0;
	int st;

	pt_config_init(&cfg);
	cfg.begin = pt;
	cfg.end = pt + len;
	cfg.cpu.vendor = pcv_intel;
	cfg.cpu.family = 6;
	cfg.cpu.model = 0x9c;
	assert_int_equal(pt_cpu_errata(&cfg.errata, &cfg.cpu), 0);
	d = pt_insn_alloc_decoder(&cfg);
	assert_non_null(d);
	assert_int_equal(pt_insn_set_image(d, img), 0);
	st = offset == UINT64_MAX ? pt_insn_sync_forward(d) : pt_insn_sync_set(d, offset);
	while (st >= 0) {
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
		if (k >= n || insn.ip != want[k]) {
			print_error("%s: instruction %zu: decoded %" PRIx64 ", stepped %" PRIx64 "\n",
				    what, k, insn.ip, k < n ? want[k] : 0);
			break;
		}
		k++;
	}
	if (k != n || (st < 0 && st != -pte_eos))
		print_error("%s: %zu of %zu instructions decoded, then %s\n", what, k, n,
			    pt_errstr(pt_errcode(st)));
	pt_insn_free_decoder(d);
	return k;
}

/* Runs the independent stepper over @argv (same argv, same environment as
 * the recorder's run) and checks that it executed exactly @t's
 * instructions. */
static void stepper_compare(const char *name, char *const argv[], const struct tlog *t)
{
	char out[512], stepper[512], *av[16];
	size_t n = 0, k = 0;
	uint64_t ip;
	FILE *f;
	pid_t pid;
	int st;

	snprintf(stepper, sizeof(stepper), "%s/stepper", work);
	snprintf(out, sizeof(out), "%s/%s.stepped", work, name);
	av[k++] = stepper;
	av[k++] = out;
	for (size_t i = 0; argv[i] && k < 15; i++)
		av[k++] = argv[i];
	av[k] = NULL;
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		/* stdout as the recorded run had it: glibc's buffering, and
		 * so the instructions, depend on what it is */
		execv(stepper, av);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	f = fopen(out, "r");
	assert_non_null(f);
	while (fscanf(f, "%" SCNx64, &ip) == 1) {
		if (n < t->n && t->ip[n] != ip)
			fail_msg("%s: instruction %zu is 0x%" PRIx64 " stepped, 0x%" PRIx64 " recorded",
				 name, n + 1, ip, t->ip[n]);
		n++;
	}
	fclose(f);
	if (n != t->n)
		fail_msg("%s: %zu instructions stepped, %zu recorded", name, n, t->n);
	printf("  %-18s %zu instructions, as an independent stepper's\n", name, n);
}

static void run(const char *cmd)
{
	int r = system(cmd);

	if (r != 0)
		print_error("command failed (%d): %s\n", r, cmd);
	assert_int_equal(r, 0);
}

/* Records @argv, checks the round trip; @expect_threads > 0 checks the
 * thread count. */
static void roundtrip(const char *name, char *const argv[], size_t expect_threads, bool retcomp)
{
	struct stub_rec_options o;
	struct stub_rec *r = NULL;
	struct stub_rec_summary s;
	const struct replay_bundle *b;
	struct iplog log;
	struct pt_image *img;
	char dir[512], logpath[512], path[4096];
	struct timeval t0, t1;
	pid_t pid;
	double secs;

	snprintf(dir, sizeof(dir), "%s/%s.bundle", work, name);
	snprintf(logpath, sizeof(logpath), "%s/%s.iplog", work, name);
	memset(&o, 0, sizeof(o));
	o.dir = dir;
	o.ip_log = logpath;
	o.noretcomp = !retcomp;
	o.psb_period = 1024;          /* many PSBs to start from */
	gettimeofday(&t0, NULL);
	assert_int_equal(stub_rec_spawn(argv, &pid), 0);
	assert_int_equal(stub_rec_new(&r, &o, pid, argv, false), 0);
	assert_int_equal(stub_rec_run(r), 0);
	gettimeofday(&t1, NULL);
	secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_usec - t0.tv_usec) / 1e6;
	b = stub_rec_bundle(r);
	stub_rec_get_summary(r, &s);
	assert_true(b->complete);
	assert_string_equal(b->exit_kind, "exited");
	assert_int_equal(b->exit_status, 0);
	if (expect_threads)
		assert_int_equal(b->nthreads, expect_threads);

	iplog_read(logpath, &log);
	img = image_of(b);
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct replay_thread *th = &b->threads[i];
		struct tlog *t = iplog_thread(&log, (int)th->tid);
		uint8_t *pt;
		size_t len, psbs = 0;
		char what[128];

		assert_int_equal(replay_bundle_path(b, th->pt_file, path, sizeof(path)), 0);
		pt = read_all(path, &len);
		assert_int_equal(th->instructions, t->n);
		snprintf(what, sizeof(what), "%s thread %d", name, t->tid);
		assert_int_equal(decode_compare(pt, len, img, UINT64_MAX, t->ip, t->n, what), t->n);
		for (size_t p = 1; p < t->npsb; p++) {
			uint64_t idx = t->psb[p][1];

			snprintf(what, sizeof(what), "%s thread %d from PSB at %" PRIu64, name,
				 t->tid, t->psb[p][0]);
			assert_int_equal(decode_compare(pt, len, img, t->psb[p][0], t->ip + idx,
							t->n - idx, what), t->n - idx);
			psbs++;
		}
		printf("  %-18s thread %-7d %9zu insns %8zu bytes %5.3f B/insn, %zu PSBs checked\n",
		       name, t->tid, t->n, len, t->n ? (double)len / (double)t->n : 0.0, psbs);
		free(pt);
	}
	if (b->nthreads == 1 && !async_signals)
		stepper_compare(name, argv, iplog_thread(&log, (int)b->threads[0].tid));
	printf("  %-18s %" PRIu64 " instructions, %zu threads, %.3f B/insn, %.0f insns/s\n", name,
	       s.instructions, s.threads, (double)s.trace_bytes / (double)s.instructions,
	       (double)s.instructions / secs);
	pt_image_free(img);
	iplog_free(&log);
	stub_rec_free(r);
}

/* gcc @flags -o WORK/@out SRC/@src */
static void build(const char *out, const char *src, const char *flags)
{
	char cmd[1024];

	snprintf(cmd, sizeof(cmd), "gcc -g %s -o %s/%s %s/%s", flags, work, out, SRC, src);
	run(cmd);
}

static void prog(const char *name, const char *src, const char *flags, size_t threads)
{
	char exe[512];
	char *argv[] = { exe, NULL };

	build(name, src, flags);
	snprintf(exe, sizeof(exe), "%s/%s", work, name);
	roundtrip(name, argv, threads, true);
}

static void test_control_O0_pie(void **state)
{
	(void)state;
	prog("control-O0-pie", "control.c", "-O0 -pie -fPIE", 1);
}

static void test_control_O2_static(void **state)
{
	(void)state;
	prog("control-O2-static", "control.c", "-O2 -static", 1);
}

static void test_control_O2_noretcomp(void **state)
{
	char exe[512];
	char *argv[] = { exe, NULL };
	(void)state;

	build("control-O2-nopie", "control.c", "-O2 -no-pie");
	snprintf(exe, sizeof(exe), "%s/control-O2-nopie", work);
	roundtrip("control-noretcomp", argv, 1, false);
}

static void test_signals(void **state)
{
	(void)state;
	async_signals = true;
	prog("signals-O0", "signals.c", "-O0", 1);
	async_signals = false;
}

static void test_threads(void **state)
{
	(void)state;
	prog("threads-O2", "threads.c", "-O2 -pthread", 4);
}

static void test_strings(void **state)
{
	(void)state;
	prog("strings-O2-static", "strings.c", "-O2 -static", 1);
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
	roundtrip("dl-O2", argv, 1, true);
}

static void test_forkexec(void **state)
{
	(void)state;
	prog("forkexec-static", "forkexec.c", "-O2 -static", 1);
}

static int setup(void **state)
{
	(void)state;
	char cmd[1024];

	snprintf(work, sizeof(work), "/tmp/hindsight-rec-rt.XXXXXX");
	if (!mkdtemp(work))
		return -1;
	/* Inherited by every program run here, the recorder's and the
	 * stepper's: both execute the same instructions. */
	personality(ADDR_NO_RANDOMIZE);
	snprintf(cmd, sizeof(cmd), "gcc -O2 -o %s/stepper tests/e2e/tools/stepper.c", work);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[512];
	(void)state;

	if (!getenv("KEEP_WORK")) {
		snprintf(cmd, sizeof(cmd), "rm -rf %s", work);
		return system(cmd) == 0 ? 0 : -1;
	}
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_control_O0_pie),
		cmocka_unit_test(test_control_O2_static),
		cmocka_unit_test(test_control_O2_noretcomp),
		cmocka_unit_test(test_signals),
		cmocka_unit_test(test_threads),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_dlopen),
		cmocka_unit_test(test_forkexec),
	};

	if (access(SRC "/control.c", R_OK) != 0) {
		fprintf(stderr, "run from the repository root (no %s)\n", SRC);
		return 1;
	}
	return cmocka_run_group_tests(tests, setup, teardown);
}
