#!/usr/bin/env bash
# t_record_light_threads: the light recorder's rebuild of a program with
# threads (vgtool/hsrec_inputs.c, docs/rebuild.md). The rebuild gives each
# thread the turns it had when recorded, switching where the light run
# did (the tool's count of superblocks) and completing a syscall a thread
# waited in when its turn comes back.
#   - Every thread's history is the light run's own trace of that thread
#     (--vg-verify: what really ran, read apart from the rebuild),
#     instruction for instruction, and its registers at sampled positions
#     are the light run's.
#   - A racy program, whose result differs from run to run (updates lost
#     where threads switch, the order they take a lock, the time), shows
#     the values the recorded run printed; its rebuild says how far it has
#     come, in step with it.
#   - A thread that waits in sigsuspend while another computes, each wait
#     ended by a signal its mask lets in (one the other thread sends it,
#     one from a timer): the rebuild makes the call at the thread's turn
#     with the signal sent again, so the handler runs inside it, as when
#     recorded (it stopped there before: "the rebuild hands it to
#     Valgrind's core, which cannot wait").
. "$(dirname "$0")/lib.sh"
hindsight_only "the light recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

thread_hist()   # NAME: each thread's history against the light run's trace
{
    local t n=0
    for t in $(awk '{ print $1 }' "$1.ver" | sort -u); do
        awk -v t="$t" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' "$1.ver" \
            >"$1.$t.ips"
        "$HINDSIGHT" history "$T_DIR/$1" 1,100000000 --thread "$t" 2>/dev/null | hist_ips \
            >"$1.$t.hist"
        [ -s "$1.$t.ips" ] && cmp -s "$1.$t.ips" "$1.$t.hist" ||
            fail "$1: thread $t's history differs from the light run's ($(wc -l <"$1.$t.hist") / $(wc -l <"$1.$t.ips"))"
        n=$((n + 1))
    done
    expect_eq "$1: threads in the light run's trace" "$n" "$2"
}
threads=$(build_prog threads -pthread) || finish
light threads "$threads" 5
expect_re threads.err "^hindsight: [0-9]+ instructions, 4 threads, 0 gaps"
thread_hist threads 4
racy=$(build_prog racy -pthread) || finish
# (Its rebuild says how far it has come at every save, not every 10 s;
# the recorded environment is the rebuild's.)
HINDSIGHT_PROGRESS_SECS=0 light racy "$racy" 1500
# (What stopped a rebuild, in the failure's own line: the end of the log
# is what a CI run shows.)
grep -qE "^hindsight: [0-9]+ instructions, 4 threads, 0 gaps" racy.err ||
    fail "racy: the rebuild is not whole: $(grep -hE 'diverged|stopped|instructions, ' racy.err |
        tr '\n' ' ') $(tail -3 "$T_DIR/racy/valgrind.log" 2>/dev/null | tr '\n' ' ')"
# The progress: its share of the run (the tool's superblocks against the
# recorded run's) grows, below 100%, as the instructions rebuilt do, up
# to the count at the end.
python3 - racy.err <<'EOF' || fail "racy: the rebuild's progress is not in step with it"
import re, sys
text = open(sys.argv[1]).read()
steps = [(int(p), int(n)) for p, n in
         re.findall(r'^hindsight: rebuilding: (\d+)% of the run, (\d+) instructions so far', text, re.M)]
total = int(re.search(r'^hindsight: (\d+) instructions, 4 threads', text, re.M).group(1))
print(steps, total)
assert steps, "no progress said"
assert all(a[0] <= b[0] and a[1] <= b[1] for a, b in zip(steps, steps[1:])), steps
assert all(p < 100 and n < total for p, n in steps), steps
assert all(abs(p - 100 * n / total) < 25 for p, n in steps), steps
EOF
thread_hist racy 4
read -r v_racy v_locked v_order n0 n1 n2 <racy.out
timeout 120 "$HINDSIGHT" replay "$T_DIR/racy" --batch -ex 'print g_racy' -ex 'print g_locked' \
    -ex 'print g_order' -ex 'print g_nsec' >racy.replay 2>&1
for v in "$v_racy" "$v_locked" "$v_order" "{$n0, $n1, $n2}"; do
    expect racy.replay "= $v"
done
# `history` rebuilt the history alone; replay rebuilt the whole after it,
# whose every thread's history is the light run's too.
expect racy.replay "holds a light recording's history only: rebuilding its registers and memory too"
expect_re racy.replay "^hindsight: [0-9]+ instructions, 4 threads, 0 gaps, .* bytes of state"
thread_hist racy 4
thread_regs()   # NAME: each thread's registers at sampled positions
{
    local t
    for t in $(awk '{ print $1 }' "$1.ver" | sort -u); do
        python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$T_DIR/$1" "$T_DIR/$1.ver" "$t" 15 \
            >"regs.$1.$t" 2>&1 ||
            { fail "$1: thread $t's registers differ from the light run's"; cat "regs.$1.$t"; }
    done
}
thread_regs racy

suspend=$(build_prog suspendthreads -pthread) || finish
light suspend "$suspend"
expect_re suspend.out "^usr1 1 alarms 1 waits [1-9][0-9]* [1-9][0-9]* sums [0-9]+ [0-9]+$"
"$suspend" >suspend.native
expect_eq "suspend: the worker's sums, light / native" "$(sed 's/.* sums //' suspend.out)" \
    "$(sed 's/.* sums //' suspend.native)"
grep -qE "^hindsight: [0-9]+ instructions, 2 threads, 0 gaps" suspend.err ||
    fail "suspend: the rebuild is not whole: $(grep -hE 'diverged|instructions, ' suspend.err | tr '\n' ' ')"
thread_hist suspend 2
thread_regs suspend
finish
