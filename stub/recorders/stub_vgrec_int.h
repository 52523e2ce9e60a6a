/*
 * stub/recorders/stub_vgrec_int.h: what the two halves of the Valgrind
 * recorder share (stub/recorders/stub_vgrec.h is its door). The lower
 * half, stub_vgrec_insn.c, turns a thread's superblocks and state words
 * into its PT stream and state log, and keeps the threads and mappings;
 * the upper, stub_vgrec.c, starts Valgrind, reads the tool's stream and
 * its control records, and calls down into it, never the other way.
 */
#ifndef HINDSIGHT_STUB_STUB_VGREC_INT_H
#define HINDSIGHT_STUB_STUB_VGREC_INT_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>
#include <sys/user.h>

#include <Zydis/Zydis.h>

#include "replay/model/bundle.h"
#include "stub/recorders/stub_rec_insn.h"
#include "stub/recorders/stub_rec_ring.h"
#include "stub/recorders/stub_rec_state.h"
#include "stub/recorders/stub_rec_thread.h"
#include "stub/recorders/stub_vgrec.h"
#include "stub/recorders/stub_vglight.h"
#include "stub/recorders/stub_workq.h"

struct vgrec_exit {
	uint32_t idx;
	uint64_t dst;
};

struct vgrec_block {
	uint32_t ninsn, nexit;
	uint32_t plain;                     /* leading instructions that are no branch */
	/* Each instruction's place among the block's distinct instructions:
	 * VEX unrolls a rep string instruction into several copies of it
	 * (one per iteration), which are one instruction of the history. */
	uint16_t *pos;
	struct stub_rec_insn *insn;
	struct vgrec_exit *exit;
	/* Some of its code lies where no file is mapped: kept as the block
	 * is first entered (vgrec_keep_code), when its bytes start to run. */
	bool code_due;
};

struct vgrec_thread {
	struct stub_rec_thread th;
	FILE *pt;
	int64_t tid;
	size_t bundle_index;
	const struct vgrec_block *open;     /* the superblock it is in */
	uint32_t open_from;                 /* ... its instructions before this
					     * one ran before a stop there (a
					     * followed rebuild's HSREC_HERE) */
	const struct stub_rec_insn *pend;   /* ran; its successor not yet known */
	bool gone;
	/* The state log (threads/TID.state): */
	struct stub_rec_state st;
	FILE *stf;
	struct user_regs_struct regs;       /* as of the last record */
	/* The open superblock's state words, as they came (each checked
	 * whole): where the read buffer holds them (raw_off, raw_len), or a
	 * copy once the buffer moved on (raw_copied: raw, raw_len). */
	size_t raw_off, raw_len, raw_cap;
	bool raw_copied;
	uint8_t *raw;
	/* --snapshot: the ring, and a PSB written that waits for its
	 * checkpoint (the state of its instruction is applied after the
	 * superblock's control flow). */
	struct stub_rec_ring ring;
	bool psb;
	struct stub_rec_cut psb_cut;        /* its st_off: once written */
};

struct vgrec_map {
	uint64_t start, end;
	size_t index;                       /* in the bundle's maps */
};

