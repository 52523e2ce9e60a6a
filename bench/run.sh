#!/usr/bin/env bash
# bench/run.sh: `make bench`. Measures hindsight against its peers on this
# machine, side by side, and prints one markdown table (docs/performance.md
# quotes it):
#   - recording rate: `hindsight record` vs GDB's `record full` on the same
#     program (bench/work.c), in instructions per second;
#   - the single-step floor both are bound by: bench/ss_floor.c steps the
#     same program with nothing but PTRACE_SINGLESTEP + waitpid (and again
#     with PTRACE_GETREGS too) per instruction; each recorder's rate as a
#     fraction of it;
#   - trace size: PT bytes and state-log bytes per instruction;
#   - decoding: libipt's own instruction and block decoders on the same stream
#     (build/bench/bench_decode), the peers of hindsight's indexing.
# Usage: bench/run.sh HINDSIGHT BENCH_DECODE
# Environment: BENCH_GDB_N (work() iterations under GDB, default 20000, ~0.5M
# instructions, ~25 s), BENCH_N (iterations under hindsight, default 60000, ~1.5M instructions),
# BENCH_SS_N (iterations single-stepped by ss_floor, default 4000, ~0.2M steps, twice),
# BENCH_VG_N (iterations under the Valgrind recorder, default 40000000, ~1e9
# instructions, under a minute; the state log takes ~8 GB of /tmp),
# BENCH_SKIP_REPLAY=1 (leave out bench/replay.sh: its first run records for ~15 min),
# BENCH_ONLY=serve_extend (only bench/serve_extend.sh's rows: a reverse after a
# live run under `hindsight serve`, ~1 min), BENCH_ONLY=serve_break (only
# bench/serve_break.sh's: GDB's first breakpoint far into python3 under
# gdbserver, serve --record on-request and --record valgrind, ~30 s), BENCH_ONLY=light (only the light
# recorder's rows, ~5 min: bench/work.c, python3, `hindsight run` on
# bench/crash.c, against the full recorder on the same run; BENCH_FULL_SECS
# and BENCH_VG_INSNS: its time and count instead).
set -u

HINDSIGHT=${1:?usage: bench/run.sh HINDSIGHT BENCH_DECODE}
BENCH_DECODE=${2:?usage: bench/run.sh HINDSIGHT BENCH_DECODE}
GDB_N=${BENCH_GDB_N:-20000}
HS_N=${BENCH_N:-60000}
SS_N=${BENCH_SS_N:-4000}
VG_N=${BENCH_VG_N:-40000000}
PY=/usr/bin/python3
W=$(mktemp -d /tmp/hindsight-bench.XXXXXX)
trap 'rm -rf "$W"' EXIT

cc -O0 -g "$(dirname "$0")/work.c" -o "$W/work" || exit 1
cc -O0 -g "$(dirname "$0")/crash.c" -o "$W/crash" || exit 1
cc -O2 "$(dirname "$0")/ss_floor.c" -o "$W/ss_floor" || exit 1
if [ "${BENCH_ONLY:-}" = serve_extend ] || [ "${BENCH_ONLY:-}" = serve_break ]; then
    echo "| measure | hindsight | peer | ratio |"
    echo "|---|---|---|---|"
    "$(dirname "$0")/${BENCH_ONLY}.sh" "$HINDSIGHT"
    exit
fi

now() { date +%s.%N; }
# settle: what came before written back and, where allowed (root), the
# page cache emptied, so that the two commands that each write a state log
# of 8 GB (the full recorder, the rebuild from the light log) start from
# the same memory: the second one otherwise writes while the first one's
# pages fill most of the machine's.
settle() {
    sync
    [ -w /proc/sys/vm/drop_caches ] && echo 1 > /proc/sys/vm/drop_caches 2>/dev/null
    return 0
}
rate() { $PY -c "import sys; n,t=float(sys.argv[1]),float(sys.argv[2]); print(f'{n/t:.0f}' if t>0 else 'n/a')" "$1" "$2"; }

# GDB record full: the time of `finish` out of work(), recorded.
if [ "${BENCH_ONLY:-}" != light ]; then
gdb_line=$(timeout 600 gdb -batch -nx \
    -ex 'break work' -ex 'run' -ex 'record full' \
    -ex 'set record full insn-number-max unlimited' \
    -ex 'python import time; t0 = time.time()' \
    -ex 'finish' \
    -ex 'python print("BENCH-ELAPSED %f" % (time.time() - t0))' \
    -ex 'info record' --args "$W/work" "$GDB_N" 2>&1)
