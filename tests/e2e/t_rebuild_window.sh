#!/usr/bin/env bash
# t_rebuild_window: a light recording rebuilt only as a window of its run
# (`rebuild --last N`, and `run` on a crash: stub/recorders/stub_recorder.c
# lt_window, vgtool/hsrec_main.c hs_window_open; docs/rebuild.md). The run
# goes to the window's start at the light recorder's speed, then under the
# full instrumentation, with the registers and the memory as they were there.
#   - One thread: the window's history is the tail of the light run's own
#     trace (--vg-verify: what really ran, read apart from the rebuild),
#     its registers at sampled positions the light run's; memory written
#     long before the window (a heap table filled from the clock) reads as
#     the program printed it, where the window starts and at its end.
#   - Threads: each thread's window is the tail of its trace, registers too.
#   - `history` on a window says it is one; `rebuild` then rebuilds the
#     whole; a run that exec'd is rebuilt whole.
#   - `run` explains a crash from a window, as the full recorder explains
#     it, and the origin of the wrong pointer ends where the window starts.
#   - `run` rebuilds that window beside the light run as it goes: the same
#     window as one rebuilt after it, threads and registers too.
. "$(dirname "$0")/lib.sh"
hindsight_only "the light recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

# tail_hist NAME TID [regs]: thread TID's history of the window NAME
# against the tail of the light run's trace NAME.ver, and with "regs" its
# registers; sets K (its length).
tail_hist()
{
    awk -v t="$2" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' "$1.ver" \
        >"$1.$2.ips"
    "$HINDSIGHT" history "$T_DIR/$1.w" 1,100000000 --thread "$2" 2>/dev/null | hist_ips \
        >"$1.$2.hist"
    K=$(wc -l <"$1.$2.hist")
    tail -n "$K" "$1.$2.ips" | cmp -s - "$1.$2.hist" ||
        fail "$1: thread $2's window is not the tail of the light run's trace ($K of $(wc -l <"$1.$2.ips"))"
    [ "$K" -gt 0 ] && [ "${3-}" = regs ] || return 0
    python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$T_DIR/$1.w" "$T_DIR/$1.ver" "$2" 15 \
        --tail="$K" >"regs.$1.$2" 2>&1 ||
        { fail "$1: thread $2's registers in the window differ from the light run's"; cat "regs.$1.$2"; }
}

# 1. One thread.
prog=$(build_prog window) || finish
timeout 120 "$HINDSIGHT" record --record=light --vg-verify "$T_DIR/one.ver" -o "$T_DIR/one" \
    -- "$prog" 30000 >one.out 2>one.err
echo $? >one.rc
cp -r "$T_DIR/one" "$T_DIR/one.w"
timeout 120 "$HINDSIGHT" rebuild --last 20000 "$T_DIR/one.w" >one.w.out 2>one.w.err
expect_eq "rebuild --last: exit status" "$?" 0
expect one.w.err "the history is a window: the run's last 20000 superblocks"
[ -s "$T_DIR/one.w/inputs.window" ] || fail "the window has no mark (inputs.window)"
tid=$(first_tid one.ver)
tail_hist one "$tid" regs
total=$(wc -l <"one.$tid.ips")
[ "$K" -gt 100000 ] && [ "$K" -lt $((total / 2)) ] ||
    fail "the window is $K instructions of the run's $total: not about 20000 superblocks"
seed=$(cat one.out)
expect_eq "exit status: the seed's node" "$(cat one.rc)" $(((seed + 17) & 127))
for at in 1 "$K"; do
    timeout 120 "$HINDSIGHT" replay "$T_DIR/one.w" --batch -ex "goto $at" -ex 'print g_seed' \
        -ex 'print g_table[3]->v' -ex 'print g_table[3]->name' >"one.mem.$at" 2>one.mem.err
    expect "one.mem.$at" "= $seed"
    expect "one.mem.$at" "= $((seed + 3))"
    expect "one.mem.$at" '= "node3\000'
