#!/usr/bin/env bash
# t_record_killed: `hindsight record` killed with SIGKILL half-way (no chance
# to save anything more), single-stepping or with Valgrind, still leaves a
# readable bundle: what was written
# until then decodes (`history`, `calls`, `--json`), ending cleanly, and the
# recorded program did not survive its recorder (PTRACE_O_EXITKILL; under
# Valgrind, the FIFO's reader gone). Killed while the program waits in a
# syscall, it lost nothing before the wait. Every command says that such
# a recording did not finish. Nothing else is left in the
# bundle's directory. Stopped by SIGTERM, the history ends at the last
# instruction the recorder ran.
. "$(dirname "$0")/lib.sh"
hindsight_only "records"

prog=$(build_prog loop) || finish
recorders=sw
command -v valgrind >/dev/null && recorders="sw valgrind"
for r in $recorders; do
rec=$T_DIR/rec.$r
"$HINDSIGHT" record --record="$r" -o "$rec" -- "$prog" >"$T_DIR/record.$r.out" 2>&1 &
REC_PID=$!
track_pid "$REC_PID"
# Wait until the program runs (it prints its pid once past ld.so and libc's
# start-up, a few hundred thousand instructions in).
wait_for_file "$T_DIR/record.$r.out" "loop: pid" 120 || fail "$r: the program did not start under the recorder"
child=$(sed -n 's/^loop: pid \([0-9]*\)$/\1/p' "$T_DIR/record.$r.out")
sleep 1
kill -9 "$REC_PID"
wait "$REC_PID" 2>/dev/null
# (Under Valgrind the pid printed is Valgrind's, the program's process.)
[ -n "$child" ] && wait_gone "$child" 10 || fail "$r: the recorded program $child survived its recorder"

# Nothing but the bundle is left in its directory (the Valgrind recorder's
# stream went through a FIFO there, left behind by SIGKILL).
extra=$(ls -A "$rec" | grep -v -x -e threads -e images -e trace.json -e valgrind.log)
[ -z "$extra" ] || fail "$r: the killed recorder left $extra in $rec"
# The last instructions (GDB's default range) say how many there are.
"$HINDSIGHT" history "$rec" --json >"$T_DIR/hist.json" 2>"$T_DIR/hist.err" ||
    fail "$r: history of the killed recording failed: $(head -3 "$T_DIR/hist.err")"
n=$(tail -1 "$T_DIR/hist.json" | sed -n 's/^{"index":\([0-9]*\),.*/\1/p')
# It says that its history stops short of the program's (it did not).
expect "$T_DIR/hist.err" "hindsight: warning: the recording did not finish (its recorder was killed"
echo "$r: decoded ${n:-no} instructions"
# Traces and state logs are flushed every 2^14 instructions (the Valgrind
# recorder: the bundle saved at least every second): the program's
# start-up (past "loop: pid") is in them.
[ "${n:-0}" -gt 100000 ] || fail "$r: only ${n:-no} instructions decode from the killed recording"
"$HINDSIGHT" history "$rec" 1,3 --json >"$T_DIR/first.json" 2>&1 ||
    fail "$r: history 1,3 of the killed recording failed"
grep -q '^{"index":1,.*"function":"_start"' "$T_DIR/first.json" ||
    fail "$r: the history does not start with ld.so's _start: $(head -1 "$T_DIR/first.json")"
"$HINDSIGHT" calls "$rec" 1,20 >"$T_DIR/calls.out" 2>&1 || fail "$r: calls of the killed recording failed"
grep -q "_dl_start" "$T_DIR/calls.out" || fail "$r: the function-call history lacks _dl_start"
done

# Stopped by SIGTERM, the single-stepper ends the recording cleanly: the
# history ends at the last instruction it stepped (its --ip-log), with the
# count the summary gives; it went on through straight-line code that
# never ran, up to the next branch (3 to 8 instructions more). churn's
# loops over memory are long runs of such code.
churn=$(build_prog churn) || finish
for i in 1 2; do
    rec=$T_DIR/term.$i
    "$HINDSIGHT" record --record=sw --ip-log "$T_DIR/term.$i.ips" -o "$rec" -- "$churn" 100000000 \
        >/dev/null 2>"$T_DIR/term.$i.err" &
    REC_PID=$!
    track_pid "$REC_PID"
    sleep "$(rand_int 1 3)"
    kill -TERM "$REC_PID"
    wait "$REC_PID" 2>/dev/null
    count=$(sed -n 's/^hindsight: \([0-9]*\) instructions, .*/\1/p' "$T_DIR/term.$i.err")
    last=$(tail -1 "$T_DIR/term.$i.ips" | awk '{ print $2 }')
    "$HINDSIGHT" history "$rec" --json >"$T_DIR/term.$i.json" 2>&1
    expect_eq "SIGTERM $i: instructions decoded" \
        "$(tail -1 "$T_DIR/term.$i.json" | sed -n 's/^{"index":\([0-9]*\),.*/\1/p')" "${count:-?}"
    expect_eq "SIGTERM $i: the last instruction decoded" \
        "$(tail -1 "$T_DIR/term.$i.json" | sed -n 's/.*"addr":"0x0*\([0-9a-f]*\)".*/\1/p')" "${last:-?}"
done

# Killed while the program waits in a syscall (sleeper.c: work, then
# sleep(60)), however long after the last flush by count: everything up to
# the wait was written before it (a flush before a syscall that may wait),
# the work and the sleep's syscall included.
sleeper=$(build_prog sleeper) || finish
for r in $recorders; do
rec=$T_DIR/sleep.$r
iters=$(rand_int 50 400)
"$HINDSIGHT" record --record="$r" -o "$rec" -- "$sleeper" "$iters" >"$T_DIR/sleep.$r.out" 2>&1 &
REC_PID=$!
track_pid "$REC_PID"
wait_for_file "$T_DIR/sleep.$r.out" "sleeper: ready" 120 || fail "$r: sleeper did not start"
sleep 2
kill -9 "$REC_PID"
wait "$REC_PID" 2>/dev/null
pkill -f "$sleeper $iters" 2>/dev/null
"$HINDSIGHT" calls "$rec" 1,1000000 >"$T_DIR/sleep.$r.calls" 2>&1 || fail "$r: calls of the killed recording failed"
tail -5 "$T_DIR/sleep.$r.calls"
expect "$T_DIR/sleep.$r.calls" "work_before_sleep"
expect_re "$T_DIR/sleep.$r.calls" 'nanosleep$'
"$HINDSIGHT" history "$rec" >"$T_DIR/sleep.$r.hist" 2>&1
expect_re "$T_DIR/sleep.$r.hist" '<[_A-Za-z]*nanosleep\+[0-9]+>:	syscall *$'
done

finish
