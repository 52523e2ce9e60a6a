/*
 * replay/decode/provenance.c: the write that last changed memory, the
 * instruction that last changed a register and what it read, and the
 * chain from a faulting address back to the store (see provenance.h).
 */
#include "replay/decode/provenance.h"

#include <Zydis/Zydis.h>
#include <errno.h>
#include <string.h>

#include "protocol/rsp_regs.h"
#include "replay/decode/cursor.h"
#include "replay/model/image.h"
#include "replay/model/state_format.h"

#define WINDOW 16384u              /* positions compared per backward pass */

const char *replay_prov_reg_name(int slot)
{
	for (size_t r = 0; slot >= 0 && r < RSP_REG_COUNT; r++)
		if ((int)rsp_reg_descs[r].user == slot && rsp_reg_descs[r].size == 8)
			return rsp_reg_descs[r].name;
	return NULL;
}

const char *replay_prov_syscall_name(int64_t nr)
{
	switch (nr) {
	case 9: return "mmap";
	case 11: return "munmap";
	case 12: return "brk";
	case 25: return "mremap";
	case 28: return "madvise";
	default: return NULL;
	}
}

const char *replay_prov_map_how(int how)
{
	return how == REPLAY_STATE_MAP_ZERO ? "zero-filled by the kernel" :
	       how == REPLAY_STATE_MAP_VOLATILE ? "written by the kernel unseen" :
	       how == REPLAY_STATE_MAP_GONE ? "unmapped" : "its contents not in the recording";
}

int64_t replay_prov_syscall_at(struct replay_state *st, int64_t tid, uint64_t position)
{
	uint64_t gp[REPLAY_STATE_NGP];

	return replay_state_raw_at(st, tid, position, gp, NULL, NULL) == 0 ?
	       (int64_t)gp[RSP_USER_RAX] : -1;
}

/* ---- memory --------------------------------------------------------------- */

int replay_prov_write_before(const struct replay_state *st, uint64_t addr, size_t len,
			     uint64_t time, struct replay_prov_write *out)
{
	struct replay_state_write w;
	int r;

	if (!len || len > REPLAY_PROV_MAX)
		return -EINVAL;
	r = replay_state_write_before(st, addr, len, time == UINT64_MAX ? time : time + 1, &w);
	if (r < 0)
		return r;
	memset(out, 0, sizeof(*out));
	out->tid = w.tid;
	out->position = w.index;
	out->time = w.time;
	out->waddr = w.addr;
	out->wlen = w.len;
	out->addr = addr;
	out->len = len;
	if (w.time > 0)
		replay_state_read_mem_status(st, w.time - 1, addr, out->before, len,
					     out->before_status);
	else
		memset(out->before_status, REPLAY_STATE_UNKNOWN, len);
	replay_state_read_mem_status(st, w.time, addr, out->after, len, out->after_status);
	return 0;
}

/* Whether @w changed the bytes asked: a byte known on one side only, or
 * known on both with another value. */
static bool changes(const struct replay_prov_write *w)
{
	for (size_t i = 0; i < w->len; i++)
		if (w->before_status[i] != w->after_status[i] ||
		    (w->after_status[i] == REPLAY_STATE_KNOWN && w->before[i] != w->after[i]) ||
		    w->after_status[i] != REPLAY_STATE_KNOWN)
			return true;
	return false;
}

int replay_prov_change_before(const struct replay_state *st, uint64_t addr, size_t len,
			      uint64_t time, struct replay_prov_write *out)
{
	for (;;) {
		int r = replay_prov_write_before(st, addr, len, time, out);

		if (r < 0 || changes(out) || !out->time)
			return r;
		time = out->time - 1;
	}
}

/* ---- instructions ----------------------------------------------------------- */

/* The state slot of Zydis's register @reg (its 64-bit enclosing one). */
static int slot_of(ZydisRegister reg)
{
	const char *name;
	int r;

	if (reg == ZYDIS_REGISTER_NONE)
		return -1;
	name = ZydisRegisterGetString(ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64,
								       reg));
	r = name ? rsp_reg_find(name, strlen(name)) : -ENOENT;
	return r < 0 ? -1 : (int)rsp_reg_descs[r].user;
}

static bool is_move(ZydisMnemonic m)
{
	return m == ZYDIS_MNEMONIC_MOV || m == ZYDIS_MNEMONIC_MOVSXD ||
	       m == ZYDIS_MNEMONIC_MOVZX || m == ZYDIS_MNEMONIC_MOVSX;
}

