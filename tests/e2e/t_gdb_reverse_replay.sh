#!/usr/bin/env bash
# t_gdb_reverse_replay: GDB 13 runs backwards and forwards through a saved
# recording served by `hindsight serve --replay DIR` (bs / bc, vCont in the
# past). A software recording of basic.c: reverse-stepi lands on the
# instructions `hindsight history` lists, one by one; reverse-continue stops
# at the latest earlier breakpoint hit with pc = the breakpoint address, and
# at the beginning with "No more reverse-execution history."; stepi and
# continue replay forward to the end; the past registers and memory come
# from the state log (GDB shows the real arguments of a past call and a
# backtrace through main); writes are refused; the
# monitor commands when / goto / record-info / history answer; and GDB's
# own `set exec-direction reverse` drives the same packets.
. "$(dirname "$0")/lib.sh"
hindsight_only "serves recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog basic) || finish
A=$(rand_int 2 50)
B=$(rand_int 2 50)
rec=$T_DIR/rec
"$HINDSIGHT" record --record=sw -o "$rec" -- "$prog" "$A" "$B" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $rec"

# Address of history item N, as `hindsight history` decodes it.
addr_of() {
    "$HINDSIGHT" history "$rec" "$1,$1" --json 2>/dev/null |
        sed -n 's/.*"addr":"0x\([0-9a-f]*\)".*/0x\1/p'
}
N=$("$HINDSIGHT" history "$rec" --json 2>/dev/null | tail -1 | sed -n 's/^{"index":\([0-9]*\),.*/\1/p')
[ -n "$N" ] && [ "$N" -gt 1000 ] || { fail "cannot read the history size (got '$N')"; finish; }
last=$(addr_of "$N")
before_last=$(addr_of $((N - 1)))
first=$(addr_of 1)
second=$(addr_of 2)
at100=$(addr_of 100)
echo "history: $N items; last $last, before it $before_last; first $first, second $second"

server_start --replay "$rec" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'echo ==rsi1\n' -ex 'reverse-stepi' -ex 'p/x $pc' \
    -ex 'echo ==rsi2\n' -ex 'reverse-stepi' -ex 'p/x $pc' \
    -ex 'break basic_compute' \
    -ex 'echo ==rc1\n' -ex 'reverse-continue' -ex 'p $pc' -ex 'info breakpoints' -ex 'bt' \
    -ex 'echo ==when1\n' -ex 'monitor when' \
    -ex 'delete' \
    -ex 'echo ==rc2\n' -ex 'reverse-continue' -ex 'p/x $pc' -ex 'monitor when' \
    -ex 'echo ==si\n' -ex 'stepi' -ex 'p/x $pc' -ex 'monitor when' \
    -ex 'break basic_add' \
    -ex 'echo ==c1\n' -ex 'continue' -ex 'p $pc' \
    -ex 'delete' \
    -ex 'echo ==c2\n' -ex 'continue' -ex 'p/x $pc' -ex 'monitor when' \
    -ex 'echo ==regs\n' -ex 'info registers rip' -ex 'x/i $pc' -ex 'info registers rsp' \
    -ex 'echo ==write\n' -ex 'set {int}&g_counter = 5' -ex 'set {int}$pc = 1' \
    -ex 'echo ==goto\n' -ex 'monitor goto 100' -ex 'maintenance flush register-cache' -ex 'p/x $pc' \
    -ex 'echo ==info\n' -ex 'monitor record-info' -ex 'monitor history 99,101' \
    -ex 'echo ==done\n' "$prog"
show "$out"

# section NAME: the transcript between ==NAME and the next ==.
section() { sed -n "/^==$1\$/,/^==/p" "$out"; }

# From the end (after item N), one instruction back is item N itself.
section rsi1 | grep -qE "= $last\$" || fail "reverse-stepi: pc is not item $N ($last)"
section rsi2 | grep -qE "= $before_last\$" || fail "second reverse-stepi: pc is not item $((N - 1))"
bp=$(sed -n 's/^Breakpoint 1 at \(0x[0-9a-f]*\): file .*basic\.c, line [0-9]*\./\1/p' "$out")
[ -n "$bp" ] || fail "no address for breakpoint 1"
section rc1 | grep -q "^Breakpoint 1, basic_compute (a=$A, b=$B)" ||
    fail "reverse-continue did not stop at basic_compute (a=$A, b=$B) (past registers and stack)"
section rc1 | grep -qE "^#1 +0x[0-9a-f]+ in main \(argc=3, argv=0x[0-9a-f]+\)" ||
    fail "no backtrace through main in the past"
section rc1 | grep -qE "= \(void \(\*\)\(\)\) $bp <basic_compute\+[0-9]+>" ||
    fail "reverse-continue: pc is not the breakpoint address $bp"
section when1 | grep -qE "^position [0-9]+ of $N in thread [0-9]+, pc $bp" ||
    fail "monitor when after reverse-continue"
section rc2 | grep -q "No more reverse-execution history." || fail "reverse-continue did not reach the start"
section rc2 | grep -qE "= $first\$" || fail "at the start pc is not item 1 ($first)"
section rc2 | grep -q "^position 1 of $N in thread [0-9]* (the beginning of history)" ||
    fail "monitor when at the start"
section si | grep -qE "= $second\$" || fail "stepi from the start: pc is not item 2 ($second)"
section si | grep -q "^position 2 of $N " || fail "monitor when after stepi"
section c1 | grep -q "^Breakpoint 2, basic_add (" || fail "continue did not stop at basic_add"
section c2 | grep -q "No more reverse-execution history." || fail "continue did not reach the end"
section c2 | grep -q "^position $((N + 1)) of $N in thread [0-9]* (the end of history)" ||
    fail "monitor when at the end"
section regs | grep -qE "^rip +0x[0-9a-f]+ +0x[0-9a-f]+" || fail "info registers rip"
section regs | grep -qE "^=> 0x[0-9a-f]+" || fail "x/i \$pc"
section regs | grep -qE "^rsp +0x[0-9a-f]+ +0x[0-9a-f]+" || fail "rsp is not known from the state log"
[ "$(section write | grep -c 'Cannot access memory')" -ge 2 ] || fail "memory writes were not refused"
section goto | grep -q "^position 100 of $N in thread" || fail "monitor goto 100"
section goto | grep -qE "= $at100\$" || fail "after goto 100 pc is not item 100 ($at100)"
section info | grep -q "^recorder: software" || fail "record-info: recorder"
section info | grep -q "^instructions: $N" || fail "record-info: instructions"
section info | grep -q "^threads: 1" || fail "record-info: threads"
section info | grep -qE "^100	=> 0x0*${at100#0x} <" || fail "monitor history marks position 100"
expect "$out" "detached]"

# GDB's exec-direction: plain stepi and continue go backwards. (The server
# ends when GDB detaches: a new one.)
server_start --replay "$rec" || finish
out2=$T_DIR/gdb-dir.out
gdb_run "$out2" -ex 'set exec-direction reverse' -ex 'stepi' -ex 'p/x $pc' \
    -ex 'continue' -ex 'p/x $pc' -ex 'set exec-direction forward' -ex 'stepi' -ex 'p/x $pc' "$prog"
show "$out2"
expect_re "$out2" "^\\\$1 = $last\$"
expect "$out2" "No more reverse-execution history."
expect_re "$out2" "^\\\$2 = $first\$"
expect_re "$out2" "^\\\$3 = $second\$"

finish
