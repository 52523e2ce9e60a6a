#!/usr/bin/env bash
# t_gdb_watch: hardware watchpoints through the debug registers: `watch`
# (Z2, write) stops after each write with the old and new value; `rwatch`
# (Z3; gdbserver has no read watchpoints, GDB then uses Z4) and `awatch`
# (Z4, access) stop at the read in read_watched().
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
A=$(rand_int 10 99)
B=$(rand_int 10 99)
server_start "$prog" "$A" "$B" || finish

L_w2=$(line_of basic.c watch_write2)
L_r=$(line_of basic.c watch_read)
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break main' \
    -ex 'continue' \
    -ex 'watch g_watched' \
    -ex 'continue' \
    -ex 'continue' \
    -ex 'delete' \
    -ex 'rwatch g_watched' \
    -ex 'continue' \
    -ex 'delete' \
    -ex 'kill'
show "$out"

expect "$out" "Hardware watchpoint 2: g_watched"
expect "$out" "Old value = 0"
expect "$out" "New value = $A"
expect "$out" "Old value = $A"
expect "$out" "New value = $((A + 1))"
expect_re "$out" "^touch_watched \(v=$A\) at basic.c:$L_w2\$"
expect_re "$out" "Hardware (read|access \(read/write\)) watchpoint 3: g_watched"
expect "$out" "Value = $((A + 1))"
expect_re "$out" "read_watched \(\) at basic.c:($L_r|$((L_r + 1)))"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"

# awatch in a second session.
server_start "$prog" "$A" "$B" || finish
out2=$T_DIR/gdb2.out
gdb_run "$out2" \
    -ex 'break read_watched' \
    -ex 'continue' \
    -ex 'awatch g_watched' \
    -ex 'continue' \
    -ex 'delete' \
    -ex 'next' \
    -ex 'print copy' \
    -ex 'kill'
show "$out2"
expect "$out2" "Hardware access (read/write) watchpoint 2: g_watched"
expect "$out2" "Value = $((A + 1))"
expect "$out2" "\$1 = $((A + 1))"
finish
