/*
 * replay/frontend/frontend_int.h: what the two files of the session share
 * (replay/frontend/frontend.h is the room's door). frontend_open.c opens
 * and frees a session and wires the room's upper parts into it (the C
 * evaluator as the conditions', the images and the evaluator freed with
 * it); frontend.c, the session's state and moves below every other file
 * of the room, calls none of them: a condition is evaluated through
 * f->cond_eval.
 */
#ifndef HINDSIGHT_REPLAY_FRONTEND_INT_H
#define HINDSIGHT_REPLAY_FRONTEND_INT_H

struct replay_frontend;

/* Frees what frontend.c hung on the session as it went (the threads' call
 * structures, the breakpoints, the last stack unwound), not the arrays
 * replay_frontend_open made; replay_frontend_free calls it. */
void replay_frontend_release(struct replay_frontend *f);

#endif
