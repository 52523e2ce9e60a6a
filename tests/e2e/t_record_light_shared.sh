#!/usr/bin/env bash
# t_record_light_shared: memory another process writes, which no syscall
# of this one brings in (vgtool/hsrec_shared.c, docs/record.md), and what
# the light recorder's input log cannot hold, which becomes a visible gap
# where it starts, never a different past (vgtool/hsrec_rebuild.c).
#   - A page mapped MAP_SHARED that a child writes into: what the parent
#     read there is logged, and the rebuild gives it back, so every
#     instruction's registers are the light run's (the rebuild's own trace
#     against the light run's); `record` no longer warns.
#   - A race on shared memory (an anonymous page and a file's, from
#     shm_open): lock xadd from both processes, a spin on the child's flag,
#     a vector load of what the child stamped. The same, register for
#     register, and the globals at the end as the program printed them;
#     the shared pages' bytes are unknown in the past, in the light and
#     the full recorder's recordings and a window of the light one alike
#     (the full recorder showed the parent's last view of them as their
#     value: flag 0 after the spin had read 1); a log whose first read of
#     shared memory is edited diverges. Code translated before the pages
#     were mapped reads them too (each mapping discards the translations),
#     and a write to /dev/null of bytes the child put there, which the
#     program never read, is not taken for a difference.
#   - Two threads read such a page in loops, with a timer's signals: each
#     thread's history is the light run's own trace of it, registers at
#     sampled positions too (another thread's turn, or a signal, right after
#     a read).
#   - The same program with MAP_PRIVATE rebuilds whole, fork and all, and
#     its end shows what it printed.
#   - io_uring (rings the kernel writes into): the rebuild stops at
#     io_uring_setup where a ring was made; where the kernel or Valgrind
#     refused it, the run rebuilds whole.
. "$(dirname "$0")/lib.sh"
hindsight_only "the light recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

prog=$(build_prog sharedmem -no-pie -pthread) || finish

# rebuild_regs NAME: NAME rebuilt whole again, with its own trace of every
# instruction's registers, which must be the light run's.
rebuild_regs()
{
    rm -rf "$T_DIR/$1.again"
    cp -r "$T_DIR/$1" "$T_DIR/$1.again"
    HINDSIGHT_REBUILD_VERIFY="$T_DIR/$1.again.ver" timeout 120 "$HINDSIGHT" rebuild \
        "$T_DIR/$1.again" >"$1.again.err" 2>&1
    expect_re "$1.again.err" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
    cut -d' ' -f2- "$T_DIR/$1.ver" >"$1.regs"
    cut -d' ' -f2- "$T_DIR/$1.again.ver" >"$1.again.regs"
    [ -s "$1.regs" ] && cmp -s "$1.regs" "$1.again.regs" ||
        fail "$1: the rebuild's registers differ from the light run's ($(cmp "$1.regs" "$1.again.regs" 2>&1 | head -1))"
}

light shared "$prog" shared
expect_eq "shared: exit status" "$(cat shared.rc)" 0
expect_re shared.out "^read [0-9]*[13579]\$"
expect_not shared.err "warning"
expect_re shared.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
rebuild_regs shared

# Threads of this process that read a page a child writes all along, and a
# timer's signals: another thread's turn and a signal come right after a
# read of shared memory. (The gate was not set again after such a read:
# the rebuild ran on past the turn, "the program does a read of shared
# memory where thread N ran next when recorded"; so did java's thread
# pools, whose hsperfdata file is mapped shared.)
light threads "$prog" threads
expect_eq "threads: exit status" "$(cat threads.rc)" 0
expect_re threads.out "^hashes [0-9]+ [0-9]+ alarms [0-9]+$"
expect_re threads.err "^hindsight: [0-9]+ instructions, 3 threads, 0 gaps"
for t in $(awk '{ print $1 }' threads.ver | sort -u); do
    awk -v t="$t" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' threads.ver \
        >"threads.$t.ips"
    "$HINDSIGHT" history "$T_DIR/threads" 1,100000000 --thread "$t" 2>/dev/null | hist_ips \
        >"threads.$t.hist"
    [ -s "threads.$t.ips" ] && cmp -s "threads.$t.ips" "threads.$t.hist" ||
        fail "threads: thread $t's history differs from the light run's"
    python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$T_DIR/threads" "$T_DIR/threads.ver" \
        "$t" 15 >"regs.threads.$t" 2>&1 ||
        { fail "threads: thread $t's registers differ from the light run's"; cat "regs.threads.$t"; }
