/*
 * replay/decode/provenance.h: where a value came from, in a software recording
 * (one with a state log: replay/model/state.h).
 *
 * - Memory: the last logged write overlapping a range before a logical
 *   time, in any thread, with the range's bytes just before and just
 *   after it (or the last that changed them); asked again from that
 *   write's time, the one before it, and so on back through the value's
 *   history.
 * - A register at a position: the instruction that last changed it (the
 *   state log's registers compared position by position, backward in
 *   windows), decoded; when it read memory (a load, a pop), the address
 *   and size it read, computed from the registers before it.
 * - An instruction's memory operand: its address and the base / index
 *   registers that formed it (for a faulting instruction: which register
 *   held the bad address).
 * - A crash's origin: the faulting operand, the register holding the bad
 *   address, the load that filled it (register-to-register moves
 *   followed), and the store that last wrote the memory loaded.
 *
 * Positions are (thread, item number) as in replay/decode/cursor.h: position P
 * is the state before item P runs. Registers only change by instructions
 * the log records a difference for: an instruction that wrote a register
 * its own value is not seen. Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_PROVENANCE_H
#define HINDSIGHT_REPLAY_PROVENANCE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "replay/decode/insn.h"
#include "replay/model/state.h"

struct replay_cursor;
struct replay_image;

#define REPLAY_PROV_MAX 64         /* bytes of a value followed */

/* A write to a range: the instruction (thread @tid, position @position:
 * the state before it) at logical time @time, the logged write's own
 * range, and the asked range's bytes before and after it with each
 * byte's enum replay_state_byte. */
struct replay_prov_write {
	int64_t tid;
	uint64_t position;
	uint64_t time;
	uint64_t waddr, wlen;
	uint64_t addr;             /* the asked range */
	size_t len;
	uint8_t before[REPLAY_PROV_MAX], after[REPLAY_PROV_MAX];
	uint8_t before_status[REPLAY_PROV_MAX], after_status[REPLAY_PROV_MAX];
};

/* The last write overlapping [@addr, @addr + @len) (@len 1 ..
 * REPLAY_PROV_MAX) that made memory at time @time (its time <= @time),
 * into *@out. To walk back from a found write W, ask again with time
 * W.time - 1. 0, -EINVAL (@len), -ENOENT (no write: the bytes had their
 * value since the start of the recording, or since memory the recording
 * could not see changed), -ENODATA (a state log cut short may hold it). */
int replay_prov_write_before(const struct replay_state *st, uint64_t addr, size_t len,
			     uint64_t time, struct replay_prov_write *out);

/* The same, passing over writes that left the asked bytes as they were
 * (a register save area written whole, a value stored again): the last
 * change, where GDB's watchpoints and UDB's `last` stop. Same returns. */
int replay_prov_change_before(const struct replay_state *st, uint64_t addr, size_t len,
			      uint64_t time, struct replay_prov_write *out);

/* An instruction's memory operand (the first that is a real memory
 * access, not an lea), from the registers @gp before it ran. */
struct replay_prov_operand {
	bool has_mem;
	uint64_t addr;
	unsigned len;              /* bytes accessed */
	bool reads, writes;
	int base, index;           /* enum rsp_user_slot, or -1 (none, rip) */
	const char *base_name, *index_name; /* "rax" ... or NULL */
	int dest;                  /* the general register it writes (explicit), or -1 */
	int src;                   /* its register source when it is a move of one, or -1 */
	bool copies;               /* what it writes to @dest is a source's value as it
				    * was (a move, a load, a pop, a cmov, an xchg), not
				    * computed from it (xor 0x80(%rax),%rdx) */
	bool dest_reads;           /* @dest is a source too (add, xor, ...) */
};

/* Decodes @in's operands (64-bit code) into *@out. 0, or -EINVAL. */
int replay_prov_operand(const struct replay_insn *in, const uint64_t gp[REPLAY_STATE_NGP],
			struct replay_prov_operand *out);

/* What provenance reads: the state log, the code, each thread's cursor
 * (its window moves), and a flag that ends a long search (NULL: never). */
struct replay_prov_env {
	struct replay_state *st;
	struct replay_image *img;
	struct replay_cursor *(*cursor)(void *ctx, int64_t tid); /* NULL: no such thread */
	void *ctx;
	const volatile sig_atomic_t *interrupt;
};

