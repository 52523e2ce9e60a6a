#!/usr/bin/env bash
# t_killed_outside: the program is killed with SIGKILL from outside while GDB
# waits in `continue`; the stub reports it (X09) and GDB prints
# "Program terminated with signal SIGKILL, Killed." and finishes on its own.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1
server_start "$prog" || finish

out=$T_DIR/gdb.out
gdb_run_bg "$out" -ex 'continue' -ex 'info threads'
wait_for_file "$T_DIR/server.out" "loop: pid" 10 || fail "loop did not start"
sleep 0.5
kill -KILL "$INFERIOR_PID"
wait_gone "$GDB_TIMEOUT_PID" 20 || fail "gdb did not finish after the program was killed"
show "$out"
expect "$out" "Program terminated with signal SIGKILL, Killed."
expect "$out" "The program no longer exists."
expect "$out" "No threads."
finish
