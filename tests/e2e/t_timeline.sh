#!/usr/bin/env bash
# t_timeline: `hindsight timeline`'s JSON, checked against what the programs
# count themselves and loaded by Perfetto's own trace processor
# (tools/trace-check: import errors fail it; its nesting is Perfetto's).
# calltree (recursion, a loop of tiny calls, SIGUSR1 handlers, a crash;
# sizes drawn at random) under `hindsight run`: one span per call of rec,
# tiny and on_usr1, as many as the program counted, rec nested as deep as
# it measured, every handler flagged and marked where it starts, the crash
# marked at the faulting instruction's position inside crash_here, span
# edges at the function's first instruction and at its ret; merged blocks
# that keep every call counted; RANGE; three threads whose turns the test
# draws appear in that order on the shared clock; a trace cut short or of
# garbage; a hardware perf.data against ptxed's listing; bad command lines.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight timeline"

CHECK=$REPO_ROOT/tests/e2e/tools/trace-check
[ -d "$CHECK/node_modules" ] || { (cd "$CHECK" && npm ci --loglevel=error) >/dev/null 2>&1 ||
    fail "cannot install tools/trace-check (npm ci)"; }
prog=$(build_prog calltree) || finish
tprog=$(build_prog timeline -pthread) || finish
cd "$T_DIR" || finish

# perfetto FILE [SQL...]: the checker's JSON in FILE.perfetto; fails the
# test if Perfetto refused the file.
perfetto()
{
    local f=$1 args=()
    shift
    for q in "$@"; do args+=(--sql "$q"); done
    timeout 120 node "$CHECK/check.js" "${args[@]}" "$f" >"$f.perfetto" 2>"$f.perfetto.err" ||
        { fail "Perfetto refused $f"; show "$f.perfetto.err"; }
}

# q FILE PYTHON-EXPR: evaluates EXPR with d = the JSON of FILE, X = its
# complete events, I = its instants, and prints the result.
q()
{
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"] if isinstance(d, dict) else d
X = [e for e in ev if e["ph"] == "X"]
I = [e for e in ev if e["ph"] == "i"]
print(eval(sys.argv[2]))' "$1" "$2"
}

# ---- calltree: counts, nesting, signals, the crash ------------------------
depth=$(rand_int 5 9) loops=$(rand_int 20 200) sigs=$(rand_int 1 4)
timeout 120 "$HINDSIGHT" run -o rec -- "$prog" "$depth" "$loops" "$sigs" crash >run.out 2>run.err
expect_eq "exit status of run" "$?" 139
counts=$(sed -n 's/^calltree: //p' run.out)
[ -n "$counts" ] || { show run.out run.err; finish; }
eval "${counts// /; }"   # rec= rec_calls= max_depth= tiny_calls= usr1=
echo "calltree $depth $loops $sigs: $counts"
# run says how to draw it
expect run.err "hindsight timeline rec -o rec.html"

timeout 120 "$HINDSIGHT" timeline rec --resolution 0 -o all.json 2>all.err
expect_eq "exit status of timeline" "$?" 0
show all.err
perfetto all.json \
    "select count(*) from slice s join slice p on s.parent_id = p.id where s.name = 'rec' and p.name not in ('rec', 'main')" \
    "select count(*) from slice s join slice p on s.parent_id = p.id where s.name = 'tiny' and p.name != 'loop'" \
    "select count(*) from slice s where s.name = 'on_usr1' and not exists (select 1 from ancestor_slice(s.id) a where a.name like '%raise')"
expect_eq "rec spans" "$(q all.json "sum(e['name'] == 'rec' for e in X)")" "$rec_calls"
expect_eq "rec nesting" \
    "$(q all.json "(lambda r: max(r) - min(r) + 1)([e['args']['depth'] for e in X if e['name'] == 'rec'])")" \
    "$max_depth"
expect_eq "tiny spans" "$(q all.json "sum(e['name'] == 'tiny' for e in X)")" "$tiny_calls"
expect_eq "on_usr1 spans flagged as handlers" \
    "$(q all.json "sum(e['name'] == 'on_usr1' and e['args'].get('signal', False) for e in X)")" "$usr1"
expect_eq "signal marks at the handlers' first instructions" \
    "$(q all.json "sorted(e['args']['position'] for e in I if e['cat'] == 'signal') == sorted(e['args']['first'] for e in X if e['name'] == 'on_usr1')")" True
expect_eq "signal marks" "$(q all.json "sum(e['cat'] == 'signal' for e in I)")" "$usr1"
# Perfetto's nesting: rec inside rec or main, tiny inside loop, the handlers
# under raise (glibc's __GI_raise)
expect_eq "Perfetto: parents of rec, tiny; on_usr1 under raise" \
    "$(python3 -c 'import json; d = json.load(open("all.json.perfetto")); print([r[0]["count(*)"] if r else None for r in [q["rows"] for q in d["queries"]]])' 2>&1)" \
    "[0, 0, 0]"
