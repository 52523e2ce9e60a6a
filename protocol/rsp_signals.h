/*
 * protocol/rsp_signals.h: GDB's signal numbers and the host's.
 *
 * GDB's stop replies, C / S / vCont;C and QPassSignals use GDB's numbering
 * (include/gdb/signals.def); targets use Linux numbers, and so does LLDB
 * (as lldb-server sends them: rsp_client_signal, rsp_reply.h, picks by
 * client). These two functions are the only place that converts.
 */
#ifndef HINDSIGHT_PROTOCOL_RSP_SIGNALS_H
#define HINDSIGHT_PROTOCOL_RSP_SIGNALS_H

/* GDB's number for host signal @sig; 143 (GDB_SIGNAL_UNKNOWN) if none,
 * 0 for 0. */
int rsp_signal_to_gdb(int sig);
/* The host signal for GDB signal @gsig; 0 for 0, -EINVAL if the host has
 * no such signal. */
int rsp_signal_from_gdb(int gsig);

#endif
