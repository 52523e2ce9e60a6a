#!/usr/bin/env bash
# t_timeline_page: `hindsight timeline -o x.html` opened in headless
# Chromium (tools/page_check.py). calltree (recursion, a loop, SIGUSR1
# handlers, a crash; sizes drawn at random) under `hindsight run`: the page
# draws exactly the spans the JSON of the same recording has (nothing
# invented, nothing lost), each call inside its caller's box one row lower,
# a track per thread named as the JSON names it, the crash marker at the
# JSON's position; the screenshot has a span's colour at the centre of 20
# spans' boxes; a click on crash_here gives the front end's command, and that
# command stops in crash_here. The threads program: four tracks, each
# worker_step in its worker's track. A merged block's command draws its part
# with as many calls as it counted. A page built from a recording that is not
# there: an error, no page.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight timeline"

CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
[ -x "$CHROMIUM" ] || fail "no Chromium at $CHROMIUM (scripts/install-deps.sh installs it)"
CHECK=$REPO_ROOT/tests/e2e/tools/page_check.py
prog=$(build_prog calltree) || finish
tprog=$(build_prog timeline -pthread) || finish
cd "$T_DIR" || finish

# q FILE PYTHON-EXPR: EXPR with d = the JSON of FILE (X: its complete
# events, I: its instants; for page_check's output S: its spans).
q()
{
    python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ev = d.get("traceEvents", [])
X = [e for e in ev if e["ph"] == "X"]
I = [e for e in ev if e["ph"] == "i"]
S = d.get("spans", [])
print(eval(sys.argv[2]))' "$1" "$2"
}

depth=$(rand_int 4 8) loops=$(rand_int 10 100) sigs=$(rand_int 1 3)
timeout 120 "$HINDSIGHT" run -o rec -- "$prog" "$depth" "$loops" "$sigs" crash >run.out 2>run.err
expect_eq "exit status of run" "$?" 139
timeout 120 "$HINDSIGHT" timeline rec -o page.html 2>page.err
expect_eq "exit status of timeline -o page.html" "$?" 0
timeout 120 "$HINDSIGHT" timeline rec -o page.json 2>/dev/null
expect_eq "exit status of timeline -o page.json" "$?" 0
nx=$(q page.json "len(X)")
[ "$nx" -le 2000 ] || fail "$nx spans: the page draws every span only up to 2,000"

timeout 300 python3 "$CHECK" --pixel-check --screenshot shot.png page.html >page.check 2>page.check.err
expect_eq "page_check --pixel-check" "$?" 0
show page.check.err
expect_eq "the page is ready" "$(q page.check "d['ready']")" True
# The same spans as the JSON: (thread, first, last, name, depth, kind).
key="(e['tid'], e['args']['first'], e['args']['last'], e['name'], e['args']['depth'], e['cat'])"
skey="(s['tid'], s['first'], s['last'], s['name'], s['depth'], s['cat'])"
q page.json "sorted($key for e in X)" >json.spans
q page.check "sorted($skey for s in S)" >page.spans
cmp -s json.spans page.spans || { fail "the page's spans are not the JSON's"; diff json.spans page.spans | head; }
# Nesting as drawn: each call inside its caller's box, one row lower (a box
# wider than 3 px leaves its last pixel blank; a call is at least 1 px wide).
expect_eq "every call drawn inside a caller one row up" "$(q page.check "
[s['name'] for s in S if s['depth'] > 0 and not any(p['tid'] == s['tid'] and p['depth'] == s['depth'] - 1
    and p['x'] <= s['x'] + 0.01 and s['x'] + s['width'] <= p['x'] + p['width'] + 2.01 and p['y'] < s['y']
    for p in S)]")" "[]"
expect_eq "tracks" "$(q page.check "[t['label'] for t in d['tracks']]")" \
    "$(q page.json "[t['name'] for t in d['otherData']['hindsight']['threads']]")"
expect_eq "crash marker" "$(q page.check "[m['position'] for m in d['markers'] if m['cat'] == 'crash']")" \
    "$(q page.json "[e['args']['position'] for e in I if e['cat'] == 'crash']")"
expect_eq "a signal marker" "$(q page.check "any(m['cat'] == 'signal' for m in d['markers'])")" True
expect_eq "screenshot colours" "$(q page.check "d['screenshot']['colors'] > 50")" True

# A click on crash_here: the command that opens the front end there.
tid=$(q page.json "[e['tid'] for e in X if e['name'] == 'crash_here'][0]")
first=$(q page.json "[e['args']['first'] for e in X if e['name'] == 'crash_here'][0]")
timeout 300 python3 "$CHECK" --no-screenshot --click "$tid:$first" page.html >click.check 2>click.err
expect_eq "page_check --click" "$?" 0
cmd=$(q click.check "d['click']['cmd']")
expect_eq "the command" "$cmd" "hindsight replay $T_DIR/rec -ex 'thread 1' -ex 'goto $first'"
expect_eq "details name the function" "$(q click.check "d['click']['heading']")" crash_here
eval "set -- ${cmd#hindsight replay }"
timeout 120 "$HINDSIGHT" replay "$@" --batch -ex bt >replay.out 2>&1
show replay.out
expect_re replay.out "^#0  crash_here \(p=0x[0-9a-f]+\) at .*calltree.c:[0-9]+$"

