#!/usr/bin/env bash
# t_record_valgrind_snapshot: `record --record=valgrind --snapshot SIZE`
# keeps each thread's newest SIZE bytes of trace and state log as a ring
# while the program runs (stub/recorders/stub_rec_ring.c).
#   - Exact: Valgrind runs a program the same way every time, so the kept
#     history is the full recording's last part, address for address, and
#     the registers and memory `replay` shows at the kept part's first
#     positions (the checkpoint it was cut at) and later ones are the full
#     recording's at the same instructions.
#   - The bundle says what it dropped (a "snapshot" gap) and what it kept.
#   - Disk, sampled while a long run records: never much over twice SIZE,
#     while the run writes tens of times that.
#   - Stopped with SIGTERM mid-run: the bundle is saved and cut, and its
#     count equals the decoded history's (the trace ends where the count
#     does, not at the next branch).
. "$(dirname "$0")/lib.sh"
hindsight_only "the Valgrind recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

churn=$(build_prog churn) || finish
N=$(rand_int 150000 200000)
SIZE=2097152
"$HINDSIGHT" record --record=valgrind -o "$T_DIR/full" -- "$churn" "$N" >full.out 2>full.err
expect_eq "full recording: exit status" "$?" 0
"$HINDSIGHT" record --record=valgrind --snapshot 2M -o "$T_DIR/snap" -- "$churn" "$N" \
    >snap.out 2>snap.err
expect_eq "snapshot recording: exit status" "$?" 0
show full.err snap.err
cmp -s full.out snap.out || fail "the program printed other things"
count() { sed -n 's/.*"instructions": *\([0-9]*\).*/\1/p' "$1/trace.json" | head -1; }
n_full=$(count "$T_DIR/full")
n_snap=$(count "$T_DIR/snap")
echo "instructions: full $n_full, kept $n_snap"
[ -n "$n_snap" ] && [ "$n_snap" -gt 10000 ] && [ "$n_snap" -lt "$((n_full / 4))" ] ||
    fail "the snapshot kept ${n_snap:-?} of ${n_full:-?} instructions"
expect snap.err "hindsight: --snapshot kept the newest $n_snap instructions ("
kept=$(du -sb --apparent-size "$T_DIR/snap/threads" | cut -f1)
[ "$kept" -le $((SIZE + 65536)) ] || fail "the snapshot's threads hold $kept bytes (size $SIZE)"
grep -q '"snapshot"' "$T_DIR/snap/trace.json" || fail "no gap says what the snapshot dropped"

# The same instructions: the kept part is the full history's end.
d=$((n_full - n_snap))
ips() { "$HINDSIGHT" history "$1" "$2" 2>/dev/null | awk '{ print $2 }'; }
ips "$T_DIR/snap" "1,200" >snap.head
ips "$T_DIR/full" "$((d + 1)),$((d + 200))" >full.head
ips "$T_DIR/snap" "$((n_snap - 1999)),$n_snap" >snap.tail
ips "$T_DIR/full" "$((n_full - 1999)),$n_full" >full.tail
[ "$(wc -l <snap.head)" = 200 ] && cmp -s snap.head full.head ||
    fail "the kept history does not start where the full one is at $((d + 1))"
[ "$(wc -l <snap.tail)" = 2000 ] && cmp -s snap.tail full.tail ||
    fail "the kept history does not end as the full one does"

