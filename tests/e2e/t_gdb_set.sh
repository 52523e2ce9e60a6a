#!/usr/bin/env bash
# t_gdb_set: writing memory (M/X: `set var`) and registers (P/G: `set $rax`)
# takes effect in the running program: the result it prints at exit is the
# one the modified values give, not the one the arguments would give.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
A=$(rand_int 10 99)
B=$(rand_int 10 99)
NEWSUM=$(rand_int 1000 1999)   # forced into rax as basic_add's return value
NEWX=$(rand_int 3 30)           # forced into basic_square's argument
server_start "$prog" "$A" "$B" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break basic_add' \
    -ex 'break basic_square' \
    -ex 'continue' \
    -ex 'set var g_counter = 42' \
    -ex 'finish' \
    -ex "set \$rax = $NEWSUM" \
    -ex 'print $rax' \
    -ex 'continue' \
    -ex "set var x = $NEWX" \
    -ex 'print x' \
    -ex 'print g_counter' \
    "${TO_EXIT[@]}"
show "$out" "$T_DIR/server.out"

expect "$out" "Value returned is \$1 = $((A + B))"
expect "$out" "\$2 = $NEWSUM"
expect "$out" "\$3 = $NEWX"
expect "$out" "\$4 = 42"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
RESULT=$((NEWSUM + NEWX * NEWX + A + 1))
expect "$T_DIR/server.out" "basic: result=$RESULT counter=43"
finish
