#!/usr/bin/env bash
# t_run: `hindsight run`. A program killed by SIGSEGV, SIGABRT (abort()),
# SIGBUS (a truncated mapping), SIGFPE (integer division by zero) and SIGILL
# (ud2): the exit status is 128 + the signal, the recording is kept, the
# explanation names the function and file:line of the fault (the source
# marker's line, and addr2line's answer for the faulting pc taken from the
# history's instruction there), the registers the instruction uses hold what
# the program computed, and `hindsight history` opens the recording. A
# normal exit keeps nothing unless --keep; bad command lines. The recorder is
# run's default (the light one where Valgrind is here); SIGBUS's mapping is
# MAP_SHARED, which the light recorder's rebuild maps private (what the
# program reads there is logged), so its store past the file's end does not
# fault there: that crash is explained from the full Valgrind recorder, and
# with the light one run says the crash is not in the history, which goes
# up to it, and shows nothing of it. A program that
# asks how SIGINT is handled is rebuilt with the recorded run's answer.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight run"

prog=$(build_prog crash_kinds) || finish
cd "$T_DIR" || finish
src=crash_kinds.c

# addr2line's file:line of FUNC+OFF in the program (independent of dwarf/).
a2l()
{
    local func=$1 off=$2 base
    base=$(nm "$prog" | awk -v f="$func" '$3 == f { print $1 }')
    [ -n "$base" ] || { echo "?"; return; }
    addr2line -e "$prog" "$(printf '0x%x' $((0x$base + off)))" | sed 's|.*/||; s/ (discriminator.*//'
}

declare -A SIGNO=([segv]=11 [abrt]=6 [bus]=7 [fpe]=8 [ill]=4)
declare -A SIGNAME=([segv]=SIGSEGV [abrt]=SIGABRT [bus]=SIGBUS [fpe]=SIGFPE [ill]=SIGILL)

light=
[ "$("$HINDSIGHT" doctor --json 2>/dev/null |
    python3 -c 'import json, sys; print(json.load(sys.stdin)["valgrind"]["ok"])' 2>/dev/null)" = True ] &&
    light=1

for kind in segv abrt bus fpe ill; do
    n=$(rand_int 1 60)
    line=$(line_of "$src" "$kind")
    out=$kind.out err=$kind.err rec=$T_DIR/rec-$kind
    opts=()
    [ "$kind" = bus ] && [ -n "$light" ] && opts=(--record=valgrind)
    timeout 120 "$HINDSIGHT" run "${opts[@]}" -o "$rec" -- "$prog" "$kind" "$n" >"$out" 2>"$err"
    expect_eq "exit status of $kind" "$?" $((128 + SIGNO[$kind]))
    show "$err"
    acc=$(( 3 * n * (n - 1) / 2 ))
    expect "$out" "crash_kinds: $kind after $n steps, acc $acc"
    expect "$err" "Program terminated with signal ${SIGNAME[$kind]}"
    # The frame of fault_KIND at the marker's line.
    expect_re "$err" "^#[0-9]+  (0x[0-9a-f]+ in )?fault_$kind \(\) at .*/$src:$line\$"
    [ -s "$rec/trace.json" ] || fail "$kind: the recording was not kept"
    expect "$err" "The recording is in $rec."
    expect "$err" "hindsight serve --replay $rec :2345"
    expect "$err" "gdb -ex 'target remote :2345' $prog"
    # The history opens and ends right before the fault's number: a
    # faulting instruction does not retire, so, as in Intel PT, the trace
    # stops there (it is the present). addr2line agrees on the line of the
    # instruction the explanation names.
    pos=$(sed -n 's/.*instruction,* number \([0-9]*\) of thread.*/\1/p' "$err")
    [ -n "$pos" ] || { fail "$kind: no position"; continue; }
    hpos=$((pos - 1))
    timeout 60 "$HINDSIGHT" history "$rec" "$hpos,$hpos" >"$kind.hist" 2>&1
    expect_eq "history of $kind" "$?" 0
    show "$kind.hist"
    if [ "$kind" != abrt ]; then
        "$HINDSIGHT" history "$rec" "$pos,$pos" >"$kind.after" 2>&1 &&
            fail "$kind: the faulting instruction is in the history (it did not execute)"
        at=$(sed -n 's/^ *0x[0-9a-f]* <\([A-Za-z_0-9]*\)+\([0-9]*\)>:.*/\1 \2/p' "$err" | head -1)
        expect_eq "$kind: function at the fault" "${at% *}" "fault_$kind"
        expect_eq "$kind: addr2line of the fault" "$(a2l ${at% *} ${at#* })" "$src:$line"
        expect_re "$err" "^fault_$kind \(\) at .*/$src:$line\$"
        expect_re "$err" "^$line	.*LINE:$kind"
    else
        # abort(): the signal came from the system call just before.
        expect "$err" "The signal arrived before instruction number $pos"
        expect_re "$kind.hist" "syscall"
        expect_re "$err" "^called from #[0-9]+ fault_abrt \(\) at .*/$src:$line\$"
    fi
    expect_re "$err" "^#1  0x[0-9a-f]+ in "
    expect_re "$err" "in go \(\) at .*/$src:[0-9]+\$"
    expect_re "$err" "in main \(\) at .*/$src:[0-9]+\$"
    # The fault's line is among the last lines executed when something on it
    # ran before the faulting instruction (ud2 is alone on its line).
    [ "$kind" != ill ] && expect_re "$err" "^  $src:$line \(fault_$kind\)"
    expect_re "$err" "^  rip 0x[0-9a-f]+  rsp 0x[0-9a-f]+\$"
    case $kind in
    segv)
        # *h.target = n with h.target = n * 8: the value and the address.
        expect "$err" "$(printf 'memory operand: 0x%x (written)' $((n * 8)))"
        expect_re "$err" "^  rdx $(printf '0x%x' "$n") \($n\)\$" ;;
    fpe)
        expect_re "$err" "idiv +%rcx"
        expect_re "$err" "^  rcx 0x0 \(0\)\$" ;;
    ill)
        expect_re "$err" "ud2" ;;
    bus)
        expect "$err" "(written)" ;;
    esac
