#!/usr/bin/env bash
# t_kept_index: what the first command builds from a finished recording
# is kept beside it (replay/model/kept.h) and read back by the next, with
# the same answers: each trace's index (THREAD.pt.idx), the state logs'
# index (state.idx), the checksums' whole check (FILE.checked). Proven on
# racy.c (three workers and main: four threads, four state logs):
#   - the kept files are made by the first command, private (0600), and
#     read back, not made again, by the next (same inode);
#   - registers, memory and backtraces at random positions of every
#     thread, and history ranges, are the same read from kept files as
#     scanned afresh (the kept files removed), and the same again after
#     random bytes were written into the kept files (made again);
#   - a byte of a state log flipped in place (same size) after its check
#     was kept is still found: `replay` says it is damaged (`history`,
#     which reads no state log, shows the history and says nothing);
#   - a trace touched after its index was kept gets a new index.
. "$(dirname "$0")/lib.sh"
hindsight_only "reads recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog racy -O0 -g -pthread) || { fail "cannot build racy.c"; finish; }
rec=$T_DIR/rec
timeout 120 "$HINDSIGHT" record -o "$rec" -- "$prog" 3000 >"$T_DIR/record.out" 2>&1 ||
    { fail "record failed"; show "$T_DIR/record.out"; finish; }
timeout 300 "$HINDSIGHT" history "$rec" >"$T_DIR/first.txt" 2>"$T_DIR/first.err" ||
    { fail "history failed"; show "$T_DIR/first.err"; finish; }