gdb_insns=$(echo "$gdb_line" | sed -n 's/^Log contains \([0-9]*\) instructions.*/\1/p')
gdb_secs=$(echo "$gdb_line" | sed -n 's/^BENCH-ELAPSED //p')
gdb_rate=$(rate "${gdb_insns:-0}" "${gdb_secs:-0}")

# The single-step floor, on the same program, with the stepper and the
# program on one CPU as hindsight's recorder runs (docs/performance.md).
ss_out=$(taskset -c 0 "$W/ss_floor" "$W/work" "$SS_N" 2>&1)
ss_bare=$(echo "$ss_out" | awk '$2 == "bare" {print $7}')
ss_regs=$(echo "$ss_out" | awk '$2 == "regs" {print $7}')
ss_bare_us=$(echo "$ss_out" | awk '$2 == "bare" {print $9}')
ss_regs_us=$(echo "$ss_out" | awk '$2 == "regs" {print $9}')
fi
# of_floor RATE FLOOR: RATE as a percentage of FLOOR.
of_floor() { $PY -c "import sys; r,f=sys.argv[1],sys.argv[2]; print(f'{100*float(r)/float(f):.0f}%' if r not in ('','n/a') and f not in ('','0') else 'n/a')" "$1" "$2"; }
# floor_row HS_RATE: the floor's row of the table, each recorder against it.
floor_row() {
    local hs=""
    [ -n "$1" ] && hs="hindsight record at $(of_floor "$1" "$ss_bare") of the bare floor, $(of_floor "$1" "$ss_regs") of the one with GETREGS"
    echo "| single-step floor on one CPU (steps/s): PTRACE_SINGLESTEP + waitpid; the same + PTRACE_GETREGS | $hs | ${ss_bare:-n/a} (${ss_bare_us:-?} us/step); ${ss_regs:-n/a} (${ss_regs_us:-?} us/step); GDB record full at $(of_floor "$gdb_rate" "$ss_bare") / $(of_floor "$gdb_rate" "$ss_regs") | |"
}
# vg_rows PTRACE_RATE PTRACE_BYTES: the Valgrind recorder (--record=valgrind) on the same
# program with many more iterations, against the ptrace recorder's rate,
# native execution and Valgrind running no tool (--tool=none, the floor).
vg_rows() {
    local t0 t1 secs insns pt native none
    if ! "$HINDSIGHT" record --record=valgrind -o "$W/vgprobe" -- /bin/true >/dev/null 2>&1; then
        echo "| Valgrind recorder | (not available: see hindsight doctor) | | |"
        return
    fi
    t0=$(now); "$W/work" "$VG_N" >/dev/null; t1=$(now)
    native=$($PY -c "print($t1 - $t0)")
    t0=$(now); valgrind -q --tool=none "$W/work" "$VG_N" >/dev/null; t1=$(now)
    none=$($PY -c "print($t1 - $t0)")
    settle
    t0=$(now)
    "$HINDSIGHT" record --record=valgrind -o "$W/vgrec" -- "$W/work" "$VG_N" >"$W/vgrec.out" 2>&1
    t1=$(now)
    secs=$($PY -c "print($t1 - $t0)")
    read -r insns pt st < <(sed -n 's/^hindsight: \([0-9]*\) instructions, .*, \([0-9]*\) bytes of trace.*, \([0-9]*\) bytes of state.*/\1 \2 \3/p' "$W/vgrec.out")
    local rate
    rate=$(rate "${insns:-0}" "$secs")
    echo "| Valgrind recorder, with registers and memory (insn/s) | $rate (${insns:-?} insns in $(secs1 "$secs") s) | ptrace recorder: $1 | $($PY -c "print(f'{float(\"$rate\")/float(\"$1\"):.0f}x' if '$1' not in ('n/a','0','') else 'n/a')") (target >= 1000x) |"
    echo "| Valgrind recorder: slowdown against native | $($PY -c "print(f'{$secs/$native:.0f}x')") ($(secs1 "$secs") s / $($PY -c "print(f'{$native:.2f}')") s native) | valgrind --tool=none: $($PY -c "print(f'{$none/$native:.0f}x')") | target <= 50x |"
    # The bytes again on the ptrace recorder's run (the same iterations):
    # how much a log takes depends on how long the program runs.
    local same=""
    if "$HINDSIGHT" record --record=valgrind -o "$W/vgsame" -- "$W/work" "$HS_N" >"$W/vgsame.out" 2>&1; then
        read -r sn sp ss < <(sed -n 's/^hindsight: \([0-9]*\) instructions, .*, \([0-9]*\) bytes of trace.*, \([0-9]*\) bytes of state.*/\1 \2 \3/p' "$W/vgsame.out")
        same="; $($PY -c "print(f'{${sp:-0}/max(${sn:-0},1):.3f} + {${ss:-0}/max(${sn:-0},1):.2f}')") at the ptrace recorder's $HS_N iterations"
    fi
    echo "| Valgrind recorder: PT + state-log bytes per instruction | $($PY -c "print(f'{${pt:-0}/max(${insns:-0},1):.3f} + {${st:-0}/max(${insns:-0},1):.2f}')") at $VG_N iterations$same | ptrace recorder: $2 at $HS_N | target <= 8 B/insn in all |"
    light_rows "$none" "$secs" "${insns:-0}"
    timeline_rows "$W/vgrec" "${insns:-0}"
}

