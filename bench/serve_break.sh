#!/usr/bin/env bash
# bench/serve_break.sh HINDSIGHT: how long GDB waits for its first
# breakpoint far into a real program (issue #30's target): a whole `gdb
# -batch` session that connects, sets `break exit` in `python3 -c
# 'print(1)'` (Debian's, ~3e7 instructions of start-up) and continues to
# it, under gdbserver (the peer), `hindsight serve --record on-request`
# (native until asked) and `hindsight serve --record valgrind` (live under
# Valgrind's light recorder); then, under Valgrind, what the first
# reverse-stepi there costs (the run so far rebuilt) and the second; and
# what a visit to the past costs after the program ran on live a little
# (issue #30: in proportion to what ran since): `break write` in python3
# -u -c 'print(1); print(2)', a reverse-stepi at the first hit (the
# start-up rebuilt), on to the third hit, a reverse-stepi there.
# Median of BENCH_BREAK_TIMES runs (default 3). Prints markdown table rows.
set -u

HINDSIGHT=${1:?usage: bench/serve_break.sh HINDSIGHT}
TIMES=${BENCH_BREAK_TIMES:-3}
PY=/usr/bin/python3
PROG=/usr/bin/python3
W=$(mktemp -d /tmp/hindsight-bench-break.XXXXXX)
SERVER=
cleanup() { [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null; rm -rf "$W"; }
trap cleanup EXIT

median() { sort -g | awk '{v[NR] = $1} END {print NR ? v[int((NR + 1) / 2)] : "nan"}'; }

# serve_port SERVER-COMMAND...: starts it, prints its port (gdbserver: a
# fixed free one).
start() {
    : >"$W/server.err"
    "$@" </dev/null >/dev/null 2>"$W/server.err" &
    SERVER=$!
    for _ in $(seq 200); do
        port=$(sed -n 's/.*Listening on port \([0-9][0-9]*\).*/\1/p' "$W/server.err" | tail -1)
        [ -n "$port" ] && return 0
        sleep 0.05
    done
    return 1
}

# one KIND: the seconds GDB took to reach `exit` (and, under valgrind, of
# the first and second reverse-stepi), one line.
one() {
    local kind=$1 port
    case $kind in
    gdbserver) start gdbserver --once 127.0.0.1:0 "$PROG" -c 'print(1)' ;;
    *) start "$HINDSIGHT" serve --once --record "$kind" 127.0.0.1:0 "$PROG" -c 'print(1)' ;;
    esac || { echo "nan"; return; }
    local back=()
    [ "$kind" = valgrind ] && back=(-ex 'python t0 = time.time()' -ex reverse-stepi
        -ex 'python print("BENCH-BACK1 %.3f" % (time.time() - t0)); t0 = time.time()'
        -ex reverse-stepi -ex 'python print("BENCH-BACK2 %.3f" % (time.time() - t0))')
    timeout 600 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'python import time' \
        -ex 'python t0 = time.time()' -ex "target remote 127.0.0.1:$port" -ex 'break exit' \
        -ex continue -ex 'python print("BENCH-REACH %.3f" % (time.time() - t0))' \
        "${back[@]}" -ex kill "$PROG" </dev/null >"$W/gdb.out" 2>&1
    wait "$SERVER" 2>/dev/null
    SERVER=
    grep -q 'Breakpoint 1, .*exit' "$W/gdb.out" || { echo "nan nan nan"; return; }
    echo "$(sed -n 's/^BENCH-REACH //p' "$W/gdb.out") $(sed -n 's/^BENCH-BACK1 //p' "$W/gdb.out")" \
         "$(sed -n 's/^BENCH-BACK2 //p' "$W/gdb.out")"
}

# visits: under Valgrind, the seconds of the first visit to the past (at
# the first write) and of the one after the program ran on to the third.
visits() {
    local port
    start "$HINDSIGHT" serve --once --record valgrind 127.0.0.1:0 "$PROG" -u -c 'print(1); print(2)' ||
        { echo "nan nan"; return; }
    timeout 600 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'python import time' \
        -ex "target remote 127.0.0.1:$port" -ex 'break write' -ex continue \
        -ex 'python t0 = time.time()' -ex reverse-stepi \
        -ex 'python print("BENCH-VISIT1 %.3f" % (time.time() - t0))' -ex continue -ex continue \
        -ex 'python t0 = time.time()' -ex reverse-stepi \
        -ex 'python print("BENCH-VISIT2 %.3f" % (time.time() - t0))' -ex kill "$PROG" \
        </dev/null >"$W/gdb.out" 2>&1
    wait "$SERVER" 2>/dev/null
    SERVER=
    grep -q 'rebuilding what ran since' "$W/server.err" || { echo "nan nan"; return; }
    echo "$(sed -n 's/^BENCH-VISIT1 //p' "$W/gdb.out") $(sed -n 's/^BENCH-VISIT2 //p' "$W/gdb.out")"
}

command -v gdbserver >/dev/null || { echo "| GDB reaching break exit | (no gdbserver) | | |"; exit 0; }
for kind in gdbserver on-request valgrind; do
    : >"$W/$kind"
    for _ in $(seq "$TIMES"); do one "$kind" >>"$W/$kind"; done
done
gs=$(awk '{print $1}' "$W/gdbserver" | median)
for kind in on-request valgrind; do
    t=$(awk '{print $1}' "$W/$kind" | median)
    target="target <= 2x"
    [ "$kind" = valgrind ] && target="target <= 20x + Valgrind's start-up"
    echo "| GDB reaching \`break exit\` in python3 -c 'print(1)', serve --record $kind (s, median of $TIMES) | $t | gdbserver: $gs | $($PY -c "print(f'{$t/$gs:.1f}x' if '$t' != 'nan' and '$gs' not in ('nan','0') else 'n/a')") ($target) |"
done
b1=$(awk '{print $2}' "$W/valgrind" | median)
b2=$(awk '{print $3}' "$W/valgrind" | median)
echo "| ... then the first reverse-stepi (the run so far rebuilt), and the second (s) | $b1; $b2 | | |"
: >"$W/visits"
for _ in $(seq "$TIMES"); do visits >>"$W/visits"; done
v1=$(awk '{print $1}' "$W/visits" | median)
v2=$(awk '{print $2}' "$W/visits" | median)
echo "| a reverse-stepi at python3's first write (its start-up rebuilt), and at its third after running on live (only what ran since) (s) | $v1; $v2 | | (target: in proportion to what ran since) |"
