#!/usr/bin/env bash
# t_replay_last: `last` in `hindsight replay` on software recordings of
# tests/programs/origin.c, each compared with GDB's `watch -l` and
# reverse-continue over `hindsight serve --replay` on the same recording
# from the same position: `last` must go to the instruction GDB stops at
# (the same position, `monitor when`), and name the writer's function and
# the line of its source marker.
# - uaf: a freed node's block reused by reuse(), whose store to the field
#   the stale pointer reads is the last write (the marker LINE:reuse).
# - smash: strcpy past a struct's buffer overwrites its neighbour: the
#   writer is libc's strcpy, called from smash at LINE:smash.
# - clobber (recorded by `hindsight run`, which dies at the fault): the
#   memset that overwrote table[1].next, called from clobber at
#   LINE:clobber; a second `last` finds the write before it (the loop that
#   set table[1].next), a third says there is none.
  `hindsight run` adds the origin of the bad address to its explanation:
#   the load in walk from table[1].next (GDB's address), the memset that
#   wrote it, called from clobber; replay's `origin` at the fault the same.
# - thread (`hindsight run`): main dies dereferencing a pointer a second
#   thread stored: the origin names worker at LINE:worker; `last` on the
#   pointer switches to that thread, at GDB's watch -l stop.
# - chain A B (recorded in software): `last` on g_val walks its history (B in set_second, A in
#   set_first, then its value at the start, 0); `last $r13` at
#   origin_after finds the move from r12, `last $r12` the load of g_ptr,
#   and `last` alone the store in set_ptr.
# - `monitor last ADDR LEN` (and --json) over serve --replay names the
#   same writer as `last` (set_second, B), and over a live `serve`
#   stopped at origin_after too; after `monitor goto` to that write it
#   finds set_first's; LLDB's `process plugin packet monitor last` gets
#   GDB's answer.
# The addresses come from GDB (p &...), the lines from the markers.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog origin) || finish
src=origin.c

# position_of FILE: the position `monitor when` printed last in FILE.
position_of() { sed -n 's/^position \([0-9]*\) of .*/\1/p' "$1" | tail -1; }
# addr_of FILE: the last "$N = 0x..." GDB printed.
addr_of() { sed -n 's/^\$[0-9]* = \(0x[0-9a-f]*\)$/\1/p' "$1" | tail -1; }

# compare NAME REC LINE EXPR TYPE: from the end (LINE not empty: back to
# a breakpoint at it), GDB finds EXPR's address and its last write by
# watch -l + reverse-continue; replay's `last *(TYPE *)ADDR` from the same
# place must stop at the same position.
compare()
{
    local name=$1 rec=$2 line=$3 expr=$4 type=$5 addr gpos rpos setup=()
    [ -n "$line" ] && setup=(-ex "break $src:$line" -ex reverse-continue)
    server_start --replay "$rec" || return
    gdb_run "$T_DIR/$name.gdb" "${setup[@]}" -ex "p/x (long)&($expr)" -ex "watch -l $expr" \
        -ex 'reverse-continue' -ex 'monitor when' -ex 'bt 3' "$prog"
    show "$T_DIR/$name.gdb"
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    addr=$(addr_of "$T_DIR/$name.gdb")
    gpos=$(position_of "$T_DIR/$name.gdb")
    [ -n "$addr" ] && [ -n "$gpos" ] || { fail "$name: GDB gave no address or position"; return; }
    timeout 120 "$HINDSIGHT" replay "$rec" --batch "${setup[@]}" -ex "last *($type *)$addr" \
        -ex 'last' -ex 'last' >"$T_DIR/$name.out" 2>&1
    show "$T_DIR/$name.out"
    rpos=$(sed -n 's/^Last write to .*, position \([0-9]*\)$/\1/p' "$T_DIR/$name.out" | head -1)
    expect_eq "$name: last's position is GDB's watch -l stop" "$rpos" "$gpos"
}

