/*
 * tests/unit/test_dw_served.c: the files of an address space a debugger may
 * read. A file tree under a temporary root stands for a process's file
 * system: /bin/obj (a copy of this test program, an ELF file with a
 * build-id), its debug file by build-id, a secret beside it; each test
 * asks for names and checks what is served, refused (-EACCES) or missing.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
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

#include "dwarf/dw_elf.h"
#include "dwarf/dw_served.h"

struct tree {
	char root[64];
	char buildid_debug[PATH_MAX]; /* the debug file's name by build-id */
	struct dw_served s;
};

static void path_of(const struct tree *t, const char *name, char *out)
{
	int n = snprintf(out, PATH_MAX, "%s%s", t->root, name);

	assert_true(n > 0 && n < PATH_MAX);
}

static void mkdirs(const struct tree *t, const char *name)
{
	char p[PATH_MAX];

	path_of(t, name, p);
	for (char *c = p + strlen(t->root) + 1; *c; c++) {
		if (*c != '/')
			continue;
		*c = 0;
		mkdir(p, 0755);
		*c = '/';
	}
}

static void put_file(const struct tree *t, const char *name, const void *data, size_t len)
{
	char p[PATH_MAX];
	FILE *f;

	mkdirs(t, name);
	path_of(t, name, p);
	unlink(p);
	f = fopen(p, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, len, f), len);
	fclose(f);
}

static void copy_self(const struct tree *t, const char *name)
{
	static char buf[1 << 24];
	FILE *f = fopen("/proc/self/exe", "rb");
	size_t n;

	assert_non_null(f);
	n = fread(buf, 1, sizeof(buf), f);
	assert_true(n > 0 && n < sizeof(buf));
	fclose(f);
	put_file(t, name, buf, n);
}

static void put_link(const struct tree *t, const char *name, const char *target)
{
	char p[PATH_MAX];

	mkdirs(t, name);
	path_of(t, name, p);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

/* The whole contents of @fd. */
static size_t slurp(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size, 0);

	assert_true(n >= 0);
	return (size_t)n;
}

static int setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char p[PATH_MAX], hex[129];
	const uint8_t *id;
	struct dw_elf *e;
	size_t n;

	assert_non_null(t);
	strcpy(t->root, "/tmp/test_dw_served.XXXXXX");
	assert_non_null(mkdtemp(t->root));
	copy_self(t, "/bin/obj");
	put_file(t, "/etc/secret", "secret\n", 7);
	put_link(t, "/bin/alias", "obj");
	put_link(t, "/bin/sneaky", "../etc/secret");
	path_of(t, "/bin/obj", p);
	assert_int_equal(dw_elf_open(p, &e), 0);
	n = dw_elf_build_id(e, &id);
	assert_true(n >= 2);
	for (size_t i = 0; i < n; i++)
		snprintf(hex + 2 * i, 3, "%02x", id[i]);
	dw_elf_free(e);
	snprintf(t->buildid_debug, sizeof(t->buildid_debug), "/usr/lib/debug/.build-id/%.2s/%s.debug",
		 hex, hex + 2);
	copy_self(t, t->buildid_debug);
	dw_served_init(&t->s, t->root);
	assert_int_equal(dw_served_add_object(&t->s, "/bin/obj", NULL, NULL), 0);
	*state = t;
	return 0;
}

static int teardown(void **state)
{
	struct tree *t = *state;
	char cmd[128];

	dw_served_release(&t->s);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->root);
	assert_int_equal(system(cmd), 0);
	free(t);
	return 0;
}

/* Opens @name and checks the file served is the test program. */
static void assert_serves_self(struct tree *t, const char *name)
{
	static char a[1 << 24], b[1 << 24];
	int fd = dw_served_open(&t->s, name), self = open("/proc/self/exe", O_RDONLY);
	size_t na, nb;

	assert_true(fd >= 0);
	assert_true(self >= 0);
	na = slurp(fd, a, sizeof(a));
	nb = slurp(self, b, sizeof(b));
	assert_int_equal(na, nb);
	assert_memory_equal(a, b, na);
	close(fd);
	close(self);
}

static void test_object_and_aliases(void **state)
{
	struct tree *t = *state;

	assert_serves_self(t, "/bin/obj");
	assert_serves_self(t, "/bin/alias");    /* its real path is the object's */
	assert_serves_self(t, "/bin/../bin/obj");
}

