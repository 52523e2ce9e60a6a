#!/usr/bin/env bash
# t_replay_symgap: code that no sized symbol covers has no name, as GDB
# shows it ("?? ()" in bt, no <sym+off> in x/i): tests/programs/symgap.c's
# gapfn is top-level asm whose .size covers its first byte only (the static
# functions of a stripped program are the same case). `hindsight replay`'s
# bt, frame and x/i at leaf, called from the unnamed code, against GDB run
# natively on the same program (addresses masked: ASLR differs) and against
# GDB over serve --replay of the recording (addresses exact); history
# prints the unnamed instructions without a name, calls names their
# segments "??", as GDB's record instruction-history and
# function-call-history do.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

prog=$(build_prog symgap) || finish
cd "$T_DIR" || finish

timeout 60 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" 0

cmds=('break leaf' 'bt' 'frame 1' 'x/2i $pc-5' 'up')
hs=() gd=()
for c in "${cmds[@]}"; do hs+=(-ex "$c"); gd+=(-ex "$c"); done
# From the end of the recording back to leaf; natively, forward to it.
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'break leaf' -ex 'reverse-continue' \
    "${hs[@]:2}" >hs.out 2>&1
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set width 0' "${gd[@]:0:2}" \
    -ex run "${gd[@]:2}" "$prog" </dev/null >native.out 2>&1
server_start --replay "$T_DIR/rec" || finish
gdb_run served.out -ex 'break leaf' -ex 'reverse-continue' "${gd[@]:2}"

# The frame and disassembly lines: #N frames, x/i lines, info symbol.
pick() { grep -E '^(#[0-9]|=>|   0x)' "$1" | sed -E 's#(at )/[^ ]*/#\1#'; }
mask() { sed -E 's/0x[0-9a-f]+/ADDR/g; s/ \(x=[0-9]+\)/ (x=N)/'; }
pick hs.out >hs.f
pick served.out >served.f
pick native.out | mask >native.f
mask <hs.f >hs.fm
expect_re native.out '^#1  0x[0-9a-f]+ in \?\? \(\)$'
if ! diff -u served.f hs.f >served.diff; then
    fail "replay differs from GDB over serve --replay"
    cat served.diff
fi
if ! diff -u native.f hs.fm >native.diff; then
    fail "replay differs from GDB run natively"
    cat native.diff
fi
[ "$(wc -l <native.f)" -ge 6 ] || { fail "GDB said too little"; show native.out; }

# history: gapfn+0 is gapfn's, the push, call, pop and ret after it are
# no one's; calls: gapfn, ??, leaf, ??.
timeout 60 "$HINDSIGHT" history "$T_DIR/rec" 1,2000000 >hist.out 2>&1
grep -A3 '<gapfn+0>:' hist.out | awk '{ printf "%s ", ($3 ~ /^</ ? $3 : "-") }' >hist.names
expect_eq "names in history from gapfn on" "$(cat hist.names)" "<gapfn+0>: - - <leaf+0>: "
expect_not hist.out "<gapfn+1>"
timeout 60 "$HINDSIGHT" calls "$T_DIR/rec" 1,100000 >calls.out 2>&1
expect_eq "calls from gapfn on" \
    "$(grep -A3 -P '\tgapfn$' calls.out | cut -f2 | tr '\n' ' ')" "gapfn ?? leaf ?? "
finish
