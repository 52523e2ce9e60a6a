#!/usr/bin/env bash
# t_gdb_btrace_bts: GDB's `record btrace bts` on a recording served by
# `hindsight serve --replay DIR`: the thread's history up to its position
# comes as BTS blocks (runs of sequential instructions, newest first,
# qXfer:btrace:read), which GDB walks through the code bytes it reads with
# `m`. With an unlimited buffer GDB must count and list exactly the
# instructions `hindsight history` decodes, and the function segments
# `hindsight calls` lists (PLT entries aside, which GDB may name by
# offset); with GDB's default 64 KiB buffer, the newest
# part of the same list; after reverse-continue into the past, the history
# up to that position only.
. "$(dirname "$0")/lib.sh"
hindsight_only "serves recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog basic) || finish
A=$(rand_int 2 50)
B=$(rand_int 2 50)
rec=$T_DIR/rec
"$HINDSIGHT" record -o "$rec" -- "$prog" "$A" "$B" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $rec"

hs=$T_DIR/hs.json
"$HINDSIGHT" history "$rec" 1,100000000 --json >"$hs" 2>"$T_DIR/hs.err" ||
    { fail "hindsight history failed"; show "$T_DIR/hs.err"; finish; }
sed -n 's/.*"addr":"\(0x[0-9a-f]*\)".*/\1/p' "$hs" >"$T_DIR/hs.addrs"
N=$(wc -l <"$T_DIR/hs.addrs")
"$HINDSIGHT" calls "$rec" 1,100000000 >"$T_DIR/hs.calls" 2>"$T_DIR/hs-calls.err" ||
    { fail "hindsight calls failed"; show "$T_DIR/hs-calls.err"; finish; }
NC=$(wc -l <"$T_DIR/hs.calls")
[ "$N" -gt 1000 ] && [ "$NC" -gt 10 ] || { fail "history too short ($N items, $NC calls)"; finish; }
echo "history: $N instructions, $NC function segments"

# gdb_addrs FILE: the addresses of GDB's instruction-history lines.
gdb_addrs() { sed -n 's/^[0-9][0-9]*\t *0x0*\([0-9a-f]*\)[ :].*/0x\1/p' "$1"; }

# 1. The whole history, at the end.
server_start --replay "$rec" || finish
out=$T_DIR/gdb-all.out
gdb_run "$out" -ex 'set record btrace bts buffer-size unlimited' -ex 'record btrace bts' \
    -ex 'info record' -ex "record instruction-history 1,$N" \
    -ex 'echo ==calls\n' -ex "record function-call-history 1,$NC" -ex 'echo ==end\n' "$prog"
expect "$out" "Recording format: Branch Trace Store."
expect_re "$out" "^Recorded $N instructions in $NC functions \(0 gaps\) for thread 1 "
gdb_addrs "$out" >"$T_DIR/gdb-all.addrs"
if ! cmp -s "$T_DIR/gdb-all.addrs" "$T_DIR/hs.addrs"; then
    fail "GDB's instruction history over BTS differs from hindsight's"
    diff "$T_DIR/gdb-all.addrs" "$T_DIR/hs.addrs" | head -10
fi
# GDB names some PLT entries by section offset (*ABS*+0x9f610@plt) where
# hindsight names the symbol: compare PLT segments as "@plt".
plt() { sed 's/\t.*@plt$/\t@plt/' "$1"; }
sed -n '/^==calls$/,/^==end$/p' "$out" | grep -E '^[0-9]+	' >"$T_DIR/gdb.calls"
if ! cmp -s <(plt "$T_DIR/gdb.calls") <(plt "$T_DIR/hs.calls"); then
    fail "GDB's function-call history over BTS differs from hindsight calls"
    diff "$T_DIR/gdb.calls" "$T_DIR/hs.calls" | head -10
fi
expect "$out" "detached]"
head -30 "$out"

# 2. GDB's default buffer (64 KiB, 24 bytes a block): the newest part.
server_start --replay "$rec" || finish
out=$T_DIR/gdb-64k.out
gdb_run "$out" -ex 'record btrace bts' -ex 'info record' -ex "record instruction-history 1,$N" "$prog"
M=$(sed -n 's/^Recorded \([0-9]*\) instructions .*/\1/p' "$out")
echo "64 KiB buffer: $M instructions"
expect "$out" "Buffer size: 64kB."
if [ -z "$M" ] || [ "$M" -ge "$N" ] || [ "$M" -lt 2730 ]; then
    fail "64 KiB buffer: $M instructions recorded (want at least 2730, fewer than $N)"
else
    gdb_addrs "$out" >"$T_DIR/gdb-64k.addrs"
    tail -n "$M" "$T_DIR/hs.addrs" >"$T_DIR/hs-tail.addrs"
    cmp -s "$T_DIR/gdb-64k.addrs" "$T_DIR/hs-tail.addrs" ||
        fail "64 KiB buffer: not the last $M instructions of the history"
fi

# 3. In the past: the history up to the position reverse-continue reached.
server_start --replay "$rec" || finish
out=$T_DIR/gdb-past.out
gdb_run "$out" -ex 'break basic_compute' -ex 'reverse-continue' -ex 'monitor when' -ex 'delete' \
    -ex 'set record btrace bts buffer-size unlimited' -ex 'record btrace bts' -ex 'info record' \
    -ex "record instruction-history 1,$N" "$prog"
P=$(sed -n 's/^position \([0-9]*\) of .*/\1/p' "$out")
show "$out" | grep -v '^[0-9]*	' | head -30
if [ -z "$P" ]; then
    fail "no position after reverse-continue"
else
    expect_re "$out" "^Recorded $((P - 1)) instructions in [0-9]+ functions \(0 gaps\)"
    gdb_addrs "$out" >"$T_DIR/gdb-past.addrs"
    head -n $((P - 1)) "$T_DIR/hs.addrs" >"$T_DIR/hs-head.addrs"
    cmp -s "$T_DIR/gdb-past.addrs" "$T_DIR/hs-head.addrs" ||
        fail "in the past: not the first $((P - 1)) instructions of the history"
fi

finish
