#!/usr/bin/env bash
# t_gdb_reverse_timeline: one timeline for all threads in the past, as GDB's
# `record full` gives it. A software recording of timeline.c, whose three
# workers take turns by a schedule the test draws at random (no two turns
# in a row by one worker), each turn storing a random value in
# g_vals[worker] inside worker_step; served by `hindsight serve --replay`.
# From the end, reverse-continue with a breakpoint in worker_step stops at
# every turn in reverse time order, each in its worker's thread (GDB
# switches threads every time), with g_vals as it was at that moment (a
# worker that has not stored yet shows 0); past the first turn it reaches
# the beginning. Forward, continue stops at the turns in order; `next`
# over the store shows it done and reverse-next undone; at the end the
# history runs out. Then the same live (`hindsight serve`, the past from
# the recording going on): three turns live, two back, forward through the
# past to the third turn where the present is, the fourth live, the exit.
. "$(dirname "$0")/lib.sh"
hindsight_only "serves recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog timeline -pthread) || finish

# The schedule: NT turns, worker W[n] stores V[n] (lib.sh).
draw_schedule
echo "schedule: ${args[*]}"

rec=$T_DIR/rec
"$HINDSIGHT" record -o "$rec" -- "$prog" "${args[@]}" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $rec"
expect "$T_DIR/record.out" "turn $((NT - 1)): worker ${W[NT - 1]} value ${V[NT - 1]}"

L_store=$(line_of timeline.c store)
L_count=$(line_of timeline.c count)
M=$(rand_int 1 $((NT - 2)))     # the turn `next` steps over

cmds=(-ex 'break worker_step')
for ((k = 1; k <= NT; k++)); do
    cmds+=(-ex "echo ==rc$k\\n" -ex 'reverse-continue' -ex 'p g_vals')
done
# (At ld.so's _start GDB finds g_vals with its type too: the libraries are
# in the main program's namespace, lmid 0.)
cmds+=(-ex 'echo ==rcbegin\n' -ex 'reverse-continue' -ex 'p g_vals' -ex 'info threads')
for ((n = 0; n <= M; n++)); do
    cmds+=(-ex "echo ==c$n\\n" -ex 'continue' -ex 'p g_vals')
done
cmds+=(-ex 'echo ==next\n' -ex 'next' -ex 'p g_vals' -ex 'p g_turns'
    -ex 'echo ==rnext\n' -ex 'reverse-next' -ex 'p g_vals' -ex 'p g_turns')
for ((n = M + 1; n < NT; n++)); do
    cmds+=(-ex "echo ==c$n\\n" -ex 'continue' -ex 'p g_vals')
done
cmds+=(-ex 'echo ==cend\n' -ex 'continue' -ex 'echo ==done\n')

server_start --replay "$rec" || finish
out=$T_DIR/gdb.out
gdb_run "$out" "${cmds[@]}" "$prog"
show "$out"

# section NAME: the transcript between ==NAME and the next ==.
section() { sed -n "/^==$1\$/,/^==/p" "$out"; }

# hit NAME N: a stop at turn N's call of worker_step in its worker's
# thread, with g_vals as it was then. The worker -> thread map must hold
# for every hit: by the thread's id (LWP), which GDB switches to. (GDB's
# own number for it changes when the past is gone back to before the
# thread was created: it is not listed there, and is new again after.)
declare -A thread_of
hit()
{
    local s num tid w=${W[$2]}
    local call="worker_step (id=$w, n=$2, value=${V[$2]})"
    s=$(section "$1")
    num=$(sed -n "s/^Thread \([0-9]*\) .*hit Breakpoint 1, $call.*/\1/p" <<<"$s")
    if [ -z "$num" ]; then
        fail "$1: not the hit of turn $2 (worker $w, value ${V[$2]})"
        return
    fi
    [ "$num" != 1 ] || fail "$1: turn $2 reported in the main thread"
    tid=$(sed -n 's/^\[Switching to Thread [0-9]*\.\([0-9]*\)\]$/\1/p' <<<"$s" | tail -1)
    if [ -z "${thread_of[$w]:-}" ]; then
        thread_of[$w]=$tid
    elif [ "${thread_of[$w]}" != "$tid" ]; then
        fail "$1: worker $w in thread $tid, before in thread ${thread_of[$w]}"
    fi
    grep -q "^\[Switching to Thread " <<<"$s" || fail "$1: GDB did not switch threads"
    grep -q "^\$[0-9]* = $(schedule_vals "$2")\$" <<<"$s" || fail "$1: g_vals is not $(schedule_vals "$2")"
}