static void test_others_refused(void **state)
{
	struct tree *t = *state;

	assert_int_equal(dw_served_open(&t->s, "/etc/secret"), -EACCES);
	assert_int_equal(dw_served_open(&t->s, "/bin/sneaky"), -EACCES);
	assert_int_equal(dw_served_open(&t->s, "/bin/../etc/secret"), -EACCES);
	assert_int_equal(dw_served_open(&t->s, "/no/such/file"), -EACCES);
	assert_int_equal(dw_served_open(&t->s, "/proc/self/environ"), -EACCES);
	assert_int_equal(dw_served_open(&t->s, "bin/obj"), -EACCES);
	assert_int_equal(dw_served_open(&t->s, ""), -EACCES);
}

static void test_debug_by_build_id(void **state)
{
	struct tree *t = *state;

	assert_serves_self(t, t->buildid_debug);
	/* Another file under that name has another build-id (none). */
	put_file(t, t->buildid_debug, "secret\n", 7);
	assert_int_equal(dw_served_open(&t->s, t->buildid_debug), -EACCES);
	put_link(t, t->buildid_debug, "/etc/passwd");
	assert_int_equal(dw_served_open(&t->s, t->buildid_debug), -EACCES);
}

static void test_debug_names_absent(void **state)
{
	struct tree *t = *state;

	/* Served names where nothing is: GDB hears ENOENT and looks on. */
	assert_int_equal(dw_served_open(&t->s, "/usr/lib/debug/bin/obj.debug"), -ENOENT);
	put_file(t, "/usr/lib/debug/bin/obj.debug", "secret\n", 7);
	assert_int_equal(dw_served_open(&t->s, "/usr/lib/debug/bin/obj.debug"), -EACCES);
}

static void test_object_swapped(void **state)
{
	struct tree *t = *state;

	char a[PATH_MAX], b[PATH_MAX];

	/* The name now leads to another file: not the object any more. The
	 * same bytes in another inode (made while the object's is in use, as
	 * a mapped file's is: its number cannot come back) are another file. */
	copy_self(t, "/bin/obj2");
	path_of(t, "/bin/obj2", a);
	path_of(t, "/bin/obj", b);
	assert_int_equal(rename(a, b), 0);
	assert_int_equal(dw_served_open(&t->s, "/bin/obj"), -EACCES);
	put_link(t, "/bin/obj", "../etc/secret");
	assert_int_equal(dw_served_open(&t->s, "/bin/obj"), -EACCES);
	put_link(t, "/bin/obj", "/dev/null");
	assert_int_equal(dw_served_open(&t->s, "/bin/obj"), -EACCES);
}

static void test_identity_given(void **state)
{
	struct tree *t = *state;
	struct dw_served_id wrong = { 0, 0 }, right;
	struct stat st;
	char p[PATH_MAX];
	struct dw_served s;

	path_of(t, "/bin/obj", p);
	assert_int_equal(stat(p, &st), 0);
	right = (struct dw_served_id){ st.st_dev, st.st_ino };
	dw_served_init(&s, t->root);
	assert_int_equal(dw_served_add_object(&s, "/bin/obj", NULL, &wrong), 0);
	assert_int_equal(dw_served_open(&s, "/bin/obj"), -EACCES);
	/* Nothing was read of a file that was not the mapped one. */
	assert_int_equal(dw_served_open(&s, t->buildid_debug), -EACCES);
	dw_served_release(&s);
	dw_served_init(&s, t->root);
	assert_int_equal(dw_served_add_object(&s, "/bin/obj", NULL, &right), 0);
	int fd = dw_served_open(&s, "/bin/obj");
	assert_true(fd >= 0);
	close(fd);
	dw_served_release(&s);
}

static void test_plain_and_readlink(void **state)
{
	struct tree *t = *state;
	char p[PATH_MAX], buf[64];
	int fd;

	put_link(t, "/link", "somewhere");
	path_of(t, "/etc/secret", p);
	assert_int_equal(dw_served_add_plain(&t->s, p), 0);
	fd = dw_served_open(&t->s, p);   /* by its exact host path only */
	assert_true(fd >= 0);
	assert_int_equal(slurp(fd, buf, sizeof(buf)), 7);
	close(fd);
	assert_int_equal(dw_served_open(&t->s, "/etc/secret"), -EACCES);
	path_of(t, "/link", p);
	assert_int_equal(dw_served_readlink(&t->s, p, buf, sizeof(buf)), -EACCES);
	assert_int_equal(dw_served_add_plain(&t->s, p), 0);
	assert_int_equal(dw_served_readlink(&t->s, p, buf, sizeof(buf)), 9);
	assert_memory_equal(buf, "somewhere", 9);
	assert_int_equal(dw_served_readlink(&t->s, "/bin/sneaky", buf, sizeof(buf)), -EACCES);
}

