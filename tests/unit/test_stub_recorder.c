/*
 * tests/unit/test_stub_recorder.c: the choice of a recorder behind
 * stub/recorders/stub_recorder.h, on a fake sysfs tree (with or without an intel_pt
 * PMU) and with Valgrind's tool found or not (HINDSIGHT_VGTOOL_DIR): each
 * --record mode, what auto says when it falls back and why, the command
 * lines that cannot work (Valgrind with --attach, a hardware --psb-period
 * that is not a power of two), and the single-stepper's test options
 * keeping auto off Valgrind; and, on a real /bin/true, Intel PT whose
 * events cannot be opened (perf_event_open faked to fail): auto hands the
 * started program over to single steps, which record it to its exit,
 * while pt gives up and kills it; serving live (options.live): auto picks
 * single steps even where Intel PT is there, pt and valgrind are refused
 * saying why, and a started live recorder runs /bin/true to its exit
 * through its live operations. The rest of recording is the
 * end-to-end tests' (t_record*, t_run*, t_attach).
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_recorder.h"
#include "stub/recorders/stub_vgrec.h"
#include "test_stub_hwpt_fake.h"

static char pt_root[64], no_pt_root[64];
static char said[4][1024];
static int nsaid;

static void say(void *ctx, const char *line)
{
	(void)ctx;
	if (nsaid < 4)
		snprintf(said[nsaid], sizeof(said[0]), "%s", line);
	nsaid++;
}

static int setup(void **state)
{
	(void)state;
	snprintf(pt_root, sizeof(pt_root), "/tmp/test_stub_recorder.%d.pt", (int)getpid());
	snprintf(no_pt_root, sizeof(no_pt_root), "/tmp/test_stub_recorder.%d.none",
		 (int)getpid());
	mkdir(pt_root, 0755);
	mkdir(no_pt_root, 0755);
	fk_sysfs(pt_root);
	return 0;
}

static int teardown(void **state)
{
	char cmd[256];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s %s", pt_root, no_pt_root);
	return system(cmd) == 0 ? 0 : -1;
}

static char *prog[] = { "/bin/true", NULL };

static struct stub_recorder_options opts(const char *mode, const char *root)
{
	nsaid = 0;
	memset(said, 0, sizeof(said));
	return (struct stub_recorder_options){ .mode = mode, .argv = prog, .sysfs_root = root,
					       .say = say };
}

/* Valgrind's tool not found: HINDSIGHT_VGTOOL_DIR names an empty place. */
static void no_valgrind(void)
{
	setenv("HINDSIGHT_VGTOOL_DIR", "/nonexistent-hindsight-vgtool", 1);
}

/* The tool beside the build's hindsight (build/vgtool), if valgrind and it
 * are there: 1, else 0. */
static int with_valgrind(void)
{
	char exe[PATH_MAX], dir[PATH_MAX + 16], why[256], *slash;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0)
		return 0;
	exe[n] = 0;
	for (int i = 0; i < 2 && (slash = strrchr(exe, '/')); i++)
		*slash = 0;             /* build/tests/test_x -> build */
	snprintf(dir, sizeof(dir), "%s/vgtool", exe);
	setenv("HINDSIGHT_VGTOOL_DIR", dir, 1);
	return stub_vgrec_available(exe, sizeof(exe), why, sizeof(why));
}

static void test_sw(void **state)
{
	struct stub_recorder_options o = opts("sw", pt_root);
	struct stub_recorder *r;

	(void)state;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_SW);
	assert_int_equal(nsaid, 0);
	assert_string_equal(stub_recorder_dir(r), "");
	assert_false(stub_recorder_attached(r));
	stub_recorder_stop(r);          /* nothing started: nothing to stop */
	stub_recorder_free(r);
}

static void test_pt(void **state)
{
	struct stub_recorder_options o = opts("pt", pt_root);
	struct stub_recorder *r;

	(void)state;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_HW);
	assert_int_equal(nsaid, 0);
	stub_recorder_free(r);
	o = opts("auto", pt_root);
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_HW);
	assert_int_equal(nsaid, 0);
	stub_recorder_free(r);
	/* Without the PMU, pt says why and fails. */
	o = opts("pt", no_pt_root);
	assert_int_equal(stub_recorder_new(&r, &o), -ENODEV);
	assert_null(r);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said[0], "Intel PT is not available here"));
}

