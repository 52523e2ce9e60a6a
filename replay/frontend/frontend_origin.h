/*
 * replay/frontend/frontend_origin.h: where a bad address came from, said in words: the
 * instruction's memory operand, the register that held the address, the
 * load that filled it (register moves followed), the store that last
 * wrote that memory, with functions, lines, the writer's callers and how
 * long before (replay/decode/provenance.h's chain). `hindsight run` adds it to
 * its crash explanation; `hindsight replay`'s `origin` says it at any
 * position.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_ORIGIN_H
#define HINDSIGHT_REPLAY_FRONTEND_ORIGIN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct replay_cursor;
struct replay_frontend;

/* The cursor of thread @tid of the struct replay_frontend @ctx, or NULL
 * (struct replay_prov_env's lookup). */
struct replay_cursor *replay_frontend_origin_cursor(void *ctx, int64_t tid);

/* The origin of the address the instruction at @f's position uses, to
 * @out; @f moves (to the writers, for their call stacks) and is put back.
 * @crash: said as a crash's ("before the crash"). 0, or -1 after a
 * message to @out saying why there is none. */
int replay_frontend_origin_print(FILE *out, struct replay_frontend *f, bool crash);

/* For `hindsight run`: opens the recording @dir, goes to the faulting
 * instruction and prints its origin to @out. 0 or -1. */
int replay_frontend_origin_explain(FILE *out, const char *dir);

#endif
