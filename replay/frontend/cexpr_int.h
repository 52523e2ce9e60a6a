/*
 * replay/frontend/cexpr_int.h: what the files of replay/frontend/cexpr share and nobody else
 * sees: the evaluator's state, the parsed tree, growable strings and the
 * value helpers (cexpr_value.c) the parser, evaluator and printer use.
 */
#ifndef HINDSIGHT_REPLAY_CEXPR_INT_H
#define HINDSIGHT_REPLAY_CEXPR_INT_H

#include <stdarg.h>

#include "replay/frontend/cexpr.h"

struct cx_block;

struct cx_conv {
	char name[64];                 /* with its $ */
	struct cexpr_value *v;         /* owned */
};

struct cexpr {
	struct cexpr_env env;
	char err[4096];
	char warning[128];             /* GDB's warning of this evaluation, "" if none */
	struct cx_conv *conv;          /* convenience variables ($i), set by assignment */
	size_t nconv;
	char last_format;              /* print's last /FMT letter (GDB's last_format) */
	bool types_only;               /* whatis, ptype: *p is a zero of its type, x / 0 is 0 */
	struct cexpr_value *pool;      /* values of the current evaluation */
	struct cx_block *blocks;       /* what made-up types point to */
	struct cx_block *types;        /* made-up types, one a block */
	struct cx_block *tree_blocks;  /* tree nodes of the current evaluation */
	struct cexpr_value **hist;
	int nhist, caphist;
	unsigned depth;                /* recursion guard while parsing / evaluating */
};

/* The recursion the parser and the evaluator allow (GDB: "expression too
 * complex"). */
#define CX_MAX_DEPTH 200
/* GDB's max-value-size. */
#define CX_MAX_VALUE 65536

enum cx_node_kind {
	N_INT, N_FLOAT, N_STRING, N_IDENT, N_DOLLAR, N_UNARY, N_BINARY, N_COND,
	N_CAST, N_SIZEOF_TYPE, N_SIZEOF, N_INDEX, N_MEMBER, N_ARROW, N_CALL,
	N_ASSIGN, N_INCDEC, N_TYPE,
};

/* Operators: the character, or one of these for two-character ones. */
enum cx_op {
	OP_SHL = 256, OP_SHR, OP_LE, OP_GE, OP_EQ, OP_NE, OP_AND, OP_OR, OP_ARROW,
	OP_INC, OP_DEC, OP_ASSIGN_MOD,
};

struct cx_node {
	enum cx_node_kind kind;
	int op;
	struct cx_node *a, *b, *c;
	const struct dw_type *type;    /* literals, casts, sizeof(type) */
	uint64_t ival;
	long double fval;
	char *str;                     /* identifiers, $names, members, strings */
	size_t len;                    /* strings: bytes without the NUL */
};

/* A growable string. */
struct cx_buf {
	char *s;
	size_t len, cap;
	bool oom;
};

void cx_puts(struct cx_buf *b, const char *s);
void cx_putn(struct cx_buf *b, const char *s, size_t n);
void cx_printf(struct cx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The string (malloc'd, the caller's) or NULL if anything failed. */
char *cx_buf_take(struct cx_buf *b);

/* Sets the error message; returns @code. */
int cx_fail(struct cexpr *cx, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Zeroed memory living as long as @cx (tree: until the next evaluation). */
void *cx_alloc(struct cexpr *cx, size_t size);
void *cx_tree_alloc(struct cexpr *cx, size_t size);
void cx_tree_release(struct cexpr *cx);
void cx_pool_release(struct cexpr *cx);

/* Made-up types: a zeroed one living as long as @cx. */
struct dw_type *cx_new_type(struct cexpr *cx);
const struct dw_type *cx_array_of(struct cexpr *cx, const struct dw_type *elem, uint64_t n);
const struct dw_type *cx_qualified(struct cexpr *cx, enum dw_type_kind q,
				   const struct dw_type *t);
/* The builtin type behind "i386_eflags". */
extern const struct dw_type cx_eflags_type;
extern const struct dw_type cx_void_type;

/* A fresh computed value of @t, bytes zeroed (NULL: ENOMEM, message set). */
struct cexpr_value *cx_value_new(struct cexpr *cx, const struct dw_type *t);
/* Reads a lazy value's bytes: 0 or -EIO "Cannot access memory ...". */
int cx_fetch(struct cexpr *cx, struct cexpr_value *v);
/* The part of @v of type @t at byte @off (lazy if @v is). */
struct cexpr_value *cx_value_part(struct cexpr *cx, struct cexpr_value *v,
				  const struct dw_type *t, uint64_t off);
/* 0: all known; else the first missing byte's enum cexpr_byte in [off, off+len). */
int cx_missing(const struct cexpr_value *v, size_t off, size_t len);
/* An integer value of type @t (or a float if @t is). */
struct cexpr_value *cx_value_int(struct cexpr *cx, const struct dw_type *t, uint64_t x);
struct cexpr_value *cx_value_float(struct cexpr *cx, const struct dw_type *t, long double x);

/* Type classification, through typedefs and qualifiers. */
bool cx_is_integral(const struct dw_type *t);  /* ints, chars, bool, enums */
bool cx_is_float(const struct dw_type *t);
bool cx_is_signed(const struct dw_type *t);
bool cx_is_char(const struct dw_type *t);      /* a 1-byte character type */
/* Raw little-endian integer of @n bytes at @p, sign-extended if @sgn. */
uint64_t cx_extract(const uint8_t *p, size_t n, bool sgn);
/* A float of @n bytes (4, 8, 10/16) at @p. */
long double cx_extract_float(const uint8_t *p, size_t n);
/* A scalar value (fetched) as an integer / as a float. */
uint64_t cx_as_int(const struct cexpr_value *v);
long double cx_as_float(const struct cexpr_value *v);

/* Parsing (cexpr_parse.c): the tree of @text, or NULL with the message set. */
struct cx_node *cx_parse(struct cexpr *cx, const char *text);
/* @text as a type name: see cexpr_parse_type. */
int cx_parse_type_text(struct cexpr *cx, const char *text, const struct dw_type **out);

/* Evaluation (cexpr_eval.c): 0 with *out (pool-owned, maybe lazy). */
int cx_eval(struct cexpr *cx, struct cx_node *n, struct cexpr_value **out);
/* $name: a register, history or convenience value. */
int cx_eval_dollar(struct cexpr *cx, const char *name, struct cexpr_value **out);
/* Is $name a convenience variable (neither a register nor history)? */
bool cx_is_convenience(const char *name);
/* Is $name the value history ($, $N, $$, $$N)? */
bool cx_is_history(const char *name);
/* Sets convenience variable $name to a copy of @v (read): 0 or -ENOMEM. */
int cx_convenience_set(struct cexpr *cx, const char *name, struct cexpr_value *v);

/* Printing (cexpr_print.c, cexpr_type.c). */
void cx_print_value(struct cexpr *cx, struct cx_buf *b, const struct cexpr_value *v,
		    char fmt, bool top);
void cx_print_type_name(struct cx_buf *b, const struct dw_type *t, const char *inner);
void cx_print_char(struct cx_buf *b, unsigned c, char quote);

#endif
