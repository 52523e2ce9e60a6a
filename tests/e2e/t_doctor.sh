#!/usr/bin/env bash
# t_doctor: `hindsight doctor` and `--json` say the same, one line per fact,
# and its two probes tell the truth about this machine, checked against GDB
# run natively here: debug registers fire exactly when GDB's `hbreak` stops
# the program, and a single step over CPUID keeps its trap exactly when GDB's
# `stepi` over it stops right after it.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight doctor"

basic=$(build_prog basic) || finish
exact=$(build_prog exact -no-pie) || finish
cd "$T_DIR" || finish

timeout 60 "$HINDSIGHT" doctor >doc.out 2>doc.err
expect_eq "exit status of doctor" "$?" 0
timeout 60 "$HINDSIGHT" doctor --json >doc.json 2>doc.err
expect_eq "exit status of doctor --json" "$?" 0
show doc.out
keys="intel_pt perf_event_paranoid ptrace debug_registers cpuid_single_step single_step_rate valgrind record_auto serve"
for k in $keys; do
    expect_re doc.out "^(ok|NO|\?\?)  $k +[^ ]"
    # the text's mark and the JSON's "ok" say the same
    mark=$(awk -v k="$k" '$2 == k { print $1 }' doc.out)
    ok=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["ok"])' doc.json "$k")
    case $mark/$ok in
    ok/True | NO/False | "??/None") ;;
    *) fail "$k: text says '$mark', JSON says '$ok'" ;;
    esac
done
"$HINDSIGHT" doctor extra >/dev/null 2>bad.err
expect_eq "exit status of doctor with an argument" "$?" 2
expect_re doc.out '^ok  single_step_rate +[0-9]+ steps/s on one CPU'
# serve's line: what a breakpoint 10^8 instructions in costs at that rate.
rate=$(sed -n 's/^ok  single_step_rate *\([0-9]*\) steps.*/\1/p' doc.out)
mins=$(sed -n 's/^ok  serve .* 10^8 instructions in takes about \([0-9]*\) min;.*--no-record.*/\1/p' doc.out)
[ -n "$rate" ] && [ -n "$mins" ] &&
    python3 -c 'import sys; r, m = map(float, sys.argv[1:]); sys.exit(abs(1e8 / r / 60 - m) > 0.51)' "$rate" "$mins" ||
    fail "serve: '$mins' min for 10^8 single steps at $rate steps/s"
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
    expect_re doc.out '^NO  intel_pt +Intel PT is not available here'
    if grep -q '^ok  valgrind ' doc.out; then
        expect_re doc.out '^ok  record_auto +Valgrind, the program.s inputs only'
    else
        expect_re doc.out '^ok  record_auto +software'
    fi
fi

field() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))[sys.argv[2]]["ok"])' doc.json "$1"; }

# Debug registers, as native GDB finds them.
timeout 60 gdb -nx -batch -ex 'break main' -ex 'run' -ex 'hbreak basic_square' -ex 'continue' \
    -ex 'kill' \
    --args "$basic" 3 4 >native-hbreak.out 2>&1
show native-hbreak.out
if grep -q "basic_square (x=4)" native-hbreak.out; then native=True; else native=False; fi
expect_eq "debug registers fire: doctor / native GDB's hbreak" "$(field debug_registers)" "$native"

# CPUID's single-step trap, as native GDB finds it (the breakpoint deleted
# first: a plain PTRACE_SINGLESTEP, not a step over a breakpoint).
at=$(objdump -d "$exact" | awk '/\tcpuid/ { sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
[ -n "$at" ] || fail "no cpuid in $exact"
timeout 60 gdb -nx -batch -ex "break *0x$at" -ex 'run' -ex 'delete' -ex 'stepi' -ex 'print/x $pc' \
    -ex 'kill' \
    --args "$exact" cpuid >native-stepi.out 2>&1
show native-stepi.out
pc=$(sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p' native-stepi.out)
[ -n "$pc" ] || fail "native GDB printed no pc after stepi"
if [ "$((pc))" = "$((0x$at + 2))" ]; then native=True; else native=False; fi
expect_eq "a step over CPUID keeps its trap: doctor / native GDB's stepi" \
    "$(field cpuid_single_step)" "$native"
finish