done
expect one.mem.err "holds a window of its run's history only (superblocks"
# The whole, on demand: the mark goes, and the history is the trace's.
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/one.w" >/dev/null 2>one.whole.err
[ -e "$T_DIR/one.w/inputs.window" ] && fail "a whole rebuild leaves the window's mark"
"$HINDSIGHT" history "$T_DIR/one.w" 1,100000000 2>/dev/null | hist_ips >one.whole.hist
cmp -s one.whole.hist "one.$tid.ips" || fail "the whole rebuild after a window is not the light run's trace"

# 2. Threads: a window opens while some live, after one ended.
racy=$(build_prog racy -pthread) || finish
timeout 120 "$HINDSIGHT" record --record=light --vg-verify "$T_DIR/racy.ver" -o "$T_DIR/racy" \
    -- "$racy" 300 >racy.out 2>racy.err
cp -r "$T_DIR/racy" "$T_DIR/racy.w"
timeout 120 "$HINDSIGHT" rebuild --last 30000 "$T_DIR/racy.w" >/dev/null 2>racy.w.err
expect racy.w.err "the history is a window"
n=0 most=0
for t in $(awk '{ print $1 }' racy.ver | sort -u); do
    tail_hist racy "$t"
    [ "$K" -gt 0 ] && n=$((n + 1))
    [ "$K" -gt "$most" ] && most=$K busiest=$t
done
[ "$n" -ge 2 ] || fail "racy: the window has $n threads"
tail_hist racy "$busiest" regs

# 3. A run that exec'd is rebuilt whole.
execself=$(build_prog execself) || finish
timeout 120 "$HINDSIGHT" record --record=light -o "$T_DIR/exec" -- "$execself" \
    >exec.out 2>exec.err
timeout 120 "$HINDSIGHT" rebuild --last 100 "$T_DIR/exec" >/dev/null 2>exec.w.err
expect exec.w.err "the program exec'd: its history is rebuilt whole"
[ -e "$T_DIR/exec/inputs.window" ] && fail "exec: a whole rebuild has a window's mark"

# 4. `run` on a crash: a window, explained as the full recorder explains it.
for m in auto valgrind; do
    (cd "$T_DIR" && exec timeout 240 "$HINDSIGHT" run --record=$m -o "$T_DIR/run.$m" \
        -- "$prog" 300000 crash) >"run.$m.out" 2>"run.$m.err"
    expect_eq "run --record=$m: exit status" "$?" 139
    sed -n '/^Program terminated/,/^The last lines/p' "run.$m.err" |
        sed 's/[0-9]* of thread [0-9]*/N of thread T/' >"run.$m.explained"
done
expect run.auto.err "rebuilding the last 250000 superblocks of its history"
expect run.auto.err "the history is a window"
expect run.auto.explained "Program terminated with signal SIGSEGV, Segmentation fault."
expect_re run.auto.explained "window.c:$(line_of window.c use)"
cmp -s run.auto.explained run.valgrind.explained ||
    { fail "run: the window's explanation differs from the full recorder's"; diff run.auto.explained run.valgrind.explained | head; }
expect run.auto.err "the value was there where the history starts,"
# ... where the full recording follows it to the line that set it.
expect_re run.valgrind.err "which main wrote at window.c:$(line_of window.c wrong)"

# 5. `run` rebuilds its window beside the light run as it goes (HSIN_TICK,
#    the tool's --hsrec-trail): the same window as one rebuilt from the
#    same inputs after the run (`rebuild --last`, proven against the light
#    run's own trace above), thread for thread, registers too. Threads
#    racing, a mutex, sleeps, and a crash in a worker while the others run:
#    the teardown rebuilt with no gap.
(cd "$T_DIR" && exec timeout 240 "$HINDSIGHT" run -o "$T_DIR/tr" -- "$racy" 20000 crash) \
    >tr.out 2>tr.err
