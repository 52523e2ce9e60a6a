/*
 * protocol/rsp_regs.h: the amd64 register file as GDB numbers it.
 *
 * The order is GDB's (i386 core, sse, linux, segments, avx features), not
 * struct user_regs_struct's: it is the order of the `g` packet and of the
 * target description this stub sends. Targets fill a struct rsp_regs; the
 * server encodes it. Values are little-endian, as on the wire.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_REGS_H
#define HINDSIGHT_PROTOCOL_RSP_REGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rsp_buf;

enum rsp_reg {
	RSP_REG_RAX, RSP_REG_RBX, RSP_REG_RCX, RSP_REG_RDX,
	RSP_REG_RSI, RSP_REG_RDI, RSP_REG_RBP, RSP_REG_RSP,
	RSP_REG_R8, RSP_REG_R9, RSP_REG_R10, RSP_REG_R11,
	RSP_REG_R12, RSP_REG_R13, RSP_REG_R14, RSP_REG_R15,
	RSP_REG_RIP, RSP_REG_EFLAGS,
	RSP_REG_CS, RSP_REG_SS, RSP_REG_DS, RSP_REG_ES, RSP_REG_FS, RSP_REG_GS,
	RSP_REG_ST0, /* .. st7 */
	RSP_REG_FCTRL = RSP_REG_ST0 + 8, RSP_REG_FSTAT, RSP_REG_FTAG,
	RSP_REG_FISEG, RSP_REG_FIOFF, RSP_REG_FOSEG, RSP_REG_FOOFF, RSP_REG_FOP,
	RSP_REG_XMM0, /* .. xmm15 */
	RSP_REG_MXCSR = RSP_REG_XMM0 + 16,
	RSP_REG_ORIG_RAX,
	RSP_REG_FS_BASE, RSP_REG_GS_BASE,
	RSP_REG_YMM0H, /* .. ymm15h: upper halves of ymm0..15 */
	RSP_REG_COUNT = RSP_REG_YMM0H + 16,
};

/* Registers without / with the avx feature, and the `g` sizes in bytes. */
#define RSP_REG_COUNT_NOAVX RSP_REG_YMM0H
#define RSP_REGS_SIZE_NOAVX 560
#define RSP_REGS_SIZE 816

/* The 8-byte fields of struct user_regs_struct (<sys/user.h>: ptrace's
 * PTRACE_GETREGS, and the general registers of a state log), in its
 * order: the slots of a uint64_t[RSP_USER_COUNT] holding one. */
enum rsp_user_slot {
	RSP_USER_NONE = -1,            /* a register with no such field */
	RSP_USER_R15, RSP_USER_R14, RSP_USER_R13, RSP_USER_R12,
	RSP_USER_RBP, RSP_USER_RBX, RSP_USER_R11, RSP_USER_R10,
	RSP_USER_R9, RSP_USER_R8, RSP_USER_RAX, RSP_USER_RCX,
	RSP_USER_RDX, RSP_USER_RSI, RSP_USER_RDI, RSP_USER_ORIG_RAX,
	RSP_USER_RIP, RSP_USER_CS, RSP_USER_EFLAGS, RSP_USER_RSP,
	RSP_USER_SS, RSP_USER_FS_BASE, RSP_USER_GS_BASE, RSP_USER_DS,
	RSP_USER_ES, RSP_USER_FS, RSP_USER_GS,
	RSP_USER_COUNT,                /* 27 */
};

/* The one register table: every place that names a register, or maps
 * GDB's numbers to struct user_regs_struct, reads it. */
struct rsp_reg_desc {
	const char *name;               /* GDB's */
	unsigned size;                  /* bytes */
	unsigned offset;                /* in the `g` block */
	enum rsp_user_slot user;        /* its user_regs_struct field, or RSP_USER_NONE */
};

extern const struct rsp_reg_desc rsp_reg_descs[RSP_REG_COUNT];

/* The register GDB calls @name (@len bytes, no NUL needed), or -ENOENT. */
int rsp_reg_find(const char *name, size_t len);

struct rsp_regs {
	uint8_t bytes[RSP_REGS_SIZE];
	bool avail[RSP_REG_COUNT];
};

/* The register's bytes inside @regs. */
static inline uint8_t *rsp_regs_ptr(struct rsp_regs *regs, enum rsp_reg r)
{
	return regs->bytes + rsp_reg_descs[r].offset;
}

/* The low 8 bytes of a register (zero-extended for smaller ones). */
uint64_t rsp_regs_get(const struct rsp_regs *regs, enum rsp_reg r);
/* Sets a register of up to 8 bytes from @value and marks it available. */
void rsp_regs_set(struct rsp_regs *regs, enum rsp_reg r, uint64_t value);
/* Copies rsp_reg_descs[r].size bytes from @src and marks it available. */
void rsp_regs_set_bytes(struct rsp_regs *regs, enum rsp_reg r, const void *src);

/* Number of registers for a target with RSP_TARGET_* @features. */
size_t rsp_regs_count(unsigned features);
/* Size of the `g` block for @features. */
size_t rsp_regs_size(unsigned features);

/* Appends the target description (target.xml) for @features to @out.
 * Returns 0 or -ENOMEM. */
int rsp_regs_tdesc(unsigned features, struct rsp_buf *out);

#endif
