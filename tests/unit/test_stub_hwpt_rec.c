/*
 * tests/unit/test_stub_hwpt_rec.c: the hardware recorder's loop, run on
 * scripted waitpid reports with the kernel's part played in memory
 * (test_stub_hwpt_fake.h): every system call of the loop is a fake that
 * logs what it was asked. The traced "process" is this test itself (its
 * /proc/PID/maps and vDSO are real), its threads are made up. Checked:
 * a new thread's event is opened before the thread is resumed, in both
 * orders of the clone event and the thread's first stop; signals passed
 * on; fork children detached; the trace of each thread in its file across
 * ring wraps; mappings from the start, from sideband and from an exec;
 * the exit status; a thread that cannot be traced is a gap; Ctrl-C of an
 * attached process detaches every thread (snapshot mode); a refused
 * perf_event_open leaves the process untouched.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_hwpt_rec.h"
#include "test_stub_hwpt_fake.h"

static char root[64], dir[128];
static pid_t P;                        /* the "process": this test's pid */
#define T1 (P + 100000)
#define T2 (P + 100001)
#define CHILD (P + 100002)

/* ---- a log of the loop's system calls ---- */

enum { L_OPEN, L_CONT, L_DETACH, L_TGKILL, L_KILL };
struct call {
	int what;
	pid_t tid;
	long arg;
};
static struct call calls[256];
static size_t ncalls;

static void logcall(int what, pid_t tid, long arg)
{
	if (ncalls < sizeof(calls) / sizeof(calls[0]))
		calls[ncalls++] = (struct call){ what, tid, arg };
}

/* The index of the first call @what of @tid with @arg (-1: any), or -1. */
static int called(int what, pid_t tid, long arg)
{
	for (size_t i = 0; i < ncalls; i++)
		if (calls[i].what == what && calls[i].tid == tid && (arg < 0 || calls[i].arg == arg))
			return (int)i;
	return -1;
}

/* ---- the script: one step per poll ---- */

struct step {
	void (*kernel)(void);      /* what the CPU and the kernel do first */
	pid_t tid;                 /* the report, if any */
	int status;
	unsigned long msg;
};

static const struct step *script;
static size_t nsteps, at, delivered;
static struct stub_hwpt_rec *rec;
static pid_t extra_tids[4];
static size_t nextra;
static pid_t not_ours = -1, unopenable = -1;

static int fake_poll(struct pollfd *fds, nfds_t n, int timeout)
{
	(void)fds; (void)n; (void)timeout;
	if (at < nsteps && script[at].kernel)
		script[at].kernel();
	delivered = 0;
	at++;
	return 1;
}

static pid_t fake_waitpid(pid_t pid, int *status, int options)
{
	const struct step *s;

	assert_int_equal(pid, -1);
	assert_true(options & __WALL);
	if (!(options & WNOHANG) && (!at || delivered || !script[at - 1].tid))
		fake_poll(NULL, 0, -1);         /* blocking: the next report */
	s = at ? &script[at - 1] : NULL;
	if (at > nsteps) {
		errno = ECHILD;
		return -1;
	}
	if (!s || !s->tid || delivered)
		return 0;
	delivered = 1;
	*status = s->status;
	return s->tid;
}

static long fake_ptrace(int req, pid_t tid, void *addr, void *data)
{
	(void)addr;
	switch (req) {
	case PTRACE_GETEVENTMSG:
		*(unsigned long *)data = script[at - 1].msg;
		return 0;
	case PTRACE_GETSIGINFO:
		return 0;
	case PTRACE_CONT:
		logcall(L_CONT, tid, (long)data);
		return 0;
	case PTRACE_DETACH:
		logcall(L_DETACH, tid, (long)data);
		return 0;
	default:
		errno = EINVAL;
		return -1;
	}
}

static int fake_tgkill(pid_t pid, pid_t tid, int sig)
{
	assert_int_equal(pid, P);
	logcall(L_TGKILL, tid, sig);
	return 0;
}