static void test_image(void **state)
{
	static char image[1 << 24];
	struct tree *t = *state;
	struct dw_served s;
	FILE *f = fopen("/proc/self/exe", "rb");
	size_t n;
	int fd;

	/* An object known by its bytes only (a vDSO): its debug file by
	 * build-id, nothing else. */
	assert_non_null(f);
	n = fread(image, 1, sizeof(image), f);
	fclose(f);
	dw_served_init(&s, t->root);
	assert_int_equal(dw_served_add_image(&s, image, n), 0);
	assert_int_equal(dw_served_add_image(&s, "not elf", 7), 0);
	fd = dw_served_open(&s, t->buildid_debug);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(dw_served_open(&s, "[vdso]"), -EACCES);
	assert_int_equal(dw_served_open(&s, "/bin/obj"), -EACCES);
	dw_served_release(&s);
}

static void test_reader(void **state)
{
	struct tree *t = *state;
	char obj[PATH_MAX], dbg[PATH_MAX], bin[PATH_MAX];
	struct dw_served s;
	int fd;

	/* Served only what user 4242 could read: files readable by all, or
	 * its own and readable by it, in directories it may search (the
	 * tree's top is mkdtemp's 0700 until opened up here). */
	path_of(t, "/bin/obj", obj);
	path_of(t, t->buildid_debug, dbg);
	path_of(t, "/bin", bin);
	assert_int_equal(chmod(obj, 0644), 0);
	dw_served_init(&s, t->root);
	dw_served_set_reader(&s, 4242);
	assert_int_equal(dw_served_add_object(&s, "/bin/obj", NULL, NULL), 0);
	assert_int_equal(dw_served_open(&s, "/bin/obj"), -EACCES);
	assert_int_equal(chmod(t->root, 0711), 0);
	fd = dw_served_open(&s, "/bin/obj");
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(chmod(bin, 0750), 0);  /* readable by all inside a private dir */
	assert_int_equal(dw_served_open(&s, "/bin/obj"), -EACCES);
	assert_int_equal(chmod(bin, 0755), 0);
	assert_int_equal(chmod(obj, 0640), 0);
	assert_int_equal(dw_served_open(&s, "/bin/obj"), -EACCES);
	assert_int_equal(chmod(dbg, 0600), 0);
	assert_int_equal(dw_served_open(&s, t->buildid_debug), -EACCES);
	if (geteuid() == 0) {
		assert_int_equal(chown(obj, 4242, 0), 0);
		fd = dw_served_open(&s, "/bin/obj");
		assert_true(fd >= 0);
		close(fd);
		assert_int_equal(chmod(obj, 0040), 0);   /* its own, not readable by it */
		assert_int_equal(dw_served_open(&s, "/bin/obj"), -EACCES);
	}
	dw_served_release(&s);
	/* Root's, or anyone's: any file. */
	dw_served_init(&s, t->root);
	dw_served_set_reader(&s, 0);
	assert_int_equal(dw_served_add_object(&s, "/bin/obj", NULL, NULL), 0);
	fd = dw_served_open(&s, t->buildid_debug);
	assert_true(fd >= 0);
	close(fd);
	dw_served_release(&s);
}

static void test_any(void **state)
{
	struct tree *t = *state;
	char buf[64];
	int fd;

	/* --vfile-any: whatever file, but a regular one. */
	fd = dw_served_open_any(t->root, "/etc/secret");
	assert_true(fd >= 0);
	assert_int_equal(slurp(fd, buf, sizeof(buf)), 7);
	close(fd);
	assert_int_equal(dw_served_open_any(t->root, "/no/such/file"), -ENOENT);
	assert_int_equal(dw_served_open_any("", "/dev/null"), -EACCES);
	assert_int_equal(dw_served_open_any(t->root, "/bin"), -EACCES);
	assert_int_equal(dw_served_readlink_any(t->root, "/bin/alias", buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "obj", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_object_and_aliases, setup, teardown),
		cmocka_unit_test_setup_teardown(test_others_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_by_build_id, setup, teardown),
		cmocka_unit_test_setup_teardown(test_debug_names_absent, setup, teardown),
		cmocka_unit_test_setup_teardown(test_object_swapped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity_given, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_and_readlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_image, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader, setup, teardown),
		cmocka_unit_test_setup_teardown(test_any, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
