#!/usr/bin/env bash
# t_replay_watch: `watch` in `hindsight replay`, both directions, against
# GDB's `watch -l` over `hindsight serve --replay` on the same recording
# of tests/programs/watch.c (g written four times with values picked
# here). The same moves in both (from the end back to LINE:end, then
# reverse-continue x3, continue, reverse-continue x3 to the beginning,
# continue x2) must give the same stops: each one's Old value, New value
# and source line, in the same order. Then `info breakpoints` lists the
# watchpoint with its hits, `delete` removes it (continue then runs to the
# end), rwatch and awatch are refused with the reason, and a register
# cannot be watched.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog watch) || finish
A=$(rand_int 2 300)
B=$(rand_int 301 600)
C=$(rand_int 601 900)
rec=$T_DIR/rec
"$HINDSIGHT" record -o "$rec" -- "$prog" "$A" "$B" "$C" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $rec"
L_end=$(line_of watch.c end)

moves=(-ex 'reverse-continue' -ex 'reverse-continue' -ex 'reverse-continue' -ex 'continue'
       -ex 'reverse-continue' -ex 'reverse-continue' -ex 'reverse-continue'
       -ex 'reverse-continue' -ex 'continue' -ex 'continue')

server_start --replay "$rec" || finish
gdb_run "$T_DIR/gdb.out" -ex "break watch.c:$L_end" -ex 'reverse-continue' -ex 'delete' \
    -ex 'p/x (long)&g' -ex 'watch -l g' "${moves[@]}" "$prog"
show "$T_DIR/gdb.out"
addr=$(sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p' "$T_DIR/gdb.out")
[ -n "$addr" ] || { fail "GDB gave no address of g"; finish; }

timeout 120 "$HINDSIGHT" replay "$rec" --batch -ex "break watch.c:$L_end" -ex 'reverse-continue' \
    -ex 'delete' -ex "watch -l *(int *)$addr" "${moves[@]}" -ex 'info breakpoints' \
    -ex 'delete 2' -ex 'info breakpoints' -ex 'continue' -ex 'rwatch *(int *)0x10' \
    -ex 'awatch *(int *)0x10' -ex 'watch $rax' >"$T_DIR/replay.out" 2>&1
show "$T_DIR/replay.out"

# stops FILE: each stop's Old value, New value and source line on one line
stops()
{
    awk '/^Old value = / { old = $4 } /^New value = / { new = $4; want = 1; next }
         want && /^[0-9]+\t/ { print old, new, $1; want = 0 }
         /^No more reverse-execution history/ { print "begin-or-end" }' "$1"
}
stops "$T_DIR/gdb.out" >"$T_DIR/gdb.stops"
sed '/^Num /q' "$T_DIR/replay.out" >"$T_DIR/replay.moves"
stops "$T_DIR/replay.moves" >"$T_DIR/replay.stops"
show "$T_DIR/gdb.stops"
n=$(grep -c . "$T_DIR/gdb.stops")
[ "$n" -eq 10 ] || fail "GDB's transcript has $n stops, not the 10 moves'"
diff "$T_DIR/gdb.stops" "$T_DIR/replay.stops" >"$T_DIR/stops.diff" ||
    { fail "replay's watch stops differ from GDB's"; show "$T_DIR/stops.diff"; }
# the values are the program's: A, B, C in turn
grep -q "^$B $A " "$T_DIR/replay.stops" || fail "no stop going back from $B to $A"

expect "$T_DIR/replay.out" "Hardware watchpoint 2: -location *(int *)$addr"
expect_re "$T_DIR/replay.out" "^2 +hw watchpoint +keep y +-location \*\(int \*\)$addr\$"
expect "$T_DIR/replay.out" "	breakpoint already hit $(grep -vc begin "$T_DIR/replay.stops") times"
expect "$T_DIR/replay.out" "No breakpoints or watchpoints."
# deleted: continue runs on to the end
sed -n '/^No breakpoints or watchpoints/,$p' "$T_DIR/replay.out" | grep -q "^No more reverse-execution history" ||
    fail "continue after delete did not run to the end"
expect "$T_DIR/replay.out" "Cannot rwatch: the recording logs every write but no read"
expect "$T_DIR/replay.out" "Cannot awatch: the recording logs every write but no read"
expect "$T_DIR/replay.out" "Cannot watch a register in the past"

finish
