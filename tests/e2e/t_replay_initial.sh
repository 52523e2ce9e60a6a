#!/usr/bin/env bash
# t_replay_initial: a global the program never writes reads, in a recording
# started at the program's first instruction, as its initial value from the
# program file (.data) or zero (.bss), as GDB reads it from the live
# program. tests/programs/initdata.c is compiled with -DINIT=N (N random),
# recorded in software, and GDB over `serve --replay` prints its globals at
# stop_here and at the start of the recording; GDB natively prints them at
# the same places (`break stop_here` / `starti`). `hindsight replay` reads
# the same bytes. With --snapshot (old writes may be gone) the same globals
# are refused, not guessed.
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --replay"

N=$(rand_int 1000 99999)
prog=$(compile_cached "$T_DIR/initdata" initdata "-DINIT=$N") || finish
cd "$T_DIR" || finish
vals=(-ex 'echo ==vals\n' -ex 'print g_init' -ex 'print g_name' -ex 'print g_bss'
    -ex 'print g_pair' -ex 'print g_written' -ex 'echo ==end\n')

# values FILE: the values printed between the first ==vals and ==end,
# without their history numbers.
values() { awk '/^==vals$/ { on = 1; next } /^==end$/ { if (on) exit } on' "$1" | sed 's/^\$[0-9]* = //'; }

gdb_native() { timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx -iex 'set debuginfod enabled off' "$@" \
    </dev/null 2>&1; }
gdb_native "$prog" -ex 'break stop_here' -ex run "${vals[@]}" >native.out
gdb_native "$prog" -ex starti "${vals[@]}" >native_start.out
show native.out
grep -qx "\\\$1 = $N" native.out || fail "GDB natively: g_init is not $N"
grep -qx "\\\$5 = $((N + 1))" native.out || fail "GDB natively: g_written is not $((N + 1))"

"$HINDSIGHT" record --record=sw -o rec -- "$prog" >record.out 2>&1
expect record.out "initdata: $N hs-$N 0 $((N + 1))"
server_start --replay rec || finish
gdb_run replay.out -ex 'break stop_here' -ex 'reverse-continue' "${vals[@]}" \
    -ex 'delete' -ex 'reverse-continue' -ex 'echo ==start\n' "${vals[@]}" -ex 'print &g_init' 
show replay.out
values native.out >native.vals
values replay.out >replay.vals
diff -u native.vals replay.vals || fail "at stop_here: the recording's globals differ from GDB's natively"
sed -n '/^==start$/,$p' replay.out >replay_start.out
values native_start.out >native_start.vals
values replay_start.out >replay_start.vals
diff -u native_start.vals replay_start.vals || fail "at the start: the globals differ from GDB's natively"

# hindsight replay reads the same bytes (as memory: it has no C yet).
addr=$(sed -n 's/.* = (int \*) \(0x[0-9a-f]*\) <g_init>$/\1/p' replay.out)
"$HINDSIGHT" replay --batch rec -ex 'break stop_here' -ex 'reverse-continue' \
    -ex "print *(int *)$addr" >cli.out 2>&1
expect_re cli.out "^\\\$1 = $N\$"

# A --snapshot recording may have lost the writes before its window: the
# same untouched global is refused, not read from the file.
"$HINDSIGHT" record --record=sw --snapshot 4096 -o snap -- "$prog" >snap.out 2>&1
if grep -q '"kind": *"snapshot"' snap/trace.json; then
    "$HINDSIGHT" replay --batch snap -ex "print *(int *)$addr" >snapcli.out 2>&1
    expect snapcli.out "Cannot access memory at address $addr"
else
    echo "the snapshot recording kept everything: nothing to refuse"
fi
finish