ls "$rec"/threads/*.pt.idx >/dev/null 2>&1 || fail "history kept no trace index"
# Every thread's, and the state's, by the first command that opens them.
timeout 120 "$HINDSIGHT" replay --batch "$rec" -ex 'info threads' >"$T_DIR/threads.txt" 2>&1 ||
    { fail "replay failed"; show "$T_DIR/threads.txt"; finish; }
[ -f "$rec/threads/state.idx" ] || { fail "no state index kept"; ls -l "$rec/threads"; finish; }
npt=$(ls "$rec"/threads/*.pt | wc -l)
[ "$(ls "$rec"/threads/*.pt.idx | wc -l)" = "$npt" ] &&
    [ "$(ls "$rec"/threads/*.checked | wc -l)" = $((2 * npt)) ] ||
    { fail "not every trace's index and check is kept ($npt traces)"; ls -l "$rec/threads"; }
for f in "$rec"/threads/*.pt.idx "$rec"/threads/*.checked "$rec"/threads/state.idx; do
    [ "$(stat -c %a "$f")" = 600 ] || fail "$f is not private: $(stat -c %a "$f")"
done
inodes() { stat -c '%n %i' "$rec"/threads/*.pt.idx "$rec"/threads/*.checked "$rec"/threads/state.idx; }
inodes >"$T_DIR/inodes.1"

# Random positions of every thread: goto, registers, the stack's words, bt.
nthreads=$(grep -c '^[ *] *[0-9]' "$T_DIR/threads.txt")
[ "$nthreads" -ge 4 ] || { fail "only $nthreads threads"; show "$T_DIR/threads.txt"; finish; }
: >"$T_DIR/cmds"
for ((t = 1; t <= nthreads; t++)); do
    # (from the end, where every thread is there)
    printf 'goto end\nthread %s\n' "$t" >>"$T_DIR/cmds"
    n=$(timeout 120 "$HINDSIGHT" replay --batch "$rec" -ex "thread $t" -ex 'info record' 2>/dev/null |
        sed -n 's/.*: \([0-9]*\) instructions, .*(current)$/\1/p' | head -1)
    [ "${n:-0}" -gt 10 ] || { fail "thread $t: no instruction count"; continue; }
    for ((k = 0; k < 5; k++)); do
        p=$(( (RANDOM << 15 | RANDOM) % n + 1 ))
        printf 'goto %s\ninfo registers\nx/24gx $rsp\nbt\n' "$p" >>"$T_DIR/cmds"
    done
done
# Answers (stdout) and refusals (stderr: memory no write reached, say;
# not the progress lines of a long build) in files NAME.txt, NAME.say.
ask() { timeout 300 "$HINDSIGHT" replay --batch "$rec" -x "$T_DIR/cmds" >"$T_DIR/$1.txt" 2>"$T_DIR/$1.err"
        [ $? -le 1 ] || { fail "replay ($1) failed"; show "$T_DIR/$1.err"; }
        timeout 120 "$HINDSIGHT" history "$rec" 1,2000 >>"$T_DIR/$1.txt" 2>>"$T_DIR/$1.err" ||
            fail "history ($1) failed"
        grep -v '^hindsight: ' "$T_DIR/$1.err" >"$T_DIR/$1.say"; }
same() { cmp -s "$T_DIR/kept.txt" "$T_DIR/$1.txt" && cmp -s "$T_DIR/kept.say" "$T_DIR/$1.say"; }
ask kept
inodes >"$T_DIR/inodes.2"
cmp -s "$T_DIR/inodes.1" "$T_DIR/inodes.2" || { fail "kept files were made again with nothing changed"; diff "$T_DIR/inodes.1" "$T_DIR/inodes.2"; }
grep -q '^rax ' "$T_DIR/kept.txt" || { fail "no registers in the answers"; show "$T_DIR/kept.txt"; }
[ "$(grep -c '^rip ' "$T_DIR/kept.txt")" -ge $((5 * nthreads)) ] || fail "fewer registers than positions"

rm -f "$rec"/threads/*.pt.idx "$rec"/threads/*.checked "$rec"/threads/state.idx
ask fresh
same fresh ||
    { fail "answers from kept files differ from a fresh scan"; diff "$T_DIR/kept.txt" "$T_DIR/fresh.txt" | head -20; }
[ -f "$rec/threads/state.idx" ] || fail "the state index was not kept again"

for f in "$rec"/threads/*.pt.idx "$rec"/threads/*.checked "$rec"/threads/state.idx; do
    size=$(stat -c %s "$f")
    head -c 16 /dev/urandom | dd of="$f" bs=1 seek=$(( (RANDOM % size) )) conv=notrunc status=none
done
inodes >"$T_DIR/inodes.3"
ask damaged
same damaged ||
    { fail "answers over damaged kept files differ"; diff "$T_DIR/kept.txt" "$T_DIR/damaged.txt" | head -20; }
inodes >"$T_DIR/inodes.4"
[ "$(sort "$T_DIR/inodes.3" "$T_DIR/inodes.4" | uniq -d | wc -l)" = 0 ] ||
    { fail "damaged kept files were used"; sort "$T_DIR/inodes.3" "$T_DIR/inodes.4" | uniq -d; }

# A state log damaged in place, same size, after its check was kept.
state=$(ls "$rec"/threads/*.state | head -1)
size=$(stat -c %s "$state")
at=$((size / 2))
byte=$(od -An -tu1 -j "$at" -N1 "$state" | tr -d ' ')
printf "$(printf '\\%03o' $(( (byte ^ 0x10) & 255 )))" | dd of="$state" bs=1 seek="$at" conv=notrunc status=none
timeout 120 "$HINDSIGHT" history "$rec" 1,3 >"$T_DIR/dmg.out" 2>"$T_DIR/dmg.err"
expect_not "$T_DIR/dmg.err" "damaged"
expect_eq "history with a state log damaged: its first lines" "$(cut -f1 "$T_DIR/dmg.out" | tr '\n' ' ')" "1 2 3 "
timeout 120 "$HINDSIGHT" replay --batch "$rec" -ex 'info threads' >/dev/null 2>"$T_DIR/dmg2.err"
expect_re "$T_DIR/dmg2.err" "$(basename "$state") is damaged at byte [0-9]+"

# A trace touched: its index is made again.
# (history is asked for that trace's thread: the first trace by name is
# not the recording's first thread when the tids cross a power of ten)
pt=$(ls "$rec"/threads/*.pt | head -1)
tid=$(basename "$pt" .pt)
before=$(stat -c %i "$pt.idx")
touch "$pt"
timeout 120 "$HINDSIGHT" history --thread "$tid" "$rec" 1,3 >/dev/null 2>&1 ||
    fail "history after touch failed"
[ "$(stat -c %i "$pt.idx")" != "$before" ] || fail "an index made before its trace changed was used"
finish