/* Whether @m writes a source's value unchanged (extended at most): a
 * memory operand it reads is then the value's origin; arithmetic with one
 * computes a new value. */
static bool copies_value(ZydisMnemonic m)
{
	return is_move(m) || m == ZYDIS_MNEMONIC_POP || m == ZYDIS_MNEMONIC_XCHG ||
	       (m >= ZYDIS_MNEMONIC_CMOVB && m <= ZYDIS_MNEMONIC_CMOVZ);
}

/* The address of memory operand @op of @in at @pc, from @gp. */
static uint64_t mem_address(const ZydisDecodedOperand *op, const struct replay_insn *in,
			    const uint64_t *gp)
{
	int b = slot_of(op->mem.base), x = slot_of(op->mem.index);
	uint64_t a = (uint64_t)op->mem.disp.value;

	if (b >= 0)
		a += gp[b];
	if (x >= 0)
		a += gp[x] * op->mem.scale;
	if (op->mem.base == ZYDIS_REGISTER_RIP)
		a += in->ip + in->size;
	if (op->mem.segment == ZYDIS_REGISTER_FS)
		a += gp[RSP_USER_FS_BASE];
	if (op->mem.segment == ZYDIS_REGISTER_GS)
		a += gp[RSP_USER_GS_BASE];
	return a;
}

static void take_mem(struct replay_prov_operand *out, const ZydisDecodedOperand *op,
		     const struct replay_insn *in, const uint64_t *gp)
{
	out->has_mem = true;
	out->addr = mem_address(op, in, gp);
	out->len = op->size / 8;
	out->reads = (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0;
	out->writes = (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) != 0;
	out->base = slot_of(op->mem.base);
	out->index = slot_of(op->mem.index);
	out->base_name = replay_prov_reg_name(out->base);
	out->index_name = replay_prov_reg_name(out->index);
}

int replay_prov_operand(const struct replay_insn *in, const uint64_t gp[REPLAY_STATE_NGP],
			struct replay_prov_operand *out)
{
	ZydisDecoder dec;
	ZydisDecodedInstruction z;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];

	memset(out, 0, sizeof(*out));
	out->base = out->index = out->dest = out->src = -1;
	if (ZYAN_FAILED(ZydisDecoderInit(&dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64)) ||
	    ZYAN_FAILED(ZydisDecoderDecodeFull(&dec, in->raw, in->size, &z, ops)))
		return -EINVAL;
	/* explicit operands first: a pop's hidden [rsp] only when nothing else */
	for (int pass = 0; pass < 2 && !out->has_mem; pass++) {
		for (size_t i = 0; i < z.operand_count && !out->has_mem; i++) {
			const ZydisDecodedOperand *op = &ops[i];
			bool expl = op->visibility == ZYDIS_OPERAND_VISIBILITY_EXPLICIT;

			if (op->type == ZYDIS_OPERAND_TYPE_MEMORY &&
			    op->mem.type == ZYDIS_MEMOP_TYPE_MEM && expl == (pass == 0))
				take_mem(out, op, in, gp);
		}
	}
	for (size_t i = 0; i < z.operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &ops[i];

		if (op->type != ZYDIS_OPERAND_TYPE_REGISTER)
			continue;
		if ((op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) && out->dest < 0) {
			out->dest = slot_of(op->reg.value);
			out->dest_reads = (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) != 0;
		} else if ((op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) && is_move(z.mnemonic))
			out->src = slot_of(op->reg.value);
	}
	out->copies = copies_value(z.mnemonic);
	return 0;
}

/* ---- registers -------------------------------------------------------------- */

/* The last instruction before @position that changed @slot: its position
 * and the values around it. 0, -ENOENT, or raw_at's error. */
static int last_change(struct replay_state *st, int64_t tid, int slot, uint64_t position,
		       const volatile sig_atomic_t *interrupt, struct replay_prov_reg *out)
{
	uint64_t gp[REPLAY_STATE_NGP], prev = 0, hi = position;
	int r = replay_state_raw_at(st, tid, position, gp, NULL, NULL);

	if (r < 0)
		return r;
	out->after = gp[slot];
	while (hi > 1) {
		uint64_t lo = hi > WINDOW ? hi - WINDOW : 1;
		bool found = false;

		for (uint64_t p = lo; p <= hi; p++) {
			if (interrupt && *interrupt)
				return -ECANCELED;
			r = replay_state_raw_at(st, tid, p, gp, NULL, NULL);
			if (r < 0)
				return r;
			if (p > lo && gp[slot] != prev) {
				found = true;
				out->position = p - 1;
				out->before = prev;
				out->after = gp[slot];
			}
			prev = gp[slot];
		}
		if (found)
			return 0;
		hi = lo;
	}
	return -ENOENT;
}

