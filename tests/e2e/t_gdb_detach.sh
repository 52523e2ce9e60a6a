#!/usr/bin/env bash
# t_gdb_detach: after `detach` the program runs to completion on its own: its
# output (with the result this run computes) appears and the process exits.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
A=$(rand_int 10 99)
B=$(rand_int 10 99)
server_start "$prog" "$A" "$B" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break basic_square' \
    -ex 'continue' \
    -ex 'detach'
show "$out"

expect "$out" "Breakpoint 1, basic_square (x=$B) at basic.c:"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) detached]"
wait_for_file "$T_DIR/server.out" "basic: result=" 10 || fail "program did not finish after detach"
expect "$T_DIR/server.out" "basic: result=$((A + B + B * B + A + 1)) counter=2"
wait_gone "$INFERIOR_PID" 5 || fail "inferior $INFERIOR_PID still exists after detach"
if ! is_gdbserver; then
    # the stub says the program was let go, not that it exited
    wait_gone "$SERVER_PID" 10 || fail "server still running after detach"
    expect "$T_DIR/server.err" "Detached from process $INFERIOR_PID"
    expect_not "$T_DIR/server.err" "Child exited"
fi
finish