expect_eq "run racy crash: exit status" "$?" 139
expect tr.err "rebuilt beside the run as it went"
expect tr.err " threads, 0 gaps,"
expect tr.err "Program terminated with signal SIGSEGV"
expect_re tr.err "racy.c:$(line_of racy.c racy_crash)"
cp -r "$T_DIR/tr" "$T_DIR/tr.after"
timeout 240 "$HINDSIGHT" rebuild --last 250000 "$T_DIR/tr.after" >/dev/null 2>tr.after.err
expect tr.after.err " threads, 0 gaps,"
n=0 most=0
for t in $(python3 -c 'import json, sys
for t in json.load(open(sys.argv[1]))["processes"][0]["threads"]: print(t["tid"])' \
    "$T_DIR/tr/trace.json"); do
    for w in tr tr.after; do
        "$HINDSIGHT" history "$T_DIR/$w" 1,100000000 --thread "$t" 2>/dev/null | hist_ips \
            >"$w.$t.hist"
    done
    k=$(wc -l <"tr.$t.hist")
    [ "$k" -gt 0 ] && n=$((n + 1))
    [ "$k" -gt "$most" ] && most=$k busiest=$t
    cmp -s "tr.$t.hist" "tr.after.$t.hist" ||
        fail "thread $t's window rebuilt beside the run differs from the one rebuilt after it"
done
[ "$n" -ge 2 ] || fail "racy crash: the window has $n threads"
for at in 1 $((most / 2)) "$most"; do
    for w in tr tr.after; do
        timeout 120 "$HINDSIGHT" replay "$T_DIR/$w" --batch -ex "thread $busiest" \
            -ex "goto $at" -ex 'info registers' >"$w.regs.$at" 2>/dev/null
    done
    expect "tr.regs.$at" "rip"
    cmp -s "tr.regs.$at" "tr.after.regs.$at" ||
        { fail "registers at $at differ between the two windows"; diff "tr.regs.$at" "tr.after.regs.$at" | head -5; }
done
# Another run into the same directory, its window rebuilt after it: its
# own history, not the one rebuilt there before (which the new inputs once
# passed for).
(cd "$T_DIR" && HINDSIGHT_RUN_TRAIL=0 exec timeout 240 "$HINDSIGHT" run -o "$T_DIR/tr" \
    -- "$prog" 300000 crash) >tr2.out 2>tr2.err
expect_eq "run window crash into tr: exit status" "$?" 139
expect tr2.err "rebuilding the last 250000 superblocks"
expect_re tr2.err "window.c:$(line_of window.c use)"
grep -q "racy.c" tr2.err && fail "a run into a used directory explains the earlier recording's crash"
# An exec that failed does not stop the rebuild beside the run (one that
# made a new image does: section 3's program is rebuilt whole).
(cd "$T_DIR" && exec timeout 240 "$HINDSIGHT" run -o "$T_DIR/bx" -- "$prog" 300000 crash \
    badexec) >bx.out 2>bx.err
expect_eq "run badexec: exit status" "$?" 139
expect bx.err "rebuilt beside the run as it went"
expect_re bx.err "window.c:$(line_of window.c use)"
# The rebuild beside the run killed: the window is rebuilt after it, said once.
(cd "$T_DIR" && exec timeout 240 "$HINDSIGHT" run -o "$T_DIR/kl" -- "$prog" 20000000 crash) \
    >kl.out 2>kl.err &
runner=$!
for _ in $(seq 1 200); do
    pkill -9 -f -- "--hsrec-trail=" && break
    sleep 0.05
done
wait "$runner"
expect_eq "run, its rebuild killed: exit status" "$?" 139
expect_eq "what is rebuilt, said" "$(grep -c 'rebuilding the last 250000' kl.err)" 1
expect_not kl.err "rebuilt beside the run"
expect_re kl.err "window.c:$(line_of window.c use)"
# A run that does not crash: the rebuild beside it is stopped, and the
# kept recording is rebuilt whole when first needed.
(cd "$T_DIR" && exec timeout 240 "$HINDSIGHT" run --keep -o "$T_DIR/ok" -- "$racy" 2000) \
    >ok.out 2>ok.err
expect_eq "run racy: exit status" "$?" 0
expect ok.err "exited with status 0; the recording is in"
pgrep -f "hsrec-trail" >/dev/null && fail "the rebuild beside the run outlived it"
timeout 240 "$HINDSIGHT" history "$T_DIR/ok" 1,1 >/dev/null 2>ok.hist.err
expect ok.hist.err "rebuilding its history from them"
expect ok.hist.err " threads, 0 gaps,"
finish