# light_rows NONE_SECS FULL_SECS INSNS: the light recorder (--record=light)
# on the same run: the program's run logging its inputs against Valgrind
# with no tool and against the full recorder, the log's bytes, the first
# `history` (the history alone rebuilt, then indexed) against the rebuild
# of the full bundle from it (`hindsight rebuild`) and a first `history` after it.
light_rows() {
    local out=$W/light.out run wall rebuild bytes t0 t1 pynone pylight crnone crrun hfirst hafter
    sync    # the full recorder's 8 GB written back before these are timed
    t0=$(now)
    "$HINDSIGHT" record --record=light -o "$W/light" -- "$W/work" "$VG_N" >"$out" 2>&1 || {
        echo "| light recorder | (failed: $(tail -1 "$out")) | | |"
        return
    }
    t1=$(now)
    wall=$($PY -c "print($t1 - $t0)")
    # "recording in DIR: the run's inputs, N bytes, in T s; ..."
    read -r bytes run < <(sed -n "s/^hindsight: recording in .*: the run's inputs, \([0-9]*\) bytes, in \([0-9.]*\) s;.*/\1 \2/p" "$out")
    cp -r "$W/light" "$W/lighth"
    t0=$(now)
    "$HINDSIGHT" history "$W/lighth" 1,1 >"$W/lighth.out" 2>&1 || hfirst=failed
    t1=$(now)
    [ "${hfirst:-}" = failed ] || hfirst=$($PY -c "print($t1 - $t0)")
    rm -rf "$W/lighth"
    settle  # the rebuild timed as the full recorder was
    t0=$(now)
    "$HINDSIGHT" rebuild "$W/light" >"$W/rebuild.out" 2>&1
    t1=$(now)
    rebuild=$($PY -c "print($t1 - $t0)")
    t0=$(now)
    "$HINDSIGHT" history "$W/light" 1,1 >"$W/lighta.out" 2>&1 || hafter=failed
    t1=$(now)
    [ "${hafter:-}" = failed ] || hafter=$($PY -c "print($t1 - $t0)")
    echo "| light recorder (--record=light): the program's run against valgrind --tool=none | $($PY -c "print(f'{${run:-0}/$1:.2f}x')") (${run:-?} s / $($PY -c "print(f'{$1:.2f}')") s); the whole command $($PY -c "print(f'{$wall/$1:.2f}x')") ($(secs1 "$wall") s) | full recorder: $($PY -c "print(f'{$2/max(${run:-0},0.001):.0f}x')") slower ($(secs1 "$2") s) | target <= 2x none, >= 20x faster than full |"
    echo "| light recorder: input bytes per instruction | $($PY -c "print(f'{${bytes:-0}/max($3,1):.6f}')") (${bytes:-?} bytes) | | target <= 0.1 |"
    echo "| light recorder: the full bundle rebuilt from the inputs | $(secs1 "$rebuild") s | full recorder: $(secs1 "$2") s | target <= the full recorder's time |"
    if [ "$hfirst" = failed ] || [ "$hafter" = failed ]; then
        echo "| light recorder: the first \`history\` | (failed: $(tail -1 "$W/lighth.out") / $(tail -1 "$W/lighta.out")) | | |"
    else
        echo "| light recorder: the first \`history\` (the history alone rebuilt, then indexed) | $(secs1 "$hfirst") s | the whole rebuilt, then the first \`history\`: $(secs1 "$rebuild") + $(secs1 "$hafter") s | $($PY -c "print(f'{($rebuild + $hafter)/max($hfirst,0.001):.1f}x faster')") |"
    fi
    # python3 -c 'import json' (the issue's second program), whole commands.
    t0=$(now); valgrind -q --tool=none /usr/bin/python3 -c 'import json' >/dev/null 2>&1; t1=$(now)
    pynone=$($PY -c "print($t1 - $t0)")
    t0=$(now)
    "$HINDSIGHT" record --record=light -o "$W/pylight" -- /usr/bin/python3 -c 'import json' >"$W/pylight.out" 2>&1
    t1=$(now)
    pylight=$($PY -c "print($t1 - $t0)")
    echo "| light recorder on python3 -c 'import json' (whole commands) | $($PY -c "print(f'{$pylight/$pynone:.2f}x')") ($(secs1 "$pylight") s) | valgrind --tool=none: $(secs1 "$pynone") s | target <= 2x none |"
    # run on a crash after ~10^9 instructions: the light run, the window
    # rebuilt beside it (and, for comparison, after it:
    # HINDSIGHT_RUN_TRAIL=0), the explanation.
    # (In a subshell: the shell would say the crash.)
    t0=$(now); (valgrind -q --tool=none "$W/crash" "$VG_N" >/dev/null 2>&1) 2>/dev/null; t1=$(now)
    crnone=$($PY -c "print($t1 - $t0)")
    for trail in 1 0; do
        t0=$(now)
        HINDSIGHT_RUN_TRAIL=$trail "$HINDSIGHT" run -o "$W/run$trail" -- "$W/crash" "$VG_N" \
            >"$W/run$trail.out" 2>&1
        t1=$(now)
        crrun=$($PY -c "print($t1 - $t0)")
        how="the window rebuilt beside the run"
        [ "$trail" = 0 ] && how="the window rebuilt after the run (HINDSIGHT_RUN_TRAIL=0)"
        if grep -q "crash_here" "$W/run$trail.out"; then
            echo "| hindsight run: a crash after $3 instructions, recorded and explained, $how | $($PY -c "print(f'{$crrun/$crnone:.2f}x')") ($(secs1 "$crrun") s) | valgrind --tool=none: $(secs1 "$crnone") s | target <= 3x none |"
        else
            echo "| hindsight run: a crash after $3 instructions, $how | (no explanation: $(tail -1 "$W/run$trail.out")) | | |"
        fi
    done
}

