#!/usr/bin/env bash
# t_history_percpu: `hindsight history`, `calls` and `import` on LLDB's
# per-cpu bundle (intelpt-multi-core-trace: two cpus, context-switch
# records), split into threads. Expected, from SOURCES.md §3: thread 3497496
# runs foo() from 0x400ba7 (foo()+65), 19521 instructions, the last
# 0x400ba7 `jg 0x400bb3`, then "decoding truncated"; thread 3497497 ends in
# bar() at 0x400bd7 `addl $0x1,-0x4(%rbp)`; thread 3497234 has nothing.
. "$(dirname "$0")/lib.sh"
hindsight_only "history reads hindsight bundles"

BUNDLE=$SHARED_DIR/ptdata/lldb/intelpt-multi-core-trace
[ -r "$BUNDLE/trace.json" ] || skip "no LLDB per-cpu bundle at $BUNDLE"

run() { # OUT ARGS...: run hindsight, stdout+stderr in OUT, exit status in RC
    local out=$1
    shift
    timeout -k 2 60 "$HINDSIGHT" "$@" </dev/null >"$out" 2>&1
    RC=$?
}

run "$T_DIR/foo_first.txt" history "$BUNDLE" 1,1 --thread 3497496
expect_eq "foo first status" "$RC" 0
expect "$T_DIR/foo_first.txt" "$(printf '1\t   0x0000000000400ba7 <foo()+65>:\tjg     0x400bb3 <foo()+77>')"
run "$T_DIR/foo_last.txt" history "$BUNDLE" 19521,+2 --thread 3497496
expect "$T_DIR/foo_last.txt" "$(printf '19521\t   0x0000000000400ba7 <foo()+65>:\tjg     0x400bb3 <foo()+77>')"
expect "$T_DIR/foo_last.txt" "19522	[decoding truncated"

run "$T_DIR/bar_calls.txt" calls "$BUNDLE" /ic --thread 3497497
expect_eq "bar calls status" "$RC" 0
expect_re "$T_DIR/bar_calls.txt" $'^1\tbar\\(\\)\tinst 1,[0-9]+$'
run "$T_DIR/bar_last.txt" history "$BUNDLE" --thread 3497497 --json
expect "$T_DIR/bar_last.txt" '"addr":"0x400bd7","function":"bar()"'
expect "$T_DIR/bar_last.txt" '"gap":"decoding truncated'

run "$T_DIR/main.txt" history "$BUNDLE" --thread 3497234
expect "$T_DIR/main.txt" "No trace."

# The manifest that lists only the main thread: the others are found.
run "$T_DIR/missing.txt" history "$BUNDLE/trace_missing_threads.json" 19521,19521 --thread 3497496
expect "$T_DIR/missing.txt" "$(printf '19521\t   0x0000000000400ba7 <foo()+65>:\tjg     0x400bb3 <foo()+77>')"

# import: one PT file per thread, its per-cpu segments (bounds, cpu, TSC
# limits) kept in trace.json; every thread's whole history, instructions
# and gaps, is the same as the original's.
run "$T_DIR/import.txt" import -o "$T_DIR/imp" "$BUNDLE"
expect_eq "import status" "$RC" 0
run "$T_DIR/imp_foo.txt" history "$T_DIR/imp" 19521,19521 --thread 3497496
expect "$T_DIR/imp_foo.txt" "$(printf '19521\t   0x0000000000400ba7 <foo()+65>:\tjg     0x400bb3 <foo()+77>')"
expect "$T_DIR/imp/trace.json" '"segments"'
for tid in 3497496 3497497 3497234; do
    run "$T_DIR/orig_$tid.json" history "$BUNDLE" 1,100000000 --thread $tid --json
    run "$T_DIR/imp_$tid.json" history "$T_DIR/imp" 1,100000000 --thread $tid --json
    cmp -s "$T_DIR/orig_$tid.json" "$T_DIR/imp_$tid.json" ||
        { fail "thread $tid: history of the import differs from the original's"
          diff "$T_DIR/orig_$tid.json" "$T_DIR/imp_$tid.json" | head; }
done
expect "$T_DIR/imp_3497497.json" '"gap":"decoding truncated'

finish
