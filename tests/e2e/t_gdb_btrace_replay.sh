#!/usr/bin/env bash
# t_gdb_btrace_replay: GDB's own Intel PT decoder reads what hindsight
# serves. `hindsight serve --replay DIR` hands a recording's PT stream to
# GDB's `record btrace pt` (Qbtrace:pt, qXfer:btrace:read with the CPU in
# pt-config) and the code bytes through `m`; GDB decodes it with its libipt
# and must count, and list, exactly the instructions `hindsight history`
# decodes from the same recording. Also: writes are refused, resuming stops
# at the end of the history, and GDB detaches (never kills) a recording.
# DynamoRIO's raw trace, whose code ends at its segment's end: GDB reads
# past it, the rest of the page as the loader maps it. A perf.data served
# as it is (its trace in memory).
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

# DynamoRIO's raw trace (test_simple, imported with ptxed's options): its
# code ends where its executable segment's file bytes do (0x401027), so
# GDB's decoder reads past them (15 bytes from each instruction); the loader
# maps whole pages, so those bytes are the file's. GDB decodes ptxed's 8
# instructions, and reads the file's bytes there.
D=$SHARED_DIR/ptdata/dynamorio/test_simple
if [ -r "$D/pt.bin" ]; then
    "$HINDSIGHT" import -o "$T_DIR/dr" --raw "$D/pt.bin" --cpu 6/85/4 --mtc-freq 3 \
        --nom-freq 37 --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308 --elf "$D/hello" \
        >"$T_DIR/dr.import" 2>&1 || { fail "import of DynamoRIO's trace"; show "$T_DIR/dr.import"; }
    check_recording "$T_DIR/dr" "$D/hello" dynamorio
    grep '^[0-9a-f]\{16\}$' "$D/ref-libipt-2.0.5/ptxed-insn-noinst.txt" | sed 's/^0*/0x/' \
        >"$T_DIR/ptxed-dynamorio.addrs"
    cmp -s "$T_DIR/gdb-dynamorio.addrs" "$T_DIR/ptxed-dynamorio.addrs" ||
        { fail "GDB's instructions differ from ptxed's"; diff "$T_DIR/gdb-dynamorio.addrs" "$T_DIR/ptxed-dynamorio.addrs" | head; }
    # x/16xb from the last syscall's page offset on: the file's bytes
    # there (the code segment maps file offset 0x1000 at 0x401000).
    read -r off vaddr <<<"$(readelf -lW "$D/hello" | awk '$1 == "LOAD" && / E +0x[0-9a-f]+$/ { print $2, $3 }')"
    want=$(od -An -v -tx1 -j $((off + 0x20)) -N 16 "$D/hello" | tr -s ' \n' ' ' |
        sed 's/^ //; s/ $//; s/\([0-9a-f][0-9a-f]\)/0x\1/g')
    server_start --replay "$T_DIR/dr" || finish
    gdb_run "$T_DIR/dr-x.out" -ex "x/16xb $((vaddr + 0x20))" "$D/hello"
    show "$T_DIR/dr-x.out"
    got=$(sed -n 's/^0x[0-9a-f]*\( <[^>]*>\)\?:\t//p' "$T_DIR/dr-x.out" | tr '\t\n' '  ' | sed 's/ $//')
    expect_eq "x/16xb at the code segment's end" "$got" "$want"
fi

# A software recording of a dynamically linked program, from its first
# instruction in ld.so to its exit.
if "$HINDSIGHT" record --help >/dev/null 2>&1; then
    prog=$(build_prog basic) || finish
    "$HINDSIGHT" record -o "$T_DIR/rec" -- "$prog" 3 4 >"$T_DIR/record.out" 2>&1
    expect "$T_DIR/record.out" "recording in $T_DIR/rec"
    check_recording "$T_DIR/rec" "$prog" software
fi

# A real perf.data (HASE's loopy, Skylake) served as it is: its PT is read
# into memory, never written to disk, and what GDB's decoder makes of the
# stream it gets is what hindsight decodes.
H=$SHARED_DIR/ptdata/hase/skl-20180404-loopy
[ -r "$H/loopy-20180404T162955.perf" ] &&
    check_recording "$H/loopy-20180404T162955.perf" "$H/loopy" perf

finish
