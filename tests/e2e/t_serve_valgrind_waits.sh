#!/usr/bin/env bash
# t_serve_valgrind_waits: going back, under `serve --record valgrind`, from
# Ctrl-C stops where every thread waits in a syscall, several visits over
# one live run: napper.c's main sleeps while its worker waits in read() (the
# last to wait); the live rebuild that follows the log stops as that thread
# entered its call, and must go on from there when main, another thread,
# runs next, and when a second Ctrl-C comes at the same place (both made
# it diverge: a review found them). Then a breakpoint at after(): one
# instruction back from it is the instruction before, with g = 1 (the
# byte the worker read), and the program's output is as natively.
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record valgrind"
command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v vgdb >/dev/null || skip "vgdb is not installed"

prog=$(build_prog napper -pthread) || finish
server_start --once --record valgrind "$prog" 6 || finish
out=$T_DIR/gdb.out
gdb_run_bg "$out" -ex continue -ex reverse-stepi -ex 'x/i $pc' -ex 'echo ==two\n' -ex continue \
    -ex reverse-stepi -ex 'x/i $pc' -ex 'echo ==after\n' -ex 'break after' -ex continue \
    -ex 'p $pc' -ex reverse-stepi -ex 'p $pc' -ex 'p g' -ex 'echo ==end\n' -ex delete \
    -ex continue -ex continue
wait_for_file "$T_DIR/server.out" "napper: ready" 60 || fail "napper did not start"
sleep 1
kill -INT "$GDB_PID"
wait_for_file "$out" "==two" 60 || fail "no first visit"
sleep 1
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 120 || fail "gdb did not finish"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
expect_not "$out" "cannot go back"
expect_not "$T_DIR/server.err" "diverged"
[ "$(sed -n '1,/^==two$/p' "$out" | grep -cE '=> 0x[0-9a-f]+ <[^>]*>:[[:space:]]+syscall')" = 1 ] ||
    fail "one instruction back from the first Ctrl-C is not a syscall instruction"
[ "$(section two | grep -cE '=> 0x[0-9a-f]+ <[^>]*>:[[:space:]]+syscall')" = 1 ] ||
    fail "one instruction back from the second Ctrl-C is not a syscall instruction"
section after | grep -q "Breakpoint 1, after ()" || fail "after() was not reached"
pcs=($(section after | sed -n 's/^\$[0-9]* = .*\(0x[0-9a-f]*\) <.*$/\1/p'))
[ "${#pcs[@]}" = 2 ] && [ $((pcs[0] - pcs[1])) -gt 0 ] && [ $((pcs[0] - pcs[1])) -le 15 ] ||
    fail "one instruction back from after()'s breakpoint: ${pcs[*]:-nothing}"
section after | grep -qE '^\$[0-9]+ = 1$' || fail "g before after() is not the byte the worker read"
section end | grep -q "exited normally" || fail "the program did not run to its exit"
expect "$T_DIR/server.out" "napper: g=101"
finish
