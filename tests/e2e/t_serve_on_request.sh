#!/usr/bin/env bash
# t_serve_on_request: `serve --record on-request` runs the program natively
# until the debugger asks for recording, then records from that
# instruction (docs/serve.md, "Native until asked"):
#   - before: a reverse-stepi stops where it is, "No more reverse-execution
#     history.";
#   - GDB's `record btrace` at a breakpoint: `info record` then counts the
#     instructions run since, exactly GDB's own `record full` count over
#     gdbserver from the same breakpoint to the same one;
#     `record instruction-history` starts at the breakpoint;
#   - reverse-continue to a breakpoint hit before recording started stops
#     at the start of history with GDB's message, at the breakpoint where
#     recording was asked for;
#   - `monitor record start` (the target goes back, not GDB: bs / bc):
#     values of the past equal GDB's natively at the same stop;
#   - `record stop` hands the program back to run natively, and recording
#     can start again.
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record on-request"

prog=$(build_prog onrequest -O0 -g) || { fail "cannot build onrequest.c"; finish; }
to_work=(-ex 'break mark' -ex continue -ex 'delete 1')

# GDB's own count and values over gdbserver, the independent source.
SERVER=gdbserver server_start --once "$prog" || finish
gdb_run "$T_DIR/native.txt" "${to_work[@]}" -ex 'record full' -ex 'break work' -ex continue \
    -ex 'info record' -ex 'print g' -ex 'print $pc' -ex kill