# timeline_rows REC INSNS: `hindsight timeline` of REC into a page, and the
# time the page takes to draw in headless Chromium (tests/e2e/tools/page_check.py).
timeline_rows() {
    local t0 t1 secs spans ms
    t0=$(now)
    "$HINDSIGHT" timeline "$1" -o "$W/timeline.html" 2>"$W/timeline.err"
    t1=$(now)
    secs=$($PY -c "print($t1 - $t0)")
    spans=$(sed -n 's/.* instructions, \([0-9]*\) spans, done/\1/p' "$W/timeline.err")
    echo "| timeline of that recording (insn/s) | $(rate "$2" "$secs") ($(secs1 "$secs") s; ${spans:-?} spans, $(( $(stat -c %s "$W/timeline.html") / 1024 )) KiB page) | | |"
    if [ -x /usr/bin/chromium ]; then
        ms=$($PY "$(dirname "$0")/../tests/e2e/tools/page_check.py" --no-screenshot "$W/timeline.html" |
            $PY -c 'import json, sys; print(json.load(sys.stdin)["ready_ms"])' 2>/dev/null)
        echo "| its page drawn in headless Chromium (ms to ready) | ${ms:-?} | | target <= 1000 |"
    fi
}
secs1() { $PY -c "import sys; print(f'{float(sys.argv[1] or 0):.1f}')" "$1"; }

echo "| measure | hindsight | peer | ratio |"
echo "|---|---|---|---|"

