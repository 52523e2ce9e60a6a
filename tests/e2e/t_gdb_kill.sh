#!/usr/bin/env bash
# t_gdb_kill: `kill` (vKill / k) ends a running program: GDB reports it
# killed and the process really is gone.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1
server_start "$prog" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break loop_spin' \
    -ex 'continue' \
    -ex 'kill' \
    -ex 'info threads'
show "$out" "$T_DIR/server.err"

expect "$out" "Breakpoint 1, loop_spin () at loop.c:"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"
expect "$out" "No threads."
wait_gone "$INFERIOR_PID" 5 || fail "inferior $INFERIOR_PID still exists after kill"
finish