/* The pc past the decoded history (where a fault ends it): the cursor's
 * when it stands there, else after the last item when that is not a
 * branch. 0 or -EINVAL. */
static int end_pc(const struct replay_prov_env *env, struct replay_cursor *c, uint64_t position,
		  uint64_t *ip)
{
	struct replay_insn in;
	uint8_t buf[16];
	uint64_t last;
	int n;

	if (position != replay_cursor_size(c) + 1 || position < 2)
		return -EINVAL;
	if (replay_cursor_position(c) == position && replay_cursor_pc(c, ip) == 0)
		return 0;
	if (replay_cursor_item_ip(c, position - 1, &last) < 0)
		return -EINVAL;
	n = replay_image_read(env->img, 0, last, buf, sizeof(buf));
	if (n <= 0 || replay_insn_decode(&in, buf, (size_t)n, last, 64) < 0 ||
	    in.kind != REPLAY_INSN_OTHER)
		return -EINVAL;
	*ip = replay_insn_next_ip(&in);
	return 0;
}

/* The instruction at @position of @tid into @in (its ip too). */
static int insn_at(const struct replay_prov_env *env, int64_t tid, uint64_t position,
		   struct replay_insn *in)
{
	struct replay_cursor *c = env->cursor(env->ctx, tid);
	uint8_t buf[16];
	uint64_t ip;
	int n;

	if (!c)
		return -EINVAL;
	if (replay_cursor_item_ip(c, position, &ip) < 0 && end_pc(env, c, position, &ip) < 0)
		return -EINVAL;
	n = replay_image_read(env->img, 0, ip, buf, sizeof(buf));
	if (n <= 0)
		return -EINVAL;
	return replay_insn_decode(in, buf, (size_t)n, ip, 64);
}

/* The instruction at (@tid, @position) and its operands from the
 * registers there. 0 or < 0. */
static int decode_at(const struct replay_prov_env *env, int64_t tid, uint64_t position,
		     struct replay_insn *in, struct replay_prov_operand *op)
{
	uint64_t gp[REPLAY_STATE_NGP];
	int r = insn_at(env, tid, position, in);

	if (r == 0)
		r = replay_state_raw_at(env->st, tid, position, gp, NULL, NULL);
	return r < 0 ? r : replay_prov_operand(in, gp, op);
}

/* The time the instruction at @position read memory at: just before it
 * ran (other threads' writes after its thread's previous one count). */
static uint64_t read_time(struct replay_state *st, int64_t tid, uint64_t position)
{
	uint64_t t;

	if (replay_state_time_at(st, tid, position + 1, &t) == 0 && t > 0)
		return t - 1;
	return replay_state_time_at(st, tid, position, &t) == 0 ? t : 0;
}

int replay_prov_reg_origin(const struct replay_prov_env *env, int64_t tid, int slot,
			   uint64_t position, struct replay_prov_reg *out)
{
	int r;

	memset(out, 0, sizeof(*out));
	out->slot = slot;
	if (slot < 0 || slot >= REPLAY_STATE_NGP || slot == RSP_USER_RIP)
		return -EINVAL;
	r = last_change(env->st, tid, slot, position, env->interrupt, out);
	if (r < 0)
		return r;
	if (decode_at(env, tid, out->position, &out->insn, &out->op) < 0)
		return 0;
	out->ip = out->insn.ip;
	out->has_insn = true;
	replay_insn_format(&out->insn, 64, REPLAY_SYNTAX_ATT, out->text, sizeof(out->text));
	if (out->op.has_mem && out->op.reads && out->op.dest == slot && out->op.len &&
	    out->op.copies) {
		out->load = true;
		out->mem_addr = out->op.addr;
		out->mem_len = out->op.len;
		out->mem_time = read_time(env->st, tid, out->position);
	}
	return 0;
}

/* ---- a fault's origin --------------------------------------------------------- */

/* Whether a mapping record made [@l's address, + @len) after time @after
 * (and at or before the load): then *@k is a MAPPED link. */
