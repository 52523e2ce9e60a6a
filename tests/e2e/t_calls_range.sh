#!/usr/bin/env bash
# t_calls_range: `hindsight calls DIR RANGE` decodes its range only, from
# the marks a first walk over the history left (one every 1024 segments,
# replay/decode/calls.h), and lists exactly what the whole walk lists:
# here what `hindsight replay`'s `calls` command gives, which keeps every
# segment of the history. Ranges on the marks and around them, the first
# and the last segments, random ones, and the whole history (more than one
# batch of 65536 segments), with and without /i /l /c. calltree.c makes
# ~93K segments: recursion, a loop of calls, signal handlers, libc.
# The marks are kept beside the trace (THREAD.pt.calls, private) for the
# next listing; a damaged file, or one made before the program's file
# changed, is made again.
. "$(dirname "$0")/lib.sh"
hindsight_only "reads recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog calltree -O0 -g) || { fail "cannot build calltree.c"; finish; }
rec=$T_DIR/rec
timeout 120 "$HINDSIGHT" record -o "$rec" -- "$prog" 17 40000 3 >"$T_DIR/record.out" 2>&1 ||
    { fail "record failed"; show "$T_DIR/record.out"; finish; }
timeout 300 "$HINDSIGHT" calls "$rec" >"$T_DIR/last.txt" 2>"$T_DIR/last.err" ||
    { fail "calls failed"; show "$T_DIR/last.err"; finish; }
n=$(awk -F'\t' 'END { print $1 }' "$T_DIR/last.txt")
[ "${n:-0}" -gt 70000 ] || { fail "only ${n:-0} segments"; finish; }
echo "$n segments"
marks=$(ls "$rec"/threads/*.pt.calls 2>/dev/null | head -1)
[ -n "$marks" ] || { fail "no marks kept beside the trace"; ls -l "$rec/threads"; finish; }
[ "$(stat -c %a "$marks")" = 600 ] || fail "the marks are not private: $(stat -c %a "$marks")"
inode=$(stat -c %i "$marks")

ranges=(1,1 1,40 1023,1026 1024,1024 1025,2049 3071,3073 "$((n - 30)),$n" "$n,$n"
        65530,65540 1,"$n")
for ((k = 0; k < 6; k++)); do
    b=$(( (RANDOM << 15 | RANDOM) % (n - 1) + 1 ))   # (RANDOM alone stops at 32767)
    e=$((b + RANDOM % 3000))
    ranges+=("$b,$((e < n ? e : n))")
done

: >"$T_DIR/cli.txt"
ex=()
mods=("" /ilc /l)
for ((k = 0; k < ${#ranges[@]}; k++)); do
    m=${mods[$((k % 3))]}
    timeout 120 "$HINDSIGHT" calls "$rec" "${ranges[$k]}" $m >>"$T_DIR/cli.txt" 2>"$T_DIR/cli.err" ||
        { fail "calls ${ranges[$k]} $m failed"; show "$T_DIR/cli.err"; }
    ex+=(-ex "calls ${ranges[$k]} $m")
done
timeout 300 "$HINDSIGHT" replay --batch "$rec" "${ex[@]}" >"$T_DIR/replay.out" 2>"$T_DIR/replay.err" ||
    { fail "replay failed"; show "$T_DIR/replay.err"; }
# The REPL also says where it stands when it opens (a source line, "N\tin
# FILE" where the source is not here): the listings only.
grep -E '^[0-9]+	' "$T_DIR/replay.out" | grep -Ev '^[0-9]+	in ' >"$T_DIR/replay.txt"
lines=$(wc -l <"$T_DIR/cli.txt")
[ "$lines" -gt "$n" ] || fail "the listings have $lines lines, fewer than the $n of the whole"
if ! cmp -s "$T_DIR/cli.txt" "$T_DIR/replay.txt"; then
    fail "hindsight calls differs from the whole walk (replay's calls)"
    diff "$T_DIR/cli.txt" "$T_DIR/replay.txt" | head -20
fi
echo "ranges: ${ranges[*]}; $lines lines the same"
[ "$(stat -c %i "$marks")" = "$inode" ] || fail "the kept marks were made again with nothing changed"

# Damaged: made again, and the listing is the same.
# (stderr apart: a walk longer than a second says how far it has come.)
timeout 60 "$HINDSIGHT" calls "$rec" 3000,5000 /ilc >"$T_DIR/before.txt" 2>"$T_DIR/before.err"
head -c 100 /dev/urandom | dd of="$marks" bs=1 seek=64 conv=notrunc status=none
timeout 120 "$HINDSIGHT" calls "$rec" 3000,5000 /ilc >"$T_DIR/again.txt" 2>"$T_DIR/again.err" ||
    { fail "calls over damaged marks failed"; show "$T_DIR/again.err"; }
[ "$(wc -l <"$T_DIR/again.txt")" = 2001 ] && cmp -s "$T_DIR/before.txt" "$T_DIR/again.txt" ||
    fail "the listing over damaged marks differs"
[ "$(stat -c %i "$marks")" != "$inode" ] || fail "damaged marks were not made again"
inode=$(stat -c %i "$marks")
# The program's file changed (its symbols may have): made again.
touch "$prog"
timeout 120 "$HINDSIGHT" calls "$rec" 1,3 >/dev/null 2>&1 || fail "calls after touch failed"
[ "$(stat -c %i "$marks")" != "$inode" ] || fail "marks made before the program changed were used"
finish
