#!/usr/bin/env bash
# t_gdb_hbreak: a hardware breakpoint (Z1, debug registers) is hit with the
# right arguments, and after deleting it the program runs to its end.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
A=$(rand_int 10 99)
B=$(rand_int 10 99)
server_start "$prog" "$A" "$B" || finish

L_sq=$(line_of basic.c square_body)
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'hbreak basic_square' \
    -ex 'continue' \
    -ex 'print g_counter' \
    -ex 'info breakpoints' \
    -ex 'delete' \
    "${TO_EXIT[@]}"
show "$out" "$T_DIR/server.out"

expect "$out" "Hardware assisted breakpoint 1 at 0x"
expect "$out" "basic_square (x=$B) at basic.c:$L_sq"
expect_re "$out" "^Breakpoint 1, basic_square \(x=$B\)"
expect "$out" "\$1 = 1"
expect_re "$out" "^1 +hw breakpoint +keep y .*basic_square at basic.c:$L_sq"
expect_re "$out" "breakpoint already hit 1 time"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
expect "$T_DIR/server.out" "basic: result=$((A + B + B * B + A + 1)) counter=2"
finish
