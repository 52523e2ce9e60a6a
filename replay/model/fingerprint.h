/*
 * replay/model/fingerprint.h: FNV-1a hashes of bytes and of files' identity,
 * for what keeps something built from a recording (replay/model/kept.h) and
 * must know when what it was built from changed. Not a checksum against
 * an adversary: a check that a cache is still the one it was.
 */
#ifndef HINDSIGHT_REPLAY_FINGERPRINT_H
#define HINDSIGHT_REPLAY_FINGERPRINT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define REPLAY_FINGERPRINT_START 0xcbf29ce484222325ull

static inline uint64_t replay_fingerprint(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ull;
	return h;
}

/* @path (NULL: none) and its file's size, modification time and inode
 * (zeros when it cannot be seen), and its first and last 4 KiB: a file
 * rewritten in place with the same size within one tick of the file
 * system's clock still shows as another file where its head or tail
 * changed (a state log's tail holds its last times). */
uint64_t replay_fingerprint_file(uint64_t h, const char *path);

#endif
