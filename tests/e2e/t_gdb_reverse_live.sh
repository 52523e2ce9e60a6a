#!/usr/bin/env bash
# t_gdb_reverse_live: `hindsight serve` records the program it serves, so GDB
# 13 goes back and forth on a live process as with its own `record full`:
# reverse-stepi / reverse-step / reverse-next show past locals and globals;
# a forward continue from the past replays to the end of the history and
# goes on live (a watchpoint hit there is live); reverse-continue stops at
# earlier writes of a watched variable (Old / New value in reverse) and at
# the start of history; writes are refused in the past and logged in the
# present (going back over them shows the value before); reverse-finish
# returns to the call; the program stops at its end, before exit_group, and
# a continue from the past stops there again; and the continue after that
# stop runs it on to its exit with the value written in the present.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog basic) || finish
A=$(rand_int 2 50)
B=$(rand_int 2 50)
line_compute=$(line_of basic.c main_compute)
line_bump=$(line_of basic.c bump_body)
line_print=$(line_of basic.c main_print)

server_start "$prog" "$A" "$B" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break basic_compute' \
    -ex 'echo ==c1\n' -ex 'continue' \
    -ex 'echo ==rsi\n' -ex 'reverse-stepi' -ex 'bt 1' \
    -ex 'echo ==rs\n' -ex 'reverse-step' -ex 'bt 1' -ex 'p g_watched' \
    -ex 'echo ==rn1\n' -ex 'reverse-next' -ex 'p g_watched' -ex 'p g_counter' \
    -ex 'echo ==rn2\n' -ex 'reverse-next' -ex 'p g_counter' \
    -ex 'echo ==n1\n' -ex 'next' -ex 'p g_counter' \
    -ex 'echo ==n2\n' -ex 'next' -ex 'p g_watched' \
    -ex 'echo ==pastwrite\n' -ex 'set var g_counter = 5' -ex 'p g_counter' \
    -ex 'delete' -ex 'watch g_counter' \
    -ex 'echo ==w1\n' -ex 'continue' -ex 'bt 1' -ex 'monitor when' \
    -ex 'echo ==rw1\n' -ex 'reverse-continue' -ex 'bt 1' \
    -ex 'echo ==rw2\n' -ex 'reverse-continue' -ex 'bt 1' \
    -ex 'echo ==rw3\n' -ex 'reverse-continue' -ex 'info symbol $pc' \
    -ex 'echo ==fw1\n' -ex 'continue' -ex 'bt 1' \
    -ex 'echo ==fw2\n' -ex 'continue' -ex 'bt 1' \
    -ex 'echo ==rf\n' -ex 'delete' -ex 'reverse-finish' \
    -ex 'echo ==present\n' -ex 'delete' -ex "break basic.c:$line_print" -ex 'continue' \
    -ex 'p/x $pc' -ex 'monitor when' \
    -ex 'echo ==poke\n' -ex 'set var g_counter = 40' -ex 'p g_counter' \
    -ex 'reverse-stepi' -ex 'p g_counter' -ex 'stepi' -ex 'p g_counter' \
    -ex 'monitor record-info' \
    -ex 'echo ==end\n' -ex 'continue' -ex 'p $pc' -ex 'p g_counter' -ex 'monitor when' \
    -ex 'echo ==endback\n' -ex 'reverse-stepi' -ex 'continue' -ex 'p $pc' \
    -ex 'echo ==exit\n' -ex 'continue' \
    -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }

section c1 | grep -q "^Breakpoint 1, basic_compute (a=$A, b=$B)" || fail "continue to basic_compute"
section rsi | grep -qE "^#0 +0x[0-9a-f]+ in basic_compute \(a=$A, " ||
    fail "reverse-stepi did not stay in basic_compute's prologue"
section rs | grep -qE "^#0 +main \(argc=3, .*basic\.c:$line_compute\$" ||
    fail "reverse-step did not go back to main's line $line_compute"