expect_eq "Perfetto: slices" "$(python3 -c 'import json; print(json.load(open("all.json.perfetto"))["slices"])')" \
    "$(q all.json "len(X) + len(I)")"
# The crash: at the instruction after the last the recorder counted, in crash_here.
want=$(python3 -c 'import json; print(json.load(open("rec/trace.json"))["hindsight"]["threads"][0]["instructions"] + 1)')
expect_eq "crash mark" "$(q all.json "[(e['name'], e['args']['position']) for e in I if e['cat'] == 'crash']")" \
    "[('SIGSEGV', $want)]"
expect_eq "innermost span at the crash" \
    "$(q all.json "(lambda t: max((e for e in X if e['ts'] <= t <= e['ts'] + e['dur']), key=lambda e: e['args']['depth'])['name'])([e['ts'] for e in I if e['cat'] == 'crash'][0])")" \
    crash_here
# Span edges: a rec span starts at rec's first instruction and ends at its ret.
n=$(q all.json "sum(e['name'] == 'rec' for e in X)")
pick=$(q all.json "[e for e in X if e['name'] == 'rec'][$(rand_int 0 $((n - 1)))]['args']")
first=$(echo "$pick" | sed -n "s/.*'first': \([0-9]*\).*/\1/p")
last=$(echo "$pick" | sed -n "s/.*'last': \([0-9]*\).*/\1/p")
"$HINDSIGHT" history rec "$first,$first" >first.hist 2>&1
"$HINDSIGHT" history rec "$last,$last" >last.hist 2>&1
expect_re first.hist "^$first	.*<rec\+0>:"
expect_re last.hist "^$last	.*<rec\+[0-9]+>:	ret"

# ---- merged blocks keep every call counted --------------------------------
many=$(rand_int 20000 40000)
timeout 120 "$HINDSIGHT" record -o many -- "$prog" 3 "$many" 0 >many.out 2>many.err
expect "many.out" "tiny_calls=$many"
timeout 120 "$HINDSIGHT" timeline many --resolution 100 -o many.json 2>many.tl.err
expect_eq "exit status of timeline --resolution 100" "$?" 0
perfetto many.json
expect_eq "tiny calls, merged or not" \
    "$(q many.json "sum(e['args'].get('calls', 1) for e in X if e['name'] == 'tiny' or (e['cat'] == 'merged' and e['args']['functions'] == 'tiny'))")" \
    "$many"
expect_eq "spans kept at resolution 100" "$(q many.json "len(X) < 1000")" True
# (merging goes by the decoder's clock, a few tens of instructions off near a
# PSB; the spans are timed exactly afterwards)
expect_eq "merged blocks under loop: at least a quantum long, but the last" \
    "$(q many.json "sum(e['cat'] == 'merged' and e['args']['functions'] == 'tiny' and e['dur'] < d['otherData']['hindsight']['quantum'] - 64 for e in X) <= 1")" True

# ---- RANGE -----------------------------------------------------------------
lo=$(q all.json "min(e['ts'] for e in X if e['name'] == 'rec')")
hi=$(q all.json "max(e['ts'] + e['dur'] for e in X if e['name'] == 'rec') - 1")
timeout 120 "$HINDSIGHT" timeline rec "$lo,$hi" --resolution 0 -o part.json 2>part.err
expect_eq "exit status of timeline RANGE" "$?" 0
perfetto part.json
expect_eq "spans inside the range" "$(q part.json "all($lo <= e['ts'] and e['ts'] + e['dur'] <= $hi + 1 for e in X)")" True
expect_eq "rec spans in the range" "$(q part.json "sum(e['name'] == 'rec' for e in X)")" "$rec_calls"
expect_eq "the outermost rec at depth 0" "$(q part.json "min(e['args']['depth'] for e in X if e['name'] == 'rec')")" 0
"$HINDSIGHT" timeline rec "$lo,+$((hi - lo + 1))" --resolution 0 -o part2.json 2>/dev/null
cmp -s part.json part2.json || fail "A,+K and A,B differ"

# ---- threads: the turns in the order drawn --------------------------------
args=() order=()
for i in $(seq 1 6); do
    w=$(rand_int 0 2)
    args+=("$w:$i")
    order+=("$w")
done
timeout 120 "$HINDSIGHT" record -o thr -- "$tprog" "${args[@]}" >thr.out 2>thr.err
expect_eq "exit status of the threads program" "$?" 0
timeout 120 "$HINDSIGHT" timeline thr --resolution 0 -o thr.json 2>thr.tl.err
perfetto thr.json
# worker_step spans by time: their threads must follow the drawn workers.
got=$(q thr.json "' '.join(str(e['tid']) for e in sorted((e for e in X if e['name'] == 'worker_step'), key=lambda e: e['ts']))")
read -r -a tids <<<"$got"
expect_eq "worker_step spans" "${#tids[@]}" 6
declare -A tid_of=()
for i in "${!order[@]}"; do
    w=${order[$i]}
    if [ -z "${tid_of[$w]:-}" ]; then
        tid_of[$w]=${tids[$i]:-}
    else
        expect_eq "turn $((i + 1)): worker $w's thread" "${tids[$i]:-}" "${tid_of[$w]}"
    fi
