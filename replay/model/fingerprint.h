/*
 * replay/model/fingerprint.h: FNV-1a hashes of bytes and of files' identity,
 * for what keeps something built from a recording (calls' marks) and
 * must know when what it was built from changed. Not a checksum against
 * an adversary: a check that a cache is still the one it was.
 */
#ifndef HINDSIGHT_REPLAY_FINGERPRINT_H
#define HINDSIGHT_REPLAY_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/stat.h>

#define REPLAY_FINGERPRINT_START 0xcbf29ce484222325ull

static inline uint64_t replay_fingerprint(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* @path (NULL: none) and its file's size, modification time and inode
 * (zeros when it cannot be seen). */
static inline uint64_t replay_fingerprint_file(uint64_t h, const char *path)
{
	struct stat st;
	uint64_t id[5] = { 0 };

	if (!path)
		return replay_fingerprint(h, "", 1);
	h = replay_fingerprint(h, path, strlen(path) + 1);
	if (stat(path, &st) == 0) {
		id[0] = (uint64_t)st.st_size;
		id[1] = (uint64_t)st.st_mtim.tv_sec;
		id[2] = (uint64_t)st.st_mtim.tv_nsec;
		id[3] = (uint64_t)st.st_ino;
		id[4] = (uint64_t)st.st_dev;
	}
	return replay_fingerprint(h, id, sizeof(id));
}

#endif
