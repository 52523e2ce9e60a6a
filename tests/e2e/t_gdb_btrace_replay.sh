#!/usr/bin/env bash
# t_gdb_btrace_replay: GDB's own Intel PT decoder reads what hindsight
# serves. `hindsight serve --replay DIR` hands a recording's PT stream to
# GDB's `record btrace pt` (Qbtrace:pt, qXfer:btrace:read with the CPU in
# pt-config) and the code bytes through `m`; GDB decodes it with its libipt
# and must count, and list, exactly the instructions `hindsight history`
# decodes from the same recording. Also: writes are refused, resuming stops
# at the end of the history, and GDB detaches (never kills) a recording.
. "$(dirname "$0")/lib.sh"
hindsight_only "serves recordings"

# Checks GDB against hindsight on recording $1 (program file $2).
check_recording()
{
    local dir=$1 prog=$2 name=$3
    local out=$T_DIR/gdb-$name.out hs=$T_DIR/hs-$name.txt
    "$HINDSIGHT" history "$dir" 1,100000000 --json >"$hs" 2>"$T_DIR/hs-$name.err" ||
        { fail "hindsight history $dir failed"; show "$T_DIR/hs-$name.err"; return; }
    local n
    n=$(grep -c '"index"' "$hs")
    server_start --replay "$dir" || return
    gdb_run "$out" -ex 'record btrace pt' -ex 'info record' \
        -ex "record instruction-history 1,$n" -ex 'set var $x = 1' -ex 'continue' "$prog"
    show "$out"
    expect "$out" "Recording format: Intel Processor Trace."
    expect_re "$out" "^Recorded $n instructions in [0-9]+ functions \(0 gaps\) for thread 1 "
    # The same addresses, in the same order.
    sed -n 's/^[0-9][0-9]*\t *0x0*\([0-9a-f]*\)[ :].*/0x\1/p' "$out" >"$T_DIR/gdb-$name.addrs"
    sed -n 's/.*"addr":"\(0x[0-9a-f]*\)".*/\1/p' "$hs" >"$T_DIR/hs-$name.addrs"
    if ! cmp -s "$T_DIR/gdb-$name.addrs" "$T_DIR/hs-$name.addrs"; then
        fail "$name: GDB's instruction history differs from hindsight's"
        diff "$T_DIR/gdb-$name.addrs" "$T_DIR/hs-$name.addrs" | head -10
    fi
    expect "$out" "No more reverse-execution history."
    expect "$out" "[Inferior 1 (process"
    expect "$out" "detached]"
}

# A real Intel PT recording (LLDB's test bundle, from a Broadwell CPU).
LLDB=$SHARED_DIR/ptdata/lldb/intelpt-trace
[ -r "$LLDB/trace.json" ] || skip "no LLDB test bundle at $LLDB"
check_recording "$LLDB" "$LLDB/a.out" lldb

# A software recording of a dynamically linked program, from its first
# instruction in ld.so to its exit.
if "$HINDSIGHT" record --help >/dev/null 2>&1; then
    prog=$(build_prog basic) || finish
    "$HINDSIGHT" record -o "$T_DIR/rec" -- "$prog" 3 4 >"$T_DIR/record.out" 2>&1
    expect "$T_DIR/record.out" "recording in $T_DIR/rec"
    check_recording "$T_DIR/rec" "$prog" software
fi

finish
