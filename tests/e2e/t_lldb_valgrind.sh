#!/usr/bin/env bash
# t_lldb_valgrind: LLDB 14 against `serve --record valgrind`, the program
# live under Valgrind. LLDB reads /proc/PID/exe on its own machine, which
# is Valgrind's tool, and takes it for the program unless the remote-linux
# platform is selected before the target is made (serve says so): shown
# first, with the host platform (the tool in its image list, the
# program's function unresolved).
#   - libc.c: a breakpoint in the program stops with pc at its address,
#     the argument is the command line's, a step over, a breakpoint in
#     libc, the backtrace back to main, and the program's exit status and
#     output as natively.
#   - far.c: a write watchpoint on g stops at every write with the old and
#     new values the loop's arithmetic gives (g is the sum of 0..i), a
#     later breakpoint reads g = the sum of 0..N-1, and the program prints
#     what it prints natively.
#   - threads.c: a breakpoint in the threads' function stops once in each
#     of the three threads, each with its own id, while LLDB lists them.
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record valgrind"
command -v lldb >/dev/null || skip "no lldb"
command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v vgdb >/dev/null || skip "vgdb is not installed"

# 0. The host platform: LLDB takes the tool for the program.
prog=$(build_prog libc) || finish
MSG="lldb-vg-$(rand_int 1000 9999)"
L=$(line_of libc.c measure)
server_start --once --record valgrind "$prog" "$MSG" || finish
lldb_run "$T_DIR/host.out" "$prog" -o 'image list' -o 'breakpoint set -n libc_measure' \
    -o 'process kill'
show "$T_DIR/host.out"
expect "$T_DIR/host.out" "hsrec-amd64-linux"
expect_not "$T_DIR/host.out" "where = libc\`libc_measure"
wait_gone "$SERVER_PID" 30

# 1. Breakpoints, a step, libc.
server_start --once --record valgrind "$prog" "$MSG" || finish
expect "$T_DIR/server.err" "from LLDB, select its platform before the program: \`platform select remote-linux\`"
out=$T_DIR/libc.out
lldb_run_remote "$out" "$prog" -o 'breakpoint set -n libc_measure' -o continue \
    -o 'register read rip' -o 'frame variable s' -o 'thread step-over' \
    -o 'breakpoint set -n puts' -o continue -o 'bt 2' -o continue
show "$out"
# The program is the target's, at its load address under Valgrind: not the tool.
expect_not "$out" "hsrec-amd64-linux"
bp1=$(sed -n 's/^Breakpoint 1: where = .*`libc_measure + [0-9]* at libc.c:'"$L"':[0-9]*, address = \(0x[0-9a-f]*\)$/\1/p' "$out")
[ -n "$bp1" ] || fail "breakpoint 1 did not resolve in libc_measure at libc.c:$L"
rip1=$(sed -n 's/^ *rip = \(0x[0-9a-f]*\).*/\1/p' "$out" | head -1)
[ -n "$bp1" ] && { [ -n "$rip1" ] && [ $((rip1)) -eq $((bp1)) ] || fail "pc at breakpoint 1 is '$rip1', want $bp1"; }
expect "$out" "stop reason = breakpoint 1.1"
expect_re "$out" "^\(const char \*\) s = 0x[0-9a-f]+ \"$MSG\"\$"
expect "$out" "stop reason = step over"
expect_re "$out" "^Breakpoint 2: where = libc.so.6\`.*puts"
expect "$out" "stop reason = breakpoint 2.1"
expect_re "$out" "frame #1: 0x[0-9a-f]+ .*\`main\(argc=2, argv=0x[0-9a-f]+\) at libc.c:"
expect "$out" "exited with status = 0 (0x00000000)"
wait_gone "$SERVER_PID" 30
expect_eq "libc: the program's output" "$(cat "$T_DIR/server.out")" "$("$prog" "$MSG")"

# 2. A write watchpoint, live.
prog=$(build_prog far -O0 -g) || finish
n=1000
sum() { echo $(($1 * ($1 - 1) / 2)); }
server_start --once --record valgrind "$prog" "$n" || finish
out=$T_DIR/far.out
lldb_run_remote "$out" "$prog" -o 'breakpoint set -n work' -o continue \
    -o 'watchpoint set variable g' -o continue -o continue -o continue -o continue \
    -o 'watchpoint delete 1' -o 'breakpoint set -n mark' -o continue -o 'p g' -o continue
show "$out"
expect_eq "far: stops at the watchpoint" "$(grep -c 'stop reason = watchpoint 1' "$out")" 4
# g += i for i = 0, 1, 2, 3: each write, even of the same value (i = 0).
expect_eq "far: the old values" "$(sed -n 's/^old value: //p' "$out" | tr '\n' ' ')" \
    "$(sum 0) $(sum 1) $(sum 2) $(sum 3) "
expect_eq "far: the new values" "$(sed -n 's/^new value: //p' "$out" | tail -4 | tr '\n' ' ')" \
    "$(sum 1) $(sum 2) $(sum 3) $(sum 4) "
expect "$out" "stop reason = breakpoint 2.1"
expect_re "$out" "^\(volatile long\) \\\$0 = $(sum $n)\$"
expect "$out" "exited with status = 0 (0x00000000)"
wait_gone "$SERVER_PID" 30
expect_eq "far: the program's output" "$(cat "$T_DIR/server.out")" "$("$prog" "$n")"

# 3. Threads.
prog=$(build_prog threads -pthread) || finish
base=$(rand_int 10 99)
server_start --once --record valgrind "$prog" "$base" || finish
out=$T_DIR/threads.out
lldb_run_remote "$out" "$prog" -o 'breakpoint set -n thread_work' -o continue \
    -o 'frame variable id' -o 'thread list' -o continue -o 'frame variable id' -o continue \
    -o 'frame variable id' -o 'breakpoint delete 1' -o continue
show "$out"
expect_eq "threads: the ids at the breakpoint" \
    "$(sed -n 's/^(int) id = //p' "$out" | sort | tr '\n' ' ')" "0 1 2 "
expect_eq "threads: stops in three threads" \
    "$(sed -n 's/^\* thread #\([0-9]*\), stop reason = breakpoint 1.1.*/\1/p' "$out" | sort -u | wc -l)" 3
[ "$(grep -c '^  *thread #[0-9]*: tid = ' "$out")" -ge 1 ] &&
    [ "$(sed -n '/thread list/,/^(lldb)/p' "$out" | grep -c 'tid = ')" -ge 2 ] ||
    fail "threads: LLDB lists fewer than two threads"
expect "$out" "exited with status = 0 (0x00000000)"
wait_gone "$SERVER_PID" 30
expect_eq "threads: the program's output" "$(cat "$T_DIR/server.out")" "$("$prog" "$base")"
finish