# Threads: a track each, worker_step in the workers' tracks.
timeout 120 "$HINDSIGHT" record -o thr -- "$tprog" 0:1 1:2 2:3 >thr.out 2>thr.err
expect_eq "exit status of the threads program" "$?" 0
timeout 120 "$HINDSIGHT" timeline thr -o thr.html 2>thr.tl.err
timeout 120 "$HINDSIGHT" timeline thr -o thr.json 2>/dev/null
timeout 300 python3 "$CHECK" --no-screenshot thr.html >thr.check 2>thr.check.err
expect_eq "page_check of the threads page" "$?" 0
expect_eq "thread tracks" "$(q thr.check "len(d['tracks'])")" 4
expect_eq "worker_step in three worker tracks" \
    "$(q thr.check "sorted(set(s['tid'] for s in S if s['name'] == 'worker_step'))")" \
    "$(q thr.json "sorted(set(e['tid'] for e in X if e['name'] == 'worker_step'))")"
expect_eq "three workers" "$(q thr.check "len(set(s['tid'] for s in S if s['name'] == 'worker_step'))")" 3

# A merged block: its command draws that part, with every call it counted.
timeout 120 "$HINDSIGHT" record -o many -- "$prog" 3 "$(rand_int 5000 9000)" 0 >many.out 2>many.err
expect_eq "exit status of calltree (many calls)" "$?" 0
timeout 120 "$HINDSIGHT" timeline many --resolution 50 -o many.html 2>/dev/null
timeout 120 "$HINDSIGHT" timeline many --resolution 50 -o many.json 2>/dev/null
n=$(q many.json "sum(e['cat'] == 'merged' and e['args']['functions'] == 'tiny' for e in X)")
if [ "${n:-0}" -gt 0 ]; then
    block=$(q many.json "(lambda e: f\"{e['tid']} {e['args']['first']} {e['args']['last']} {e['args']['calls']}\")([e for e in X if e['cat'] == 'merged' and e['args']['functions'] == 'tiny'][$(rand_int 0 $((n - 1)))])")
    read -r btid bfirst blast bcalls <<<"$block"
    timeout 300 python3 "$CHECK" --no-screenshot --click "$btid:$bfirst" many.html >many.check 2>many.check.err
    expect_eq "page_check --click on a merged block" "$?" 0
    part=$(q many.check "d['click']['part_cmd']")
    expect_re many.check "hindsight timeline $T_DIR/many [0-9]+,[0-9]+ -o part.html"
    eval "set -- ${part#hindsight timeline }"
    timeout 120 "$HINDSIGHT" timeline "$1" "$2" --resolution 0 -o part.json 2>part.err
    expect_eq "exit status of the part's command" "$?" 0
    expect_eq "the block's calls, drawn one by one" \
        "$(q part.json "sum(e['name'] == 'tiny' and $bfirst <= e['args']['first'] and e['args']['last'] <= $blast for e in X)")" \
        "$bcalls"
else
    fail "no merged block of tiny at --resolution 50"
fi

# The hand-written sample (tools/page_sample.json: two threads, a gap, merged
# blocks) in a page made without hindsight: every instant a marker, every
# merged block drawn as one.
python3 "$REPO_ROOT/tests/e2e/tools/make_page.py" -o sample.html "$REPO_ROOT/tests/e2e/tools/page_sample.json"
timeout 300 python3 "$CHECK" --pixel-check sample.html >sample.check 2>sample.check.err
expect_eq "page_check of the sample" "$?" 0
sample=$REPO_ROOT/tests/e2e/tools/page_sample.json
expect_eq "sample markers" "$(q sample.check "sorted((m['cat'], m['position']) for m in d['markers'])")" \
    "$(q "$sample" "sorted((e['cat'], e['args']['position']) for e in I)")"
expect_eq "sample merged blocks" "$(q sample.check "sorted(s['first'] for s in S if s['cat'] == 'merged')")" \
    "$(q "$sample" "sorted(e['args']['first'] for e in X if e['cat'] == 'merged')")"
expect_eq "sample tracks" "$(q sample.check "len(d['tracks'])")" 2

# No recording: an error and no page.
"$HINDSIGHT" timeline "$T_DIR/nothing" -o none.html >none.out 2>none.err
expect_eq "no recording: status" "$?" 1
[ -e none.html ] && fail "a page was written for a recording that is not there"
finish
