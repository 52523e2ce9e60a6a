#!/usr/bin/env bash
# t_import: others' Intel PT recordings become hindsight recordings and
# decode exactly as libipt's own ptxed decodes them (the reference outputs
# in shared/ptdata/*/ref-libipt-2.0.5/ptxed-insn-noinst.txt):
#   - a real `perf record -e intel_pt//u` perf.data (HASE, Skylake), whose
#     image is named by the recording machine's path: found next to it;
#   - a raw PT file with ptxed's options (DynamoRIO, with MTC/CYC timing);
#   - an LLDB bundle given by its manifest file, with a missing ld.so: the
#     "no memory mapped" gap where ptxed reports it, then the resync.
#   - an import given its image by a relative --image-dir opens on its own
#     (the bundle names the copy found, not the recording machine's path);
#   - images by build-id: LLDB's bundle copied without its a.out, whose copy
#     is in a perf build-id cache laid out as perf lays it (~/.debug, HOME
#     set for the test; $PERF_BUILDID_DIR), in an --image-dir by build-id or
#     by name; the per-cpu bundle's /tmp/m.out in the older perf layout
#     (~/.debug/tmp/m.out/BUILDID/elf), read straight by `history`.
# Also: a corrupt perf.data gets a one-line error naming the offset; a
# perf.data opens directly in `history` (read in memory); one missing
# its last byte decodes as `perf script` decodes it, with a warning naming
# the feature lost; one cut inside HEADER_CPUID is refused.
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
    # The perf.data itself opens as a recording (in memory): the same
    # history, item for item, and nothing written to TMPDIR.
    mkdir -p "$T_DIR/tmp-$prog"
    TMPDIR=$T_DIR/tmp-$prog "$HINDSIGHT" history "$d"/*.perf 1,100000 --json >"$T_DIR/$prog.direct" 2>&1 ||
        fail "history of $prog's perf.data itself"
    "$HINDSIGHT" history "$T_DIR/$prog" 1,100000 --json >"$T_DIR/$prog.imported" 2>&1
    cmp -s "$T_DIR/$prog.direct" "$T_DIR/$prog.imported" ||
        { fail "$prog: history of the perf.data differs from its import's"; head -3 "$T_DIR/$prog.direct"; }
    [ -z "$(ls -A "$T_DIR/tmp-$prog")" ] || fail "$prog: a temporary bundle was left in TMPDIR"
    # By a relative path (the images found next to it are named absolutely),
    # and with the images only in a relative --image-dir: the same history.
    (cd "$d" && "$HINDSIGHT" history ./*.perf 1,100000 --json) >"$T_DIR/$prog.rel" 2>&1
    cmp -s "$T_DIR/$prog.rel" "$T_DIR/$prog.imported" ||
        { fail "$prog: history by a relative path differs"; head -3 "$T_DIR/$prog.rel"; }
    mkdir -p "$T_DIR/rel-$prog/data" "$T_DIR/rel-$prog/imgs"
    cp "$d"/*.perf "$T_DIR/rel-$prog/data/" && cp "$d/$prog" "$T_DIR/rel-$prog/imgs/"
    (cd "$T_DIR/rel-$prog" && "$HINDSIGHT" history --image-dir imgs data/*.perf 1,100000 --json) \
        >"$T_DIR/$prog.reldir" 2>&1
    cmp -s "$T_DIR/$prog.reldir" "$T_DIR/$prog.imported" ||
        { fail "$prog: history with a relative --image-dir differs"; head -3 "$T_DIR/$prog.reldir"; }
    # An import given the image by a relative --image-dir stands on its own:
    # opened from elsewhere without it, the same history (it kept the
    # recording machine's path, and every instruction was a decode error).
    (cd "$T_DIR/rel-$prog" && "$HINDSIGHT" import -o imp --image-dir imgs data/*.perf) \
        >"$T_DIR/$prog.relimport" 2>&1 || { fail "$prog: import with --image-dir"; show "$T_DIR/$prog.relimport"; }
    "$HINDSIGHT" history "$T_DIR/rel-$prog/imp" 1,100000 --json >"$T_DIR/$prog.relimp" 2>&1
    cmp -s "$T_DIR/$prog.relimp" "$T_DIR/$prog.imported" ||
        { fail "$prog: history of an import made with --image-dir differs"; head -3 "$T_DIR/$prog.relimp"; }
    # Without the image: a warning that names it, as import's. `replay`
    # takes --image-dir too: the import's instruction count.
    (cd "$T_DIR/rel-$prog" && "$HINDSIGHT" history data/*.perf 1,3) >"$T_DIR/$prog.noimg" 2>&1
    expect_re "$T_DIR/$prog.noimg" "^hindsight: warning: image .*/$prog not found \(perf's build-id cache, next to the recording, --image-dir\): its code will be a gap\$"
    "$HINDSIGHT" replay "$T_DIR/$prog" --batch -ex 'info record' >"$T_DIR/$prog.info" 2>&1
    (cd "$T_DIR/rel-$prog" && "$HINDSIGHT" replay --image-dir imgs data/*.perf --batch -ex 'info record') \
        >"$T_DIR/$prog.relinfo" 2>&1
    expect "$T_DIR/$prog.relinfo" "$(grep '^instructions: ' "$T_DIR/$prog.info")"
    expect_not "$T_DIR/$prog.relinfo" "warning"
    # Its [stack], [vdso] and anonymous mappings lost nothing: not gaps.
    expect "$T_DIR/$prog.relinfo" "gaps: 0 (decoded) + 0 (recorded)"
    expect_re "$T_DIR/$prog.relinfo" '^mappings without an image: [1-9][0-9]* \(code that ran there decodes as a gap\)$'
done

# $pc of an import (no state log) is where the trace says the thread is,
# as `info registers` shows it: after loopy's last instruction, ptxed's last
# address, a 2-byte syscall.
d=$P/hase/skl-20180404-loopy
"$HINDSIGHT" replay "$d"/*.perf --batch -ex 'p $pc' -ex 'p/x $rip' -ex 'info registers rip' \
    >"$T_DIR/pc.out" 2>&1
show "$T_DIR/pc.out"
last=$(grep '^[0-9a-f]\{16\}$' "$d/ref-libipt-2.0.5/ptxed-insn-noinst.txt" | tail -1)
end=$(printf '0x%x' $((0x$last + 2)))
expect_re "$T_DIR/pc.out" "^\\\$1 = \(void \(\*\)\(\)\) $end <"
expect "$T_DIR/pc.out" "\$2 = $end"
expect_re "$T_DIR/pc.out" "^rip +$end "

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

# Images by build-id. LLDB's intelpt-trace without its a.out.
d=$P/lldb/intelpt-trace
id=6aa9a4e26f282f33377d59fece874c715b41261a
nb=$T_DIR/nolib
home=$T_DIR/home
mkdir -p "$nb" "$home" "$T_DIR/empty"
cp "$d/trace.json" "$d/3842849.trace" "$nb/"
if HOME=$T_DIR/empty "$HINDSIGHT" import -o "$T_DIR/nolib0" "$nb/trace.json" >"$T_DIR/nolib0.out" 2>&1; then
    fail "an LLDB bundle without its module was imported"
fi
expect_re "$T_DIR/nolib0.out" "^hindsight: cannot import .*a.out: No such file or directory"
# perf's own layout: .build-id/6a/REST -> ../../PATH/BUILDID, the file "elf"
mkdir -p "$home/.debug/home/u/a.out/$id" "$home/.debug/.build-id/6a"
cp "$d/a.out" "$home/.debug/home/u/a.out/$id/elf"
ln -s "../../home/u/a.out/$id" "$home/.debug/.build-id/6a/${id:2}"
HOME=$home "$HINDSIGHT" import -o "$T_DIR/nolib1" "$nb/trace.json" >"$T_DIR/nolib1.out" 2>&1 ||
    { fail "import from perf's build-id cache"; show "$T_DIR/nolib1.out"; }
compare lldb-perf-cache "$T_DIR/nolib1" "$d/ref-libipt-2.0.5/ptxed-insn-noinst.txt"
expect "$T_DIR/nolib1/trace.json" ".debug/home/u/a.out/$id/elf"
HOME=$home "$HINDSIGHT" history "$nb" 1,3 >"$T_DIR/nolib-hist.txt" 2>&1
expect "$T_DIR/nolib-hist.txt" "<main+4>:	movl   \$0x0,-0x4(%rbp)"
PERF_BUILDID_DIR=$home/.debug HOME=$T_DIR/empty "$HINDSIGHT" history "$nb" 1,3 \
    >"$T_DIR/nolib-env.txt" 2>&1
expect "$T_DIR/nolib-env.txt" "<main+4>:"
# --image-dir: by build-id (a file at DIR/.build-id/NN/REST), by name
mkdir -p "$T_DIR/byid/.build-id/6a" "$T_DIR/byname"
cp "$d/a.out" "$T_DIR/byid/.build-id/6a/${id:2}"
HOME=$T_DIR/empty "$HINDSIGHT" import -o "$T_DIR/nolib2" --image-dir "$T_DIR/byname" \
    --image-dir "$T_DIR/byid" "$nb/trace.json" >"$T_DIR/nolib2.out" 2>&1 ||
    { fail "import with --image-dir by build-id"; show "$T_DIR/nolib2.out"; }
compare lldb-image-dir-id "$T_DIR/nolib2" "$d/ref-libipt-2.0.5/ptxed-insn-noinst.txt"
# history opens the bundle itself with the same --image-dir
HOME=$T_DIR/empty "$HINDSIGHT" history "$nb" 1,3 --image-dir "$T_DIR/byid" \
    >"$T_DIR/nolib-imgdir.txt" 2>&1 || fail "history --image-dir"
expect "$T_DIR/nolib-imgdir.txt" "<main+4>:	movl   \$0x0,-0x4(%rbp)"
cp "$d/a.out" "$T_DIR/byname/a.out"
HOME=$T_DIR/empty "$HINDSIGHT" import -o "$T_DIR/nolib3" --image-dir "$T_DIR/byname" \
    "$nb/trace.json" >"$T_DIR/nolib3.out" 2>&1 ||
    { fail "import with --image-dir by name"; show "$T_DIR/nolib3.out"; }
expect "$T_DIR/nolib3/trace.json" "$T_DIR/byname/a.out"
# a file of that name with another build-id is not the image
cp "$P/lldb/intelpt-trace-multi-file/libfoo.so" "$T_DIR/byname/a.out"
if HOME=$T_DIR/empty "$HINDSIGHT" import -o "$T_DIR/nolib4" --image-dir "$T_DIR/byname" \
    "$nb/trace.json" >"$T_DIR/nolib4.out" 2>&1; then
    fail "an a.out with another build-id was taken"
fi
# The per-cpu bundle without modules/: /tmp/m.out in the older perf layout.
mc=$P/lldb/intelpt-multi-core-trace
mcid=aefb0d59233f80ff6d3c4ded498534cf11017b3b
mkdir -p "$T_DIR/mc" "$home/.debug/tmp/m.out/$mcid"
cp -r "$mc/trace.json" "$mc/cores" "$T_DIR/mc/"
cp "$mc/modules/m.out" "$home/.debug/tmp/m.out/$mcid/elf"
HOME=$home "$HINDSIGHT" history "$T_DIR/mc" 19521,19521 --thread 3497496 >"$T_DIR/mc.txt" 2>&1
expect "$T_DIR/mc.txt" "$(printf '19521\t   0x0000000000400ba7 <foo()+65>:\tjg     0x400bb3 <foo()+77>')"

# A truncated perf.data: a clear error, nothing imported.
head -c 20000 "$P/hase/skl-20180404-loopy/loopy-20180404T162955.perf" >"$T_DIR/cut.perf"
if "$HINDSIGHT" import -o "$T_DIR/cut" "$T_DIR/cut.perf" >"$T_DIR/cut.out" 2>&1; then
    fail "a truncated perf.data was imported"
fi
expect_re "$T_DIR/cut.out" "^hindsight: cannot import .*cut.perf: .*offset 0x[0-9a-f]+"

# The copy missing only its last byte, inside its last feature section
# (HEADER_CACHE), which decoding does not need: the history of the whole
# file, with a warning saying what was lost; `perf script` decodes the same
# instructions from it. Cut inside HEADER_CPUID (the CPU, which libipt's
# errata workarounds need): a one-line error naming it.
L=$P/hase/skl-20180404-loopy
f=$L/loopy-20180404T162955.perf
size=$(stat -c %s "$f")
mkdir -p "$T_DIR/last"
head -c $((size - 1)) "$f" >"$T_DIR/last/last.perf"
cp "$L/loopy" "$T_DIR/last/"
"$HINDSIGHT" history "$T_DIR/last/last.perf" 1,100000 --json >"$T_DIR/last.json" 2>"$T_DIR/last.err" ||
    fail "history of a perf.data missing its last byte"
show "$T_DIR/last.err"
cmp -s "$T_DIR/last.json" "$T_DIR/loopy.imported" ||
    { fail "the perf.data missing its last byte decodes otherwise"; head -3 "$T_DIR/last.json"; }
expect_re "$T_DIR/last.err" "^hindsight: warning: last.perf: HEADER_CACHE \(the CPU caches\) skipped: its 0x[0-9a-f]+ bytes at offset 0x[0-9a-f]+ run past the end of the file \($(printf '0x%x' $((size - 1))) bytes\); decoding does not use it\$"
"$HINDSIGHT" import -o "$T_DIR/last.b" "$T_DIR/last/last.perf" >"$T_DIR/last.import" 2>&1 ||
    { fail "import of the perf.data missing its last byte"; show "$T_DIR/last.import"; }
expect "$T_DIR/last.import" "hindsight: warning: last.perf: HEADER_CACHE (the CPU caches) skipped"
if command -v perf >/dev/null && command -v python3 >/dev/null; then
    # perf script finds the image under --symfs by the recorded path.
    path=$(sed -n 's/.*"systemPath": "\(.*\/loopy\)".*/\1/p' "$T_DIR/loopy/trace.json" | head -1)
    mkdir -p "$T_DIR/symfs$(dirname "$path")"
    cp "$L/loopy" "$T_DIR/symfs$path"
    timeout 60 perf script -i "$T_DIR/last/last.perf" --symfs "$T_DIR/symfs" --itrace=i0ns -F ip \
        2>/dev/null | sed 's/^ *//' >"$T_DIR/last.perf-script"
    sed -n 's/.*"addr":"0x\([0-9a-f]*\)".*/\1/p' "$T_DIR/last.json" >"$T_DIR/last.addrs"
    [ -s "$T_DIR/last.addrs" ] && cmp -s "$T_DIR/last.perf-script" "$T_DIR/last.addrs" ||
        { fail "perf script and hindsight differ on the perf.data missing its last byte"
          diff "$T_DIR/last.perf-script" "$T_DIR/last.addrs" | head -5; }
    # HEADER_CPUID's section, from the feature table after the data section
    cpuid=$(python3 -c '
import struct, sys
b = open(sys.argv[1], "rb").read()
off, size = struct.unpack_from("<QQ", b, 40)
bits = int.from_bytes(b[72:104], "little")
t = off + size
for bit in range(9):
    t += 16 * (bits >> bit & 1)
print(struct.unpack_from("<Q", b, t)[0])' "$f")
    head -c $((cpuid + 8)) "$f" >"$T_DIR/last/cpuid.perf"
    if "$HINDSIGHT" history "$T_DIR/last/cpuid.perf" 1,3 >"$T_DIR/cpuid.out" 2>&1; then
        fail "a perf.data cut inside HEADER_CPUID was decoded"
    fi
    expect_re "$T_DIR/cpuid.out" "^hindsight: cpuid.perf: HEADER_CPUID \(the CPU's family, model and stepping\): its 0x[0-9a-f]+ bytes at offset $(printf '0x%x' "$cpuid") run past the end of the file \($(printf '0x%x' $((cpuid + 8))) bytes\), and decoding needs it\$"
    [ "$(wc -l <"$T_DIR/cpuid.out")" = 1 ] || fail "more than one line for a cut HEADER_CPUID"
fi
finish
