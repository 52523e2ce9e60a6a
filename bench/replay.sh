#!/usr/bin/env bash
# bench/replay.sh: the replay engine's part of `make bench` (run by
# bench/run.sh). Prints markdown table rows:
#   - reverse-step and step latency (median, p99) at 1000 random positions of
#     a software recording of bench/work.c with at least 10 million
#     instructions, and the cost of jumping there (one PSB period decoded);
#   - the reverse-continue scan rate from the end of that history to a
#     breakpoint at its first instruction, against GDB's record full
#     reverse-continue over the largest history it records in about a minute
#     of the same program (BENCH_GDB_RC_N iterations of work(), default
#     40000, about 1M instructions).
# The recording is made once and kept in CACHE (build/bench-cache), keyed by
# work.c and the iteration count.
# Usage: bench/replay.sh HINDSIGHT BENCH_REPLAY CACHE
set -u

HINDSIGHT=${1:?usage: bench/replay.sh HINDSIGHT BENCH_REPLAY CACHE}
BENCH_REPLAY=${2:?usage: bench/replay.sh HINDSIGHT BENCH_REPLAY CACHE}
CACHE=${3:?usage: bench/replay.sh HINDSIGHT BENCH_REPLAY CACHE}
N=${BENCH_REPLAY_N:-420000}
GDB_N=${BENCH_GDB_RC_N:-40000}
PY=/usr/bin/python3
SRC=$(dirname "$0")/work.c

mkdir -p "$CACHE"
key=$(md5sum <"$SRC" | cut -c1-12)-$N
rec=$CACHE/work-$key

# Records into a private directory renamed into place, under a lock, so two
# runs never write (or delete) the same recording.
record_once() {
    local tmp
    exec 9>"$CACHE/.lock"
    flock 9
    if [ "${1:-}" = again ] || [ ! -r "$rec/trace.json" ] ||
        ! grep -q '"complete": *true' "$rec/trace.json"; then
        if [ ! -x "$CACHE/work" ] || [ "$SRC" -nt "$CACHE/work" ]; then
            cc -O0 -g "$SRC" -o "$CACHE/work.tmp.$$" && mv -f "$CACHE/work.tmp.$$" "$CACHE/work" ||
                { flock -u 9; return 1; }
        fi
        tmp=$(mktemp -d "$CACHE/rec.XXXXXX")
        echo "(recording bench/work.c $N once into $rec: a few minutes)" >&2
        if ! "$HINDSIGHT" record --record=sw -o "$tmp/rec" -- "$CACHE/work" "$N" >"$tmp/record.out" 2>&1; then
            echo "| replay | (recording failed: $(tail -1 "$tmp/record.out")) | | |"
            rm -rf "$tmp"
            flock -u 9
            return 1
        fi
        rm -rf "$rec"
        mv "$tmp/rec" "$rec"
        rm -rf "$tmp"
    fi
    flock -u 9
}

record_once || exit 0
# A cached recording that no longer reads (files lost) is made again, once.
out=$("$BENCH_REPLAY" "$rec" 1000 2>&1) ||
    { record_once again && out=$("$BENCH_REPLAY" "$rec" 1000); } ||
    { echo "| replay | (bench_replay failed) | | |"; exit 0; }
field() { echo "$out" | awk -v k="$1" -v f="$2" '$1 == k {print $f}'; }
items=$(field index 2)
echo "| reverse-step latency, random positions of $items insns (median / p99) | $(field reverse-step 3) / $(field reverse-step 6) us | | target p99 < 1000 us |"
echo "| step latency, same positions (median / p99) | $(field step 3) / $(field step 6) us | | |"
echo "| jump to a random position: one PSB period decoded (median / p99) | $(field jump 3) / $(field jump 6) us | | |"
hs_rate=$(field reverse-continue 6)
hs_items=$(field reverse-continue 2)
hs_secs=$(field reverse-continue 4)

# GDB record full: record work() for about a minute, then reverse-continue
# from its end to the breakpoint at its start.
gdb_out=$(timeout 900 gdb -batch -nx \
    -ex 'break work' -ex 'run' -ex 'record full' \
    -ex 'set record full insn-number-max unlimited' \
    -ex 'finish' -ex 'info record' \
    -ex 'python import time; t0 = time.time()' \
    -ex 'reverse-continue' \
    -ex 'python print("BENCH-ELAPSED %f" % (time.time() - t0))' \
    --args "$CACHE/work" "$GDB_N" 2>&1)
gdb_insns=$(echo "$gdb_out" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
gdb_secs=$(echo "$gdb_out" | sed -n 's/^BENCH-ELAPSED //p')
gdb_rate=$($PY -c "import sys; n,t=float(sys.argv[1] or 0),float(sys.argv[2] or 0); print(f'{n/t:.0f}' if t>0 else 'n/a')" "${gdb_insns:-0}" "${gdb_secs:-0}")
ratio=$($PY -c "print(f'{float(\"$hs_rate\")/float(\"$gdb_rate\"):.0f}x' if '$gdb_rate' not in ('n/a','0','') and '$hs_rate' else 'n/a')")
echo "| reverse-continue scan (insn/s) | $hs_rate ($hs_items insns in $hs_secs s) | GDB record full: $gdb_rate (${gdb_insns:-?} insns in ${gdb_secs:-?} s) | $ratio (target >= 100x) |"