static void test_pt_psb_period(void **state)
{
	struct stub_recorder_options o = opts("pt", pt_root);
	struct stub_recorder *r;

	(void)state;
	o.psb_given = true;
	o.psb_period = 3000;
	assert_int_equal(stub_recorder_new(&r, &o), -EINVAL);
	assert_string_equal(said[0], "hardware Intel PT's --psb-period is a power of two from "
			    "2048 bytes, not 3000");
	o = opts("pt", pt_root);
	o.psb_given = true;
	o.psb_period = 8192;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(r->hw_psb, 2);
	stub_recorder_free(r);
	/* Single steps take any period from 64. */
	o = opts("sw", pt_root);
	o.psb_given = true;
	o.psb_period = 3000;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	stub_recorder_free(r);
}

static void test_auto_falls_back(void **state)
{
	struct stub_recorder_options o = opts("auto", no_pt_root);
	struct stub_recorder *r;

	(void)state;
	no_valgrind();
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_SW);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said[0], "Intel PT is not available here"));
	assert_non_null(strstr(said[0], ", and HINDSIGHT_VGTOOL_DIR=/nonexistent-hindsight-vgtool"
			       " holds no ") || strstr(said[0], ", and valgrind is not installed"));
	assert_non_null(strstr(said[0], "; recording in software (single steps)"));
	stub_recorder_free(r);
}

/* --attach and the single-stepper's test options keep auto off Valgrind,
 * found or not, and say so. */
static void test_auto_not_valgrind(void **state)
{
	struct stub_recorder_options o = opts("auto", no_pt_root);
	struct stub_recorder *r;

	(void)state;
	with_valgrind();
	o.argv = NULL;
	o.attach_pid = 1;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_SW);
	assert_true(stub_recorder_attached(r));
	assert_non_null(strstr(said[0], "; recording in software (single steps: Valgrind "
			       "cannot attach)"));
	stub_recorder_free(r);
	o = opts("auto", no_pt_root);
	o.step_cpuid = true;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_SW);
	assert_non_null(strstr(said[0], "(single steps: --ip-log and --step-cpuid are for "
			       "single steps)"));
	stub_recorder_free(r);
}

static void test_valgrind(void **state)
{
	struct stub_recorder_options o = opts("valgrind", pt_root);
	struct stub_recorder *r;

	(void)state;
	no_valgrind();
	assert_int_equal(stub_recorder_new(&r, &o), -ENODEV);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said[0], "cannot record with Valgrind: "));
	assert_non_null(strstr(said[0], "; --record=sw single-steps instead"));
	if (!with_valgrind())
		skip();
	o = opts("valgrind", pt_root);
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_VG);
	assert_int_equal(nsaid, 0);
	stub_recorder_free(r);
	o = opts("valgrind", pt_root);
	o.argv = NULL;
	o.attach_pid = 1;
	assert_int_equal(stub_recorder_new(&r, &o), -EINVAL);
	assert_string_equal(said[0], "Valgrind cannot attach to a running process; "
			    "--record=sw can");
	/* auto without Intel PT: Valgrind's light recorder, saying why; the
	 * full one for an option only it honours. */
	o = opts("auto", no_pt_root);
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_LIGHT);
	assert_non_null(strstr(said[0], "; recording the program's inputs with Valgrind (its "
				"history is rebuilt from them;"));
	stub_recorder_free(r);
	o = opts("auto", no_pt_root);
	o.noretcomp = true;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_VG);
	assert_non_null(strstr(said[0], "; recording with Valgrind, every effect (--noretcomp "
				"wants the full recorder;"));
	stub_recorder_free(r);
}

/* auto with Intel PT here but its events refused: single steps take the
 * started program over and record it to its end. */
static void test_hw_hands_over(void **state)
{
	char dir[64], cmd[128];
	struct stub_recorder_options o = opts("auto", pt_root);
	struct stub_recorder_summary sum;
	struct stub_recorder *r;

	(void)state;
	fk_install();
	fk_open_errno = EACCES;
	snprintf(dir, sizeof(dir), "/tmp/test_stub_recorder.%d.rec", (int)getpid());
	o.dir = dir;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_HW);
	assert_int_equal(stub_recorder_start(r), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_SW);
	assert_string_equal(stub_recorder_dir(r), dir);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said[0], "; recording in software"));
	assert_int_equal(stub_recorder_run(r), 0);
	assert_string_equal(stub_recorder_bundle(r)->exit_kind, "exited");
	assert_int_equal(stub_recorder_bundle(r)->exit_status, 0);
	stub_recorder_summary(r, &sum);
	assert_string_equal(sum.name, "software");
	assert_true(sum.counted);
	assert_true(sum.s.instructions > 1000);
	assert_int_equal(sum.s.threads, 1);
	stub_recorder_epilogue(r);      /* nothing to say */
	assert_int_equal(nsaid, 1);
	stub_recorder_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* pt with the events refused: no recording; the started program killed. */