done
expect_eq "distinct threads for distinct workers" \
    "$(printf '%s\n' "${tid_of[@]}" | sort -u | wc -l)" "${#tid_of[@]}"
expect_eq "worker_step spans never overlap (threads run one at a time)" \
    "$(q thr.json "(lambda s: all(a['ts'] + a['dur'] <= b['ts'] for a, b in zip(s, s[1:])))(sorted((e for e in X if e['name'] == 'worker_step'), key=lambda e: e['ts']))")" True
expect_eq "thread names" "$(q thr.json "len(d['otherData']['hindsight']['threads'])")" 4

# ---- a trace cut short: no crash where the trace ends -----------------------
cp -r rec cut
pt=$(ls cut/threads/*.pt)
truncate -s $(( $(stat -c %s "$pt") * $(rand_int 30 80) / 100 )) "$pt"
timeout 120 "$HINDSIGHT" timeline cut -o cut.json 2>cut.err
expect_eq "exit status of timeline on a cut trace" "$?" 0
perfetto cut.json
expect_eq "no crash mark in a cut trace" "$(q cut.json "sum(e['cat'] == 'crash' for e in I)")" 0
expect_eq "where the cut trace ends" "$(q cut.json "[e['name'] for e in I if e['cat'] == 'gap']")" \
    "['gap: the trace ends before the instruction that faulted']"
printf 'not a trace' >"$pt"
timeout 120 "$HINDSIGHT" timeline cut -o garbage.json 2>garbage.err
expect_eq "exit status of timeline on a trace of garbage" "$?" 0
expect garbage.err "warning: thread 1 ("
expect garbage.err "): nothing in its trace decodes"
perfetto garbage.json

# ---- a hardware recording: perf.data from a Skylake (shared/ptdata) --------
# Its functions and their instruction counts against ptxed's listing of the
# same trace, grouped by nm's symbols; TSC times that only grow.
H=$SHARED_DIR/ptdata/hase/skl-20180404-loopy
if [ -r "$H/loopy-20180404T162955.perf" ]; then
    timeout 120 "$HINDSIGHT" timeline "$H/loopy-20180404T162955.perf" --image-dir "$H" \
        --resolution 0 -o hw.json 2>hw.err
    expect_eq "exit status of timeline on a perf.data" "$?" 0
    perfetto hw.json
    expect_eq "clock of a perf.data" "$(q hw.json "d['otherData']['hindsight']['clock']")" tsc
    nm "$H/loopy" | awk '$2 ~ /^[Tt]$/ { print $1, $3 }' | sort >hw.syms
    grep '^[0-9a-f]\{16\}$' "$H/ref-libipt-2.0.5/ptxed-insn-noinst.txt" >hw.addrs
    want=$(python3 -c '
import sys
syms = [(int(a, 16), n) for a, n in (l.split() for l in open("hw.syms"))]
out = []
for l in open("hw.addrs"):
    ip = int(l, 16)
    name = max((s for s in syms if s[0] <= ip), default=(0, "??"))[1]
    if out and out[-1][0] == name: out[-1][1] += 1
    else: out.append([name, 1])
print(out)')
    expect_eq "spans against ptxed and nm" \
        "$(q hw.json "[[e['name'], e['args']['last'] - e['args']['first'] + 1] for e in sorted(X, key=lambda e: e['args']['first'])]")" \
        "$want"
    expect_eq "TSC times in order" \
        "$(q hw.json "(lambda s: all(a['ts'] + a['dur'] <= b['ts'] for a, b in zip(s, s[1:])))(sorted(X, key=lambda e: e['args']['first']))")" True
fi

# ---- bad command lines -----------------------------------------------------
"$HINDSIGHT" timeline "$T_DIR/nothing" >bad1.out 2>bad1.err
expect_eq "no recording: status" "$?" 1
expect bad1.err "nothing"
"$HINDSIGHT" timeline rec 9,3 >bad2.out 2>bad2.err
expect_eq "bad RANGE: status" "$?" 2
expect bad2.err "bad RANGE '9,3'"
"$HINDSIGHT" timeline rec --format xml >bad3.out 2>bad3.err
expect_eq "bad --format: status" "$?" 2
"$HINDSIGHT" timeline rec -o "$T_DIR/no/such/dir/x.json" >bad4.out 2>bad4.err
expect_eq "unwritable -o: status" "$?" 1
expect bad4.err "No such file or directory"
finish
