#!/usr/bin/env bash
# t_gdb_reverse_recurse: reverse-next over a recursive call and over a
# signal handler, on a program served (and recorded) by `hindsight serve`:
# GDB steps back over raise(SIGUSR1) (the handler's run undone) and over
# the whole recursion (every call undone), forward again over both, then a
# conditional breakpoint in the recursion is found backwards
# (reverse-continue to sum_to (n=0)) and reverse-finish returns into the
# caller's frame of the recursion.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog recurse) || finish
N=$(rand_int 3 20)
line_print=$(line_of recurse.c print)
line_raise=$(line_of recurse.c raise)
line_call=$(line_of recurse.c call_sum)

server_start "$prog" "$N" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'handle SIGUSR1 nostop noprint pass' -ex "break recurse.c:$line_print" \
    -ex 'echo ==at\n' -ex 'continue' -ex 'p g_handled' \
    -ex 'echo ==rn1\n' -ex 'reverse-next' -ex 'p g_handled' -ex 'p g_calls' \
    -ex 'echo ==rn2\n' -ex 'reverse-next' -ex 'p g_calls' -ex 'p g_total' \
    -ex 'echo ==n1\n' -ex 'next' -ex 'p g_calls' -ex 'p g_total' \
    -ex 'echo ==n2\n' -ex 'next' -ex 'p g_handled' \
    -ex 'break sum_to if n == 0' \
    -ex 'echo ==rc\n' -ex 'reverse-continue' -ex 'p g_calls' \
    -ex 'echo ==rf\n' -ex 'reverse-finish' \
    -ex 'echo ==end\n' -ex 'delete' "${TO_EXIT[@]}" \
    -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
val() { section "$1" | sed -n 's/^\$[0-9]* = \(-*[0-9]*\)$/\1/p' | sed -n "${2}p"; }

T=$((N * (N + 1) / 2))
section at | grep -qE "^Breakpoint 1, main .*recurse\.c:$line_print\$" || fail "no stop at line $line_print"
[ "$(val at 1)" = 1 ] || fail "g_handled is not 1 after the signal"
section rn1 | grep -qE "^$line_raise\b" || fail "reverse-next did not go back to the raise at line $line_raise"
[ "$(val rn1 1)" = 0 ] || fail "reverse-next over raise(): the handler's g_handled++ is not undone"
[ "$(val rn1 2)" = $((N + 1)) ] || fail "g_calls is not $((N + 1)) before the raise"
section rn2 | grep -qE "^$line_call\b" || fail "reverse-next did not go back to the call at line $line_call"
[ "$(val rn2 1)" = 0 ] || fail "reverse-next over the recursion: g_calls is not 0"
[ "$(val rn2 2)" = 0 ] || fail "reverse-next over the recursion: g_total is not 0"
[ "$(val n1 1)" = $((N + 1)) ] || fail "next over the recursion: g_calls is not $((N + 1))"
[ "$(val n1 2)" = "$T" ] || fail "next over the recursion: g_total is not $T"
[ "$(val n2 1)" = 1 ] || fail "next over raise(): g_handled is not 1"
section rc | grep -qE "^Breakpoint 2, sum_to \(n=0\)" || fail "reverse-continue did not find sum_to (n=0)"
[ "$(val rc 1)" = "$N" ] || fail "at sum_to (n=0) g_calls is not $N"
section rf | grep -qE "in sum_to \(n=1\)" || fail "reverse-finish did not return into sum_to (n=1)"
section end | grep -q "exited normally" || fail "the program did not run to its exit"
expect "$T_DIR/server.out" "recurse: total=$T calls=$((N + 1)) handled=1"

finish
