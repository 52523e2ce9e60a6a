#!/usr/bin/env bash
# t_bundle_dup_threads: a manifest listing one thread 5,000 times was
# accepted; `timeline` then ran past 20 s and `replay` ran out of memory.
# No recording lists a thread twice (a tid used again comes with a trace of
# its own), so every command refuses it at once, saying which entry: timeline,
# history, replay and serve --replay, each in under 20 s. The recording it
# was made from opens (timeline, history: its instruction count).
. "$(dirname "$0")/lib.sh"
hindsight_only "reads recordings"
cd "$T_DIR" || finish

nolibc=$(build_prog nolibc -O1 -static -nostdlib -fno-stack-protector -fno-builtin -fno-pie -no-pie) ||
    finish
timeout 60 "$HINDSIGHT" record --record=sw -o rec -- "$nolibc" >rec.out 2>&1
tid=$(sed -n 's/.*"tid": *\([0-9]*\).*/\1/p' rec/trace.json | head -1)
[ -n "$tid" ] || { show rec.out; fail "no thread in rec/trace.json"; finish; }

cp -r rec dup
python3 - <<'EOF' || fail "cannot write dup/trace.json"
import json
d = json.load(open("dup/trace.json"))
d["processes"][0]["threads"] *= 5000
d["hindsight"]["threads"] *= 5000
json.dump(d, open("dup/trace.json", "w"))
EOF

# The recording as made: it opens.
timeout 60 "$HINDSIGHT" timeline rec -o rec.json >rec.tl 2>&1
expect_eq "timeline of the recording" "$?" 0
timeout 60 "$HINDSIGHT" history rec 1,1 >rec.hist 2>&1
expect_eq "history of the recording" "$?" 0

why="trace.json: processes[0].threads[1]: threads/$tid.pt is the trace of thread $tid already"
for cmd in "timeline dup -o dup.json" "history dup" "replay dup --batch -ex info\ threads" \
    "serve --once --replay dup 127.0.0.1:0"; do
    name=${cmd%% *}
    start=$SECONDS
    eval timeout 20 "\"\$HINDSIGHT\"" "$cmd" </dev/null >"$name.out" 2>&1
    rc=$?
    show "$name.out"
    [ "$rc" -ne 0 ] || fail "$name accepted a thread listed 5,000 times"
    [ "$rc" -ne 124 ] || fail "$name ran 20 s on it"
    [ $((SECONDS - start)) -lt 20 ] || fail "$name took $((SECONDS - start)) s"
    expect "$name.out" "$why"
done
finish