# ---- uaf ---------------------------------------------------------------------
rec=$T_DIR/uaf
"$HINDSIGHT" record -o "$rec" -- "$prog" uaf >"$T_DIR/uaf.rec" 2>&1
expect "$T_DIR/uaf.rec" "uaf 24301"
L=$(line_of $src uaf_read)
compare uaf "$rec" "$L" "old->field" long
# the first answer: reuse at its marker's line
first=$(sed -n '/^Last write/,/^Last write\|^No earlier/p' "$T_DIR/uaf.out" | head -8)
grep -qE "^#0  (0x[0-9a-f]+ in )?reuse \([^)]*\) at .*$src:$(line_of $src reuse)\$" <<<"$first" ||
    fail "uaf: the last write is not reuse's at line $(line_of $src reuse)"
grep -q "^New value = 24301$" <<<"$first" || fail "uaf: New value is not 0x5eed"
grep -qE "^#1  0x[0-9a-f]+ in uaf \(\) at .*$src:[0-9]+$" <<<"$first" || fail "uaf: not called from uaf"

# ---- smash -------------------------------------------------------------------
rec=$T_DIR/smash
"$HINDSIGHT" record -o "$rec" -- "$prog" smash >"$T_DIR/smash.rec" 2>&1
compare smash "$rec" "$(line_of $src smash_read)" "f.saved" long
first=$(sed -n '/^Last write/,/^Last write\|^No earlier/p' "$T_DIR/smash.out" | head -8)
grep -qE "^#0  (0x[0-9a-f]+ in )?[_a-z0-9]*strcpy[_a-z0-9]* \(" <<<"$first" ||
    fail "smash: the last write to f.saved is not strcpy's"
grep -qE "^#1  0x[0-9a-f]+ in smash \(s=0x[0-9a-f]+ \"0123456789abcde\"\) at .*$src:$(line_of $src smash)\$" <<<"$first" ||
    fail "smash: strcpy not called from smash at line $(line_of $src smash)"
# "0123456789abcde": bytes 8..15 of the string, "89abcde" and its NUL
grep -q "^New value = $(printf '%d' 0x0065646362613938)\$" <<<"$first" ||
    fail "smash: New value is not \"89abcde\""
grep -q "^Old value = 42\$" <<<"$first" || fail "smash: Old value is not 42"

# ---- clobber: hindsight run, the fault ----------------------------------------
rec=$T_DIR/clobber
timeout 120 "$HINDSIGHT" run -o "$rec" -- "$prog" clobber >"$T_DIR/run.out" 2>"$T_DIR/run.err"
expect_eq "exit status of run clobber" "$?" 139
compare clobber "$rec" "" "table[1].next" long
first=$(sed -n '/^Last write/,/^Last write\|^No earlier/p' "$T_DIR/clobber.out" | head -8)
grep -qE "^#0  (0x[0-9a-f]+ in )?[_a-z0-9]*memset[_a-z0-9]* \(" <<<"$first" ||
    fail "clobber: the last write to table[1].next is not memset's"
grep -qE "^#1  0x[0-9a-f]+ in clobber \(i=1\) at .*$src:$(line_of $src clobber)\$" <<<"$first" ||
    fail "clobber: memset not called from clobber at line $(line_of $src clobber)"
grep -q "^New value = $(printf '%d' 0x4141414141414141)\$" <<<"$first" ||
    fail "clobber: New value is not 0x4141414141414141"
# the write before: the loop in clobbered() that linked the table
second=$(sed -n '/^Last write/,$p' "$T_DIR/clobber.out" | sed -n '2,$p' | sed -n '/^Last write/,$p')
grep -qE "^#0  (0x[0-9a-f]+ in )?clobbered \([^)]*\) at .*$src:" <<<"$second" ||
    fail "clobber: the write before the memset is not clobbered()'s loop"
