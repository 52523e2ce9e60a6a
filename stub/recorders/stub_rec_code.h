/*
 * stub/recorders/stub_rec_code.h: code the program made itself (a JIT's,
 * a trampoline's), kept in the bundle so that its trace decodes.
 *
 * The Valgrind recorders see the bytes of every superblock they run
 * (vgtool's BLOCK record). Where those bytes lie in no file mapping, they
 * are kept page by page in DIR/images/code.bin: each version of a page
 * (its bytes as the code that ran there saw them, from the time the first
 * of it ran until code with other bytes ran there, or the memory went) is a
 * 4 KiB slot of that file and a bundle mapping over the page for that time.
 * A version grows as more of the page runs (bytes no code ran before are
 * added to it: no instruction of its time read them); bytes that differ
 * from what ran before start a new version of the page from that time.
 * Bytes no code ran stay zero, which no decode reads.
 *
 * Lifetime: stub_rec_code_new / stub_rec_code_free. Not thread-safe: the
 * recorder's reading thread calls it.
 */
#ifndef HINDSIGHT_STUB_STUB_REC_CODE_H
#define HINDSIGHT_STUB_STUB_REC_CODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_bundle;
struct stub_rec_code;

/* At most this many page versions (256 MiB) a recording. */
#define STUB_REC_CODE_MAX_SLOTS 65536u

/* A store for @b's code, in @dir (the bundle's directory; a rebuild's
 * replaces the file an earlier one wrote). NULL: no memory. */
struct stub_rec_code *stub_rec_code_new(struct replay_bundle *b, const char *dir);
void stub_rec_code_free(struct stub_rec_code *c);

/* What stub_rec_code_seen did, besides keeping the bytes. */
enum {
	/* A version opened or ended at @time: a decoder must learn the time
	 * before the code runs (the caller has the threads' traces say it, at
	 * a PSB), or it would read the bytes of before. */
	STUB_REC_CODE_NEW = 1,
	/* Bytes that could not be kept (the limit reached): the caller
	 * reports a gap; their page is kept no more. */
	STUB_REC_CODE_LOST = 2,
};

/* Whether the recording has the bytes at @addr otherwise (a file mapped
 * there). */
typedef bool stub_rec_code_imaged_fn(void *ctx, uint64_t addr);

/* @len bytes of an instruction at @ip run from @time on: kept, but for the
 * pages @imaged says the recording has (an instruction may cross into a
 * file's page). STUB_REC_CODE_* flags, or a negative errno (the file could
 * not be written). */
int stub_rec_code_seen(struct stub_rec_code *c, uint64_t ip, const uint8_t *bytes, size_t len,
		       uint64_t time, stub_rec_code_imaged_fn *imaged, void *ctx);

/* The memory [start, end) changed otherwise (unmapped, mapped anew, an
 * exec): the versions over it end at @time. */
void stub_rec_code_forget(struct stub_rec_code *c, uint64_t start, uint64_t end, uint64_t time);

/* The time the versions that hold [@ip, @ip + @len) opened (the latest),
 * 0 where none does. */
uint64_t stub_rec_code_since(const struct stub_rec_code *c, uint64_t ip, size_t len);

/* Tests: at most @slots versions instead. */
void stub_rec_code_limit(struct stub_rec_code *c, uint64_t slots);

/* Pages and versions kept so far (tests, the summary). */
size_t stub_rec_code_pages(const struct stub_rec_code *c);
size_t stub_rec_code_versions(const struct stub_rec_code *c);

#endif
