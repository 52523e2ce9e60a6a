/*
 * tests/unit/test_replay_image_find.c: images found by build-id and by
 * name in constructed caches (a temporary HOME): LLDB's a.out of
 * ../shared/ptdata/lldb/intelpt-trace (build-id 6aa9a4e2...) copied into
 * perf's build-id cache as perf lays it out today (.build-id/NN/REST a
 * link to PATH/BUILDID, the file "elf" in it) and as older perf did,
 * $PERF_BUILDID_DIR, --image-dir directories by build-id (a file, perf's
 * layout, a .debug file with and without code) and by name; a file with
 * another build-id is never taken. Then LLDB's bundle without its a.out
 * loads with the copy from the cache. Also the ELF helpers behind it.
 */
#include <errno.h>
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

#include "replay/model/bundle.h"
#include "replay/model/elf_load.h"
#include "replay/model/image_find.h"

#define LLDB HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace"
#define AOUT LLDB "/a.out"
#define OTHER HINDSIGHT_SHARED "/ptdata/lldb/intelpt-trace-multi-file/libfoo.so"
#define ID "6aa9a4e26f282f33377d59fece874c715b41261a"
#define LLDB_UUID "6AA9A4E2-6F28-2F33-377D-59FECE874C71-5B41261A"

static char tmp[64];
static char found[4096];
static const char *how;

static void sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void sh(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	if (system(cmd) != 0)
		fail_msg("failed: %s", cmd);
}

static int setup(void **state)
{
	char home[128];

	(void)state;
	if (access(AOUT, R_OK) != 0)
		return 0;            /* each test skips */
	snprintf(tmp, sizeof(tmp), "/tmp/test_replay_image_find.XXXXXX");
	if (!mkdtemp(tmp))
		return -1;
	snprintf(home, sizeof(home), "%s/home", tmp);
	mkdir(home, 0755);
	setenv("HOME", home, 1);
	unsetenv("PERF_BUILDID_DIR");
	replay_image_set_dirs(NULL, 0);
	how = NULL;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	if (tmp[0])
		sh("rm -rf '%s'", tmp);
	tmp[0] = 0;
	return 0;
}

#define NEED_SHARED() do { if (access(AOUT, R_OK) != 0) skip(); } while (0)

static int find(const char *path, const char *sys, const char *uuid, const char *near)
{
	return replay_image_find(path, sys, uuid, near, found, sizeof(found), &how);
}

static void test_build_id_spellings(void **state)
{
	char hex[129];

	(void)state;
	assert_int_equal(replay_image_build_id(LLDB_UUID, hex, sizeof(hex)), 0);
	assert_string_equal(hex, ID);
	assert_int_equal(replay_image_build_id(ID, hex, sizeof(hex)), 0);
	assert_string_equal(hex, ID);
	assert_int_equal(replay_image_build_id("", hex, sizeof(hex)), -EINVAL);
	assert_int_equal(replay_image_build_id("abc", hex, sizeof(hex)), -EINVAL);
	assert_int_equal(replay_image_build_id("zz", hex, sizeof(hex)), -EINVAL);
	assert_int_equal(replay_image_build_id("../../etc", hex, sizeof(hex)), -EINVAL);
	assert_int_equal(replay_image_build_id(ID, hex, 8), -EINVAL);
}

static void test_elf_helpers(void **state)
{
	char hex[129];

	(void)state;
	NEED_SHARED();
	assert_int_equal(replay_elf_build_id(AOUT, hex, sizeof(hex)), 0);
	assert_string_equal(hex, ID);
	assert_int_equal(replay_elf_build_id(AOUT, hex, 20), -ENOSPC);
	assert_int_equal(replay_elf_has_code(AOUT), 1);
	assert_int_equal(replay_elf_build_id(LLDB "/trace.json", hex, sizeof(hex)), -ENOEXEC);
	assert_int_equal(replay_elf_build_id("/nonexistent", hex, sizeof(hex)), -ENOENT);
	/* a separate debug file: no code */
	sh("objcopy --only-keep-debug '%s' '%s/a.debug'", AOUT, tmp);
	snprintf(hex, sizeof(hex), "%s/a.debug", tmp);
	assert_int_equal(replay_elf_has_code(hex), 0);
}

