/*
 * replay/decode/index.c: PSB entries of one thread's history.
 */
#include "replay/decode/index.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "replay/decode/decode.h"
#include "replay/model/bundle.h"
#include "replay/model/fingerprint.h"
#include "replay/model/kept.h"

struct build {
	struct replay_index *idx;
	int err;
};

static void add_entry(void *ctx, uint64_t offset, uint64_t index, uint64_t time)
{
	struct build *bd = ctx;
	struct replay_index *idx = bd->idx;
	struct replay_index_entry *e;

	idx->tail_gaps = 0;
	/* A PSB passed without an item since the last keeps the later one. */
	if (idx->nentries && idx->entries[idx->nentries - 1].index == index) {
		idx->entries[idx->nentries - 1] = (struct replay_index_entry){ offset, index, time };
		return;
	}
	if (idx->nentries == idx->cap) {
		size_t cap = idx->cap ? idx->cap * 2 : 64;

		e = realloc(idx->entries, cap * sizeof(*e));
		if (!e) {
			bd->err = -ENOMEM;
			return;
		}
		idx->entries = e;
		idx->cap = cap;
	}
	idx->entries[idx->nentries++] = (struct replay_index_entry){ offset, index, time };
}

/* Counts the chunks @d gives from where it stands into @idx. */
static int count(struct replay_index *idx, struct replay_decoder *d, struct build *bd,
		 replay_progress_fn progress, void *ctx)
{
	struct replay_chunk c;
	unsigned n = 0;
	int rc = 0;

	while (rc == 0 && (rc = replay_decoder_next_chunk(d, &c)) > 0 && !bd->err) {
		rc = 0;
		idx->nitems++;
		if (c.gap) {
			idx->ngaps++;
			idx->tail_gaps++;
		} else {
			idx->nitems += c.ninsn - 1;
		}
		if (progress && !(++n & 0xfff) && progress(ctx, idx->nitems)) {
			rc = -ECANCELED;
			break;
		}
	}
	idx->ninsns = idx->nitems - idx->ngaps;
	if (bd->err)
		rc = bd->err;
	return rc < 0 ? rc : 0;
}

/* ---- kept beside the trace (replay/model/kept.h) ---------------------- */

/* The contents of a kept index: this, then the entries. */
struct kept_head {
	uint64_t nitems, ninsns, ngaps, tail_gaps, nentries;
};

#define INDEX_MAGIC "HSPTIDX1"
#define INDEX_MAX ((size_t)1 << 34)

/* Whether @idx is one count() could give. */
static bool index_sane(const struct replay_index *idx)
{
	if (idx->ninsns != idx->nitems - idx->ngaps || idx->ngaps > idx->nitems ||
	    idx->tail_gaps > idx->ngaps)
		return false;
	for (size_t i = 0; i < idx->nentries; i++) {
		const struct replay_index_entry *e = &idx->entries[i];

		if (e->index < 1 || e->index > idx->nitems + 1 ||
		    (i && (e->index <= e[-1].index || e->offset <= e[-1].offset)))
			return false;
	}
	return true;
}

static int index_load(struct replay_index *idx, const char *path, uint64_t key)
{
	struct kept_head h;
	void *entries;
	size_t n;
	int rc = replay_kept_load_array(path, INDEX_MAGIC, key, INDEX_MAX, &h, sizeof(h),
					sizeof(*idx->entries), &entries, &n);

	if (rc < 0)
		return rc;
	*idx = (struct replay_index){ .entries = entries, .nitems = h.nitems, .ninsns = h.ninsns,
				      .ngaps = h.ngaps, .tail_gaps = h.tail_gaps, .nentries = n,
				      .cap = n };
	if (h.nentries != n || !index_sane(idx)) {
		replay_index_release(idx);
		return -EINVAL;
	}
	return 0;
}

static void index_save(const struct replay_index *idx, const char *path, uint64_t key)
{
	struct kept_head h = { idx->nitems, idx->ninsns, idx->ngaps, idx->tail_gaps,
			       idx->nentries };
	struct replay_kept_part parts[] = {
		{ &h, sizeof(h) }, { idx->entries, idx->nentries * sizeof(*idx->entries) },
	};

	/* Where it cannot be written (a read-only recording), the next
	 * command counts again. */
	replay_kept_save(path, INDEX_MAGIC, key, parts, 2);
}

