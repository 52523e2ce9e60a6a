/*
 * stub/recorders/stub_rec_state_check.c: the hidden --state-check dump of
 * the state log writer (stub_rec_options.state_check, for the tests):
 * registers, XSAVE area, the stack page and the page of the last write,
 * sampled every so often into a file the tests compare with what the
 * log's reader gives at that position.
 *
 * A sample is held until the thread logs its next instruction, and taken
 * again if something is logged in between (stub_rec_check_again, which
 * stub_rec_state.c calls). Reads the thread itself, never the log: a
 * change the log missed must show. Calls only stub_rec_state_enc.c.
 */
#include "stub/recorders/stub_rec_state_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct stub_rec_state_sample {
	uint32_t tid;
	uint64_t index, time;
	struct user_regs_struct regs;
	uint32_t xl;
	uint64_t page[2];
	uint32_t plen[2];
	uint8_t bytes[2][STUB_REC_PAGE];
	uint8_t xs[REPLAY_STATE_XMAX];
};

static void stub_rec_check_page(struct stub_rec_state_sample *c, int k, int fd, uint64_t addr)
{
	c->page[k] = addr & ~(STUB_REC_PAGE - 1);
	c->plen[k] = STUB_REC_PAGE;
	if (pread(fd, c->bytes[k], STUB_REC_PAGE, (off_t)c->page[k]) != (ssize_t)STUB_REC_PAGE)
		c->plen[k] = 0;
}

/* Takes the sample of position @index + 1 now; false if the thread
 * cannot be read. */
static bool stub_rec_check_take(struct stub_rec_state *s, struct stub_rec_state_proc *p,
				const struct user_regs_struct *regs, uint64_t index, uint64_t time)
{
	struct stub_rec_state_sample *c = s->chk;
	size_t len = 0;

	/* Read afresh, not the log's copy: a missed change must show. */
	if (stub_rec_xread(s->tid, c->xs, &len) < 0)
		return false;
	c->tid = (uint32_t)s->tid;
	c->index = index;
	c->time = time;
	c->regs = *regs;
	c->xl = (uint32_t)len;
	stub_rec_check_page(c, 0, *p->mem_fd, regs->rsp);
	stub_rec_check_page(c, 1, *p->mem_fd, s->last_write);
	return true;
}

int stub_rec_state_check_end(struct stub_rec_state *s, struct stub_rec_state_proc *p)
{
	const struct stub_rec_state_sample *c = s->chk;

	if (!s->chk_pending)
		return 0;
	s->chk_pending = false;
	fwrite("HSCK", 1, 4, p->check);
	fwrite(&c->tid, 4, 1, p->check);
	fwrite(&c->index, 8, 1, p->check);
	fwrite(&c->time, 8, 1, p->check);
	fwrite(&c->regs, sizeof(c->regs), 1, p->check);
	fwrite(&c->xl, 4, 1, p->check);
	fwrite(c->xs, 1, c->xl, p->check);
	for (int k = 0; k < 2; k++) {
		fwrite(&c->page[k], 8, 1, p->check);
		fwrite(&c->plen[k], 4, 1, p->check);
		fwrite(c->bytes[k], 1, c->plen[k], p->check);
	}
	return ferror(p->check) ? -EIO : 0;
}

/* Something was logged at @index after the instruction: the held sample
 * of position @index + 1 is taken again, with the registers now and the
 * log's time of that position. */
void stub_rec_check_again(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			  const struct user_regs_struct *regs, uint64_t index)
{
	if (s->chk_pending && s->chk->index == index)
		s->chk_pending = stub_rec_check_take(s, p, regs, index, index + s->base);
}

int stub_rec_state_check(struct stub_rec_state *s, struct stub_rec_state_proc *p,
			 const struct user_regs_struct *regs, uint64_t index, uint64_t time)
{
	int e;

	if (!p->check || !p->check_every || time % p->check_every)
		return 0;
	e = stub_rec_state_check_end(s, p);
	if (e < 0)
		return e;
	if (!s->chk && !(s->chk = malloc(sizeof(*s->chk))))
		return -ENOMEM;
	s->chk_pending = stub_rec_check_take(s, p, regs, index, time);
	return 0;
}
