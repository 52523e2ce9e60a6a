/*
 * replay/frontend/cexpr_lex.h: the tokens of a C expression (cexpr_lex.c), for the
 * parser (cexpr_parse.c).
 */
#ifndef HINDSIGHT_REPLAY_CEXPR_LEX_H
#define HINDSIGHT_REPLAY_CEXPR_LEX_H

#include "replay/frontend/cexpr_int.h"

enum cx_token_kind {
	T_END, T_INT, T_FLOAT, T_CHAR, T_STRING, T_IDENT, T_DOLLAR, T_PUNCT,
	T_ERROR,   /* what could not be lexed: @str is GDB's message, T_END follows */
};

struct cx_token {
	enum cx_token_kind kind;
	int op;                       /* T_PUNCT: the character or enum cx_op */
	uint64_t ival;                /* T_INT, T_CHAR */
	long double fval;             /* T_FLOAT */
	const struct dw_type *type;   /* T_INT, T_FLOAT: GDB's type for it */
	char *str;                    /* T_IDENT, T_DOLLAR ("$pc"), T_STRING */
	size_t len;                   /* T_STRING */
	const char *start;            /* where it starts in the text */
};

/* The tokens of @text, ending with a T_END (tree-owned): 0, or -ENOMEM.
 * What cannot be lexed becomes a T_ERROR, reported if the parser gets
 * there (GDB lexes as it parses: `print (union { int i; })` is a syntax
 * error at '{', not a complaint about ';'). */
int cx_lex(struct cexpr *cx, const char *text, struct cx_token **out, size_t *count);

#endif
