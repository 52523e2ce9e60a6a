/*
 * replay/frontend_expr.h: the expressions `hindsight replay`'s print and
 * x take. Not C: registers ($rax .. $r15, $rip / $pc, $rsp / $sp, $rbp /
 * $fp, $eflags, 32-bit $eax ...), numbers (decimal, 0x hex), + and -,
 * parentheses, casts to a scalar type or a pointer to one ((int *),
 * (unsigned long), (char **), int8_t .. uint64_t, size_t, void *), and
 * `*` to read memory through a pointer. Values come from the session's
 * position (registers and memory of the state log). Nothing here prints.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_EXPR_H
#define HINDSIGHT_REPLAY_FRONTEND_EXPR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct replay_frontend;

enum replay_expr_kind {
	REPLAY_EXPR_INT,           /* an integer of @size bytes */
	REPLAY_EXPR_POINTER,       /* a pointer to @size-byte integers (depth @ptr) */
	REPLAY_EXPR_CODE,          /* $pc: a code address */
	REPLAY_EXPR_VOIDP,         /* $sp, $fp, (void *) */
};

struct replay_expr_value {
	enum replay_expr_kind kind;
	uint64_t v;
	unsigned size;             /* 1, 2, 4, 8: of the integer (or the pointee) */
	bool is_signed;
	unsigned ptr;              /* pointer depth */
	char type[48];             /* the type's name, GDB's spelling ("int", "long") */
};

/* Evaluates @expr at the current position. 0, or -EINVAL / -ENODATA /
 * -EIO with GDB's kind of message in @err ("No symbol \"x\" in current
 * context.", "Cannot access memory at address 0x10", "Attempt to take
 * contents of a non-pointer value."). */
int replay_frontend_eval(struct replay_frontend *f, const char *expr,
			 struct replay_expr_value *out, char *err, size_t errsize);

#endif
