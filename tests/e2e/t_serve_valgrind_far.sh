#!/usr/bin/env bash
# t_serve_valgrind_far: `serve --record valgrind` with a breakpoint about
# 10^8 instructions into the program (far.c: work(12,500,000) adds
# 0..N-1 to g, then mark()): GDB reaches it live, watches g, goes back
# through the past rebuilt (10^8 instructions) and forward again to the
# present, then runs on to the end. Every value is proven by arithmetic
# (g is the sum of 0..i) and by GDB natively on the same program:
#   - at mark(), g = N(N-1)/2, as natively;
#   - reverse-continue with `watch g`: the last write of work(), i = N-1,
#     old and new values (as GDB prints them going back: the later one
#     first); again: the write before, i = N-2;
#   - continue twice: the same writes forward, ending at the present with
#     g = N(N-1)/2; then the program runs on live to its end and prints
#     what it prints natively.
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record valgrind"
command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v vgdb >/dev/null || skip "vgdb is not installed"

prog=$(build_prog far -O0 -g) || { fail "cannot build far.c"; finish; }
n=12500000
sum() { echo $(($1 * ($1 - 1) / 2)); }

timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set pagination off' \
    -ex 'break mark' -ex run -ex 'print g' -ex kill "$prog" </dev/null >"$T_DIR/native.txt" 2>&1
expect_re "$T_DIR/native.txt" "^\\\$1 = $(sum $n)\$"

server_start --once --record valgrind "$prog" || finish
gdb_run "$T_DIR/far.txt" -ex 'break mark' -ex continue -ex 'print g' -ex 'watch g' \
    -ex reverse-continue -ex 'print i' -ex reverse-continue -ex 'print i' \
    -ex continue -ex continue -ex 'print g' -ex delete "${TO_EXIT[@]}"
v=($(sed -n 's/^\$[0-9]* = //p' "$T_DIR/far.txt"))
old=($(sed -n 's/^Old value = //p' "$T_DIR/far.txt"))
new=($(sed -n 's/^New value = //p' "$T_DIR/far.txt"))
expect_eq "g at mark(), reached live" "${v[0]:-}" "$(sum $n)"
expect_eq "i at the last write, gone back to" "${v[1]:-}" "$((n - 1))"
expect_eq "i at the write before" "${v[2]:-}" "$((n - 2))"
expect_eq "g at the present again" "${v[3]:-}" "$(sum $n)"
# Going back GDB prints the later value as old, the earlier as new.
expect_eq "the watched writes' old values" "${old[*]}" \
    "$(sum $n) $(sum $((n - 1))) $(sum $((n - 2))) $(sum $((n - 1)))"
expect_eq "the watched writes' new values" "${new[*]}" \
    "$(sum $((n - 1))) $(sum $((n - 2))) $(sum $((n - 1))) $(sum $n)"
expect "$T_DIR/server.err" "going back: rebuilding the run so far"
expect_re "$T_DIR/far.txt" "exited normally"
wait_gone "$SERVER_PID" 30
expect_eq "the program's output" "$(cat "$T_DIR/server.out")" "$("$prog")"
finish
