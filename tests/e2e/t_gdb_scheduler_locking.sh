#!/usr/bin/env bash
# t_gdb_scheduler_locking: GDB's `set scheduler-locking on` resumes the
# current thread alone (vCont;c:TID, no action for the others), and
# `hindsight serve`, recording, runs it alone as gdbserver does. spinhit.c's
# three workers call tick(); from a first hit, three continues stop at
# tick in the same thread each time, that thread's count grows by exactly
# three and the others' do not move; with the locking off again the
# program runs to its end, every thread's calls made. gdbserver, the same
# commands natively, must show the same (the independent reference).
. "$(dirname "$0")/lib.sh"

prog=$(build_prog spinhit -O0 -g -pthread) || { fail "cannot build spinhit.c"; finish; }
cmds=(-ex 'break tick' -ex continue -ex 'echo ==before\n' -ex 'p id' -ex 'p g_ticks'
      -ex 'set scheduler-locking on' -ex 'echo ==locked\n')
for k in 1 2 3; do cmds+=(-ex continue -ex 'p id'); done
cmds+=(-ex 'echo ==after\n' -ex 'p g_ticks' -ex 'set scheduler-locking off' -ex delete
       -ex 'echo ==end\n')

check_run()
{
    local who=$1 out=$2
    section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
    local id before after
    id=$(section before | sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p' | head -1)
    before=$(section before | sed -n 's/^\$[0-9]* = {\(.*\)}$/\1/p' | tr -d ' ')
    after=$(section after | sed -n 's/^\$[0-9]* = {\(.*\)}$/\1/p' | tr -d ' ')
    [ -n "$id" ] && [ -n "$before" ] && [ -n "$after" ] || { fail "$who: no first hit or counts"; show "$out"; return; }
    [ "$(section locked | grep -c "hit Breakpoint 1, tick (id=$id)")" = 3 ] ||
        { fail "$who: the three locked continues did not all stop in tick(id=$id)"; show "$out"; }
    local i=0 b a
    IFS=, read -ra B <<<"$before"
    IFS=, read -ra A <<<"$after"
    for i in 0 1 2; do
        b=${B[$i]:-x} a=${A[$i]:-y}
        if [ "$i" = "$id" ]; then
            [ "$a" = $((b + 3)) ] || fail "$who: thread tick(id=$i) went from $b to $a, not 3 more"
        else
            [ "$a" = "$b" ] || fail "$who: thread tick(id=$i) ran while locked ($b to $a)"
        fi
    done
    section end | grep -q "exited normally" || fail "$who: the program did not run to its end"
}

SERVER=gdbserver server_start --once "$prog" || finish
gdb_run "$T_DIR/native.txt" "${cmds[@]}" -ex continue "$prog"
check_run gdbserver "$T_DIR/native.txt"
expect "$T_DIR/server.out" "spinhit: 150"
wait_gone "$SERVER_PID" 10

if [ "$SERVER" = hindsight ]; then
    server_start --once "$prog" || finish
    gdb_run "$T_DIR/hindsight.txt" "${cmds[@]}" "${TO_EXIT[@]}" "$prog"
    check_run "hindsight serve" "$T_DIR/hindsight.txt"
    expect "$T_DIR/server.out" "spinhit: 150"
    wait_gone "$SERVER_PID" 10
fi
finish