struct stub_vgrec {
	struct stub_vgrec_options opt;
	pid_t pid;
	volatile sig_atomic_t stop;
	/* The stream's pipe; the tool opens its write end by @fifo, a path
	 * into this process's /proc (every Valgrind an exec starts opens it
	 * again), so nothing is left on disk whatever ends the recorder. */
	int fifo_r, fifo_w;
	char fifo[64];
	/* opt.dir and opt.verify as absolute paths: Valgrind opens its log
	 * file again in the directory a program that execs has moved to. */
	char absdir[PATH_MAX], absverify[PATH_MAX];
	struct replay_bundle *b;
	ZydisDecoder dec;
	struct vgrec_thread **th;
	size_t nth;
	struct vgrec_thread *cur;
	struct vgrec_block **blocks;        /* every tool instance's, in order */
	size_t nblocks, capblocks;
	size_t id_base;                     /* the current instance's first block */
	unsigned hellos;
	/* The process's id as the tool's HELLO says: the recorded run's in a
	 * rebuild (whose Valgrind is @pid), the threads' ids its kind. */
	int64_t proc;
	uint64_t entries;                   /* superblocks entered in this image */
	struct vgrec_map *maps;
	size_t nmaps;
	size_t last_map;                    /* the one vgrec_mapped found last */
	struct stub_rec_code *code;         /* code the program made, kept */
	bool anon_reported;
	uint64_t clock;
	uint64_t next_save;
	uint64_t saved_ns;                  /* when the bundle was saved last */
	uint64_t saved_clock;               /* ... and the clock then */
	size_t saved_nth;                   /* the threads it had */
	bool ended;                         /* the END record arrived */
	bool diverged;                      /* ... or the rebuild's DIVERGED */
	bool killed;                        /* ... or a rebuild's KILLED */
	/* The thread a rebuild's HSREC_HERE stopped inside a superblock
	 * (its PAUSE), which it goes on in when following the log. */
	struct vgrec_thread *here_t;
	const struct vgrec_block *here_blk;
	uint32_t here_n;
	struct stub_vglight_feed *feed;     /* the rebuild's input log, fed */
	char feed_path[64];
	bool reaped;                        /* waitpid collected Valgrind */
	bool feeding;                       /* tests: fed a stream (stub_vgrec_feed) */
	int feed_e;                         /* ... and the error it met, if any */
	uint8_t *in;
	size_t nin;
	size_t scan;                        /* where parsing goes on in in */
	struct vgrec_thread *raw_owner;     /* whose state words in holds */
	/* The worker that turns state words into the logs' records
	 * (vgrec_state_apply; NULL: this thread does, with --snapshot), and
	 * whether there is none (it could not be started, or was not asked
	 * for). */
	struct stub_workq *stq;
	bool stq_failed;
	/* The state logs' writes and checksums, by a thread of their own
	 * while stq's worker builds records (started with it, or NULL). */
	struct stub_rec_writer *wr;
	char *err;
	size_t errsize;
};

/* The first error's text into r->err; returns @e. */
int vgrec_fail(struct stub_vgrec *r, int e, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline uint32_t vgrec_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t vgrec_u64(const uint8_t *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* stub_vgrec_insn.c (each described where it is defined). Threads and
 * mappings: */
struct vgrec_thread *vgrec_thread(struct stub_vgrec *r, int64_t tid);
int vgrec_unmap(struct stub_vgrec *r, uint64_t start, uint64_t end);
int vgrec_map(struct stub_vgrec *r, uint64_t start, uint64_t len, uint64_t off,
		     uint32_t prot, const char *name);
bool vgrec_mapped(struct stub_vgrec *r, uint64_t ip);
/* The code kept in [@start, @end) ends now (stub_rec_code_forget): the
 * memory went, or is not executable any more. */
void vgrec_forget_code(struct stub_vgrec *r, uint64_t start, uint64_t end);
int vgrec_keep_code(struct stub_vgrec *r, struct vgrec_thread *t, struct vgrec_block *blk,
		    uint64_t time);
/* A thread's instructions, its state words, what happens outside them: */
int vgrec_succ(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t ip);
void vgrec_pos(const struct stub_vgrec *r, const struct vgrec_thread *t, uint64_t *index,
		      uint64_t *time);
void vgrec_raw_done(struct stub_vgrec *r, struct vgrec_thread *t);
int vgrec_state_wait(struct stub_vgrec *r);
int vgrec_run(struct stub_vgrec *r, struct vgrec_thread *t, const struct vgrec_block *blk,
		     uint32_t n);
int vgrec_raw_copy(struct stub_vgrec *r, struct vgrec_thread *t);
int vgrec_events(struct stub_vgrec *r, size_t at, size_t *used);
int vgrec_dump(struct stub_vgrec *r, struct vgrec_thread *t, const uint8_t *p);
int vgrec_memw(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t addr,
		      const uint8_t *old, const uint8_t *now, uint64_t len);
int vgrec_memu(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t addr, uint64_t len,
		      uint32_t how);
int vgrec_stop_at(struct stub_vgrec *r, struct vgrec_thread *t, uint32_t n, uint64_t ip);
int vgrec_stopped(struct stub_vgrec *r, struct vgrec_thread *t, uint64_t ip, bool fault);
int vgrec_enter(struct stub_vgrec *r, uint32_t id);
int vgrec_exit(struct stub_vgrec *r, uint32_t k);

#endif
