#!/usr/bin/env bash
# t_replay_tailcall: an entry value (DW_OP_entry_value) comes only from a
# call site that calls the function itself. tests/programs/tailcall.c at
# -O2: main calls middle through a pointer and middle tail-calls callee, so
# the call site callee returns to is middle's; GDB shows callee's
# "a=<optimized out>" there, where the parameters of main's call of middle
# were shown as callee's (a=a@entry=N). At both stops in leaf (through
# middle, then through direct, whose entry values hold) `hindsight
# replay`'s bt, up and info args against GDB run natively on the same
# program with the same argument (addresses masked: ASLR differs) and
# against GDB over serve --replay of the recording (exact).
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

prog=$(build_prog tailcall -O2) || finish
cd "$T_DIR" || finish
n=$(rand_int 2 40)

timeout 60 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" "$n" >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" 0

at_stop=(-ex 'bt' -ex 'up' -ex 'info args')
# From the end back to leaf twice (direct's call, then middle's); natively
# forward: middle's, then direct's.
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'break leaf' -ex 'reverse-continue' \
    "${at_stop[@]}" -ex 'reverse-continue' "${at_stop[@]}" >hs.out 2>&1
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set width 0' -ex 'break leaf' \
    -ex "run $n" "${at_stop[@]}" -ex 'continue' "${at_stop[@]}" "$prog" </dev/null >native.out 2>&1
server_start --replay "$T_DIR/rec" || finish
gdb_run served.out -ex 'break leaf' -ex 'reverse-continue' "${at_stop[@]}" -ex 'reverse-continue' \
    "${at_stop[@]}"

pick() { grep -E '^(#[0-9]|[a-z]+ = )' "$1" | sed -E 's#(at )/[^ ]*/#\1#'; }
mask() { sed -E 's/0x[0-9a-f]+/ADDR/g'; }
# One stop's lines (N: 1 or 2, in the order given).
stop() { awk -v n="$2" '/^#0 /{k++} k==n' "$1"; }
pick hs.out >hs.f
pick served.out >served.f
pick native.out >native.f
# Natively the stops come in the other order.
{ stop native.f 2; stop native.f 1; } | mask >native.fm
mask <hs.f >hs.fm
expect_re native.f '^#1 .* in callee \(a=<optimized out>'
if ! diff -u served.f hs.f >served.diff; then
    fail "replay differs from GDB over serve --replay"
    cat served.diff
fi
if ! diff -u native.fm hs.fm >native.diff; then
    fail "replay differs from GDB run natively"
    cat native.diff
fi
[ "$(wc -l <native.f)" -ge 13 ] || { fail "GDB said too little"; show native.out; }
finish
