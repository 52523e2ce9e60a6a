/*
 * replay/model/image_find.c: a recording's image, found by path, build-id or
 * name (replay/model/image_find.h).
 */
#include "replay/model/image_find.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay/model/elf_load.h"

#define HEX_MAX 129                /* a 64-byte build-id, as hex */

static const char *const *image_dirs;
static size_t nimage_dirs;

void replay_image_set_dirs(const char *const *dirs, size_t n)
{
	image_dirs = dirs;
	nimage_dirs = n < REPLAY_IMAGE_DIRS_MAX ? n : REPLAY_IMAGE_DIRS_MAX;
}

int replay_image_build_id(const char *uuid, char *hex, size_t size)
{
	size_t n = 0;

	for (const char *p = uuid; *p; p++) {
		if (*p == '-')
			continue;
		if (!isxdigit((unsigned char)*p) || n + 1 >= size)
			return -EINVAL;
		hex[n++] = (char)tolower((unsigned char)*p);
	}
	if (!n || n % 2)
		return -EINVAL;
	hex[n] = 0;
	return 0;
}

/* A search: what is wanted, and the answer. */
struct search {
	const char *want;          /* build-id hex, or NULL */
	char *out;
	size_t size;
	const char **how;
};

/* Whether the file at @path may be the image: a readable regular file
 * whose build-id is not another one; with @need_code, holding code. */
static bool fits(const struct search *s, const char *path, bool need_code)
{
	char hex[HEX_MAX];
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || access(path, R_OK) < 0)
		return false;
	if (need_code && replay_elf_has_code(path) != 1)
		return false;
	if (!s->want || replay_elf_build_id(path, hex, sizeof(hex)) == -ENOENT)
		return true;
	return !strcmp(hex, s->want);
}

/* Takes the file @fmt names if it fits: 1, 0 if not, -ENAMETOOLONG. */
static int try(const struct search *s, const char *how, bool need_code, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int try(const struct search *s, const char *how, bool need_code, const char *fmt, ...)
{
	char path[4096];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(path))
		return 0;           /* no such file can exist */
	if (!fits(s, path, need_code))
		return 0;
	if ((size_t)n >= s->size)
		return -ENAMETOOLONG;
	memcpy(s->out, path, (size_t)n + 1);
	if (s->how)
		*s->how = how;
	return 1;
}

/* perf's build-id cache: $PERF_BUILDID_DIR, else $HOME/.debug. */
static int perf_cache(const struct search *s, const char *system_path)
{
	static const char how[] = "perf's build-id cache";
	const char *env = getenv("PERF_BUILDID_DIR"), *home = getenv("HOME");
	const char *id = s->want;
	char dir[4096];
	int rc;

	if (env && *env)
		snprintf(dir, sizeof(dir), "%s", env);
	else if (home && *home)
		snprintf(dir, sizeof(dir), "%s/.debug", home);
	else
		return 0;
	if ((rc = try(s, how, false, "%s/.build-id/%.2s/%s/elf", dir, id, id + 2)) ||
	    (rc = try(s, how, false, "%s/.build-id/%.2s/%s/vdso", dir, id, id + 2)) ||
	    (rc = try(s, how, false, "%s/.build-id/%.2s/%s", dir, id, id + 2)))
		return rc;
	if (!system_path || system_path[0] != '/')
		return 0;
	if ((rc = try(s, how, false, "%s%s/%s/elf", dir, system_path, id)) ||
	    (rc = try(s, how, false, "%s%s/%s", dir, system_path, id)))
		return rc;
	return 0;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;

	return slash ? slash + 1 : path;
}

/* One image directory. */
static int image_dir(const struct search *s, const char *dir, const char *path,
		     const char *system_path)
{
	static const char by_id[] = "an image directory, by build-id";
	static const char by_name[] = "an image directory, by name";
	const char *id = s->want, *a = base_name(system_path), *b = base_name(path);
	int rc;

	if (id && ((rc = try(s, by_id, false, "%s/.build-id/%.2s/%s", dir, id, id + 2)) ||
		   (rc = try(s, by_id, false, "%s/.build-id/%.2s/%s/elf", dir, id, id + 2)) ||
		   (rc = try(s, by_id, true, "%s/.build-id/%.2s/%s.debug", dir, id, id + 2))))
		return rc;
	if (a && *a && (rc = try(s, by_name, false, "%s/%s", dir, a)))
		return rc;
	if (b && *b && (!a || strcmp(a, b)) && (rc = try(s, by_name, false, "%s/%s", dir, b)))
		return rc;
	return 0;
}

/* A copy found in a directory given relative to the working directory
 * (`history ../rec/perf.data`, `--image-dir imgs`) is named absolutely:
 * the recording resolves relative names against its own directory. */
static int absolute(int rc, char *out, size_t size)
{
	char abs[PATH_MAX];

	if (rc < 0)
		return rc;
	if (out[0] != '/' && realpath(out, abs) && strlen(abs) < size)
		memcpy(out, abs, strlen(abs) + 1);
	return 0;
}

int replay_image_find(const char *path, const char *system_path, const char *uuid,
		      const char *near, char *out, size_t size, const char **how)
{
	char want[HEX_MAX];
	struct search s = { NULL, out, size, how };
	int rc = 0;

	if (uuid && replay_image_build_id(uuid, want, sizeof(want)) == 0)
		s.want = want;
	if (path && (rc = try(&s, "as recorded", false, "%s", path)))
		return rc < 0 ? rc : 0;
	if (s.want && (rc = perf_cache(&s, system_path)))
		return rc < 0 ? rc : 0;
	if (near && (rc = image_dir(&s, near, path, system_path)))
		return absolute(rc, out, size);
	for (size_t i = 0; i < nimage_dirs; i++)
		if ((rc = image_dir(&s, image_dirs[i], path, system_path)))
			return absolute(rc, out, size);
	return -ENOENT;
}