expect "$T_DIR/clobber.out" "No earlier write to 8 bytes at"
# hindsight run's explanation goes on to the origin: the register that
# held the bad address, its load from table[1].next (GDB's address, named
# as the global it is in and as walk's pointer to it), the
# memset that wrote it and memset's caller; replay's `origin` at the fault
# says the same
next_addr=$(addr_of "$T_DIR/clobber.gdb")
origin_check()
{
    expect "$1" "Where the address came from:"
    expect_re "$1" "^  rax = 0x4141414141414141 was loaded at $src:$(line_of $src walk) in walk, [0-9,]+ instructions? $2,\$"
    expect "$1" "      from $next_addr (8 bytes), table[1].next, e->next"
    expect_re "$1" "^  which [_a-z0-9]*memset[_a-z0-9]* wrote.*, [0-9,]+ instructions $2,\$"
    expect_re "$1" "^      called from clobber at $src:$(line_of $src clobber), from clobbered at $src:[0-9]+, from main at $src:[0-9]+\$"
}
origin_check "$T_DIR/run.err" "before the crash"
timeout 120 "$HINDSIGHT" replay "$rec" --batch -ex origin >"$T_DIR/origin.out" 2>&1
show "$T_DIR/origin.out"
origin_check "$T_DIR/origin.out" back

# ---- thread: the bad pointer stored by another thread ------------------------
rec=$T_DIR/thread
timeout 120 "$HINDSIGHT" run -o "$rec" -- "$prog" thread >"$T_DIR/trun.out" 2>"$T_DIR/trun.err"
expect_eq "exit status of run thread" "$?" 139
show "$T_DIR/trun.err"
expect_re "$T_DIR/trun.err" "^  rax = 0x18 was loaded at $src:$(line_of $src thread_crash) in threaded, [0-9,]+ instructions? before the crash,\$"
expect_re "$T_DIR/trun.err" "^  which worker wrote at $src:$(line_of $src worker), [0-9,]+ instructions before the crash,\$"
compare thread "$rec" "" "g_shared" long
grep -q "^\[Switching to thread 2 " "$T_DIR/thread.out" || fail "thread: last did not switch to the worker"
first=$(sed -n '/^Last write/,/^Last write\|^No earlier/p' "$T_DIR/thread.out" | head -8)
grep -qE "^#0  (0x[0-9a-f]+ in )?worker \([^)]*\) at .*$src:$(line_of $src worker)\$" <<<"$first" ||
    fail "thread: the last write to g_shared is not worker's"

# ---- chain: the history of g_val, registers ----------------------------------
A=$(rand_int 100 999)
B=$(rand_int 1000 9999)
rec=$T_DIR/chain
"$HINDSIGHT" record --record=sw -o "$rec" -- "$prog" chain "$A" "$B" >"$T_DIR/chain.rec" 2>&1
expect "$T_DIR/chain.rec" "chain $((B + 7))"
server_start --replay "$rec" || finish
gdb_run "$T_DIR/chain.gdb" -ex 'p/x (long)&g_val' -ex 'p/x (long)&g_ptr' -ex 'p/x (long)&origin_after' \
    "$prog"
