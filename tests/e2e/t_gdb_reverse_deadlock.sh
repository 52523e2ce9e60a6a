#!/usr/bin/env bash
# t_gdb_reverse_deadlock: Ctrl-C on a program whose two threads wait for
# each other's lock, each in a futex syscall, then going back in each.
# Every thread waits in a syscall there: under Valgrind the past now ends
# where the last of them entered its own (it was refused, with no
# instruction to stop at). One instruction back in each thread is its
# syscall instruction, under the lock call the program's source marks
# (main's and the worker's), with the count both made before; forward
# again is the present, both threads still listed.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog deadlock -pthread) || finish
Lmain=$(line_of deadlock.c main_waits)
Lworker=$(line_of deadlock.c worker_waits)
server_start "$prog" || finish
out=$T_DIR/gdb.out
gdb_run_bg "$out" -ex continue -ex 'set scheduler-locking on' \
    -ex 'echo ==main\n' -ex 'thread 1' -ex reverse-stepi -ex 'x/i $pc' -ex bt -ex 'print g_steps' \
    -ex stepi -ex 'print $pc' \
    -ex 'echo ==worker\n' -ex 'thread 2' -ex reverse-stepi -ex 'x/i $pc' -ex bt -ex 'print g_steps' \
    -ex 'echo ==end\n' -ex 'info threads' -ex kill
wait_for_file "$T_DIR/server.out" "deadlock: ready" 60 || fail "deadlock did not start"
sleep 1
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 90 || fail "gdb did not finish after SIGINT"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
expect "$out" "received signal SIGINT, Interrupt."
expect_not "$out" "cannot go back"
section main | grep -qE '=> 0x[0-9a-f]+ <[^>]*>:[[:space:]]+syscall' ||
    fail "one instruction back, main's thread is not at its syscall instruction"
section main | grep -qE "^#[0-9]+ .*main \(\) at .*deadlock\.c:$Lmain\$" ||
    fail "main's thread is not under its lock call at deadlock.c:$Lmain"
section worker | grep -qE '=> 0x[0-9a-f]+ <[^>]*>:[[:space:]]+syscall' ||
    fail "one instruction back, the worker is not at its syscall instruction"
section worker | grep -qE "^#[0-9]+ .*worker \(arg=.*\) at .*deadlock\.c:$Lworker\$" ||
    fail "the worker is not under its lock call at deadlock.c:$Lworker"
[ "$(section main | grep -cE '^\$[0-9]+ = 11$')" = 1 ] || fail "g_steps in main's past is not 11"
[ "$(section worker | grep -cE '^\$[0-9]+ = 11$')" = 1 ] || fail "g_steps in the worker's past is not 11"
[ "$(section end | grep -cE '^[* ] +[0-9]+ +Thread ')" = 2 ] || fail "the present does not list both threads"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"
finish
