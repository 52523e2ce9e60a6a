#!/usr/bin/env bash
# t_monitor: `monitor help` (qRcmd) prints the stub's commands, including
# `exit`; `monitor exit` followed by `disconnect` (program left alive) makes
# the stub exit once the connection ends, and the program goes with it.
# (gdbserver exits at `monitor exit` itself, which also satisfies this.)
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1
server_start "$prog" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'monitor help' \
    -ex 'monitor exit' \
    -ex 'disconnect'
show "$out" "$T_DIR/server.err"

expect_re "$out" "^ *exit\b"
expect_not "$out" "Target does not support this command"
wait_gone "$SERVER_PID" 10 || fail "server still running 10s after monitor exit + disconnect"
wait_gone "$INFERIOR_PID" 5 || fail "inferior $INFERIOR_PID still exists after the server exited"
finish
