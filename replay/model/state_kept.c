/*
 * replay/model/state_kept.c: the state logs' index (what state.c's scan
 * finds: each log's checkpoints, time bases and trust, the mapping
 * records, the chunks' blocks) kept beside a finished recording
 * (replay/model/kept.h), so that opening it again reads a few megabytes
 * instead of parsing every record of gigabytes of logs.
 *
 * One file for all the threads, `state.idx` in the directory of the
 * first log: the blocks of every thread are one sorted array. Its
 * contents are a head, then for each thread its scalars, checkpoints and
 * time bases, then the mapping records (pointers into a log stored as
 * offsets) and the blocks, each in the order the index keeps them. What
 * is loaded is checked against the logs as mapped (every offset inside
 * its log, every reference to a thread or checkpoint that exists) before
 * it is used; a file that does not fit is as none.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "replay/model/bundle.h"
#include "replay/model/fingerprint.h"
#include "replay/model/kept.h"
#include "replay/model/state_int.h"

#define STATE_IDX_MAGIC "HSSTIDX1"
#define STATE_IDX_MAX ((size_t)1 << 36)

struct kept_head {
	uint64_t nt, nw, nmr, npm;
};

struct kept_thread {
	int64_t tid;
	uint64_t len, nck, ntb, last_index, known, until, ck_ntb, ck_known, ck_until;
	uint64_t whole;
};

/* A mapping record as kept (the index keeps no MEM record in st->w; a
 * MAP record has no bytes to point to). */
struct kept_write {
	uint64_t time, addr, len, index, off;
	uint32_t thread, kind;
};

bool state_kept_where(const struct replay_bundle *b, char *path, size_t size, uint64_t *key)
{
	const char *first = NULL;
	char file[4096];
	const char *slash;
	uint64_t h = replay_fingerprint(REPLAY_FINGERPRINT_START, "state-index-1", 14);

	h = replay_kept_key_code(h);
	h = replay_kept_key_file(b, h, "trace.json");
	for (size_t i = 0; i < b->nthreads; i++) {
		const struct replay_thread *t = &b->threads[i];

		if (!t->state_file)
			continue;
		if (!first)
			first = t->state_file;
		h = replay_fingerprint(h, &t->tid, sizeof(t->tid));
		h = replay_kept_key_file(b, h, t->state_file);
		h = replay_kept_key_file(b, h, t->state_sums);
	}
	if (!first)
		return false;
	slash = strrchr(first, '/');
	if (snprintf(file, sizeof(file), "%.*sstate.idx", slash ? (int)(slash - first + 1) : 0,
		     first) >= (int)sizeof(file) || !replay_kept_path(b, file, "", path, size))
		return false;
	*key = h;
	return true;
}

void state_kept_save(const struct replay_state *st, const char *path, uint64_t key)
{
	struct kept_head h = { st->nt, st->nw, st->nmr, st->npm };
	size_t nparts = 4 + 3 * st->nt, k = 0;
	struct replay_kept_part *parts = calloc(nparts, sizeof(*parts));
	struct kept_thread *kt = calloc(st->nt ? st->nt : 1, sizeof(*kt));
	struct kept_write *kw = calloc(st->nw ? st->nw : 1, sizeof(*kw));

	if (!parts || !kt || !kw)
		goto out;          /* the next open scans again */
	parts[k++] = (struct replay_kept_part){ &h, sizeof(h) };
	for (size_t i = 0; i < st->nt; i++) {
		const struct sthread *t = &st->t[i];

		kt[i] = (struct kept_thread){
			.tid = t->tid, .len = t->len, .nck = t->nck, .ntb = t->ntb,
			.last_index = t->last_index, .known = t->known, .until = t->until,
			.ck_ntb = t->ck_ntb, .ck_known = t->ck_known, .ck_until = t->ck_until,
			.whole = t->whole,
		};
		parts[k++] = (struct replay_kept_part){ &kt[i], sizeof(kt[i]) };
		parts[k++] = (struct replay_kept_part){ t->ck, t->nck * sizeof(*t->ck) };
		parts[k++] = (struct replay_kept_part){ t->tb, t->ntb * sizeof(*t->tb) };
	}
	for (size_t i = 0; i < st->nw; i++) {
		const struct mwrite *w = &st->w[i];

		kw[i] = (struct kept_write){ w->time, w->addr, w->len, w->index, w->off, w->thread,
					     w->kind };
	}
	parts[k++] = (struct replay_kept_part){ kw, st->nw * sizeof(*kw) };
	parts[k++] = (struct replay_kept_part){ st->mr, st->nmr * sizeof(*st->mr) };
	parts[k++] = (struct replay_kept_part){ st->pm, st->npm };
	replay_kept_save(path, STATE_IDX_MAGIC, key, parts, k);
out:
	free(parts);
	free(kt);
	free(kw);
}

/* Reads @n items of @size from *@p (@end: the contents' end) into a new
 * array of at least @cap items. NULL when they are not there or no
 * memory (*@bad says which). */
static void *take(const uint8_t **p, const uint8_t *end, uint64_t n, size_t size, size_t cap,
		  bool *bad)
{
	void *v;

	if (n > (uint64_t)(end - *p) / size) {
		*bad = true;
		return NULL;
	}
	v = malloc((cap > n ? cap : n ? n : 1) * size);
	if (v) {
		memcpy(v, *p, n * size);
		*p += n * size;
	}
	return v;
}

/* A power of two at least @n (add_ckpt grows the array at each). */
static size_t pow2_at_least(size_t n)
{
	size_t c = 1;

	while (c < n)
		c *= 2;
	return c;
}