static bool mapped_link(const struct replay_prov_env *env, const struct replay_prov_reg *l,
			size_t len, uint64_t after, struct replay_prov_link *k)
{
	struct replay_state_mapping m;

	/* at time 0: the memory the recording starts with (a window's
	 * pages of zeros), which no system call of it made */
	if (replay_state_map_before(env->st, l->mem_addr, len, l->mem_time, &m) < 0 ||
	    (after && m.time <= after) || m.time == 0)
		return false;
	memset(k, 0, sizeof(*k));
	k->kind = REPLAY_PROV_MAPPED;
	k->tid = m.tid;
	k->map = m;
	k->store_op.src = -1;
	k->syscall = replay_prov_syscall_at(env->st, m.tid, m.index);
	return true;
}

/* The store that last wrote what the load @l read, as a link; whether the
 * chain goes on with the register it stored (*@reg, *@tid, *@pos). */
static int store_link(const struct replay_prov_env *env, const struct replay_prov_reg *l,
		      struct replay_prov_link *k, int *reg, int64_t *tid, uint64_t *pos)
{
	struct replay_insn in;
	size_t len = l->mem_len < REPLAY_PROV_MAX ? l->mem_len : REPLAY_PROV_MAX;
	int r = replay_prov_change_before(env->st, l->mem_addr, len, l->mem_time, &k->store);

	/* a system call that made the memory since (brk's zeros) is where
	 * the value came from, not a write before it */
	if ((r == 0 || r == -ENOENT) && mapped_link(env, l, len, r == 0 ? k->store.time : 0, k))
		return 0;
	if (r < 0)
		return r;
	k->kind = REPLAY_PROV_STORE;
	k->tid = k->store.tid;
	k->store_op.src = -1;
	if (decode_at(env, k->tid, k->store.position, &in, &k->store_op) == 0)
		k->store_ip = in.ip;
	/* The recording's first moment, and no store of an instruction: the
	 * memory it starts with (the initial stack, a window's memory),
	 * logged as a write of the bytes over themselves. */
	if (k->store.time == 0 && (!k->store_ip || !k->store_op.has_mem || !k->store_op.writes))
		return -ENOENT;
	*reg = k->store_op.src;
	*tid = k->tid;
	*pos = k->store.position;
	return *reg >= 0 ? 1 : 0;
}

/* Follows @reg of @tid back from @position (see address_origin). */
static void follow(const struct replay_prov_env *env, int64_t tid, int reg, uint64_t position,
		   struct replay_prov_origin *out)
{
	out->end = -E2BIG;
	while (out->nlinks < REPLAY_PROV_LINKS) {
		struct replay_prov_link *k = &out->links[out->nlinks];
		struct replay_prov_reg *m = &k->reg;
		int r = replay_prov_reg_origin(env, tid, reg, position, m);

		if (r < 0) {
			out->end = r;
			return;
		}
		k->tid = tid;
		k->kind = m->load ? REPLAY_PROV_LOAD :
			  m->has_insn && !m->op.has_mem && m->op.src >= 0 ? REPLAY_PROV_MOVE :
			  REPLAY_PROV_COMPUTED;
		out->nlinks++;
		if (k->kind == REPLAY_PROV_COMPUTED) {
			out->end = 0;
			return;
		}
		if (k->kind == REPLAY_PROV_MOVE) {
			reg = m->op.src;
			position = m->position;
			continue;
		}
		if (out->nlinks == REPLAY_PROV_LINKS)
			return;
		r = store_link(env, m, &out->links[out->nlinks], &reg, &tid, &position);
		if (r < 0) {
			out->end = r;
			return;
		}
		out->nlinks++;
		if (r == 0) {
			out->end = 0;
			return;
		}
	}
}

int replay_prov_address_origin(const struct replay_prov_env *env, int64_t tid,
			       uint64_t position, struct replay_prov_origin *out)
{
	uint64_t gp[REPLAY_STATE_NGP];
	int r;

	memset(out, 0, sizeof(*out));
	out->reg = -1;
	out->tid = tid;
	out->position = position;
	if (insn_at(env, tid, position, &out->insn) < 0)
		return -EINVAL;
	out->pc = out->insn.ip;
	r = replay_state_raw_at(env->st, tid, position, gp, NULL, NULL);
	if (r < 0)
		return r;
	if (replay_prov_operand(&out->insn, gp, &out->op) < 0 || !out->op.has_mem)
		return -ENOENT;
	/* the pointer: the base unless it is the stack's, else the index */
	out->reg = out->op.base >= 0 && out->op.base != RSP_USER_RSP ? out->op.base
								      : out->op.index;
	if (out->reg < 0)
		return -ENOENT;
	out->reg_name = replay_prov_reg_name(out->reg);
	out->reg_value = gp[out->reg];
	follow(env, tid, out->reg, position, out);
	return 0;
}