/* perf's layout: .build-id/NN/REST -> ../../PATH/BUILDID, holding "elf". */
static void test_perf_cache(void **state)
{
	(void)state;
	NEED_SHARED();
	sh("mkdir -p %s/home/.debug/home/u/a.out/" ID " %s/home/.debug/.build-id/6a", tmp, tmp);
	sh("cp '%s' %s/home/.debug/home/u/a.out/" ID "/elf", AOUT, tmp);
	sh("ln -s ../../home/u/a.out/" ID " %s/home/.debug/.build-id/6a/%s", tmp, ID + 2);
	assert_int_equal(find("/nonexistent/a.out", "/home/u/a.out", LLDB_UUID, NULL), 0);
	assert_non_null(strstr(found, "/home/.debug/.build-id/6a/"));
	assert_non_null(strstr(found, ID + 2));
	assert_string_equal(found + strlen(found) - 4, "/elf");
	assert_string_equal(how, "perf's build-id cache");
	/* no build-id known: the cache cannot be used */
	assert_int_equal(find("/nonexistent/a.out", "/home/u/a.out", NULL, NULL), -ENOENT);
	/* without the link: PATH/BUILDID/elf */
	sh("rm -r %s/home/.debug/.build-id", tmp);
	assert_int_equal(find("/nonexistent/a.out", "/home/u/a.out", ID, NULL), 0);
	assert_non_null(strstr(found, "/home/.debug/home/u/a.out/" ID "/elf"));
}

/* Older perf: the cached file is PATH/BUILDID itself, linked from .build-id. */
static void test_old_perf_cache(void **state)
{
	(void)state;
	NEED_SHARED();
	sh("mkdir -p %s/home/.debug/home/u/a.out %s/home/.debug/.build-id/6a", tmp, tmp);
	sh("cp '%s' %s/home/.debug/home/u/a.out/" ID, AOUT, tmp);
	assert_int_equal(find(NULL, "/home/u/a.out", ID, NULL), 0);
	assert_non_null(strstr(found, "/home/.debug/home/u/a.out/" ID));
	sh("ln -s ../../home/u/a.out/" ID " %s/home/.debug/.build-id/6a/%s", tmp, ID + 2);
	assert_int_equal(find(NULL, "/elsewhere/a.out", ID, NULL), 0);
	assert_non_null(strstr(found, "/.build-id/6a/"));
	assert_string_equal(found + strlen(found) - 38, ID + 2);
}

static void test_perf_buildid_dir(void **state)
{
	char dir[256];

	(void)state;
	NEED_SHARED();
	sh("mkdir -p %s/cache/.build-id/6a/%s", tmp, ID + 2);
	sh("cp '%s' %s/cache/.build-id/6a/%s/elf", AOUT, tmp, ID + 2);
	assert_int_equal(find(NULL, "/home/u/a.out", ID, NULL), -ENOENT);
	snprintf(dir, sizeof(dir), "%s/cache", tmp);
	setenv("PERF_BUILDID_DIR", dir, 1);
	assert_int_equal(find(NULL, "/home/u/a.out", ID, NULL), 0);
	assert_string_equal(how, "perf's build-id cache");
}

static void test_image_dirs(void **state)
{
	char d1[256], d2[256];
	const char *dirs[2] = { d1, d2 };

	(void)state;
	NEED_SHARED();
	snprintf(d1, sizeof(d1), "%s/d1", tmp);
	snprintf(d2, sizeof(d2), "%s/d2", tmp);
	sh("mkdir -p %s/.build-id/6a %s", d1, d2);
	replay_image_set_dirs(dirs, 2);
	/* a debug file without code is not the image */
	sh("objcopy --only-keep-debug '%s' %s/.build-id/6a/%s.debug", AOUT, d1, ID + 2);
	assert_int_equal(find("/x/a.out", "/x/a.out", ID, NULL), -ENOENT);
	/* an unstripped one is */
	sh("cp '%s' %s/.build-id/6a/%s.debug", AOUT, d1, ID + 2);
	assert_int_equal(find("/x/a.out", "/x/a.out", ID, NULL), 0);
	assert_string_equal(how, "an image directory, by build-id");
	assert_non_null(strstr(found, "/d1/.build-id/6a/"));
	/* the plain file by build-id wins over it */
	sh("cp '%s' %s/.build-id/6a/%s", AOUT, d1, ID + 2);
	assert_int_equal(find("/x/a.out", "/x/a.out", ID, NULL), 0);
	assert_true(strlen(found) > 6 && strcmp(found + strlen(found) - 6, ".debug"));
	/* by name, in the second directory */
	sh("rm -r %s/.build-id", d1);
	sh("cp '%s' %s/a.out", AOUT, d2);
	assert_int_equal(find("/x/a.out", "/x/a.out", LLDB_UUID, NULL), 0);
	assert_string_equal(how, "an image directory, by name");
	assert_non_null(strstr(found, "/d2/a.out"));
	replay_image_set_dirs(NULL, 0);
}