static int fake_kill(pid_t pid, int sig)
{
	logcall(L_KILL, pid, sig);
	return 0;
}

static bool fake_is_thread_of(pid_t pid, pid_t tid)
{
	assert_int_equal(pid, P);
	return tid != not_ours;
}

static int fake_tids(pid_t pid, pid_t **out)
{
	assert_int_equal(pid, P);
	*out = calloc(1 + nextra, sizeof(pid_t));
	(*out)[0] = P;
	memcpy(*out + 1, extra_tids, nextra * sizeof(pid_t));
	return (int)(1 + nextra);
}

static int logged_open(struct perf_event_attr *attr, pid_t tid, int cpu, int group,
		       unsigned long flags)
{
	logcall(L_OPEN, tid, 0);
	if (tid == unopenable) {
		errno = ESRCH;
		return -1;
	}
	return fk_open(attr, tid, cpu, group, flags);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/test_stub_hwpt_rec.XXXXXX");
	if (!mkdtemp(root))
		return -1;
	fk_sysfs(root);
	snprintf(dir, sizeof(dir), "%s/bundle", root);
	fk_install();
	stub_hwpt_sys.perf_event_open = logged_open;
	stub_hwpt_rec_sys = (struct stub_hwpt_rec_sys){
		fake_waitpid, fake_ptrace, fake_tgkill, fake_kill, fake_poll, fake_is_thread_of,
		fake_tids,
	};
	P = getpid();
	ncalls = at = nsteps = 0;
	nextra = 0;
	not_ours = unopenable = -1;
	rec = NULL;
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd);
}

static int stopped(int sig) { return (sig << 8) | 0x7f; }
static int event(int ev) { return ((SIGTRAP | (ev << 8)) << 8) | 0x7f; }

/* Runs a recording of @steps; returns its bundle (the recorder in rec). */
static const struct replay_bundle *record(const struct step *steps, size_t n, bool full,
					  bool attached, uint64_t aux)
{
	struct stub_hwpt_rec_options o = { .dir = dir, .full = full, .aux_size = aux,
					   .opts = STUB_HWPT_OPTS_DEFAULT, .sysfs_root = root };
	char why[512] = "";

	script = steps;
	nsteps = n;
	if (stub_hwpt_rec_new(&rec, &o, P, NULL, attached, why, sizeof(why)))
		fail_msg("new: %s", why);
	if (stub_hwpt_rec_run(rec, why, sizeof(why)))
		fail_msg("run: %s", why);
	return stub_hwpt_rec_bundle(rec);
}

static const struct replay_mapping *mapping(const struct replay_bundle *b, const char *file)
{
	for (size_t i = 0; i < b->nmaps; i++)
		if (b->maps[i].file && !strcmp(b->maps[i].file, file))
			return &b->maps[i];
	return NULL;
}

static void expect_trace(pid_t tid, const uint8_t *want, size_t n)
{
	static uint8_t got[1 << 17];
	char path[256];

	snprintf(path, sizeof(path), "%s/threads/%d.pt", dir, (int)tid);
	assert_int_equal(fk_slurp(path, got, sizeof(got)), (ssize_t)n);
	if (n)
		assert_memory_equal(got, want, n);
}

/* ---- a spawned program in full mode ---- */

static uint8_t trace_p[30000], trace_t1[9000];

static void cpu_p1(void)
{
	struct fk_rec r;

	fk_aux_write(fk_by_tid(P), trace_p, 12000);
	fk_mmap2(&r, (uint32_t)P, (uint32_t)P, 0x7f0000000000, 0x2000, "/lib/x.so", 500);
	fk_data_write(fk_by_tid(P), r.b, r.n);
}

static void cpu_t1(void)
{
	fk_aux_write(fk_by_tid(T1), trace_t1, sizeof(trace_t1));
}