done

if [ -n "$light" ]; then
    timeout 120 "$HINDSIGHT" run -o "$T_DIR/rec-bus-light" -- "$prog" bus 7 >bus-light.out 2>bus-light.err
    expect_eq "exit status of bus, light" "$?" 135
    show bus-light.err
    expect bus-light.err "Program terminated with signal SIGBUS"
    expect_re bus-light.err "^The crash is not in the history: the rebuild diverged from the recording: the recorded run died of Bus error here, which the rebuild did not meet.*: the history ends there, before it"
    expect_not bus-light.err "faulting instruction"
    expect_not bus-light.err "Call stack"
fi

# A normal exit: nothing kept, the status passed on; --keep keeps it.
n=$(rand_int 1 200)
timeout 120 "$HINDSIGHT" run -o "$T_DIR/exit" -- "$prog" exit "$n" >exit.out 2>exit.err
expect_eq "exit status of a normal exit" "$?" "$n"
expect exit.err "exited with status $n; recording deleted"
[ -e "$T_DIR/exit" ] && fail "the recording of a normal exit was kept"
timeout 120 "$HINDSIGHT" run --keep -o "$T_DIR/kept" -- "$prog" exit "$n" >kept.out 2>kept.err
expect_eq "exit status with --keep" "$?" "$n"
expect kept.err "the recording is in $T_DIR/kept"
# (A light recording keeps its inputs: the history rebuilds it.)
timeout 120 "$HINDSIGHT" history "$T_DIR/kept" >kept.hist 2>&1 || fail "history of the kept recording"

# Bad command lines.
"$HINDSIGHT" run 2>noprog.err
expect_eq "exit status without a program" "$?" 2
expect noprog.err "run wants a program"
"$HINDSIGHT" run --bogus -- "$prog" 2>bogus.err
expect_eq "exit status of a bad option" "$?" 2
"$HINDSIGHT" run -o "$T_DIR/missing" -- "$T_DIR/no-such-program" 2>missing.err
expect_eq "exit status of a missing program" "$?" 1
expect missing.err "No such file or directory"
# The rebuild after the run (the whole: a short run) starts the program
# with SIGINT handled as the recorded run had it (default here), not as
# `run` itself does by then (ignored): else the program's sigaction call
# writes back another old action, and the rebuild diverges there.
sq=$(build_prog sigquery) || finish
for trail in 1 0; do
    python3 -c 'import os, signal, sys
signal.signal(signal.SIGINT, signal.SIG_DFL)
os.execvp(sys.argv[1], sys.argv[1:])' env HINDSIGHT_RUN_TRAIL=$trail timeout 120 \
        "$HINDSIGHT" run -o "$T_DIR/sq$trail" -- "$sq" >"sq$trail.out" 2>"sq$trail.err"
    expect_eq "sigquery ($trail): exit status" "$?" 139
    expect "sq$trail.out" "SIGINT default"
    expect "sq$trail.err" "Program terminated with signal SIGSEGV"
    expect_re "sq$trail.err" "sigquery.c:$(line_of sigquery.c sigquery_crash)"
    grep -q "diverged" "sq$trail.err" && fail "sigquery ($trail): the rebuild diverged"
done
finish
