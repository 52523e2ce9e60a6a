#!/usr/bin/env bash
# t_import: others' Intel PT recordings become hindsight recordings and
# decode exactly as libipt's own ptxed decodes them (the reference outputs
# in shared/ptdata/*/ref-libipt-2.0.5/ptxed-insn-noinst.txt):
#   - a real `perf record -e intel_pt//u` perf.data (HASE, Skylake), whose
#     image is named by the recording machine's path: found next to it;
#   - a raw PT file with ptxed's options (DynamoRIO, with MTC/CYC timing);
#   - an LLDB bundle given by its manifest file, with a missing ld.so: the
#     "no memory mapped" gap where ptxed reports it, then the resync.
# Also: a corrupt perf.data gets a one-line error naming the offset.
. "$(dirname "$0")/lib.sh"
hindsight_only "imports recordings"

P=$SHARED_DIR/ptdata
[ -d "$P" ] || skip "no shared/ptdata at $P"

# compare NAME DIR REFERENCE: hindsight's addresses == ptxed's.
compare()
{
    local name=$1 dir=$2 ref=$3
    "$HINDSIGHT" history "$dir" 1,100000000 --json >"$T_DIR/$name.json" 2>"$T_DIR/$name.err" ||
        { fail "$name: history failed"; show "$T_DIR/$name.err"; return; }
    grep -v '"gap"' "$T_DIR/$name.json" |
        sed -n 's/.*"addr":"0x\([0-9a-f]*\)".*/\1/p' >"$T_DIR/$name.hs"
    grep '^[0-9a-f]\{16\}$' "$ref" | sed 's/^0*//' >"$T_DIR/$name.ref"
    expect_eq "$name instructions" "$(wc -l <"$T_DIR/$name.hs")" "$(wc -l <"$T_DIR/$name.ref")"
    cmp -s "$T_DIR/$name.hs" "$T_DIR/$name.ref" ||
        { fail "$name: addresses differ from ptxed's"; diff "$T_DIR/$name.hs" "$T_DIR/$name.ref" | head; }
}

for prog in loopy control_flow; do
    d=$P/hase/skl-20180404-$prog
    "$HINDSIGHT" import -o "$T_DIR/$prog" "$d"/*.perf >"$T_DIR/$prog.import" 2>&1 ||
        { fail "import $prog"; show "$T_DIR/$prog.import"; continue; }
    expect "$T_DIR/$prog.import" "hindsight: imported"
    compare "$prog" "$T_DIR/$prog" "$d/ref-libipt-2.0.5/ptxed-insn-noinst.txt"
done

d=$P/dynamorio/test_simple
"$HINDSIGHT" import -o "$T_DIR/dr" --raw "$d/pt.bin" --cpu 6/85/4 --mtc-freq 3 --nom-freq 37 \
    --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308 --elf "$d/hello" >"$T_DIR/dr.import" 2>&1 ||
    { fail "import raw"; show "$T_DIR/dr.import"; }
compare dynamorio "$T_DIR/dr" "$d/ref-libipt-2.0.5/ptxed-insn-noinst.txt"
"$HINDSIGHT" history "$T_DIR/dr" 1,8 >"$T_DIR/dr.txt"
expect "$T_DIR/dr.txt" "<_start+25>:	syscall"
expect "$T_DIR/dr.txt" "<_start+37>:	syscall"

d=$P/lldb/intelpt-trace-multi-file
"$HINDSIGHT" import -o "$T_DIR/mf" "$d/multi-file-no-ld.json" >"$T_DIR/mf.import" 2>&1 ||
    { fail "import lldb"; show "$T_DIR/mf.import"; }
compare multi-file "$T_DIR/mf" "$d/ref-libipt-2.0.5/ptxed-insn-noinst.txt"
"$HINDSIGHT" history "$T_DIR/mf" 1,10 >"$T_DIR/mf.txt"
expect "$T_DIR/mf.txt" "[decode error (-13): no memory mapped at this address]"

# A truncated perf.data: a clear error, nothing imported.
head -c 20000 "$P/hase/skl-20180404-loopy/loopy-20180404T162955.perf" >"$T_DIR/cut.perf"
if "$HINDSIGHT" import -o "$T_DIR/cut" "$T_DIR/cut.perf" >"$T_DIR/cut.out" 2>&1; then
    fail "a truncated perf.data was imported"
fi
expect_re "$T_DIR/cut.out" "^hindsight: cannot import .*cut.perf: .*offset 0x[0-9a-f]+"
finish