/* A file of that name with another build-id is never taken; without a
 * known build-id it is. */
static void test_wrong_build_id(void **state)
{
	char near[256], path[300];

	(void)state;
	NEED_SHARED();
	snprintf(near, sizeof(near), "%s/near", tmp);
	sh("mkdir -p %s && cp '%s' %s/a.out", near, OTHER, near);
	assert_int_equal(find("/x/a.out", "/x/a.out", ID, near), -ENOENT);
	assert_int_equal(find("/x/a.out", "/x/a.out", NULL, near), 0);
	assert_string_equal(how, "an image directory, by name");
	/* the recorded path itself: taken when it is the build */
	snprintf(path, sizeof(path), "%s/a.out", near);
	assert_int_equal(find(path, NULL, ID, NULL), -ENOENT);
	assert_int_equal(find(AOUT, NULL, ID, NULL), 0);
	assert_string_equal(how, "as recorded");
	assert_string_equal(found, AOUT);
	/* a file without a build-id is taken by name (LLDB's checksum uuids) */
	sh("objcopy --remove-section .note.gnu.build-id '%s' %s/a.out", AOUT, near);
	assert_int_equal(find("/x/a.out", "/x/a.out", ID, near), 0);
	assert_int_equal(find("/x/a.out", "/x/a.out", ID, NULL), -ENOENT);
}

/* LLDB's bundle without its a.out: found in perf's cache when loaded. */
static void test_lldb_bundle_from_cache(void **state)
{
	struct replay_bundle *b = NULL;
	char dir[256], err[512] = "";

	(void)state;
	NEED_SHARED();
	snprintf(dir, sizeof(dir), "%s/bundle", tmp);
	sh("mkdir -p %s && cp '%s/trace.json' '%s/3842849.trace' %s/", dir, LLDB, LLDB, dir);
	assert_int_equal(replay_bundle_load(dir, &b, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "a.out"));
	sh("mkdir -p %s/home/.debug/.build-id/6a/%s", tmp, ID + 2);
	sh("cp '%s' %s/home/.debug/.build-id/6a/%s/elf", AOUT, tmp, ID + 2);
	if (replay_bundle_load(dir, &b, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(b->nmaps >= 1);
	assert_non_null(strstr(b->maps[0].file, "/home/.debug/.build-id/6a/"));
	assert_string_equal(b->maps[0].system_path, "a.out");
	assert_int_equal(b->maps[0].start, 0x400000);
	replay_bundle_free(b);
}

/* A hindsight bundle whose mapping file is gone: the copy is used. */
static void test_hindsight_mapping_from_cache(void **state)
{
	struct replay_bundle *b = NULL, *l = NULL;
	struct replay_mapping m = { .time_unmap = REPLAY_TIME_NEVER, .start = 0x400000,
				    .size = 0x1000, .file = "/gone/prog",
				    .system_path = "/gone/prog", .uuid = ID };
	char dir[256], err[512] = "";

	(void)state;
	NEED_SHARED();
	snprintf(dir, sizeof(dir), "%s/hs", tmp);
	mkdir(dir, 0755);
	assert_int_equal(replay_bundle_new(&b), 0);
	replay_bundle_set_str(&b->recorder, "perf");
	assert_true(replay_bundle_add_mapping(b, &m) >= 0);
	assert_int_equal(replay_bundle_save(b, dir), 0);
	sh("mkdir -p %s/home/.debug/gone/prog/" ID, tmp);
	sh("cp '%s' %s/home/.debug/gone/prog/" ID "/elf", AOUT, tmp);
	if (replay_bundle_load(dir, &l, err, sizeof(err)))
		fail_msg("%s", err);
	assert_non_null(strstr(l->maps[0].file, "/home/.debug/gone/prog/" ID "/elf"));
	assert_string_equal(l->maps[0].system_path, "/gone/prog");
	replay_bundle_free(l);
	replay_bundle_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_build_id_spellings),
		cmocka_unit_test_setup_teardown(test_elf_helpers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perf_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_old_perf_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_perf_buildid_dir, setup, teardown),
		cmocka_unit_test_setup_teardown(test_image_dirs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lldb_bundle_from_cache, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hindsight_mapping_from_cache, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