static void cpu_p2(void)
{
	struct fk_rec r;

	fk_aux_write(fk_by_tid(P), trace_p + 12000, 10000);
	/* an exec: everything ends, the new image is mapped */
	fk_begin(&r, PERF_RECORD_COMM, PERF_RECORD_MISC_COMM_EXEC);
	fk_put32(&r, (uint32_t)P);
	fk_put32(&r, (uint32_t)P);
	fk_put(&r, "new\0\0\0\0\0", 8);
	fk_end(&r, (uint32_t)P, (uint32_t)P, 900);
	fk_data_write(fk_by_tid(P), r.b, r.n);
	fk_mmap2(&r, (uint32_t)P, (uint32_t)P, 0x400000, 0x1000, "/bin/new", 901);
	fk_data_write(fk_by_tid(P), r.b, r.n);
}

static void cpu_p3(void)
{
	fk_aux_write(fk_by_tid(P), trace_p + 22000, 8000);
}

static void test_spawned_full(void **state)
{
	const struct step steps[] = {
		{ cpu_p1, P, event(PTRACE_EVENT_CLONE), (unsigned long)T1 },
		{ NULL, T1, stopped(SIGSTOP), 0 },
		{ cpu_t1, T1, stopped(SIGUSR1), 0 },
		{ NULL, CHILD, stopped(SIGSTOP), 0 },             /* a fork child */
		{ NULL, P, event(PTRACE_EVENT_FORK), (unsigned long)CHILD },
		{ NULL, 0, 0, 0 },                                /* the timer */
		{ NULL, T1, 0, 0 },                               /* T1 exits */
		{ cpu_p2, P, event(PTRACE_EVENT_EXEC), (unsigned long)P },
		{ cpu_p3, P, 3 << 8, 0 },                         /* exit(3) */
	};
	const struct replay_bundle *b;
	const struct replay_mapping *m;
	struct stub_hwpt_rec_summary s;
	struct replay_bundle *saved;
	char err[256];

	(void)state;
	for (size_t i = 0; i < sizeof(trace_p); i++)
		trace_p[i] = (uint8_t)(0x10 + i % 97);
	for (size_t i = 0; i < sizeof(trace_t1); i++)
		trace_t1[i] = (uint8_t)(0x20 + i % 89);
	not_ours = CHILD;
	b = record(steps, sizeof(steps) / sizeof(steps[0]), true, false, 16384);
	/* the new thread's event before it runs, whichever comes first */
	assert_true(called(L_OPEN, T1, -1) >= 0);
	assert_true(called(L_OPEN, T1, -1) < called(L_CONT, T1, -1));
	assert_int_equal(called(L_CONT, T1, 0), called(L_CONT, T1, -1));   /* SIGSTOP swallowed */
	assert_true(called(L_CONT, T1, SIGUSR1) >= 0);
	assert_true(called(L_DETACH, CHILD, 0) >= 0);
	assert_int_equal(called(L_OPEN, CHILD, -1), -1);
	assert_true(called(L_CONT, P, 0) >= 0);
	/* the traces, across the 16 KiB ring's end */
	expect_trace(P, trace_p, sizeof(trace_p));
	expect_trace(T1, trace_t1, sizeof(trace_t1));
	stub_hwpt_rec_get_summary(rec, &s);
	assert_int_equal(s.trace_bytes, sizeof(trace_p) + sizeof(trace_t1));
	assert_int_equal(s.threads, 2);
	/* the end */
	assert_string_equal(b->recorder, "hardware");
	assert_string_equal(b->exit_kind, "exited");
	assert_int_equal(b->exit_status, 3);
	assert_true(b->complete);
	/* mappings: /proc/PID/maps from the start, the vDSO copied, sideband */
	m = mapping(b, "/lib/x.so");
	assert_non_null(m);
	assert_int_equal(m->time_map, 500);
	assert_int_equal(m->time_unmap, 900);     /* the exec */
	m = mapping(b, "/bin/new");
	assert_non_null(m);
	assert_int_equal(m->time_unmap, REPLAY_TIME_NEVER);
	for (size_t i = 0; i < b->nmaps; i++)
		if (b->maps[i].time_map == 0)
			assert_int_equal(b->maps[i].time_unmap, 900);
	assert_true(b->end_time >= 901);
	/* what was saved is what is in memory */
	assert_int_equal(replay_bundle_load(dir, &saved, err, sizeof(err)), 0);
	assert_int_equal(saved->nthreads, 2);
	assert_int_equal(saved->nmaps, b->nmaps);
	assert_true(saved->complete);
	replay_bundle_free(saved);
	stub_hwpt_rec_free(rec);
}

