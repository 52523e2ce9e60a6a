#!/usr/bin/env bash
# t_reconnect: without --once, when GDB disconnects the stub keeps the stopped
# program and listens again (as gdbserver does); a second GDB connects, finds
# the program where the first one left it, and runs it to its end.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
A=$(rand_int 10 99)
B=$(rand_int 10 99)
server_start "$prog" "$A" "$B" || finish
L_add=$(line_of basic.c add_body)

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break basic_add' \
    -ex 'continue' \
    -ex 'disconnect'
show "$out"
expect "$out" "Breakpoint 1, basic_add (a=$A, b=$B) at basic.c:$L_add"

kill -0 "$SERVER_PID" 2>/dev/null || fail "server exited after the first connection ended"
# gdbserver says "Listening on port N" again; wait for it before reconnecting.
wait_for_file "$T_DIR/server.err" "Listening on port $PORT(.|\n)*" 10
n=$(grep -c "Listening on port $PORT" "$T_DIR/server.err")
[ "$n" -ge 2 ] || fail "server did not print 'Listening on port $PORT' again (count $n)"

out2=$T_DIR/gdb2.out
gdb_run "$out2" \
    -ex 'bt 1' \
    -ex 'print a + b' \
    "${TO_EXIT[@]}"
show "$out2" "$T_DIR/server.err" "$T_DIR/server.out"
expect_re "$out2" "^#0  basic_add \(a=$A, b=$B\) at basic.c:$L_add\$"
expect "$out2" "\$1 = $((A + B))"
expect "$out2" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
expect "$T_DIR/server.out" "basic: result=$((A + B + B * B + A + 1)) counter=2"
finish
