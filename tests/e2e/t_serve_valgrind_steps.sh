#!/usr/bin/env bash
# t_serve_valgrind_steps: a step of one thread under `serve --record
# valgrind` while it waits in a syscall (a review found it): napper.c's
# main, which the Ctrl-C stopped in nanosleep, stepped: the step ends as
# the call returns, the pc the same, past the syscall instruction, rax
# nanosleep's 0 (it ran one more instruction: Valgrind passes the pc a
# step names once).
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record valgrind"
command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v vgdb >/dev/null || skip "vgdb is not installed"

prog=$(build_prog napper -pthread) || finish
server_start --once --record valgrind "$prog" 3 || finish
out=$T_DIR/nap.out
gdb_run_bg "$out" -ex continue -ex 'thread 1' -ex 'x/i $pc - 2' -ex 'p $pc' -ex 'p $rax' \
    -ex 'echo ==step\n' -ex stepi -ex 'p $pc' -ex 'p $rax' -ex 'echo ==end\n' -ex continue -ex continue
wait_for_file "$T_DIR/server.out" "napper: ready" 60 || fail "napper did not start"
sleep 1
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 90 || fail "gdb did not finish"
show "$out"
sed -n '1,/^==step$/p' "$out" | grep -qE ':[[:space:]]+syscall' ||
    fail "main's thread is not past a syscall instruction at the Ctrl-C"
pcs=($(sed -n 's/^\$[0-9]* = .*\(0x[0-9a-f]*\) <.*$/\1/p' "$out"))
[ "${#pcs[@]}" = 2 ] && [ "${pcs[0]}" = "${pcs[1]}" ] ||
    fail "the step over the end of nanosleep moved the pc: ${pcs[*]:-}"
sed -n '/^==step$/,/^==end$/p' "$out" | grep -qE '^\$[0-9]+ = 0$' ||
    fail "rax after the step is not nanosleep's result 0"
expect "$T_DIR/server.out" "napper: g=101"
finish