/* ---- building ------------------------------------------------------------ */

static int index_count(struct replay_index *idx, const struct replay_bundle *b, size_t thread,
		       replay_progress_fn progress, void *ctx)
{
	struct build bd = { idx, 0 };
	struct replay_decoder *d;
	int rc;

	rc = replay_decoder_new(b, thread, &d);
	if (rc < 0)
		return rc;
	rc = replay_decoder_on_psb(d, add_entry, &bd);
	if (rc == 0)
		rc = count(idx, d, &bd, progress, ctx);
	replay_decoder_free(d);
	return rc;
}

int replay_index_build(struct replay_index *idx, const struct replay_bundle *b, size_t thread,
		       replay_progress_fn progress, void *ctx)
{
	char path[4096];
	uint64_t key = 0;
	bool keep = replay_kept_path(b, b->threads[thread].pt_file, ".idx", path, sizeof(path));
	int rc;

	if (keep) {
		key = replay_kept_key_trace(b, thread, replay_fingerprint(
						    REPLAY_FINGERPRINT_START, "pt-index-1", 11));
		rc = index_load(idx, path, key);
		if (rc == 0 || rc == -ENOMEM)
			return rc;
	}
	rc = index_count(idx, b, thread, progress, ctx);
	if (rc == 0 && keep)
		index_save(idx, path, key);
	return rc;
}

int replay_index_extend(struct replay_index *idx, const struct replay_bundle *b, size_t thread,
			replay_progress_fn progress, void *ctx)
{
	struct build bd = { idx, 0 };
	struct replay_index_entry last;
	struct replay_decoder *d;
	int rc;

	if (!idx->nentries) {
		replay_index_release(idx);
		rc = replay_index_build(idx, b, thread, progress, ctx);
		goto out;
	}
	last = idx->entries[idx->nentries - 1];
	rc = replay_decoder_new(b, thread, &d);
	if (rc < 0)
		goto out;
	/* Back to the moment the decoder passed the last PSB: its entry
	 * stays, what came after it is counted again. */
	idx->nitems = last.index - 1;
	idx->ngaps -= idx->tail_gaps;
	idx->tail_gaps = 0;
	rc = replay_decoder_on_psb_from(d, add_entry, &bd, last.offset);
	if (rc == 0)
		rc = replay_decoder_seek(d, last.offset, last.index);
	if (rc == 0)
		rc = count(idx, d, &bd, progress, ctx);
	replay_decoder_free(d);
out:
	if (rc < 0)
		replay_index_release(idx);
	return rc;
}

void replay_index_release(struct replay_index *idx)
{
	free(idx->entries);
	*idx = (struct replay_index){ 0 };
}

int replay_index_seek(const struct replay_index *idx, struct replay_decoder *d, uint64_t n)
{
	size_t lo = 0, hi = idx->nentries;
	int rc;

	if (n < 1 || n > idx->nitems)
		return -ENOENT;
	if (!idx->nentries) {
		rc = replay_decoder_rewind(d);
		return rc < 0 ? rc : replay_decoder_skip_to(d, n);
	}
	/* The last entry whose index <= n. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (idx->entries[mid].index <= n)
			lo = mid;
		else
			hi = mid;
	}
	if (idx->entries[lo].index > n) {
		/* Before the first PSB that led to an item (a gap at the
		 * start): from the beginning. */
		rc = replay_decoder_rewind(d);
		return rc < 0 ? rc : replay_decoder_skip_to(d, n);
	}
	rc = replay_decoder_seek(d, idx->entries[lo].offset, idx->entries[lo].index);
	if (rc < 0)
		return rc;
	return replay_decoder_skip_to(d, n);
}

size_t replay_index_bytes(const struct replay_index *idx)
{
	return sizeof(*idx) + idx->cap * sizeof(idx->entries[0]);
}