/* The instruction that last changed a register. */
struct replay_prov_reg {
	int slot;                  /* enum rsp_user_slot */
	uint64_t position;         /* of the instruction (the state before it) */
	uint64_t ip;
	uint64_t before, after;    /* the register's values around it */
	bool has_insn;
	struct replay_insn insn;
	char text[128];            /* AT&T */
	struct replay_prov_operand op; /* with the registers before it */
	bool load;                 /* it read the value from memory as it was (op.copies): */
	uint64_t mem_addr;
	unsigned mem_len;
	uint64_t mem_time;         /* the time memory was read at */
};

/* The last instruction of thread @tid before its position @position that
 * changed register @slot (enum rsp_user_slot), decoded. 0; -ENOENT (it
 * kept its value since the thread's first position: *@out's slot and
 * after are set); -ENODATA (no registers there); -EINVAL; -ECANCELED
 * (interrupted). */
int replay_prov_reg_origin(const struct replay_prov_env *env, int64_t tid, int slot,
			   uint64_t position, struct replay_prov_reg *out);

/* One step of a value's way back. */
enum replay_prov_link_kind {
	REPLAY_PROV_MOVE,          /* @reg: a register copied from another */
	REPLAY_PROV_LOAD,          /* @reg: loaded from memory */
	REPLAY_PROV_COMPUTED,      /* @reg: made otherwise (arithmetic, a call's result) */
	REPLAY_PROV_STORE,         /* @store: the write that last changed what was loaded */
	REPLAY_PROV_MAPPED,        /* @map: no write since a system call made that memory
				    * (brk's or mmap's zeros) */
};

struct replay_prov_link {
	enum replay_prov_link_kind kind;
	int64_t tid;
	struct replay_prov_reg reg;
	struct replay_prov_write store;
	uint64_t store_ip;         /* the writing instruction's address (0: unknown) */
	struct replay_prov_operand store_op; /* its operands (src: a register stored) */
	struct replay_state_mapping map; /* MAPPED: the mapping record */
	int64_t syscall;           /* MAPPED: its system call's number (rax before it), or -1 */
};

#define REPLAY_PROV_LINKS 16

/* Where an instruction's address came from. */
struct replay_prov_origin {
	int64_t tid;
	uint64_t position, pc;     /* the instruction */
	struct replay_insn insn;
	struct replay_prov_operand op;
	int reg;                   /* the register holding the address, or -1 */
	const char *reg_name;
	uint64_t reg_value;
	struct replay_prov_link links[REPLAY_PROV_LINKS]; /* newest first */
	size_t nlinks;
	int end;                   /* why the chain stopped: 0 (a value made, not
				    * moved), -ENOENT (no earlier write / change),
				    * -ENODATA, -E2BIG (too long) */
};

/* The origin of the address the instruction at (@tid, @position) uses:
 * the register that held it, then back through moves, loads and the
 * stores of what was loaded (a store of a register goes on with that
 * register in the storing thread) until a value is made otherwise, or
 * memory loaded was made by a system call (brk, mmap) and not written
 * since: a MAPPED link ends the chain there. 0 (as
 * much of *@out as could be found), or -ENOENT (it has no memory operand
 * with a register), -ENODATA (no registers there), -EINVAL (no
 * instruction there). */
int replay_prov_address_origin(const struct replay_prov_env *env, int64_t tid,
			       uint64_t position, struct replay_prov_origin *out);

/* The name of system call @nr that makes or unmaps memory ("brk",
 * "mmap", "munmap", "mremap", "madvise"), or NULL. */
const char *replay_prov_syscall_name(int64_t nr);

/* What a mapping record's @how (enum replay_state_map) left: "zero-filled
 * by the kernel", ... */
const char *replay_prov_map_how(int how);

/* The number of the system call at (@tid, @position): rax before it (the
 * Valgrind recorder's log has no orig_rax after it), or -1. */
int64_t replay_prov_syscall_at(struct replay_state *st, int64_t tid, uint64_t position);

/* The name of slot @slot ("rax"), or NULL. */
const char *replay_prov_reg_name(int slot);

#endif