want=$(sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p' "$T_DIR/native.txt")
want_g=$(sed -n 's/^\$1 = //p' "$T_DIR/native.txt")
[ -n "$want" ] && [ -n "$want_g" ] || { fail "no count from GDB's record full"; show "$T_DIR/native.txt"; finish; }
wait_gone "$SERVER_PID" 10

# record btrace at mark(): GDB reads the trace and goes back itself.
server_start --once --record on-request "$prog" || finish
expect "$T_DIR/server.err" "running natively"
gdb_run "$T_DIR/btrace.txt" -ex 'break mark' -ex continue -ex 'reverse-stepi' -ex 'print $pc' \
    -ex 'record btrace' -ex 'delete 1' -ex 'break work' -ex continue -ex 'info record' \
    -ex 'record instruction-history 1,1' -ex 'reverse-continue' -ex 'print $pc' -ex kill
expect "$T_DIR/btrace.txt" "No more reverse-execution history."
got=$(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$T_DIR/btrace.txt")
expect_eq "instructions recorded from mark() to work()" "$got" "$want"
expect_re "$T_DIR/btrace.txt" '^1	( +|=> )0x[0-9a-f]+ <mark\+[0-9]+>:'
# The stop before recording and the start of history: both at mark()'s
# breakpoint, the same pc.
pcs=($(sed -n 's/^\$[0-9]* = .* \(0x[0-9a-f]*\) <mark+.*/\1/p' "$T_DIR/btrace.txt"))
expect_eq "stops at mark() (before, at the start of history)" "${#pcs[@]}" 2
expect_eq "the start of history" "${pcs[1]:-}" "${pcs[0]:-}"
[ "$(grep -c 'No more reverse-execution history.' "$T_DIR/btrace.txt")" = 2 ] ||
    fail "reverse-continue did not end at the start of history"
wait_gone "$SERVER_PID" 10

# monitor record start: the target serves bs / bc.
server_start --once --record on-request "$prog" || finish
gdb_run "$T_DIR/monitor.txt" "${to_work[@]}" -ex 'monitor record start' -ex 'break work' \
    -ex continue -ex 'print g' -ex finish -ex 'print g' -ex 'reverse-continue' \
    -ex 'print g' -ex 'reverse-continue' -ex 'print $pc' -ex 'monitor record stop' -ex kill
expect "$T_DIR/monitor.txt" "Recording from here"
# In the past the program is not where the debugger stands: no stop there.
expect "$T_DIR/monitor.txt" "Cannot stop recording here: go forward to the present first"
vals=($(sed -n 's/^\$[0-9]* = //p' "$T_DIR/monitor.txt"))
expect_eq "g at work(10), live" "${vals[0]:-}" "$want_g"
expect_eq "g at work(10), gone back to" "${vals[2]:-}" "$want_g"
[ "${vals[1]:-}" != "$want_g" ] || fail "g did not change over work(10)"
expect "$T_DIR/monitor.txt" "No more reverse-execution history."
expect_re "$T_DIR/monitor.txt" '^\$[0-9]+ = .*<mark\+[0-9]+>'   # where recording started
wait_gone "$SERVER_PID" 10

# LLDB asks with a monitor command: the recording holds what ran since
# (tens of instructions; the first work() alone ran millions), and the
# value read at work(10) is GDB's natively.
server_start --once --record on-request "$prog" || finish
lldb_run "$T_DIR/lldb.txt" "$prog" -o 'breakpoint set -n mark' -o continue \
    -o 'process plugin packet monitor record start' -o 'breakpoint set -n work' -o continue \
    -o 'p g' -o 'process plugin packet monitor record-info' -o kill
expect "$T_DIR/lldb.txt" "Recording from here"
expect_re "$T_DIR/lldb.txt" "\\) \\\$0 = $want_g\$"
n=$(sed -n 's/^instructions: \([0-9]*\)$/\1/p' "$T_DIR/lldb.txt" | head -1)
[ "${n:-0}" -gt 0 ] && [ "${n:-0}" -lt 1000 ] ||
    { fail "LLDB: $n instructions recorded, not those since mark()"; show "$T_DIR/lldb.txt"; }
wait_gone "$SERVER_PID" 10

# Threads: recording asked for in a worker at its breakpoint; another
# worker's hit is recorded, and going back ends at the start of history.
prog2=$(build_prog threads -O0 -g -pthread) || { fail "cannot build threads.c"; finish; }
server_start --once --record on-request "$prog2" 5 || finish
gdb_run "$T_DIR/threads.txt" -ex 'break thread_work' -ex continue -ex 'record btrace' -ex continue \
    -ex 'info record' -ex 'reverse-continue' -ex kill
[ "$(grep -c 'hit Breakpoint 1, thread_work' "$T_DIR/threads.txt")" = 2 ] ||
    { fail "threads: not two hits of thread_work"; show "$T_DIR/threads.txt"; }
# The second hit may be another worker's that was there already when
# recording started (forgotten then, met again at once): none of its
# instructions ran since; GDB counts per thread.
expect_re "$T_DIR/threads.txt" "^Recorded [0-9]+ instructions"
expect "$T_DIR/threads.txt" "No more reverse-execution history."
wait_gone "$SERVER_PID" 10

# `record stop` hands the program back: it goes on natively (no history
# after: a reverse-stepi stays where it is), a second `record btrace`
# records again from there, and the run ends as the program's own does.
# What the first recording held is kept (-o), numbered as GDB counted it:
# from the breakpoint in mark() to the instruction before the stop's pc.
# The second goes to DIR.2, not over the first.
kept=$T_DIR/kept
server_start --once --record on-request -o "$kept" "$prog" || finish
gdb_run "$T_DIR/stop.txt" -ex 'break mark' -ex continue -ex 'record btrace' -ex 'delete 1' \
    -ex 'break work' -ex continue -ex 'info record' -ex 'print $pc' -ex 'record stop' \
    -ex 'reverse-stepi' -ex 'print $pc' -ex 'record btrace' -ex 'stepi' -ex 'stepi' -ex 'info record' \
    -ex 'record stop' -ex 'monitor record stop' -ex 'delete' -ex continue
expect "$T_DIR/stop.txt" "Process record is stopped"
expect "$T_DIR/stop.txt" "No more reverse-execution history."
expect "$T_DIR/stop.txt" "Not recording."
expect "$T_DIR/stop.txt" "exited normally"
counts=($(sed -n 's/^Recorded \([0-9]*\) instructions.*/\1/p' "$T_DIR/stop.txt"))
expect_eq "instructions recorded from mark() to work(), before record stop" "${counts[0]:-}" "$want"
expect_eq "instructions recorded by a second record btrace (two stepi)" "${counts[1]:-}" 2
pcs=($(sed -n 's/^\$[0-9]* = .* \(0x[0-9a-f]*\) <.*/\1/p' "$T_DIR/stop.txt"))
[ -n "${pcs[0]:-}" ] && [ "${pcs[0]}" = "${pcs[1]:-}" ] ||
    fail "reverse-stepi after record stop moved (${pcs[0]:-} to ${pcs[1]:-})"
wait_gone "$SERVER_PID" 10
expect_eq "the program's output after record stop" "$(cat "$T_DIR/server.out")" "$("$prog")"
expect "$kept/trace.json" '"kind": "detached"'
"$HINDSIGHT" history "$kept" 1,100000 >"$T_DIR/kept.txt" 2>&1 || fail "the recording kept cannot be read"
n=$(grep -c '^[0-9]' "$T_DIR/kept.txt")
expect_eq "instructions in the recording kept" "$n" "$want"
bp=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): .*/\1/p' "$T_DIR/stop.txt")
expect_re "$T_DIR/kept.txt" "^1	 *0x0*${bp#0x} <mark\\+[0-9]+>:"
[ "$("$HINDSIGHT" history "$kept.2" 1,100 2>&1 | grep -c '^[0-9]')" = 2 ] ||
    fail "the second recording, in $kept.2, does not hold its two instructions"
last=$(tail -1 "$T_DIR/kept.txt" | sed -n 's/^[0-9]*	 *\(0x[0-9a-f]*\) .*/\1/p')
[ -n "$last" ] && [ $((pcs[0] - last)) -gt 0 ] && [ $((pcs[0] - last)) -le 15 ] ||
    fail "the recording kept does not end right before ${pcs[0]:-?} (its last: ${last:-none})"
# Served with --replay, GDB finds the program where it was loaded: the
# recording names it (its command line, read from /proc: recording began
# after the exec), so the auxv holds its entry; g at the end as GDB read it
# natively at work().
expect "$kept/trace.json" '"argv": ['
server_start --once --replay "$kept" || finish
gdb_run "$T_DIR/kept_replay.txt" -ex 'info auxv' -ex 'break mark' -ex 'print g' -ex kill "$prog"
expect_re "$T_DIR/kept_replay.txt" "^9 +AT_ENTRY +Entry point of program +0x[0-9a-f]+$"
expect_not "$T_DIR/kept_replay.txt" "2 locations"
expect_re "$T_DIR/kept_replay.txt" "^\\\$1 = $want_g\$"
wait_gone "$SERVER_PID" 10

# A program started for the debugger is killed by `kill` once recording
# started (it was handed over, not attached to): sleeper would sleep a
# minute more.
prog3=$(build_prog sleeper) || { fail "cannot build sleeper.c"; finish; }
server_start --once --record on-request "$prog3" 1000 || finish
gdb_run "$T_DIR/kill.txt" -ex 'break work_before_sleep' -ex continue -ex 'monitor record start' \
    -ex next -ex kill
expect "$T_DIR/kill.txt" "Recording from here"
wait_gone "$INFERIOR_PID" 10 || fail "kill after recording started left the program running"
wait_gone "$SERVER_PID" 10
finish
