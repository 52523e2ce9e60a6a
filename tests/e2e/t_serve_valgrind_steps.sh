#!/usr/bin/env bash
# t_serve_valgrind_steps: steps of one thread under `serve --record
# valgrind`, where Valgrind steps whichever thread runs next and the
# stepped one may wait for its turn or in a syscall (a review found each):
#   1. samespin.c: thread 2 stepped while thread 1, counting in the same
#      loop, has the turn and passes the stepped pc again and again; a
#      Ctrl-C comes meanwhile. Going back from that stop must not diverge
#      (where the stop was at the stub's breakpoint, which is a matter of
#      timing, it was logged as a stop between two superblocks, one
#      ahead), and the count one instruction back is at most the
#      present's.
#   2. napper.c: a step of main while it waits in nanosleep (the thread
#      the Ctrl-C stopped in) ends as the call returns: the pc the same,
#      past the syscall instruction, rax nanosleep's 0 (it ran one more
#      instruction: Valgrind passes the pc a step names once).
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record valgrind"
command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v vgdb >/dev/null || skip "vgdb is not installed"

# 1.
prog=$(build_prog samespin -pthread) || finish
server_start --once --record valgrind "$prog" || finish
out=$T_DIR/spin.out
gdb_run_bg "$out" -ex 'break hit' -ex continue -ex delete -ex 'thread 2' -ex 'echo ==step\n' \
    -ex stepi -ex 'echo ==now\n' -ex 'p cnt[0]' -ex 'p cnt[1]' -ex reverse-stepi \
    -ex 'echo ==back\n' -ex 'p cnt[0]' -ex 'p cnt[1]' -ex kill
wait_for_file "$out" "==step" 90 || fail "hit() was not reached"
sleep 0.7
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 90 || fail "gdb did not finish"
show "$out"
expect_not "$T_DIR/server.err" "diverged"
now=($(sed -n '/^==now$/,/^==back$/p' "$out" | sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p'))
back=($(sed -n '/^==back$/,$p' "$out" | sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p'))
if [ "${#now[@]}" = 2 ] && [ "${#back[@]}" = 2 ]; then
    [ "${back[0]}" -le "${now[0]}" ] && [ "${back[1]}" -le "${now[1]}" ] ||
        fail "one instruction back, the counts (${back[*]}) are past the present's (${now[*]})"
else
    fail "the counts now and back: '${now[*]:-}' / '${back[*]:-}'"
fi
wait_gone "$SERVER_PID" 20

# 2.
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
