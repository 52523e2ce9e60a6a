#!/usr/bin/env bash
# t_once: with --once the stub exits when the first connection ends, even
# if GDB only disconnects (leaving the program alive); a second connection is
# refused and the program does not outlive the stub.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1
server_start --once "$prog" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break loop_spin' \
    -ex 'continue' \
    -ex 'disconnect'
show "$out" "$T_DIR/server.err"

expect "$out" "Breakpoint 1, loop_spin () at loop.c:"
wait_gone "$SERVER_PID" 10 || fail "--once server still running 10s after the connection ended"
wait_gone "$INFERIOR_PID" 5 || fail "inferior $INFERIOR_PID outlived the --once server"
if timeout 3 bash -c "exec 3<>/dev/tcp/127.0.0.1/$PORT" 2>/dev/null; then
    fail "port $PORT still accepts connections after the --once session"
fi
finish
