#!/usr/bin/env bash
# t_serve_end_threads: the end of a program recorded by `hindsight serve`
# (t_gdb_reverse_end has the sigall pattern) when a thread other than main
# calls exit(): GDB sees that thread stopped before exit_group, under
# worker's exit() call, main's thread still there; reverse-finish goes back
# up to worker; the continue after the end's stop exits with the status
# drawn here. `detach` at the end lets the program exit on its own. LLDB,
# which has no reverse execution, takes the stop with no signal as no
# reason to stop and goes on to the exit: the reason on its console, the
# status as before.
. "$(dirname "$0")/lib.sh"
hindsight_only "a recorded program's end"

section() { sed -n "/^==$2\$/,/^==$3\$/p" "$1"; }
prog2=$(build_prog exit_thread -pthread) || finish
M=$(rand_int 2 60)
line_exit=$(line_of exit_thread.c worker_exit)

# 1. GDB.
server_start "$prog2" "$M" || finish
out2=$T_DIR/gdb-thread.out
gdb_run "$out2" -ex 'echo ==end\n' -ex 'continue' -ex 'info threads' -ex 'bt' \
    -ex 'echo ==back\n' -ex 'reverse-finish' -ex 'reverse-finish' -ex 'reverse-finish' \
    -ex 'echo ==exit\n' -ex 'delete' -ex 'continue' -ex 'continue' -ex 'p $_exitcode' "$prog2"
show "$out2"
section "$out2" end back | grep -q "^Program stopped\.$" && fail "GDB was told the program stopped"
section "$out2" end back | grep -qE '^Thread 2 ".*" stopped\.$' || fail "thread 2 did not stop at the end"
[ "$(section "$out2" end back | grep -cE '^\*? +[12] +Thread ')" = 2 ] || fail "not both threads there at the end"
section "$out2" end back | grep -qE "^#[0-9]+ .* worker \(arg=.*\) at exit_thread\.c:$line_exit\$" ||
    fail "the end is not under worker's exit() at line $line_exit"
section "$out2" back exit | grep -qE "worker \(arg=.*exit_thread\.c:$line_exit" ||
    fail "reverse-finish did not go back to worker"
section "$out2" exit '' | grep -qE "exited with code 0*$(printf %o "$M")\]$" || fail "the thread's exit status is not $M"
expect "$T_DIR/server.err" "Child exited with status $M"

# 2. detach at the end: the program goes on alone to its exit.
prog=$(build_prog sigall) || finish
server_start "$prog" 1 || finish
out4=$T_DIR/gdb-detach.out
# (detach saves the recording before its reply: GDB waits for it longer
# than its 2 s default on a loaded machine)
gdb_run "$out4" -ex 'set remotetimeout 30' -ex 'handle all nostop noprint' -ex 'continue' \
    -ex 'detach' "$prog"
show "$out4"
expect "$out4" "Program stopped."
expect "$out4" "[Inferior 1 (process $INFERIOR_PID) detached]"
wait_gone "$INFERIOR_PID" 10 || fail "the program detached at its end did not exit"
expect "$T_DIR/server.out" "sigall: handled 6"

# 3. LLDB, on the program whose thread calls exit().
server_start "$prog2" "$M" || finish
out3=$T_DIR/lldb.out
lldb_run "$out3" "$prog2" -o 'continue' -o 'process status'
show "$out3" "$T_DIR/server.err"
expect "$out3" "hindsight: the next instruction is syscall exit_group"
expect "$out3" "Process $INFERIOR_PID exited with status = $M"
expect "$T_DIR/server.err" "Child exited with status $M"
finish
