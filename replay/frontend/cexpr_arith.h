/*
 * replay/frontend/cexpr_arith.h: C's operators on values (cexpr_arith.c) and
 * dereference (cexpr_eval.c), for the evaluator.
 */
#ifndef HINDSIGHT_REPLAY_CEXPR_ARITH_H
#define HINDSIGHT_REPLAY_CEXPR_ARITH_H

#include "replay/frontend/cexpr_int.h"

/* Unary - + ! ~ on @v. */
int cx_unop(struct cexpr *cx, int op, struct cexpr_value *v, struct cexpr_value **out);
/* Binary operators but && || , @ (enum cx_op or the character). */
int cx_binop(struct cexpr *cx, int op, struct cexpr_value *a, struct cexpr_value *b,
	     struct cexpr_value **out);
/* (@t) @v. */
int cx_cast(struct cexpr *cx, const struct dw_type *t, struct cexpr_value *v,
	    struct cexpr_value **out);
/* GDB's answer to an operator on a struct (it looks for a C++ operator):
 * 0 when neither @a nor @b (may be NULL) is one, else the error. */
int cx_struct_operand(struct cexpr *cx, int op, const struct cexpr_value *a,
		      const struct cexpr_value *b);
/* Is the scalar @v non-zero? */
int cx_truth(struct cexpr *cx, struct cexpr_value *v, bool *out);
/* *@v. */
int cx_deref(struct cexpr *cx, struct cexpr_value *v, struct cexpr_value **out);

#endif
