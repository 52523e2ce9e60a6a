#!/usr/bin/env bash
# t_lldb_watch: LLDB 14 watchpoints on a live recorded program, served by the
# recorder (no debug register): a write watchpoint stops after each of
# touch_watched()'s writes with LLDB's old and new values; a read watchpoint
# (`-w read`, Z3) skips those writes and stops at the read in read_watched().
. "$(dirname "$0")/lib.sh"
hindsight_only "watchpoints served by the recorder"

prog=$(build_prog basic) || finish
A=$(rand_int 10 99)
B=$(rand_int 10 99)
L_w2=$(line_of basic.c watch_write2)
L_r=$(line_of basic.c watch_read)

server_start "$prog" "$A" "$B" || finish
out=$T_DIR/lldb.out
lldb_run "$out" "$prog" \
    -o 'breakpoint set -n main' \
    -o 'continue' \
    -o 'watchpoint set variable g_watched' \
    -o 'continue' \
    -o 'continue' \
    -o 'process kill'
show "$out"
expect "$out" "Watchpoint created: Watchpoint 1"
expect "$out" "stop reason = watchpoint 1"
vals=$(grep -E '^(old|new) value: ' "$out" | tr '\n' ' ')
expect_eq "LLDB's values at the two writes" "$vals" \
    "old value: 0 new value: $A old value: $A new value: $((A + 1)) "
expect_re "$out" "basic\`touch_watched\(v=$A\) at basic.c:($L_w2|$((L_w2 + 1)))"

server_start "$prog" "$A" "$B" || finish
out2=$T_DIR/lldb2.out
lldb_run "$out2" "$prog" \
    -o 'breakpoint set -n main' \
    -o 'continue' \
    -o 'watchpoint set variable -w read g_watched' \
    -o 'continue' \
    -o 'frame variable copy' \
    -o 'process kill'
show "$out2"
expect "$out2" "type = r"
expect "$out2" "stop reason = watchpoint 1"
expect_re "$out2" "basic\`read_watched at basic.c:$L_r"
expect_not "$out2" "touch_watched"
finish
