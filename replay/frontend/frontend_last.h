/*
 * replay/frontend/frontend_last.h: what `last` follows and `watch` watches in
 * `hindsight replay`, and where it last changed (replay/decode/provenance.h over
 * the session): a C lvalue's bytes or a register, its value as GDB prints
 * it, the last write to the bytes before now, the instruction that last
 * changed the register. Nothing here prints or moves the session; the
 * front end goes to what it found (replay_frontend_goto).
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_LAST_H
#define HINDSIGHT_REPLAY_FRONTEND_LAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct dw_type;
struct replay_frontend;

#define REPLAY_FRONTEND_VALUE_MAX 64 /* bytes of a value followed or watched */

/* A register of the current frame or bytes of memory. */
struct replay_frontend_target {
	bool reg;
	int slot;                  /* enum rsp_user_slot */
	uint64_t addr;
	size_t len;
	const struct dw_type *type; /* the C expression's type, or NULL */
	char what[160];            /* as typed */
};

/* EXPR (a C lvalue: g_list->next, *p, arr[2], *(long *)0x404040, *p@4;
 * or $REG, a 64-bit register, $pc, $sp, $fp) into *@t. 0, or -1 with
 * GDB's message in @err. */
int replay_frontend_target_parse(struct replay_frontend *f, const char *expr,
				 struct replay_frontend_target *t, char *err, size_t errsize);

/* @n bytes of @t's value as GDB prints them: its C type's value when the
 * expression has one, else an integer of 1, 2, 4 or 8 bytes, else
 * {0x41, ...}. A string to free, or NULL (out of memory). */
char *replay_frontend_target_text(struct replay_frontend *f, const struct replay_frontend_target *t,
				  const uint8_t *b, size_t n);

/* The last change of a range before now. */
struct replay_frontend_write {
	int64_t tid;               /* the writing instruction: the state before it */
	uint64_t position;
	uint64_t time, now;        /* its logical time, the time now */
	uint8_t after[REPLAY_FRONTEND_VALUE_MAX]; /* the range's bytes after it, */
	bool after_known[REPLAY_FRONTEND_VALUE_MAX]; /* those it wrote */
};

/* A system call that made memory (brk's, mmap's zeros). */
struct replay_frontend_mapping {
	int64_t tid;               /* the system call instruction: the state before it */
	uint64_t position;
	uint64_t time, now;
	const char *call;          /* "brk", "mmap", ..., or NULL (another or unknown) */
	const char *how;           /* what it left: "zero-filled by the kernel", ... */
};

/* The system call that last made [@addr, @addr + @len) before now (a
 * mapping record of the state log), into *@m: for bytes no write changed
 * since, where their value came from. 0, -ENOENT (none: the bytes were
 * there when the recording started), -EOPNOTSUPP (no state log). */
int replay_frontend_last_mapping(struct replay_frontend *f, uint64_t addr, size_t len,
				 struct replay_frontend_mapping *m);

/* The last write that changed [@addr, @addr + @len) before now, in any
 * thread, into *@w. 0, -EOPNOTSUPP (no state log), -ENODATA (the state
 * log was cut short: a later write cannot be ruled out), -ENOENT (none:
 * the bytes held their value from the start). */
int replay_frontend_last_write(struct replay_frontend *f, uint64_t addr, size_t len,
			       struct replay_frontend_write *w);

/* The instruction that last changed a register of the current thread. */
struct replay_frontend_reg_change {
	const char *name;          /* the register's ("rax") */
	uint64_t position;         /* of the instruction (the state before it) */
	bool has_time;             /* its logical time is known: */
	uint64_t time, now;        /* it, and the time now */
	bool has_insn;             /* ip and text are set */
	uint64_t ip;
	char text[128];            /* AT&T */
	uint64_t before, after;    /* the register's values around it */
	bool load;                 /* it loaded the value from memory: */
	uint64_t mem_addr;
	unsigned mem_len;
};

/* The last instruction before the current position that changed register
 * @slot (enum rsp_user_slot) into *@out. 0; -EOPNOTSUPP (no state log);
 * -ENOENT (it held its value since the thread's first position: name and
 * after set); -ECANCELED (interrupted); other negative errnos (registers
 * not known here). */
int replay_frontend_last_reg(struct replay_frontend *f, int slot,
			     struct replay_frontend_reg_change *out);

/* Watches (@on) or stops watching writes to @t's bytes as watchpoint
 * @number, a point of the timeline: continue and reverse-continue stop at
 * the nearest write in any thread (REPLAY_FRONTEND_WATCH). 0, or
 * -EOPNOTSUPP (no state log), -ENOMEM, -ENOENT (not watched). */
int replay_frontend_watch(struct replay_frontend *f, const struct replay_frontend_target *t,
			  int number, bool on);

#endif
