#!/usr/bin/env bash
# t_gdb_rwatch_live: read and access watchpoints on a live recorded program are
# served by the recorder from each instruction's memory operands (no debug
# register: on machines where those never fire they still stop). `rwatch`
# (Z3) set in main skips touch_watched()'s two writes and stops after the
# read in read_watched(), with `hbreak` (Z1) stopping in basic_square() in
# between; `awatch` (Z4) stops after the first write, then the second (GDB
# shows old and new values), then the read.
. "$(dirname "$0")/lib.sh"
hindsight_only "watchpoints served by the recorder"

prog=$(build_prog basic) || finish
A=$(rand_int 10 99)
B=$(rand_int 10 99)
L_w=$(line_of basic.c watch_write)
L_w2=$(line_of basic.c watch_write2)
L_r=$(line_of basic.c watch_read)
L_sq=$(line_of basic.c square_body)

server_start "$prog" "$A" "$B" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break main' \
    -ex 'continue' \
    -ex 'rwatch g_watched' \
    -ex 'hbreak basic_square' \
    -ex 'continue' \
    -ex 'continue' \
    -ex 'info watchpoints' \
    -ex 'delete' \
    "${TO_EXIT[@]}"
show "$out"
expect "$out" "Hardware read watchpoint 2: g_watched"
expect "$out" "Value = $((A + 1))"
expect_re "$out" "read_watched \(\) at basic.c:($L_r|$((L_r + 1)))"
expect_not "$out" "touch_watched"
expect_re "$out" "^Breakpoint 3, basic_square \(x=$B\) at basic.c:$L_sq"
expect "$out" "breakpoint already hit 1 time"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"

server_start "$prog" "$A" "$B" || finish
out2=$T_DIR/gdb2.out
gdb_run "$out2" \
    -ex 'break main' \
    -ex 'continue' \
    -ex 'awatch g_watched' \
    -ex 'continue' \
    -ex 'continue' \
    -ex 'continue' \
    -ex 'delete' \
    "${TO_EXIT[@]}"
show "$out2"
expect "$out2" "Hardware access (read/write) watchpoint 2: g_watched"
# the first write (old 0, new A), the second (A to A + 1), the read
vals=$(grep -E '^(Old value|New value|Value) = ' "$out2" | tr '\n' ' ')
expect_eq "awatch's values" "$vals" \
    "Old value = 0 New value = $A Old value = $A New value = $((A + 1)) Value = $((A + 1)) "
expect_re "$out2" "touch_watched \(v=$A\) at basic.c:($L_w|$L_w2)"
expect_re "$out2" "read_watched \(\) at basic.c:($L_r|$((L_r + 1)))"
expect "$out2" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
finish
