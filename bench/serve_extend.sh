#!/usr/bin/env bash
# bench/serve_extend.sh HINDSIGHT: what a reverse costs after a live run
# under `hindsight serve` (docs/performance.md, "Reverse after a live
# run"). bench/extend_work.c runs BEFORE instructions' worth of work(),
# stops at mark() (live), GDB reverse-steps once (the first reverse opens
# the past: the whole recording is read, as every reverse after a live
# run did before the past was extended), continues to the present (the
# first mark again) and live through ~1e4 more instructions to mark()
# again, and reverse-steps again (the past is
# extended by what was recorded since). Each reverse-stepi is timed in
# GDB (python time.time() around it: the packets GDB exchanges with it
# included). Prints one markdown table row per size of BEFORE.
# Environment: BENCH_EXTEND_BEFORE (work() iterations before, default
# "6500 65000", ~1e5 and ~1e6 instructions with the program's start),
# BENCH_EXTEND_SINCE (iterations since, default 700, ~1e4 instructions),
# BENCH_EXTEND_TIMES (live runs and reverses after the first, default 5:
# the median is shown).
set -u

HINDSIGHT=${1:?usage: bench/serve_extend.sh HINDSIGHT}
BEFORE=${BENCH_EXTEND_BEFORE:-6500 65000}
SINCE=${BENCH_EXTEND_SINCE:-700}
TIMES=${BENCH_EXTEND_TIMES:-5}
W=$(mktemp -d /tmp/hindsight-bench-extend.XXXXXX)
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT
[ -n "${BENCH_EXTEND_KEEP:-}" ] && trap - EXIT

cc -O0 -g "$(dirname "$0")/extend_work.c" -o "$W/extend_work" || exit 1

median() { sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "nan"}'; }

# run_one BEFORE: "INSNS_BEFORE INSNS_SINCE FIRST_S EXTEND_S OPEN_MS EXTEND_MS"
# (the last two: the server's own time to make the past ready, from
# `monitor record-info`)
run_one() {
    local port
    : >"$W/server.err"
    "$HINDSIGHT" serve --once 127.0.0.1:0 "$W/extend_work" "$1" "$SINCE" "$TIMES" \
        </dev/null >"$W/server.out" 2>"$W/server.err" &
    SERVER=$!
    for _ in $(seq 200); do
        port=$(sed -n 's/.*Listening on port \([0-9]*\).*/\1/p' "$W/server.err" | tail -1)
        [ -n "$port" ] && break
        sleep 0.05
    done
    local again=()
    for _ in $(seq "$TIMES"); do
        again+=(-ex 'continue' -ex 'continue' -ex 'python t0 = time.time()' -ex 'reverse-stepi'
                -ex 'python print("BENCH-EXTEND %f" % (time.time() - t0))' -ex 'monitor when'
                -ex 'monitor record-info')
    done
    timeout 900 gdb -batch -nx -iex 'set debuginfod enabled off' \
        -ex 'set confirm off' -ex 'set pagination off' -ex "target remote 127.0.0.1:$port" \
        -ex 'break mark' -ex 'continue' \
        -ex 'python import time; t0 = time.time()' -ex 'reverse-stepi' \
        -ex 'python print("BENCH-FIRST %f" % (time.time() - t0))' -ex 'monitor when' \
        -ex 'monitor record-info' "${again[@]}" -ex 'kill' "$W/extend_work" >"$W/gdb.out" 2>&1
    wait "$SERVER" 2>/dev/null
    SERVER=
    local sizes first ext open_ms ext_ms
    sizes=$(sed -n 's/^position [0-9]* of \([0-9]*\) .*/\1/p' "$W/gdb.out" | head -2 | tr '\n' ' ')
    first=$(sed -n 's/^BENCH-FIRST //p' "$W/gdb.out")
    ext=$(sed -n 's/^BENCH-EXTEND //p' "$W/gdb.out" | median)
    open_ms=$(sed -n 's/^past: .* the last opened in \([0-9.]*\) ms .*/\1/p' "$W/gdb.out" | head -1)
    ext_ms=$(sed -n 's/^past: .* the last extended in \([0-9.]*\) ms .*/\1/p' "$W/gdb.out" | median)
    set -- $sizes
    echo "${1:-0} $(( ${2:-0} - ${1:-0} )) ${first:-nan} ${ext:-nan} ${open_ms:-nan} ${ext_ms:-nan}"
}

for b in $BEFORE; do
    read -r before since first ext open_ms ext_ms < <(run_one "$b")
    printf '| reverse-stepi after a live run, %s insns before + %s since: the past made ready (ms) | extended: %s | opened whole (every such reverse before): %s | GDB sees %.0f ms, %.0f ms at the first reverse |\n' \
        "$before" "$since" "$ext_ms" "$open_ms" "$(echo "$ext * 1000" | bc -l)" \
        "$(echo "$first * 1000" | bc -l)"
done