static bool thread_sane(const struct sthread *t)
{
	if (!t->nck || t->len > t->maplen || t->ck_ntb > t->ntb)
		return false;
	for (size_t i = 0; i < t->nck; i++)
		if (t->ck[i].off < t->start || t->ck[i].off >= t->len ||
		    (i && (t->ck[i].off <= t->ck[i - 1].off || t->ck[i].index < t->ck[i - 1].index)))
			return false;
	return true;
}

/* The kept index of @st's threads (their logs mapped, their headers
 * read) from @path under @key: 0; -ENOENT (none, or another key: scan
 * them), -EINVAL (it does not fit the logs: scan them), -ENOMEM. */
int state_kept_load(struct replay_state *st, const char *path, uint64_t key)
{
	struct kept_head h;
	const uint8_t *p, *end;
	const void *buf;
	size_t len;
	bool bad = false;
	int rc = replay_kept_load(path, STATE_IDX_MAGIC, key, STATE_IDX_MAX, &buf, &len);

	if (rc < 0)
		return rc;
	p = buf;
	end = p + len;
	if (len < sizeof(h)) {
		replay_kept_release(buf, len);
		return -EINVAL;
	}
	memcpy(&h, p, sizeof(h));
	p += sizeof(h);
	bad = h.nt != st->nt;
	for (size_t i = 0; !bad && i < st->nt; i++) {
		struct sthread *t = &st->t[i];
		struct kept_thread kt;

		if ((size_t)(end - p) < sizeof(kt)) {
			bad = true;
			break;
		}
		memcpy(&kt, p, sizeof(kt));
		p += sizeof(kt);
		if (kt.tid != t->tid) {
			bad = true;
			break;
		}
		t->len = kt.len;
		t->last_index = kt.last_index;
		t->known = kt.known;
		t->until = kt.until;
		t->whole = kt.whole;
		t->ck_ntb = kt.ck_ntb;
		t->ck_known = kt.ck_known;
		t->ck_until = kt.ck_until;
		t->ck = take(&p, end, kt.nck, sizeof(*t->ck), pow2_at_least(kt.nck), &bad);
		t->nck = t->ck ? kt.nck : 0;
		t->tb = bad || !t->ck ? NULL : take(&p, end, kt.ntb, sizeof(*t->tb), 0, &bad);
		t->ntb = t->captb = t->tb ? kt.ntb : 0;
		if (!t->ck || !t->tb) {
			rc = bad ? -EINVAL : -ENOMEM;
			break;
		}
		bad = !thread_sane(t);
	}
	if (rc == 0 && !bad) {
		struct kept_write *kw = take(&p, end, h.nw, sizeof(*kw), 0, &bad);

		st->w = kw && !bad ? malloc((h.nw ? h.nw : 1) * sizeof(*st->w)) : NULL;
		for (size_t i = 0; st->w && !bad && i < h.nw; i++) {
			const struct kept_write *k = &kw[i];
			const struct sthread *t = k->thread < st->nt ? &st->t[k->thread] : NULL;

			bad = !t || k->off >= t->len || k->kind < 16 || k->kind > 255;
			st->w[i] = (struct mwrite){ .time = k->time, .addr = k->addr, .len = k->len,
						    .index = k->index, .kind = (uint8_t)k->kind,
						    .thread = k->thread, .off = k->off };
		}
		st->nw = st->capw = st->w ? h.nw : 0;
		free(kw);
		if (!bad && !st->w)
			rc = -ENOMEM;
	}
	if (rc == 0 && !bad) {
		st->mr = take(&p, end, h.nmr, sizeof(*st->mr), 0, &bad);
		st->nmr = st->capmr = st->mr ? h.nmr : 0;
		st->pm = st->mr ? take(&p, end, h.npm, 1, 0, &bad) : NULL;
		st->npm = st->cappm = st->pm ? h.npm : 0;
		for (size_t i = 0; st->mr && st->pm && !bad && i < h.nmr; i++) {
			const struct mref *r = &st->mr[i];

			bad = r->thread >= st->nt || r->ck >= st->t[r->thread].nck || !r->words ||
			      (r->partial & ~r->words) ||
			      r->pm + (uint64_t)__builtin_popcountll(r->partial) > h.npm ||
			      (i && (r[-1].block > r->block ||
				     (r[-1].block == r->block && r[-1].first > r->first)));
		}
		if (!bad && (!st->mr || !st->pm))
			rc = -ENOMEM;
	}
	if (!bad && rc == 0 && p != end)
		bad = true;
	replay_kept_release(buf, len);
	if (bad && rc == 0)
		rc = -EINVAL;
	if (rc < 0)
		state_kept_forget(st);
	return rc;
}

void state_kept_forget(struct replay_state *st)
{
	for (size_t i = 0; i < st->nt; i++) {
		struct sthread *t = &st->t[i];

		free(t->ck);
		free(t->tb);
		t->ck = NULL;
		t->tb = NULL;
		t->nck = t->ntb = t->captb = 0;
		t->len = t->maplen;
		t->last_index = t->known = t->until = 0;
		t->whole = false;
		t->ck_ntb = 0;
		t->ck_known = t->ck_until = 0;
	}
	free(st->w);
	free(st->mr);
	free(st->pm);
	st->w = NULL;
	st->mr = NULL;
	st->pm = NULL;
	st->nw = st->capw = st->nmr = st->capmr = st->npm = st->cappm = 0;
}