done
rm -f threads.ver

light race "$prog" race
expect_eq "race: exit status" "$(cat race.rc)" 0
show race.out
expect_re race.out "^spins [1-9][0-9]* counter [0-9]+ child [0-9]+ seen [0-9]+$"
expect_not race.err "warning"
expect_re race.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
rebuild_regs race
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/race.full" -- "$prog" race \
    >race.full.out 2>race.full.err
# A window of its end: run lightly up to it, every read of shared memory
# given back there too; its starting memory holds no byte of the shared
# pages.
cp -r "$T_DIR/race" "$T_DIR/race.window"
cp race.out race.window.out
timeout 120 "$HINDSIGHT" rebuild --last 3000 "$T_DIR/race.window" >race.window.err 2>&1
expect_re race.window.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
expect race.window.err "the history is a window"
for rec in race race.full race.window; do
    timeout 120 "$HINDSIGHT" replay "$T_DIR/$rec" --batch -ex 'goto end' -ex 'print g_seen' \
        -ex 'print g_spins' -ex 'break waitpid' -ex reverse-continue -ex 'frame 1' \
        -ex 'print r->flag' -ex 'print r->late' -ex 'print *stamp' >"$rec.replay" 2>&1
    expect_eq "$rec: the hash of what the parent read, and its spins, at the end" \
        "$(sed -n 's/^\$[0-9]* = //p' "$rec.replay" | tr '\n' ' ')" \
        "$(sed -n 's/.* counter .* seen \([0-9]*\)$/\1/p' "$rec.out") $(sed -n 's/^spins \([0-9]*\) .*/\1/p' "$rec.out") "
    # (Not its last view of them: the child's writes are not in it.)
    [ "$(grep -c "Cannot access memory at address" "$rec.replay")" = 3 ] ||
        { fail "$rec: the shared page's bytes are shown as known"; show "$rec.replay"; }
done
# The first read of shared memory in the log, edited: the rebuild diverges.
cp -r "$T_DIR/race" "$T_DIR/race.edited"
python3 - "$T_DIR/race.edited/inputs.hsin" <<'PY' || fail "race: no read of shared memory in the log"
import struct, sys
d = bytearray(open(sys.argv[1], 'rb').read())
off = 0
while off + 8 <= len(d):
    kind, n = struct.unpack_from('<II', d, off)
    if kind == 17:                       # HSIN_LOAD: tid, size, address, bytes
        d[off + 8 + 16] ^= 0x5a
        open(sys.argv[1], 'wb').write(d)
        sys.exit(0)
    off += 8 + n
sys.exit(1)
PY
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/race.edited" >race.edited.err 2>&1
expect race.edited.err "the rebuild diverged from the recording"
expect_re race.edited.err "^hindsight: [0-9]+ instructions, 1 thread, 1 gap"

light private "$prog" private
expect_eq "private: exit status" "$(cat private.rc)" 0
expect private.out "read 0"
expect_re private.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
expect_not private.err "warning"
# The whole run, up to its exit: the end of the history is in _exit's
# syscall of the parent, as natively.
timeout 120 "$HINDSIGHT" replay "$T_DIR/private" --batch -ex 'goto end' -ex 'bt 1' \
    >private.end 2>&1
expect_re private.end "^#0 .*exit"

light uring "$prog" uring
expect_eq "uring: exit status" "$(cat uring.rc)" 0
show uring.out uring.err
if grep -q "made a ring" uring.out; then
    expect_re uring.err "the program sets up io_uring: what the kernel writes into its rings is not in the input log"
    expect_re uring.err "warning: the program sets up io_uring, whose rings the kernel writes \\(the syscall at 0x[0-9a-f]+\\): the rebuild of its history will stop there"
else
    expect_re uring.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
fi
finish