section rs | grep -q "^\$[0-9]* = $((A + 1))\$" || fail "g_watched at line $line_compute is not $((A + 1))"
section rn1 | grep -q "^\$[0-9]* = 0\$" || fail "g_watched before touch_watched() is not 0"
section rn1 | grep -q "^\$[0-9]* = 1\$" || fail "g_counter after the first bump is not 1"
section rn2 | grep -q "^\$[0-9]* = 0\$" || fail "g_counter before the first bump is not 0"
section n1 | grep -q "^\$[0-9]* = 1\$" || fail "next: g_counter is not 1 again"
section n2 | grep -q "^\$[0-9]* = $((A + 1))\$" || fail "next: g_watched is not $((A + 1)) again"
section pastwrite | grep -q "Cannot access memory" || fail "a write in the past was not refused"
section pastwrite | grep -q "^\$[0-9]* = 1\$" || fail "the refused write changed g_counter"
section w1 | grep -q "^Old value = 1\$" || fail "live watchpoint: old value"
section w1 | grep -q "^New value = 2\$" || fail "live watchpoint: new value"
section w1 | grep -qE "^#0 +basic_bump \(\)" || fail "live watchpoint: not in basic_bump"
section w1 | grep -qE "^position [0-9]+ of [0-9]+ in thread [0-9]+ \(the end of history\)" ||
    fail "monitor when: not at the end of history after a live stop"
section rw1 | grep -q "^Old value = 2\$" || fail "reverse watchpoint 1: old value"
section rw1 | grep -q "^New value = 1\$" || fail "reverse watchpoint 1: new value"
section rw1 | grep -qE "^#0 +(0x[0-9a-f]+ in )?basic_bump \(\) at .*basic\.c:$line_bump\$" ||
    fail "reverse watchpoint 1: not at the write in basic_bump (line $line_bump)"
section rw2 | grep -q "^Old value = 1\$" || fail "reverse watchpoint 2: old value"
section rw2 | grep -q "^New value = 0\$" || fail "reverse watchpoint 2: new value"
section rw3 | grep -q "No more reverse-execution history." || fail "reverse-continue did not reach the start"
section rw3 | grep -q "^_start in section .text of .*ld-linux" ||
    fail "the start of history is not ld.so's _start"
section fw1 | grep -q "^New value = 1\$" || fail "forward replay: first write"
section fw2 | grep -q "^New value = 2\$" || fail "forward replay: second write"
section rf | grep -qE "^main \(.*basic\.c:[0-9]+\$" || fail "reverse-finish did not return to main"
section present | grep -q "No more reverse-execution history." &&
    fail "continue from the past stopped at the end of history instead of going on live"
section present | grep -qE "^Breakpoint [0-9]+, main \(.*basic\.c:$line_print\$" ||
    fail "continue from the past did not go on live to line $line_print"
# The recording's end is where the program stands, though the instruction
# before it was basic_bump's ret (the end is the trace's disable point).
pc_live=$(section present | sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' | head -1)
section present | grep -qE "^position [0-9]+ of [0-9]+ in thread [0-9]+ \(the end of history\), pc $pc_live\$" ||
    fail "monitor when: the end of history is not at the live pc $pc_live"
[ "$(section poke | grep -c "^\$[0-9]* = 40\$")" = 2 ] ||
    fail "a write in the present: g_counter is not 40 (after it, and back in the present)"
section poke | grep -q "^\$[0-9]* = 2\$" ||
    fail "one instruction back, before the write, g_counter is not 2"
recorder=software
[ "${E2E_SERVE_RECORD:-}" = valgrind ] && recorder=valgrind
section poke | grep -q "^recorder: $recorder" || fail "monitor record-info"
# The end: stopped before exit_group, still there; a continue from the
# past stops there again; the continue after that stop exits.
section end | grep -q "^hindsight: the next instruction is syscall exit_group" ||
    fail "continue did not stop before exit_group"
section end | grep -q "^Program stopped.\$" || fail "the end's stop is not GDB's 'Program stopped.'"
section end | grep -q "exited" && fail "the program exited at the first continue to its end"
pc_end=$(section end | sed -n 's/^\$[0-9]* = (void (\*)()) \(0x[0-9a-f]*\) <.*_exit+[0-9]*>$/\1/p')
[ -n "$pc_end" ] || fail "the end is not in _exit"
section end | grep -q "^\$[0-9]* = 40\$" || fail "at the end, g_counter is not 40"
section end | grep -qE "^position [0-9]+ of [0-9]+ in thread [0-9]+ \(the end of history\), pc $pc_end\$" ||
    fail "monitor when: the end's stop is not the end of history"
section endback | grep -q "^Program stopped.\$" || fail "continue from the past did not stop at the end again"
section endback | grep -q "^\$[0-9]* = (void (\*)()) $pc_end " || fail "the end is not at $pc_end again"
section endback | grep -q "exited" && fail "continue from the past went through the end"
section exit | grep -q "exited normally" || fail "the program did not run to its exit"
R=$(((A + B) + B * B + A + 1))
expect "$T_DIR/server.out" "basic: result=$R counter=40"

finish
