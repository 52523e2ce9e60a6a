#!/usr/bin/env bash
# t_gdb_threads: a multi-threaded program in all-stop mode: GDB sees threads
# being created ([New Thread ...]), a breakpoint in the thread function is hit
# in a thread other than the main one, `info threads` lists several threads,
# locals of the worker hold what it computed, and the program exits normally
# after the threads exited and were joined.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog threads -pthread) || exit 1
BASE=$(rand_int 100 999)
server_start "$prog" "$BASE" || finish

L_w=$(line_of threads.c thread_work)
L_done=$(line_of threads.c threads_done)
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break thread_work' \
    -ex 'continue' \
    -ex 'info threads' \
    -ex 'delete' \
    -ex 'next' \
    -ex 'print value == id * id + g_base' \
    -ex 'print g_base' \
    -ex 'print $_thread > 1' \
    -ex "break threads.c:$L_done" \
    -ex 'continue' \
    -ex 'info threads' \
    -ex 'print sum' \
    "${TO_EXIT[@]}"
show "$out" "$T_DIR/server.out"

expect_re "$out" "^\[New Thread $INFERIOR_PID\.[0-9]+\]"
expect_re "$out" "^Thread [0-9]+ \".*\" hit Breakpoint 1, thread_work \(id=[0-2]\) at threads.c:$L_w\$|^Thread [0-9]+ hit Breakpoint 1, thread_work \(id=[0-2]\) at threads.c:$L_w\$"
n=$(grep -cE "^[* ] [0-9]+ +Thread $INFERIOR_PID\.[0-9]+" "$out")
[ "$n" -ge 2 ] || fail "info threads lists $n threads, want at least 2"
expect_re "$out" "^\* [0-9]+ +Thread $INFERIOR_PID\.[0-9]+ .*thread_work \(id=[0-2]\)"
expect "$out" "\$1 = 1"
expect "$out" "\$2 = $BASE"
expect "$out" "\$3 = 1"
# At threads_done every worker has exited and been joined: one thread left.
expect_re "$out" "(^|hit )Breakpoint 2, main \\(argc=2, argv=0x[0-9a-f]+\\) at threads.c:$L_done\$"
n=$(sed -n '/Breakpoint 2, main/,$p' "$out" | grep -cE "^[* ] [0-9]+ +Thread $INFERIOR_PID\.[0-9]+")
expect_eq "threads left after the joins" "$n" 1
expect "$out" "\$4 = $((3 * BASE + 0 + 1 + 4))"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
expect "$T_DIR/server.out" "threads: sum=$((3 * BASE + 0 + 1 + 4))"
finish
