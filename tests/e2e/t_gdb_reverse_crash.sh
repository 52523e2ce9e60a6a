#!/usr/bin/env bash
# t_gdb_reverse_crash: a program served by `hindsight serve` dies of SIGSEGV
# (a write through NULL); GDB stops at the fault, goes back over the
# recording (reverse-stepi to the instruction before the faulting write,
# reverse-finish to the call in main, with the arguments and locals of the
# past), forward again (the fault is reported again at the end of history,
# live), and the program then dies of the signal as it would have.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog crash) || finish
V=$(rand_int 2 500)
line_crash=$(line_of crash.c crash)

server_start "$prog" "$V" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'echo ==fault\n' -ex 'continue' -ex 'p/x $pc' \
    -ex 'echo ==rsi\n' -ex 'reverse-stepi' -ex 'p/x $pc' -ex 'p p' -ex 'p v' \
    -ex 'echo ==rf\n' -ex 'reverse-finish' -ex 'p p' -ex 'p v' \
    -ex 'echo ==again\n' -ex 'continue' -ex 'p/x $pc' \
    -ex 'echo ==die\n' -ex 'continue' \
    -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
hexval() { section "$1" | sed -n "s/^\\\$[0-9]* = \\(0x[0-9a-f]*\\)\$/\\1/p" | head -1; }

section fault | grep -q "^Program received signal SIGSEGV" || fail "no SIGSEGV stop"
section fault | grep -qE "in crash_here \(p=0x0, v=$V\) at .*crash\.c:$line_crash\$" ||
    fail "the fault is not at crash_here (p=0x0, v=$V), line $line_crash"
fault_pc=$(hexval fault)
rsi_pc=$(hexval rsi)
[ -n "$fault_pc" ] && [ -n "$rsi_pc" ] && [ $((rsi_pc)) -lt $((fault_pc)) ] ||
    fail "reverse-stepi did not go back before the faulting instruction ($rsi_pc vs $fault_pc)"
section rsi | grep -q "^\$[0-9]* = (int \*) 0x0\$" || fail "p is not NULL one instruction back"
section rsi | grep -q "^\$[0-9]* = $V\$" || fail "v is not $V one instruction back"
section rf | grep -qE "in main \(argc=2, " || fail "reverse-finish did not return to main"
section rf | grep -q "^\$[0-9]* = (int \*) 0x0\$" || fail "main's p is not NULL"
section rf | grep -q "^\$[0-9]* = $V\$" || fail "main's v is not $V"
section again | grep -q "^Program received signal SIGSEGV" ||
    fail "going forward again did not reach the fault"
[ "$(hexval again)" = "$fault_pc" ] || fail "the fault is not at $fault_pc again"
section die | grep -q "Program terminated with signal SIGSEGV" || fail "the program did not die of SIGSEGV"
expect "$T_DIR/server.err" "Child terminated with signal = 11"

finish