/* The vDSO dump: /proc/self/maps has one. */
static void test_vdso_from_the_start(void **state)
{
	const struct step steps[] = { { NULL, P, 0, 0 } };
	const struct replay_bundle *b;
	char name[64], path[256];
	struct stat st;
	bool found = false;

	(void)state;
	b = record(steps, 1, true, false, 0);
	snprintf(name, sizeof(name), "images/vdso-%d.so", (int)P);
	for (size_t i = 0; i < b->nmaps; i++)
		found |= b->maps[i].file && !strcmp(b->maps[i].file, name) &&
			 b->maps[i].time_map == 0;
	assert_true(found);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(stat(path, &st), 0);
	assert_true(st.st_size >= 4096);
	stub_hwpt_rec_free(rec);
}

/* A thread whose event cannot be opened runs on untraced: a gap. */
static void test_untraceable_thread(void **state)
{
	const struct step steps[] = {
		{ NULL, P, event(PTRACE_EVENT_CLONE), (unsigned long)T1 },
		{ NULL, T1, stopped(SIGSTOP), 0 },
		{ NULL, P, 0, 0 },
	};
	const struct replay_bundle *b;

	(void)state;
	unopenable = T1;
	b = record(steps, 3, true, false, 0);
	assert_true(called(L_CONT, T1, 0) >= 0);
	assert_int_equal(b->nthreads, 1);
	assert_int_equal(b->ngaps, 1);
	assert_string_equal(b->gaps[0].kind, "lost");
	assert_int_equal(b->gaps[0].tid, T1);
	assert_non_null(strstr(b->gaps[0].text, "is not recorded: perf_event_open"));
	assert_non_null(strstr(b->gaps[0].text, "the thread is gone"));
	stub_hwpt_rec_free(rec);
}

/* ---- an attached process, snapshot mode, Ctrl-C ---- */

static uint8_t trace_a[20000];

static void cpu_attached(void)
{
	fk_aux_write(fk_by_tid(P), trace_a, sizeof(trace_a));
}

static void ctrl_c(void)
{
	stub_hwpt_rec_stop(rec);
}

