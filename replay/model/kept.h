/*
 * replay/model/kept.h: what a command built from a finished recording
 * (the trace's index, the state log's index, calls' marks), kept beside
 * it in a file so that the next command need not build it again.
 *
 * A kept file is a cache: never in the manifest, made again when it is
 * missing, damaged, or was made from anything else. Its header holds a
 * magic (what it is), the maker's key (a hash of everything the contents
 * depend on: the files they were built from, by path, size, modification
 * time, inode and their first and last 4 KiB, and the code that built
 * them) and a checksum of the contents, which are the maker's. A file is only kept in a recording
 * hindsight made and finished, beside files named relative to it
 * (replay_kept_path): never in another tool's bundle or beside a
 * perf.data, and never while the recording may still grow. Writing is
 * through a temporary file renamed into place (mode 0600, as the
 * recording's own files); reading opens a regular file only (never a
 * link or a FIFO) and checks its size before it allocates. Nothing here
 * prints.
 */
#ifndef HINDSIGHT_REPLAY_KEPT_H
#define HINDSIGHT_REPLAY_KEPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_bundle;

#define REPLAY_KEPT_MAGIC_LEN 8

/* One piece of a kept file's contents, written in order. */
struct replay_kept_part {
	const void *p;
	size_t len;
};

/* Where a file kept for @b's file @file (bundle-relative) lives:
 * "DIR/@file@suffix", into @path. False when @b keeps nothing (not
 * finished, not made by a hindsight recorder, a perf.data, memory
 * regions of a core) or @file is absolute or leaves DIR. */
bool replay_kept_path(const struct replay_bundle *b, const char *file, const char *suffix,
		      char *path, size_t size);

/* @h mixed with the code this process runs: its program and every
 * library it mapped (libipt and Zydis decode, libdwarf reads lines), in
 * any order (the maps list them by address, which differs from run to
 * run). Computed once per process. */
uint64_t replay_kept_key_code(uint64_t h);

/* @h mixed with @b's file @file (bundle-relative; NULL: none): its path,
 * size, modification time and inode. */
uint64_t replay_kept_key_file(const struct replay_bundle *b, uint64_t h, const char *file);

/* @h mixed with what decoding thread @thread's trace depends on: the
 * code, the manifest, the thread, its trace and checksums (how much of it
 * is read), and every mapping with its file. */
uint64_t replay_kept_key_trace(const struct replay_bundle *b, size_t thread, uint64_t h);

/* Writes @parts under @magic and @key to @path. 0 or -errno. */
int replay_kept_save(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN], uint64_t key,
		     const struct replay_kept_part *parts, size_t nparts);

/* Maps @path's contents (at most @max bytes): *@out, *@len bytes, until
 * replay_kept_release. 0; -ENOENT (no file, or one made under another
 * key: build again); -EINVAL (not such a file, or damaged); -ENOMEM. */
int replay_kept_load(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN], uint64_t key,
		     size_t max, const void **out, size_t *len);
void replay_kept_release(const void *out, size_t len);

/* A kept file whose contents are a head of @headsize bytes, then an array
 * of @itemsize-byte items: the head into @head, the items copied into
 * *@items (malloc'd, *@n of them). replay_kept_load's results, and -EINVAL
 * when the contents are not so. */
int replay_kept_load_array(const char *path, const char magic[REPLAY_KEPT_MAGIC_LEN],
			   uint64_t key, size_t max, void *head, size_t headsize,
			   size_t itemsize, void **items, size_t *n);

#endif
