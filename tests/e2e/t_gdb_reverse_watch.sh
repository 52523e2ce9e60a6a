#!/usr/bin/env bash
# t_gdb_reverse_watch: GDB's `watch` in the past of a software recording
# served by `hindsight serve --replay DIR` (Z2 answered from the state
# log). watch.c writes g four times with values the test picks at random.
# From the end, reverse-continue stops at each write in reverse order with
# pc = the writing instruction (GDB shows Old value = the later value, New
# value = the earlier one, and the writing line); forward continue stops
# after the next write; past the first write reverse-continue reaches the
# beginning; a breakpoint between two writes wins over the write behind it
# in either direction; read watchpoints are refused.
. "$(dirname "$0")/lib.sh"
hindsight_only "serves recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog watch) || finish
# Distinct values, so every Old / New pair says which write it is.
A=$(rand_int 2 300)
B=$(rand_int 301 600)
C=$(rand_int 601 900)
D=$((C + 1))
rec=$T_DIR/rec
"$HINDSIGHT" record -o "$rec" -- "$prog" "$A" "$B" "$C" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $rec"
expect "$T_DIR/record.out" "$((B * 5)) $D $((C * 7))"

L_first=$(line_of watch.c first)
L_second=$(line_of watch.c second)
L_set=$(line_of watch.c set)
L_after=$(line_of watch.c after_set)
L_fourth=$(line_of watch.c fourth)
L_end=$(line_of watch.c end)

server_start --replay "$rec" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex "break watch.c:$L_end" -ex 'reverse-continue' -ex 'delete' \
    -ex 'echo ==watch\n' -ex 'watch g' \
    -ex 'echo ==rc1\n' -ex 'reverse-continue' -ex 'x/i $pc' -ex 'p g' \
    -ex 'echo ==rc2\n' -ex 'reverse-continue' -ex 'x/i $pc' \
    -ex 'echo ==rc3\n' -ex 'reverse-continue' -ex 'x/i $pc' \
    -ex 'echo ==c1\n' -ex 'continue' -ex 'p g' \
    -ex 'echo ==rc4\n' -ex 'reverse-continue' \
    -ex 'echo ==rc5\n' -ex 'reverse-continue' -ex 'x/i $pc' -ex 'p g' \
    -ex 'echo ==rc6\n' -ex 'reverse-continue' -ex 'monitor when' \
    -ex 'echo ==c2\n' -ex 'continue' -ex 'p g' \
    -ex "break watch.c:$L_after" \
    -ex 'echo ==c3\n' -ex 'continue' \
    -ex 'echo ==c4\n' -ex 'continue' \
    -ex 'echo ==c5\n' -ex 'continue' \
    -ex 'echo ==c6\n' -ex 'continue' \
    -ex 'echo ==rc7\n' -ex 'reverse-continue' \
    -ex 'echo ==rc8\n' -ex 'reverse-continue' \
    -ex 'delete' \
    -ex 'echo ==rwatch\n' -ex 'rwatch g' -ex 'reverse-continue' \
    -ex 'echo ==done\n' "$prog"
show "$out"

# section NAME: the transcript between ==NAME and the next ==.
section() { sed -n "/^==$1\$/,/^==/p" "$out"; }

# hit NAME OLD NEW LINE: a watchpoint stop with these values at this line.
hit()
{
    local s
    s=$(section "$1")
    grep -q "^Hardware watchpoint 2: g" <<<"$s" || { fail "$1: no watchpoint stop"; return; }
    grep -q "^Old value = $2\$" <<<"$s" || fail "$1: Old value is not $2"
    grep -q "^New value = $3\$" <<<"$s" || fail "$1: New value is not $3"
    grep -qE "^$4[[:space:]]" <<<"$s" || fail "$1: not at line $4"
}

# The writing instruction itself: a store to g.
store() { section "$1" | grep -qE '^=> 0x[0-9a-f]+ <[a-z_]+\+[0-9]+>:[[:space:]]+mov +%[a-z0-9]+,0x[0-9a-f]+\(%rip\) +# 0x[0-9a-f]+ <g>' ||
    fail "$1: pc is not the store to g"; }

section watch | grep -q "^Hardware watchpoint 2: g" || fail "watch g was not a hardware watchpoint"
# Backward: the last write (g = g + 1), then the one in watch_set, then g = b.
hit rc1 "$D" "$C" "$L_fourth"
store rc1
section rc1 | grep -q "^\$1 = $C\$" || fail "rc1: memory does not hold the old value"
hit rc2 "$C" "$B" "$L_set"
section rc2 | grep -q "watch_set (v=$C)" || fail "rc2: not in watch_set (v=$C)"
store rc2
hit rc3 "$B" "$A" "$L_second"
store rc3
# Forward: after the same write, at the next line.
hit c1 "$A" "$B" "$((L_second + 1))"
section c1 | grep -q "^\$2 = $B\$" || fail "c1: memory does not hold the new value"
hit rc4 "$B" "$A" "$L_second"
hit rc5 "$A" 0 "$L_first"
store rc5
section rc5 | grep -q "^\$3 = 0\$" || fail "rc5: g is not 0 before its first write"
section rc6 | grep -q "No more reverse-execution history." || fail "rc6: did not reach the beginning"
section rc6 | grep -q "^position 1 of [0-9]* in thread [0-9]* (the beginning of history)" ||
    fail "rc6: monitor when at the beginning"
hit c2 0 "$A" "$((L_first + 1))"
section c2 | grep -q "^\$4 = $A\$" || fail "c2: memory does not hold the new value"
# A breakpoint between the third and fourth writes: each stop in order.
hit c3 "$A" "$B" "$((L_second + 1))"
hit c4 "$B" "$C" "$((L_set + 1))"
section c5 | grep -q "^Breakpoint 3, main " || fail "c5: the breakpoint did not win over the later write"
section c5 | grep -qE "^$L_after[[:space:]]" || fail "c5: not at line $L_after"
hit c6 "$C" "$D" "$((L_fourth + 1))"
hit rc7 "$D" "$C" "$L_fourth"
section rc7 | grep -q "^Breakpoint 3" && fail "rc7: the breakpoint won over the later write"
section rc8 | grep -q "^Breakpoint 3, main " || fail "rc8: the breakpoint did not win going back"
section rwatch | grep -qi "could not insert\|cannot\|not supported\|Expression cannot" ||
    fail "rwatch: a read watchpoint was not refused"
expect "$out" "detached]"

finish
