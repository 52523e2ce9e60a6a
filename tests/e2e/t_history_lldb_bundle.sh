#!/usr/bin/env bash
# t_history_lldb_bundle: `hindsight history` and `hindsight calls` on LLDB's
# real Intel PT bundle (intelpt-trace: a 4-iteration loop in main, CPU
# 6/79/1, a.out at 0x400000). The expected lines come from SOURCES.md's
# address sequence and disassembly, laid out as GDB's record
# instruction-history prints them (names from ELF symbols: `main`, where
# GDB with DWARF says `main()`). Also: ranges, modifiers, --json, a missing
# and a corrupt bundle.
. "$(dirname "$0")/lib.sh"
hindsight_only "history reads hindsight bundles"

LLDB=$SHARED_DIR/ptdata/lldb
BUNDLE=$LLDB/intelpt-trace
[ -r "$BUNDLE/trace.json" ] || skip "no LLDB test bundle at $BUNDLE"

run() { # OUT ARGS...: run hindsight, stdout+stderr in OUT, exit status in RC
    local out=$1
    shift
    timeout -k 2 30 "$HINDSIGHT" "$@" </dev/null >"$out" 2>&1
    RC=$?
}

# The 21 instructions, in order (SOURCES.md §1).
seq=(400511 400518 40051f)
for _ in 1 2 3 4; do seq+=(400529 40052d 400521 400525); done
seq+=(400529 40052d)

declare -A text=(
    [400511]='<main+4>:\tmovl   $0x0,-0x4(%rbp)'
    [400518]='<main+11>:\tmovl   $0x0,-0x8(%rbp)'
    [40051f]='<main+18>:\tjmp    0x400529 <main+28>'
    [400529]='<main+28>:\tcmpl   $0x3,-0x8(%rbp)'
    [40052d]='<main+32>:\tjle    0x400521 <main+20>'
    [400521]='<main+20>:\txorl   $0x1,-0x4(%rbp)'
    [400525]='<main+24>:\taddl   $0x1,-0x8(%rbp)'
)

want=$T_DIR/want.txt
: >"$want"
for i in "${!seq[@]}"; do
    a=${seq[$i]}
    printf "%d\t   0x%016x %b\n" $((i + 1)) "0x$a" "${text[$a]}" >>"$want"
done

# Every instruction, exactly, in GDB's layout.
run "$T_DIR/all.txt" history "$BUNDLE" 1,21
expect_eq "history 1,21 status" "$RC" 0
if ! diff -u "$want" "$T_DIR/all.txt" >"$T_DIR/all.diff"; then
    fail "history 1,21 differs from the expected GDB-style lines"
    show "$T_DIR/all.diff"
fi

# No range: the last ten.
run "$T_DIR/last.txt" history "$BUNDLE"
tail -n 10 "$want" >"$T_DIR/want_last.txt"
diff -q "$T_DIR/want_last.txt" "$T_DIR/last.txt" >/dev/null || fail "history without a range is not the last 10"

# N: ten from N (GDB); N,+K and N,-K; ,M.
run "$T_DIR/from.txt" history "$BUNDLE" 5
expect_eq "history 5: lines" "$(wc -l <"$T_DIR/from.txt")" 10
expect_eq "history 5: first" "$(head -1 "$T_DIR/from.txt" | cut -f1)" 5
run "$T_DIR/plus.txt" history "$BUNDLE" 3,+2
expect_eq "history 3,+2" "$(cut -f1 "$T_DIR/plus.txt" | tr '\n' ' ')" "3 4 "
run "$T_DIR/minus.txt" history "$BUNDLE" 3,-2
expect_eq "history 3,-2" "$(cut -f1 "$T_DIR/minus.txt" | tr '\n' ' ')" "2 3 "
run "$T_DIR/upto.txt" history "$BUNDLE" ,12
expect_eq "history ,12" "$(cut -f1 "$T_DIR/upto.txt" | tr '\n' ' ')" "3 4 5 6 7 8 9 10 11 12 "

# Modifiers: /r raw bytes, /f no function name, /p no prefix; --intel.
run "$T_DIR/raw.txt" history "$BUNDLE" 3,3 /r
expect "$T_DIR/raw.txt" "$(printf '3\t   0x000000000040051f <main+18>:\teb 08\tjmp    0x400529 <main+28>')"
run "$T_DIR/fp.txt" history "$BUNDLE" 1,1 /fp
expect "$T_DIR/fp.txt" "$(printf '1\t0x0000000000400511 <+4>:\tmovl   $0x0,-0x4(%%rbp)')"
run "$T_DIR/intel.txt" history "$BUNDLE" 1,1 --intel
expect "$T_DIR/intel.txt" "mov    DWORD PTR [rbp-0x4],0x0"

# Out of range.
run "$T_DIR/oob.txt" history "$BUNDLE" 22
[ "$RC" -ne 0 ] || fail "history 22: exit status 0"
expect "$T_DIR/oob.txt" "Range out of bounds."

# --json: one object per line with index, thread and addr.
run "$T_DIR/json.txt" history "$BUNDLE" 1,21 --json
expect_eq "json lines" "$(wc -l <"$T_DIR/json.txt")" 21
# file and line come from DWARF: what addr2line says of the same address.
a2l=$(addr2line -e "$BUNDLE/a.out" 0x40051f)
expect "$T_DIR/json.txt" "{\"index\":3,\"thread\":3842849,\"addr\":\"0x40051f\",\"function\":\"main\",\"file\":\"${a2l%:*}\",\"line\":${a2l##*:},\"insn\":\"jmp    0x400529\"}"

# calls: one segment, main, instructions 1 to 21.
run "$T_DIR/calls.txt" calls "$BUNDLE" /ic
expect_eq "calls" "$(cat "$T_DIR/calls.txt")" "$(printf '1\tmain\tinst 1,21')"

# Bad bundles: a one-line reason and exit status 1.
run "$T_DIR/missing.txt" history "$T_DIR/nothing"
expect_eq "missing bundle status" "$RC" 1
expect "$T_DIR/missing.txt" "trace.json: No such file or directory"
mkdir -p "$T_DIR/corrupt"
printf '{"type": "intel-pt",\n "cpuInfo": {' >"$T_DIR/corrupt/trace.json"
run "$T_DIR/corrupt.txt" history "$T_DIR/corrupt"
expect_eq "corrupt bundle status" "$RC" 1
expect_re "$T_DIR/corrupt.txt" '^hindsight: trace.json:[0-9]+: '
expect_eq "corrupt bundle: one line" "$(wc -l <"$T_DIR/corrupt.txt")" 1
# (Per-cpu bundles: t_history_percpu.sh.)

finish
