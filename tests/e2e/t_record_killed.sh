#!/usr/bin/env bash
# t_record_killed: `hindsight record` killed with SIGKILL half-way (no chance
# to save anything more) still leaves a readable bundle: what was written
# until then decodes (`history`, `calls`, `--json`), ending cleanly, and the
# recorded program did not survive its recorder (PTRACE_O_EXITKILL).
. "$(dirname "$0")/lib.sh"
hindsight_only "records"

prog=$(build_prog loop) || finish
rec=$T_DIR/rec
"$HINDSIGHT" record -o "$rec" -- "$prog" >"$T_DIR/record.out" 2>&1 &
REC_PID=$!
track_pid "$REC_PID"
# Wait until the program runs (it prints its pid once past ld.so and libc's
# start-up, a few hundred thousand instructions in).
wait_for_file "$T_DIR/record.out" "loop: pid" 120 || fail "the program did not start under the recorder"
child=$(sed -n 's/^loop: pid \([0-9]*\)$/\1/p' "$T_DIR/record.out")
sleep 1
kill -9 "$REC_PID"
wait "$REC_PID" 2>/dev/null
[ -n "$child" ] && wait_gone "$child" 10 || fail "the recorded program $child survived its recorder"

# The last instructions (GDB's default range) say how many there are.
"$HINDSIGHT" history "$rec" --json >"$T_DIR/hist.json" 2>"$T_DIR/hist.err" ||
    fail "history of the killed recording failed: $(head -3 "$T_DIR/hist.err")"
n=$(tail -1 "$T_DIR/hist.json" | sed -n 's/^{"index":\([0-9]*\),.*/\1/p')
echo "decoded ${n:-no} instructions"
# Traces and state logs are flushed every 2^14 instructions: the program's
# start-up (past "loop: pid") is in them.
[ "${n:-0}" -gt 100000 ] || fail "only ${n:-no} instructions decode from the killed recording"
"$HINDSIGHT" history "$rec" 1,3 --json >"$T_DIR/first.json" 2>&1 ||
    fail "history 1,3 of the killed recording failed"
grep -q '^{"index":1,.*"function":"_start"' "$T_DIR/first.json" ||
    fail "the history does not start with ld.so's _start: $(head -1 "$T_DIR/first.json")"
"$HINDSIGHT" calls "$rec" 1,20 >"$T_DIR/calls.out" 2>&1 || fail "calls of the killed recording failed"
grep -q "_dl_start" "$T_DIR/calls.out" || fail "the function-call history lacks _dl_start"

finish
