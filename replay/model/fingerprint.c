/*
 * replay/model/fingerprint.c: a file's identity hashed
 * (replay/model/fingerprint.h).
 */
#include "replay/model/fingerprint.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

uint64_t replay_fingerprint_file(uint64_t h, const char *path)
{
	unsigned char buf[4096];
	struct stat st;
	uint64_t id[5] = { 0 };
	int fd;

	if (!path)
		return replay_fingerprint(h, "", 1);
	h = replay_fingerprint(h, path, strlen(path) + 1);
	/* A regular file only is opened (never a device a mapping names). */
	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode))
		return replay_fingerprint(h, id, sizeof(id));
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (fd >= 0)
			close(fd);
		return replay_fingerprint(h, id, sizeof(id));
	}
	id[0] = (uint64_t)st.st_size;
	id[1] = (uint64_t)st.st_mtim.tv_sec;
	id[2] = (uint64_t)st.st_mtim.tv_nsec;
	id[3] = (uint64_t)st.st_ino;
	id[4] = (uint64_t)st.st_dev;
	h = replay_fingerprint(h, id, sizeof(id));
	for (int end = 0; end < 2; end++) {
		off_t at = end && st.st_size > (off_t)sizeof(buf) ? st.st_size - (off_t)sizeof(buf) : 0;
		ssize_t n = pread(fd, buf, sizeof(buf), at);

		h = replay_fingerprint(h, buf, n > 0 ? (size_t)n : 0);
	}
	close(fd);
	return h;
}
