#!/usr/bin/env bash
# t_gdb_reverse_extend: `hindsight serve` extends the past it opened by what
# was recorded since, after every live run, instead of opening the
# recording again (replay_target_extend). GDB goes live continue /
# reverse-continue / reverse-stepi / continue (past, then live on) /
# reverse-step cycles on ticks.c, each reverse after more live running;
# after each command it notes `monitor when` (position, pc) and the
# registers and globals. The recording kept (-o) is then served with
# `serve --replay` (opened once, at its end): from each command's starting
# position (`monitor goto`), the same command must stop at the same
# position with the same registers and globals. The breakpoints stay the
# same across the extensions (one table): every reverse-continue stops at
# tick, and after `delete` a reverse-continue reaches the start.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog ticks) || finish
rec=$T_DIR/rec
server_start -o "$rec" "$prog" 60 || finish

# Each check: NAME COMMAND (what runs from the position noted before it).
checks=(
    "c1 continue" "c2 continue" "c3 continue"
    "rc1 reverse-continue" "rsi1 reverse-stepi" "fc1 continue" "fc2 continue" "c4 continue"
    "c5 continue" "rc2 reverse-continue" "rc3 reverse-continue" "rs1 reverse-step"
    "c6 continue" "c7 continue" "c8 continue" "rc4 reverse-continue" "rs2 reverse-step"
    "rc5 reverse-continue" "c9 continue" "c10 continue" "rc6 reverse-continue"
)
note=(-ex 'monitor when' -ex 'info registers rip rsp rbp rax rbx rcx rdx rsi rdi eflags'
      -ex 'p g_sum' -ex 'p/x g_hist')
args=(-ex 'break tick')
for c in "${checks[@]}"; do
    name=${c%% *}
    cmd=${c#* }
    args+=(-ex "echo ==before-$name\\n" -ex 'monitor when' -ex "echo ==$name\\n" -ex "$cmd" "${note[@]}")
done
args+=(-ex 'echo ==norc\n' -ex 'delete' -ex 'reverse-continue' -ex 'monitor when'
       -ex 'echo ==info\n' -ex 'monitor record-info' -ex 'echo ==end\n' -ex 'kill')
out=$T_DIR/live.out
gdb_run "$out" "${args[@]}" "$prog"
show "$out"
kill "$SERVER_PID" 2>/dev/null
wait "$SERVER_PID" 2>/dev/null

section() { sed -n "/^==$2\$/,/^==/p" "$1" | sed '1d;$d'; }
# A section without what depends on how long the history was then: the
# `of M` of `monitor when`, its "(the end of history)".
norm() {
    sed -e 's/^position \([0-9]*\) of [0-9]* in thread \([0-9]*\)\( (the end of history)\)\?/position \1 in thread \2/' \
        -e '/^Breakpoint [0-9]*, /s/^Breakpoint [0-9]*, //' -e 's/^\$[0-9]* = /$ = /' \
        -e '/^Run till exit/d' -e '/^warning: /d'
}
position() { sed -n 's/^position \([0-9]*\) of .*/\1/p' | head -1; }

for c in "${checks[@]}"; do
    name=${c%% *}
    section "$out" "$name" | grep -q "^position [0-9]* of" || fail "$name: no monitor when after it"
done
for n in 1 2 3 4 5 6; do
    section "$out" "rc$n" | grep -qE "^(Breakpoint [0-9]+, )?(0x[0-9a-f]+ in )?tick \(i=" ||
        fail "rc$n: reverse-continue did not stop at tick"
done
section "$out" norc | grep -q "No more reverse-execution history." ||
    fail "reverse-continue without breakpoints did not reach the start"
# The past was opened once, then extended after each live run.
section "$out" info | grep -qE "^past: opened 1 times, extended ([4-9]|[1-9][0-9]) times" ||
    fail "the past was not extended after the live runs (monitor record-info)"
# The live runs went on: the later checks are further in the program.
i1=$(section "$out" c1 | sed -n 's/.*tick (i=\([0-9]*\)).*/\1/p' | head -1)
i10=$(section "$out" c10 | sed -n 's/.*tick (i=\([0-9]*\)).*/\1/p' | head -1)
[ -n "$i1" ] && [ -n "$i10" ] && [ "$i10" -gt "$i1" ] ||
    fail "the live continues did not go on (tick $i1, then $i10)"

# The same commands over the recording opened once, from the same positions.
# (A recording turned on at a point, `serve --record on-request`, knows
# only the memory written since: serve --replay refuses what it never saw
# written, where the live past reads it from the process. Not compared.)
if [ "${E2E_SERVE_RECORD:-}" = on-request ]; then
    echo "note: on-request: the recording's replay is not compared (memory never written since recording started is unknown to it)"
    finish
fi
# (Under Valgrind the light recording's inputs: --replay rebuilds it whole.)
[ -f "$rec/trace.json" ] || [ -f "$rec/inputs.hsin" ] || { fail "no recording kept in $rec"; finish; }
server_start --replay "$rec" || finish
rargs=(-ex 'break tick')
for c in "${checks[@]}"; do
    name=${c%% *}
    cmd=${c#* }
    case $cmd in reverse-*) ;; *) continue ;; esac
    pos=$(section "$out" "before-$name" | position)
    [ -n "$pos" ] || { fail "$name: no position before it"; continue; }
    rargs+=(-ex "echo ==goto-$name\\n" -ex "monitor goto $pos" -ex 'maintenance flush register-cache' -ex "echo ==$name\\n"
            -ex "$cmd" "${note[@]}")
done
rargs+=(-ex 'echo ==end\n')
rout=$T_DIR/replay.out
gdb_run "$rout" "${rargs[@]}" "$prog"
show "$rout"
nrev=0
for c in "${checks[@]}"; do
    name=${c%% *}
    cmd=${c#* }
    case $cmd in reverse-*) ;; *) continue ;; esac
    nrev=$((nrev + 1))
    a=$(section "$out" "$name" | norm)
    b=$(section "$rout" "$name" | norm)
    if [ "$a" != "$b" ]; then
        fail "$name ($cmd): live (extended past) and serve --replay differ"
        diff <(echo "$a") <(echo "$b") | head -20
    fi
done
[ "$nrev" -ge 9 ] || fail "only $nrev reverse commands compared"
finish
