/*
 * vgtool/hsrec_sys.h: what the tool needs to know of syscalls, by number:
 * their names for messages, which may wait as long as they like, which
 * open files, which a rebuild leaves to Valgrind's core.
 *
 * Copyright (C) 2026 the hindsight authors.
 * SPDX-License-Identifier: GPL-2.0-or-later
 */
#ifndef HINDSIGHT_VGTOOL_HSREC_SYS_H
#define HINDSIGHT_VGTOOL_HSREC_SYS_H

#include "pub_tool_basics.h"

/* A name for messages ("read", ..., "syscall" for the others). */
const HChar *hsrec_sys_name(UInt nr);
/* It may wait for as long as it likes (HSREC_MAY_WAIT_SYSCALLS): what is
 * buffered goes out before it. */
Bool hsrec_sys_may_wait(UInt nr);
/* open, openat, creat, openat2. */
Bool hsrec_sys_is_open(UInt nr);
/* The rebuild hands it to the core, which makes it as it did: it shapes
 * the process (its memory, its signal set-up, its end). */
Bool hsrec_sys_core_does(UInt nr);
/* The kernel writes back some of what it reads, which Valgrind's wrapper
 * reads and does not report as written: the length of the socket calls
 * that return an address or an option, recvmsg's header, the remaining
 * time of select and pselect6, the lock F_GETLK finds (fcntl: the wrapper
 * reports l_pid only; SQLite's WAL mode asks so). */
Bool hsrec_sys_writes_reads(UInt nr);

#endif