if [ "${BENCH_ONLY:-}" = light ]; then
    # The light recorder's rows only (a few minutes), against the full
    # recorder recording the same run here (or its time given as
    # BENCH_FULL_SECS, with the instructions as BENCH_VG_INSNS).
    t0=$(now); valgrind -q --tool=none "$W/work" "$VG_N" >/dev/null; t1=$(now)
    none=$($PY -c "print($t1 - $t0)")
    full=${BENCH_FULL_SECS:-}
    insns=${BENCH_VG_INSNS:-}
    if [ -z "$full" ]; then
        t0=$(now)
        "$HINDSIGHT" record --record=valgrind -o "$W/vgrec" -- "$W/work" "$VG_N" >"$W/vgrec.out" 2>&1 ||
            { echo "| full recorder | (failed: $(tail -1 "$W/vgrec.out")) | | |"; exit 1; }
        t1=$(now)
        full=$($PY -c "print($t1 - $t0)")
        insns=$(sed -n 's/^hindsight: \([0-9]*\) instructions, .*/\1/p' "$W/vgrec.out")
        rm -rf "$W/vgrec"
    fi
    light_rows "$none" "$full" "${insns:-1000132609}"
    exit 0
fi

# hindsight record (software PT).
if "$HINDSIGHT" record --help >/dev/null 2>&1; then
    t0=$(now)
    "$HINDSIGHT" record --record=sw -o "$W/rec" -- "$W/work" "$HS_N" >"$W/record.out" 2>&1
    t1=$(now)
    secs=$($PY -c "print($t1 - $t0)")
    read -r insns pt_bytes state_bytes < <($PY - "$W/rec" <<'PYEOF'
import json, os, sys
d = sys.argv[1]
m = json.load(open(os.path.join(d, "trace.json")))
ins = pt = st = 0
for t in m.get("hindsight", {}).get("threads", []):
    ins += t.get("instructions", 0)
    if t.get("stateLog"):
        p = os.path.join(d, t["stateLog"])
        st += os.path.getsize(p) if os.path.exists(p) else 0
for p in m["processes"]:
    for t in p["threads"]:
        pt += os.path.getsize(os.path.join(d, t["iptTrace"]))
print(ins, pt, st)
PYEOF
)
    hs_rate=$(rate "$insns" "$secs")
    ratio=$($PY -c "print(f'{float(\"$hs_rate\")/float(\"$gdb_rate\"):.1f}x' if '$gdb_rate' not in ('n/a','0') else 'n/a')")
    echo "| recording rate (insn/s) | $hs_rate ($insns insns in $(secs1 "$secs") s) | GDB record full: $gdb_rate ($gdb_insns insns in $(secs1 "$gdb_secs") s) | $ratio (target >= 2x) |"
    floor_row "$hs_rate"
    echo "| PT bytes per instruction | $($PY -c "print(f'{$pt_bytes/max($insns,1):.3f}')") | | target <= 0.5 |"
    echo "| state-log bytes per instruction | $($PY -c "print(f'{$state_bytes/max($insns,1):.2f}')") | | target <= 16 |"
    dec=$("$BENCH_DECODE" "$W/rec")
    insn_rate=$(echo "$dec" | awk '/^insn-decoder/ {print $6}')
    blk_rate=$(echo "$dec" | awk '/^block-decoder/ {print $6}')
    echo "| libipt instruction decoder (insn/s) | | $insn_rate | |"
    echo "| libipt block decoder (insn/s) | | $blk_rate | |"
    vg_rows "$hs_rate" "$($PY -c "print(f'{$pt_bytes/max($insns,1):.3f} + {$state_bytes/max($insns,1):.2f}')")"
else
    echo "| recording rate (insn/s) | (hindsight record not available) | GDB record full: $gdb_rate ($gdb_insns insns in ${gdb_secs:-?} s) | |"
    floor_row ""
fi
# A reverse after a live run under serve: the past extended, not opened again.
"$(dirname "$0")/serve_extend.sh" "$HINDSIGHT"
# GDB's first breakpoint far into python3: gdbserver, on-request, Valgrind.
"$(dirname "$0")/serve_break.sh" "$HINDSIGHT"
[ "${BENCH_SKIP_REPLAY:-0}" = 1 ] && exit 0
"$(dirname "$0")/replay.sh" "$HINDSIGHT" "$(dirname "$BENCH_DECODE")/bench_replay" "$(dirname "$BENCH_DECODE")/../bench-cache"