for ((k = 1; k <= NT; k++)); do
    hit "rc$k" $((NT - k))
done
nthreads=$(printf '%s\n' "${thread_of[@]}" | sort -u | wc -l)
nworkers=$(printf '%s\n' "${W[@]}" | sort -u | wc -l)
[ "$nthreads" = "$nworkers" ] || fail "$nworkers workers hit in $nthreads threads"
section rcbegin | grep -q "No more reverse-execution history." ||
    fail "rcbegin: did not reach the beginning"
section rcbegin | grep -q "^\$[0-9]* = {0, 0, 0}\$" ||
    fail "rcbegin: g_vals is not all 0 at the beginning"
# At the beginning only the main thread exists (the workers are created
# later), as GDB says natively at the first instruction; they were listed.
[ "$(section rcbegin | grep -cE '^[* ] +[0-9]+ +Thread ')" = 1 ] ||
    fail "rcbegin: info threads does not list the main thread alone"
for ((n = 0; n < NT; n++)); do
    hit "c$n" "$n"
done
# `next` over the store in turn M's worker, and back.
section next | grep -qE "^$L_count[[:space:]]" || fail "next: not at line $L_count"
section next | grep -q "^\$[0-9]* = $(schedule_vals $((M + 1)))\$" ||
    fail "next: g_vals is not $(schedule_vals $((M + 1)))"
section next | grep -q "^\$[0-9]* = $M\$" || fail "next: g_turns is not $M"
section rnext | grep -qE "^$L_store[[:space:]]" || fail "reverse-next: not at line $L_store"
section rnext | grep -q "^\$[0-9]* = $(schedule_vals "$M")\$" ||
    fail "reverse-next: g_vals is not $(schedule_vals "$M")"
section cend | grep -q "No more reverse-execution history." || fail "cend: did not reach the end"
expect "$out" "detached]"

# Live: the past is the recording made while serving.
server_start "$prog" "${args[@]}" || finish
out=$T_DIR/gdb-live.out
cmds=(-ex 'break worker_step')
for n in 0 1 2; do
    cmds+=(-ex "echo ==live$n\n" -ex 'continue' -ex 'p g_vals')
done
cmds+=(-ex 'echo ==back1
' -ex 'reverse-continue' -ex 'p g_vals'
    -ex 'echo ==back0
' -ex 'reverse-continue' -ex 'p g_vals'
    -ex 'echo ==fwd1
' -ex 'continue' -ex 'p g_vals'
    -ex 'echo ==fwd2
' -ex 'continue' -ex 'p g_vals'
    -ex 'echo ==live3
' -ex 'continue' -ex 'p g_vals'
    -ex 'echo ==exit
' -ex 'delete' "${TO_EXIT[@]}" -ex 'echo ==done
')
gdb_run "$out" "${cmds[@]}" "$prog"
show "$out"
thread_of=()
for n in 0 1 2; do
    hit "live$n" "$n"
done
hit back1 1
hit back0 0
hit fwd1 1
hit fwd2 2
hit live3 3
section exit | grep -q "exited normally" || fail "the program did not run to its exit"
expect "$T_DIR/server.out" "turn $((NT - 1)): worker ${W[NT - 1]} value ${V[NT - 1]}"

finish
