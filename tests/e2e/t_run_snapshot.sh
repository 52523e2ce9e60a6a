#!/usr/bin/env bash
# t_run_snapshot: `hindsight run --snapshot SIZE` keeps only the newest part
# of the recording (cut at a PSB of the trace, where the state log has a
# checkpoint too): the crash is still explained (faulting line, call stack),
# the kept history is a strict suffix of the full one, it starts with a
# "dropped" gap in the bundle, and GDB on `serve --replay` of it still reads
# past registers and locals from the state log.
. "$(dirname "$0")/lib.sh"
hindsight_only "records"

prog=$(build_prog crash) || finish
V=$(rand_int 2 500)
line_crash=$(line_of crash.c crash)

"$HINDSIGHT" run -o "$T_DIR/full" --keep -- "$prog" "$V" >"$T_DIR/full.out" 2>&1
"$HINDSIGHT" run -o "$T_DIR/snap" --snapshot 64K -- "$prog" "$V" >"$T_DIR/snap.out" 2>&1
rc=$?
show "$T_DIR/snap.out"
[ "$rc" = $((128 + 11)) ] || fail "exit status $rc, want $((128 + 11))"
expect_re "$T_DIR/snap.out" "^crash_here \(\) at .*crash\.c:$line_crash\$"
expect_re "$T_DIR/snap.out" "^#1  0x[0-9a-f]+ in main \(\) at .*crash\.c:"
count() { "$HINDSIGHT" history "$1" --json 2>/dev/null | tail -1 | sed -n 's/^{"index":\([0-9]*\),.*/\1/p'; }
n_full=$(count "$T_DIR/full")
n_snap=$(count "$T_DIR/snap")
echo "instructions: full $n_full, snapshot $n_snap"
[ -n "$n_full" ] && [ -n "$n_snap" ] && [ "$n_snap" -lt "$n_full" ] && [ "$n_snap" -gt 100 ] ||
    fail "the snapshot keeps ${n_snap:-?} of ${n_full:-?} instructions"
# The same last instructions, in the same functions (addresses differ: ASLR).
last() { "$HINDSIGHT" history "$1" --json 2>/dev/null | tail -5 | sed -n 's/.*"function":"\([^"]*\)".*/\1/p'; }
[ "$(last "$T_DIR/full")" = "$(last "$T_DIR/snap")" ] || fail "the snapshot's last instructions differ"
grep -q '"snapshot"' "$T_DIR/snap/trace.json" || fail "no gap says what the snapshot dropped"

server_start --replay "$T_DIR/snap" || finish
out=$T_DIR/gdb.out
gdb_run "$out" -ex 'p v' -ex 'p p' -ex 'reverse-finish' -ex 'p v' "$prog"
show "$out"
expect "$out" "\$1 = $V"
expect "$out" "\$2 = (int *) 0x0"
expect_re "$out" "in main \(argc=2, "
expect "$out" "\$3 = $V"

finish