static void test_attached_snapshot_stop(void **state)
{
	const struct step steps[] = {
		{ cpu_attached, 0, 0, 0 },
		{ ctrl_c, 0, 0, 0 },
		{ NULL, 0, 0, 0 },                  /* SIGSTOPs sent */
		{ NULL, T2, stopped(SIGUSR2), 0 },  /* passed on */
		{ NULL, P, stopped(SIGSTOP), 0 },
		{ NULL, T2, stopped(SIGSTOP), 0 },
	};
	const struct replay_bundle *b;
	size_t psb = 0;
	const uint8_t *last = trace_a + sizeof(trace_a) - 8192;

	(void)state;
	for (size_t i = 0; i < sizeof(trace_a); i++)
		trace_a[i] = (uint8_t)(0x30 + i % 50);
	for (size_t i = 0; i + 16 <= sizeof(trace_a); i += 3000)
		memcpy(trace_a + i, fk_psb, 16);
	while (memcmp(last + psb, fk_psb, 16))
		psb++;
	extra_tids[nextra++] = T2;
	script = steps;
	nsteps = sizeof(steps) / sizeof(steps[0]);
	{
		struct stub_hwpt_rec_options o = { .dir = dir, .full = false, .aux_size = 8192,
						   .opts = STUB_HWPT_OPTS_DEFAULT,
						   .sysfs_root = root };
		char why[512] = "";

		if (stub_hwpt_rec_new(&rec, &o, P, NULL, true, why, sizeof(why)))
			fail_msg("new: %s", why);
		assert_int_equal(fk_by_tid(P)->aux_prot, PROT_READ);
		if (stub_hwpt_rec_run(rec, why, sizeof(why)))
			fail_msg("run: %s", why);
		b = stub_hwpt_rec_bundle(rec);
	}
	assert_true(called(L_TGKILL, P, SIGSTOP) >= 0);
	assert_true(called(L_TGKILL, T2, SIGSTOP) >= 0);
	assert_int_equal(called(L_KILL, P, -1), -1);
	assert_true(called(L_CONT, T2, SIGUSR2) >= 0);
	assert_true(called(L_DETACH, P, 0) >= 0);
	assert_true(called(L_DETACH, T2, 0) >= 0);
	assert_string_equal(b->exit_kind, "detached");
	assert_true(b->complete);
	/* the newest 8 KiB from its first PSB; a gap for the rest */
	expect_trace(P, last + psb, 8192 - psb);
	expect_trace(T2, NULL, 0);
	assert_int_equal(b->ngaps, 1);
	assert_int_equal(b->gaps[0].tid, P);
	stub_hwpt_rec_free(rec);
}

/* SIGTERM of a spawned recording: the program is killed. */
static void test_spawned_stop_kills(void **state)
{
	const struct step steps[] = {
		{ ctrl_c, 0, 0, 0 },
		{ NULL, P, SIGKILL, 0 },
	};
	const struct replay_bundle *b;

	(void)state;
	b = record(steps, 2, true, false, 0);
	assert_true(called(L_KILL, P, SIGKILL) >= 0);
	assert_int_equal(called(L_TGKILL, P, -1), -1);
	assert_string_equal(b->exit_kind, "signaled");
	assert_int_equal(b->exit_status, SIGKILL);
	stub_hwpt_rec_free(rec);
}

/* perf_event_open refused: an error line, the process not resumed. */
static void test_open_refused(void **state)
{
	struct stub_hwpt_rec_options o = { .dir = dir, .full = true,
					   .opts = STUB_HWPT_OPTS_DEFAULT, .sysfs_root = root };
	char why[512] = "";

	(void)state;
	fk_open_errno = EACCES;
	assert_int_equal(stub_hwpt_rec_new(&rec, &o, P, NULL, false, why, sizeof(why)), -EACCES);
	assert_non_null(strstr(why, "perf_event_paranoid"));
	stub_hwpt_rec_free(rec);
	assert_int_equal(called(L_CONT, P, -1), -1);
}

static void test_no_pmu(void **state)
{
	struct stub_hwpt_rec_options o = { .dir = dir, .full = true,
					   .opts = STUB_HWPT_OPTS_DEFAULT };
	char why[512] = "", missing[128];

	(void)state;
	snprintf(missing, sizeof(missing), "%s/none", root);
	o.sysfs_root = missing;
	assert_int_equal(stub_hwpt_rec_new(&rec, &o, P, NULL, false, why, sizeof(why)), -ENOENT);
	assert_non_null(strstr(why, "Intel PT is not available here"));
	stub_hwpt_rec_free(rec);
	assert_int_equal(ncalls, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_spawned_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vdso_from_the_start, setup, teardown),
		cmocka_unit_test_setup_teardown(test_untraceable_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attached_snapshot_stop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_spawned_stop_kills, setup, teardown),
		cmocka_unit_test_setup_teardown(test_open_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_pmu, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