static void test_hw_refused(void **state)
{
	struct stub_recorder_options o = opts("pt", pt_root);
	struct stub_recorder *r;
	char dir[64], cmd[128];
	int st;

	(void)state;
	fk_install();
	fk_open_errno = EACCES;
	snprintf(dir, sizeof(dir), "/tmp/test_stub_recorder.%d.pt.rec", (int)getpid());
	o.dir = dir;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_true(stub_recorder_start(r) < 0);
	assert_int_equal(nsaid, 1);
	assert_non_null(strstr(said[0], "cannot record with Intel PT: "));
	/* Killed and waited for: no child is left. */
	assert_int_equal(waitpid(r->pid, &st, WNOHANG), -1);
	assert_int_equal(errno, ECHILD);
	stub_recorder_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* Serving live: only single steps can; the others are refused, said why. */
static void test_live_choice(void **state)
{
	const char *modes[] = { "pt", "valgrind" };
	struct stub_recorder_options o = opts("auto", pt_root);
	struct stub_recorder *r;

	(void)state;
	o.live = true;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_kind(r), STUB_RECORDER_SW);
	assert_int_equal(nsaid, 0);
	assert_null(stub_recorder_live(r));     /* not started */
	stub_recorder_free(r);
	for (size_t i = 0; i < 2; i++) {
		o = opts(modes[i], pt_root);
		o.live = true;
		assert_int_equal(stub_recorder_new(&r, &o), -EOPNOTSUPP);
		assert_null(r);
		assert_int_equal(nsaid, 1);
		assert_non_null(strstr(said[0], "serve with --record=sw"));
		assert_non_null(strstr(said[0], "`serve --replay`"));
	}
}

/* A live recorder started, driven by its live operations to the exit. */
static void test_live_run(void **state)
{
	struct stub_recorder_options o = opts("sw", no_pt_root);
	const struct stub_recorder_live_ops *live;
	struct stub_rec_goal g = { .kind = STUB_REC_GO_CONTINUE };
	struct stub_rec_pause p;
	struct stub_recorder *r;
	char dir[64], cmd[128];
	int e = 0;

	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test_stub_recorder.%d.live", (int)getpid());
	o.dir = dir;
	o.live = true;
	assert_int_equal(stub_recorder_new(&r, &o), 0);
	assert_int_equal(stub_recorder_start(r), 0);
	live = stub_recorder_live(r);
	assert_non_null(live);
	assert_true(live->alive(r));
	assert_true(live->has_thread(r, r->pid));
	assert_true(live->mem_fd(r) >= 0);
	assert_int_equal(live->goal_start(r, &g), 0);
	/* Bursts; when every thread is in a syscall, a moment for it. The
	 * program pauses before the syscall that ends it; a goal that lets
	 * it exit then runs it to its exit. */
	for (int i = 0; i < 20000 && e == 0; i++) {
		e = live->run_until(r, &g, 4096, &p);
		if (e == 0 && live->waiting(r))
			usleep(1000);
	}
	assert_int_equal(e, 1);
	assert_int_equal(p.kind, STUB_REC_PAUSE_END);
	g.exit_ok = true;
	assert_int_equal(live->goal_start(r, &g), 0);
	e = 0;
	for (int i = 0; i < 20000 && e == 0; i++) {
		e = live->run_until(r, &g, 4096, &p);
		if (e == 0 && live->waiting(r))
			usleep(1000);
	}
	assert_int_equal(e, 1);
	assert_int_equal(p.kind, STUB_REC_PAUSE_EXITED);
	assert_int_equal(p.status, 0);
	assert_int_equal(live->sync(r), 0);
	assert_true(access(dir, F_OK) == 0);
	stub_recorder_free(r);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sw),
		cmocka_unit_test(test_pt),
		cmocka_unit_test(test_pt_psb_period),
		cmocka_unit_test(test_auto_falls_back),
		cmocka_unit_test(test_auto_not_valgrind),
		cmocka_unit_test(test_valgrind),
		cmocka_unit_test(test_hw_hands_over),
		cmocka_unit_test(test_hw_refused),
		cmocka_unit_test(test_live_choice),
		cmocka_unit_test(test_live_run),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