# The same registers, and memory the same where the snapshot knows it: a
# byte no write in the kept part touched is refused ("Cannot access"), as
# nothing in the recording says what it was; most words read are known.
args_at() {
    local off=$1 p
    shift
    for p in "$@"; do
        printf -- '-ex\ngoto %s\n-ex\ninfo registers\n' "$((p + off))"
        printf -- '-ex\nx/1gx $rsp + %s\n' 0 8 16 24
        printf -- '-ex\nx/1gx $rbp - %s\n' 8 0x28
    done
}
pos="1 2 3 $(rand_int 4 40) $((n_snap / 3)) $((n_snap / 2)) $(rand_int 100 $((n_snap - 100))) $((n_snap - 1))"
mapfile -t a_snap < <(args_at 0 $pos)
mapfile -t a_full < <(args_at "$d" $pos)
"$HINDSIGHT" replay "$T_DIR/snap" --batch "${a_snap[@]}" >regs.snap 2>&1
"$HINDSIGHT" replay "$T_DIR/full" --batch "${a_full[@]}" >regs.full 2>&1
expect_eq "register dumps in the snapshot" "$(grep -c '^rax ' regs.snap)" 8
expect_not regs.snap "unavailable"
python3 - regs.snap regs.full >regs.cmp <<'PY' || { fail "the snapshot differs from the full recording"; cat regs.cmp; }
import re, sys
snap, full = (open(f).read().splitlines() for f in sys.argv[1:3])
if len(snap) != len(full):
    sys.exit(f"{len(snap)} lines against {len(full)}")
known = refused = 0
err = r"<error: Cannot access memory at address 0x[0-9a-f]+>"
for a, b in zip(snap, full):
    # (x prints the address and its tab first, as GDB does)
    m = re.match(r"(?:0x[0-9a-f]+:\t)?Cannot access memory at address (0x[0-9a-f]+)$", a)
    # a frame line's argument the snapshot no longer has: refused too
    arg = re.search(err, a) and re.fullmatch(
        "[^,()]+".join(re.escape(p) for p in re.split(err, a)), b)
    if (m and b.startswith(m.group(1) + ":")) or arg:
        refused += 1
    elif a != b:
        sys.exit(f"snapshot: {a!r}\nfull:     {b!r}")
    elif re.match(r"0x[0-9a-f]+:\t", a):
        known += 1
print(f"{known} words known, {refused} refused")
if known < 2 * refused or known < 24:
    sys.exit("too few words known")
PY
show regs.cmp

# A long run: disk sampled as it records, then SIGTERM.
"$HINDSIGHT" record --record=valgrind --snapshot 2M -o "$T_DIR/long" -- "$churn" 100000000 \
    >long.out 2>long.err &
rec=$!
track_pid "$rec"
max=0 samples=0
for _ in $(seq 1 40); do
    sleep 0.1
    kb=$(du -sk "$T_DIR/long" 2>/dev/null | cut -f1)
    [ -n "$kb" ] && samples=$((samples + 1)) && [ "$kb" -gt "$max" ] && max=$kb
done
kill -TERM "$rec"
wait "$rec"
show long.err
echo "disk while recording: at most $max KiB over $samples samples"
[ "$samples" -ge 20 ] || fail "only $samples samples of the disk use"
[ "$max" -le $((3 * SIZE / 1024)) ] || fail "the ring held $max KiB on disk (size $((SIZE / 1024)) KiB)"
st=$(sed -n 's/.*, \([0-9]*\) bytes of state (.*/\1/p' long.err)
[ -n "$st" ] && [ "$st" -gt $((20 * SIZE)) ] ||
    fail "the long run wrote ${st:-?} bytes of state: too few to prove the ring"
n_long=$(count "$T_DIR/long")
last=$("$HINDSIGHT" history "$T_DIR/long" 2>/dev/null | tail -1 | awk '{ print $1 }')
expect_eq "stopped by SIGTERM: the bundle's count, the decoded history's" "$n_long" "$last"
kept=$(du -sb --apparent-size "$T_DIR/long/threads" | cut -f1)
[ "$kept" -le $((SIZE + 65536)) ] || fail "after SIGTERM the threads hold $kept bytes"
"$HINDSIGHT" replay "$T_DIR/long" --batch -ex 'info registers rip rsp' >long.regs 2>&1
expect_re long.regs "^rip +0x[0-9a-f]+ "
expect_re long.regs "^rsp +0x1fff[0-9a-f]+ "
finish
