/*
 * vgtool/hsrec_watch.h: watchpoints for Valgrind's gdbserver in the light
 * mode (serve --record valgrind): write, read and access watchpoints on
 * the live program.
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Valgrind's gdbserver keeps the watched ranges and stops the program;
 * a tool only tells it of each access to watched memory
 * (VG_(is_watched)). With --hsrec-watchable=yes (serve's light run),
 * every translation checks each load and store of the program, inline
 * and only while anything is watched (a load and a test of the count
 * otherwise), so that a watchpoint set at a stop inside a superblock sees
 * the rest of that one too. The superblocks stay what they were (only
 * statements are added), so the count the light log keeps is the one a
 * rebuild makes.
 */
#ifndef HINDSIGHT_VGTOOL_HSREC_WATCH_H
#define HINDSIGHT_VGTOOL_HSREC_WATCH_H

#include "pub_tool_basics.h"
#include "pub_tool_tooliface.h"

/* --hsrec-watchable=yes. */
extern Bool hs_watchable;
/* In the tool's pre_clo_init: the watchpoint callback, for Valgrind's
 * gdbserver (it accepts watchpoints only in the light mode, watchable). */
void hs_watch_init(void);
/* The light mode's instrumentation (watchable), before each statement
 * @s of a superblock (of type environment @tyenv) as it is copied into
 * @out: a check of the memory it reads or writes, while anything is
 * watched. */
void hs_watch_stmt(IRSB *out, const IRTypeEnv *tyenv, const IRStmt *s);
/* ... and after each instruction's IMark: a read of watched memory by
 * the instruction before is told to Valgrind's gdbserver here, after it
 * ran. */
void hs_watch_imark(IRSB *out);

#endif
