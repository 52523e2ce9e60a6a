#!/usr/bin/env bash
# t_gdb_hw_norecord: `serve --no-record` serves hardware breakpoints and
# watchpoints from the debug registers only where they were seen to fire
# (`hindsight doctor`'s probe). Where they never fire, it refuses them: GDB
# says it could not insert them, and the program, which would otherwise run
# past them unnoticed, stays where it is. With recording (the default) the
# same points stop the program on any machine (t_gdb_hbreak, t_gdb_watch).
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --no-record"

prog=$(build_prog basic) || finish
A=$(rand_int 10 99)
B=$(rand_int 10 99)
dr=$("$HINDSIGHT" doctor --json | python3 -c 'import json,sys; print(json.load(sys.stdin)["debug_registers"]["ok"])')
server_start --no-record "$prog" "$A" "$B" || finish

L_sq=$(line_of basic.c square_body)
out=$T_DIR/gdb.out
# The watchpoint first: basic.c writes g_watched (touch_watched) before it
# calls basic_square. g_counter is 0 at main, 1 from basic_bump on.
gdb_run "$out" \
    -ex 'break main' \
    -ex 'continue' \
    -ex 'watch g_watched' \
    -ex 'continue' \
    -ex 'print g_watched' \
    -ex 'delete' \
    -ex 'hbreak basic_square' \
    -ex 'continue' \
    -ex 'print g_counter' \
    -ex 'delete' \
    -ex 'continue'
show "$out" "$T_DIR/server.out"

if [ "$dr" = True ]; then
    expect "$out" "New value = $A"
    expect "$out" "\$1 = $A"
    expect_re "$out" "^Breakpoint 3, basic_square \(x=$B\) at basic.c:$L_sq"
    expect "$out" "\$2 = 1"
else
    expect_re "$out" "Could not insert hardware breakpoint|Cannot insert hardware breakpoint"
    expect "$out" "Could not insert hardware watchpoint"
    expect_not "$out" "Breakpoint 3, basic_square"
    expect_not "$out" "New value"
    # still stopped at main: nothing ran between the refusals
    expect "$out" "\$1 = 0"
    expect "$out" "\$2 = 0"
fi
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
expect "$T_DIR/server.out" "basic: result=$((A + B + B * B + A + 1)) counter=2"
finish
