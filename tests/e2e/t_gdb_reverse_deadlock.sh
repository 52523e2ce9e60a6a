#!/usr/bin/env bash
# t_gdb_reverse_deadlock: Ctrl-C on a program whose two threads wait for
# each other's lock, each in a futex syscall, then going back in each.
# Every thread waits in a syscall there: under Valgrind the past now ends
# where the last of them entered its own (it was refused, with no
# instruction to stop at). One instruction back in each thread is its
# syscall instruction, under the lock call the program's source marks
# (main's and the worker's), with the count both made before, both
# threads listed.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog deadlock -pthread) || finish
Lmain=$(line_of deadlock.c main_waits)
Lworker=$(line_of deadlock.c worker_waits)
# One session a thread: going back in one moves the time before its last
# syscall, and the other may have waited later (which waited last is
# Valgrind's or the kernel's choice): each is gone back from the present.
# back THREAD NAME LINE FUNC: Ctrl-C, one instruction back in THREAD.
back() {
    local out=$T_DIR/gdb-$2.out
    server_start "$prog" || return
    gdb_run_bg "$out" -ex continue -ex 'set scheduler-locking on' -ex "thread $1" \
        -ex 'echo ==back\n' -ex reverse-stepi -ex 'x/i $pc' -ex bt -ex 'print g_steps' \
        -ex 'echo ==end\n' -ex 'info threads' -ex kill
    wait_for_file "$T_DIR/server.out" "deadlock: ready" 60 || fail "deadlock did not start"
    sleep 1
    kill -INT "$GDB_PID"
    wait_gone "$GDB_TIMEOUT_PID" 90 || fail "gdb did not finish after SIGINT"
    show "$out"
    expect "$out" "received signal SIGINT, Interrupt."
    expect_not "$out" "cannot go back"
    sed -n '/^==back$/,/^==end$/p' "$out" | grep -qE '=> 0x[0-9a-f]+ <[^>]*>:[[:space:]]+syscall' ||
        fail "one instruction back, $2 is not at its syscall instruction"
    sed -n '/^==back$/,/^==end$/p' "$out" | grep -qE "^#[0-9]+ .*$4 \(.*\) at .*deadlock\.c:$3\$" ||
        fail "$2 is not under its lock call at deadlock.c:$3"
    sed -n '/^==back$/,/^==end$/p' "$out" | grep -qE '^\$[0-9]+ = 11$' || fail "g_steps in $2's past is not 11"
    [ "$(sed -n '/^==end$/,$p' "$out" | grep -cE '^[* ] +[0-9]+ +Thread ')" = 2 ] ||
        fail "going back in $2 does not list both threads"
    expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"
    wait_gone "$SERVER_PID" 20
}
back 1 main "$Lmain" main
back 2 worker "$Lworker" worker
finish