kill "$SERVER_PID" 2>/dev/null
wait "$SERVER_PID" 2>/dev/null
g_val=$(sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p' "$T_DIR/chain.gdb")
g_ptr=$(sed -n 's/^\$2 = \(0x[0-9a-f]*\)$/\1/p' "$T_DIR/chain.gdb")
after=$(sed -n 's/^\$3 = \(0x[0-9a-f]*\)$/\1/p' "$T_DIR/chain.gdb")
timeout 120 "$HINDSIGHT" replay "$rec" --batch -ex "last *(long *)$g_val" -ex 'last' -ex 'last' \
    -ex 'goto end' -ex "break *$after" -ex 'reverse-continue' -ex 'last $r13' -ex 'last $r12' \
    -ex 'last' >"$T_DIR/chain.out" 2>&1
show "$T_DIR/chain.out"
out=$T_DIR/chain.out
expect_re "$out" "^Old value = $A\$"
expect_re "$out" "^New value = $B\$"
expect_re "$out" "^#0  (0x[0-9a-f]+ in )?set_second \([^)]*\) at .*$src:$(line_of $src second)\$"
expect_re "$out" "^Old value = 0\$"
expect_re "$out" "^New value = $A\$"
expect_re "$out" "^#0  (0x[0-9a-f]+ in )?set_first \([^)]*\) at .*$src:$(line_of $src first)\$"
expect "$out" "No earlier write to 8 bytes at $g_val in the recording: they held 0 from its start."
expect_re "$out" "^\\\$r13 last changed: .*"
expect_re "$out" "^   0x[0-9a-f]+:[[:space:]]+mov +%r12,%r13\$"
expect_re "$out" "^Loaded from 8 bytes at $g_ptr: "
expect_re "$out" "^#0  (0x[0-9a-f]+ in )?set_ptr \([^)]*\) at .*$src:$(line_of $src set_ptr)\$"


# `monitor last` over serve --replay: the same write as `last`'s
pos=$(sed -n 's/^Last write to .*, position \([0-9]*\)$/\1/p' "$out" | head -1)
server_start --replay "$rec" || finish
gdb_run "$T_DIR/mon.gdb" -ex "monitor last $g_val 8" -ex "monitor last $g_val 8 --json" \
    -ex "monitor goto $pos" -ex "monitor last $g_val 8" -ex "monitor last $g_val 0" "$prog"
kill "$SERVER_PID" 2>/dev/null
wait "$SERVER_PID" 2>/dev/null
show "$T_DIR/mon.gdb"
# hexle N: N's 8 bytes, little-endian, as `monitor last` shows them
hexle() { local i out=; for i in 0 1 2 3 4 5 6 7; do out+="${out:+ }$(printf '%02x' $((($1 >> (8 * i)) & 255)))"; done; echo "$out"; }
expect_re "$T_DIR/mon.gdb" "^last write to 8 bytes at $g_val: thread [0-9]+ position $pos \([0-9]+ instructions back\), pc 0x[0-9a-f]+ <set_second\+[0-9]+> at .*$src:$(line_of $src second)\$"
expect "$T_DIR/mon.gdb" "  old: $(hexle "$A")"
expect "$T_DIR/mon.gdb" "  new: $(hexle "$B")"
expect_re "$T_DIR/mon.gdb" "^\{\"addr\": $((g_val)), \"len\": 8, \"found\": true, .*\"position\": $pos, .*\"function\": \"set_second\", .*\"line\": $(line_of $src second), \"old\": \"$(hexle "$A" | tr -d ' ')\", \"new\": \"$(hexle "$B" | tr -d ' ')\"\}\$"
expect_re "$T_DIR/mon.gdb" "^last write to 8 bytes at $g_val: .*<set_first\+[0-9]+> at .*$src:$(line_of $src first)\$"
expect "$T_DIR/mon.gdb" "last: expected ADDR LEN (1 to 64 bytes) [--json], got '$g_val 0'."

# LLDB's way to it: the same answer
if command -v lldb >/dev/null 2>&1; then
    server_start --replay "$rec" || finish
    lldb_run "$T_DIR/mon.lldb" "$prog" -o "process plugin packet monitor last $g_val 8"
    kill "$SERVER_PID" 2>/dev/null
    wait "$SERVER_PID" 2>/dev/null
    show "$T_DIR/mon.lldb"
    expect "$T_DIR/mon.lldb" "$(grep -m1 '^last write to' "$T_DIR/mon.gdb")"
fi

# `monitor last` over a live serve (it records while GDB drives)
server_start "$prog" chain "$A" "$B" || finish
gdb_run "$T_DIR/live.gdb" -ex 'break origin_after' -ex 'continue' \
    -ex 'python gdb.execute("monitor last " + str(int(gdb.parse_and_eval("(long)&g_val"))) + " 8")' \
    -ex 'kill' "$prog"
show "$T_DIR/live.gdb"
expect_re "$T_DIR/live.gdb" "^last write to 8 bytes at 0x[0-9a-f]+: thread [0-9]+ position [0-9]+ \([0-9]+ instructions back\), pc 0x[0-9a-f]+ <set_second\+[0-9]+> at .*$src:$(line_of $src second)\$"
expect "$T_DIR/live.gdb" "  new: $(hexle "$B")"

finish
