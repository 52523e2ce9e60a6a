/* dw_access: whose files the stub reads; see dw_access.h. */
#include "dwarf/dw_access.h"

#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static int64_t g_reader = -1;

void dw_access_set_reader(int64_t uid)
{
	g_reader = uid;
}

int64_t dw_access_reader(void)
{
	return g_reader;
}

/* Whether @uid may use @st as @other_bit (S_IROTH, S_IXOTH) says for all
 * or @user_bit for its owner. */
static bool may(const struct stat *st, int64_t uid, mode_t other_bit, mode_t user_bit)
{
	return (st->st_mode & other_bit) || ((int64_t)st->st_uid == uid && (st->st_mode & user_bit));
}

bool dw_access_readable(int fd, int64_t uid)
{
	char link[32], path[PATH_MAX];
	struct stat st;
	ssize_t n;

	if (uid <= 0)
		return true;
	if (fstat(fd, &st) < 0 || !may(&st, uid, S_IROTH, S_IRUSR))
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0 || (size_t)n >= sizeof(path) - 1 || path[0] != '/')
		return false;
	path[n] = '\0';
	for (ssize_t i = 0; i < n; i++) {
		bool ok;
		char keep;

		if (path[i] != '/')
			continue;
		keep = path[i + 1];
		path[i + 1] = '\0';           /* "/", "/a/", "/a/b/", ... */
		ok = stat(path, &st) == 0 && S_ISDIR(st.st_mode) && may(&st, uid, S_IXOTH, S_IXUSR);
		path[i + 1] = keep;
		if (!ok)
			return false;
	}
	return true;
}
