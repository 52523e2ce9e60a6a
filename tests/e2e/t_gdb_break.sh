#!/usr/bin/env bash
# t_gdb_break: a software breakpoint (Z0) on a program function is hit with the
# right arguments; bt, print of locals and globals, next, finish (return value),
# step into a callee, stepi, x/4xb and continue to a normal exit all show the
# values this run computes (the arguments are random per run).
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
A=$(rand_int 10 99)
B=$(rand_int 10 99)
server_start "$prog" "$A" "$B" || finish

L_add=$(line_of basic.c add_body)
L_call_add=$(line_of basic.c compute_call_add)
L_call_sq=$(line_of basic.c compute_call_square)
L_sq=$(line_of basic.c square_body)
L_main=$(line_of basic.c main_compute)

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break basic_add' \
    -ex 'continue' \
    -ex 'bt' \
    -ex 'next' \
    -ex 'print sum' \
    -ex 'print g_pid' \
    -ex 'print g_counter' \
    -ex 'finish' \
    -ex 'next' \
    -ex 'step' \
    -ex 'print $pc == basic_square' \
    -ex 'stepi' \
    -ex 'print $pc != basic_square' \
    -ex 'x/4xb &g_counter' \
    -ex 'info frame' \
    "${TO_EXIT[@]}"
show "$out" "$T_DIR/server.out"

SUM=$((A + B))
expect "$out" "Breakpoint 1, basic_add (a=$A, b=$B) at basic.c:$L_add"
expect_re "$out" "^#1  0x[0-9a-f]+ in basic_compute \(a=$A, b=$B\) at basic.c:$L_call_add\$"
expect_re "$out" "^#2  0x[0-9a-f]+ in main \(argc=3, argv=0x[0-9a-f]+\) at basic.c:$L_main\$"
expect "$out" "\$1 = $SUM"
expect "$out" "\$2 = $INFERIOR_PID"
expect "$out" "\$3 = 1"
expect "$out" "Value returned is \$4 = $SUM"
expect_re "$out" "^$L_call_sq[[:space:]]+total = total \+ basic_square\(b\);"
expect "$out" "basic_square (x=$B) at basic.c:$L_sq"
# step stops after the prologue, so the pc is past the function's address
expect "$out" "\$5 = 0"
expect "$out" "\$6 = 1"
expect_re "$out" "^0x[0-9a-f]+[[:space:]]+$L_sq[[:space:]]"
expect_re "$out" "^0x[0-9a-f]+ <g_counter>:[[:space:]]+0x01[[:space:]]+0x00[[:space:]]+0x00[[:space:]]+0x00\$"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
RESULT=$((A + B + B * B + A + 1))
expect "$T_DIR/server.out" "basic: result=$RESULT counter=2"
finish
