#!/usr/bin/env bash
# t_replay_threads_break: `hindsight replay` and GDB over `serve --replay`
# give the same answer to the same question across threads (one
# timeline, replay/decode/timeline.h). Software recordings of timeline.c, whose
# three workers take turns by a schedule drawn at random (no two turns in
# a row by one worker, each worker at least once; two schedules), each
# turn storing a value in g_vals[worker] inside worker_step. Both are
# asked: `break worker_step`, then from the end reverse-continue to every
# turn and to the beginning, then continue to every turn and to the end;
# at each stop the argument registers' values (GDB: `print value`,
# `print id`; the front end, which reads no C variables: $edx, $edi),
# g_vals (GDB: `print g_vals`; the front end: x/3dw at its address), and
# `thread`. The two transcripts, reduced to one line a stop (thread,
# values, edge), must be the same, and match the schedule: each turn in
# reverse, then in order, each in its worker's thread (the front end says
# "[Switching to thread N ...]" when the stop is in another thread than
# the last).
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog timeline -pthread) || finish

# stops FILE: one line a stop of the transcript (each ends with `thread`'s
# answer): its thread and the values printed there, or "edge" where the
# history ran out (the thread there differs: GDB's own breakpoint in
# ld.so, its shared-library events, stops main on the way back, and GDB
# goes on from there).
stops()
{
    awk '
    /^\$[0-9]+ = \(int \(\*\)/ { next }
    /^\$[0-9]+ = / { s = $0; sub(/^\$[0-9]+ = /, "", s); v = v " " s }
    /^0x[0-9a-f]+( <[^>]*>)?:/ {
        s = $0; sub(/^[^:]*:[ \t]*/, "", s); gsub(/[ \t]+/, ", ", s); v = v " {" s "}"
    }
    /No more reverse-execution history/ { e = 1 }
    /^\[Current thread is / {
        match($0, /Thread [0-9]+\.[0-9]+/)
        if (e)
            printf "%d: edge\n", ++n
        else
            printf "%d: thread %s%s\n", ++n, substr($0, RSTART + 7, RLENGTH - 7), v
        v = ""; e = 0
    }
    ' "$1"
}

# ask ROUND: one schedule, both debuggers, the transcripts compared.
ask()
{
    local r=$1 n k w
    # every worker takes a turn (lib.sh)
    local args=()
    draw_schedule
    echo "round $r schedule: ${args[*]}"
    local rec=$T_DIR/rec$r
    "$HINDSIGHT" record -o "$rec" -- "$prog" "${args[@]}" >"$T_DIR/record$r.out" 2>&1
    expect "$T_DIR/record$r.out" "turn $((NT - 1)): worker ${W[NT - 1]} value ${V[NT - 1]}"

    # The same questions, in each debugger's words.
    local g=(-ex 'break worker_step' -ex 'p &g_vals') f=('break worker_step')
    local gp=(-ex 'p value' -ex 'p id' -ex 'p g_vals' -ex thread)
    local addr=ADDR
    for ((k = 1; k <= NT; k++)); do
        g+=(-ex reverse-continue "${gp[@]}")
    done
    g+=(-ex reverse-continue -ex thread)
    for ((n = 0; n < NT; n++)); do
        g+=(-ex continue "${gp[@]}")
    done
    g+=(-ex continue -ex thread)

    server_start --replay "$rec" || finish
    gdb_run "$T_DIR/gdb$r.out" "${g[@]}" "$prog"
    show "$T_DIR/gdb$r.out"
    addr=$(sed -n 's/^\$1 = (int (\*)\[3\]) \(0x[0-9a-f]*\) <g_vals>$/\1/p' "$T_DIR/gdb$r.out")
    [ -n "$addr" ] || { fail "round $r: GDB did not print &g_vals"; return; }
    # (More commands than -ex takes: a script.)
    local fp=('p $edx' 'p $edi' "x/3dw $addr" thread)
    for ((k = 1; k <= NT; k++)); do
        f+=(reverse-continue "${fp[@]}")
    done
    f+=(reverse-continue thread)
    for ((n = 0; n < NT; n++)); do
        f+=(continue "${fp[@]}")
    done
    f+=(continue thread)
    printf '%s\n' "${f[@]}" >"$T_DIR/fe$r.cmds"
    timeout 60 "$HINDSIGHT" replay "$rec" --batch -x "$T_DIR/fe$r.cmds" >"$T_DIR/fe$r.out" \
        2>"$T_DIR/fe$r.err"
    expect_eq "round $r: hindsight replay's exit status" "$?" 0
    show "$T_DIR/fe$r.out" "$T_DIR/fe$r.err"

    stops "$T_DIR/gdb$r.out" >"$T_DIR/gdb$r.stops"
    stops "$T_DIR/fe$r.out" >"$T_DIR/fe$r.stops"
    show "$T_DIR/gdb$r.stops"
    diff "$T_DIR/gdb$r.stops" "$T_DIR/fe$r.stops" >"$T_DIR/diff$r" ||
        { show "$T_DIR/diff$r"; fail "round $r: hindsight replay and GDB stopped differently"; }

    # Against the schedule: the turns back, the beginning, forward, the
    # end; a worker in one thread throughout.
    local want=() tid
    declare -A thread_of=()
    for ((k = 1; k <= NT; k++)); do
        n=$((NT - k))
        want+=("${V[n]} ${W[n]} $(schedule_vals "$n")")
    done
    want+=(edge)
    for ((n = 0; n < NT; n++)); do
        want+=("${V[n]} ${W[n]} $(schedule_vals "$n")")
    done
    want+=(edge)
    for ((k = 1; k <= ${#want[@]}; k++)); do
        local line
        if [ "${want[k - 1]}" = edge ]; then
            grep -qx "$k: edge" "$T_DIR/fe$r.stops" ||
                fail "round $r stop $k: not the edge of the history"
            continue
        fi
        line=$(sed -n "s/^$k: thread //p" "$T_DIR/fe$r.stops")
        tid=${line%% *}
        [ "${line#* }" = "${want[k - 1]}" ] ||
            fail "round $r stop $k: got '${line#* }', want '${want[k - 1]}'"
        w=$(cut -d' ' -f2 <<<"${want[k - 1]}")
        if [ -z "${thread_of[$w]:-}" ]; then
            thread_of[$w]=$tid
        elif [ "${thread_of[$w]}" != "$tid" ]; then
            fail "round $r stop $k: worker $w in thread $tid, before in ${thread_of[$w]}"
        fi
    done
    # Every hit but the first forward one (the beginning stays in turn
    # 0's thread) switches threads.
    n=$(grep -c '^\[Switching to thread [0-9]* (Thread [0-9]*\.[0-9]*)\]$' "$T_DIR/fe$r.out")
    expect_eq "round $r: thread switches" "$n" $((2 * NT - 1))
    kill "$SERVER_PID" 2>/dev/null
}

ask 1
ask 2
finish
