#!/usr/bin/env bash
# run-unit.sh BIN...: run each cmocka unit-test binary (with a time limit),
# print its output, and count test cases passed / failed per binary. The last
# line is "unit: N passed, N failed" (counts of test cases; a binary that
# crashes or prints no cmocka summary counts as one failure).
# With UNIT_SUMMARY_ONLY unset it exits non-zero when anything failed.
set -u

# Recording tests single-step ~1M instructions under ptrace: minutes under
# ASan on a busy machine.
UNIT_TIMEOUT=${UNIT_TIMEOUT:-600}
total_pass=0
total_fail=0

for bin in "$@"; do
    name=$(basename "$bin")
    if [ ! -x "$bin" ]; then
        echo "FAIL $name: not built ($bin)"
        total_fail=$((total_fail + 1))
        continue
    fi
    out=$(mktemp)
    timeout -k 5 "$UNIT_TIMEOUT" "$bin" </dev/null >"$out" 2>&1
    rc=$?
    cat "$out"
    # cmocka prints "[  PASSED  ] N test(s)." and "[  FAILED  ] N test(s), listed below:"
    p=$(sed -n 's/^\[  PASSED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9][0-9]*\) test.*/\1/p' "$out" | head -1)
    p=${p:-0}
    f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        # crashed, timed out, or failed without cmocka's summary
        f=1
        [ "$rc" -eq 124 ] && echo "$name: timed out after ${UNIT_TIMEOUT}s"
        echo "$name: exit status $rc"
    fi
    if [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
        echo "$name: no cmocka summary found"
        f=1
    fi
    if [ "$f" -eq 0 ]; then
        echo "PASS $name: $p passed"
    else
        echo "FAIL $name: $p passed, $f failed"
    fi
    total_pass=$((total_pass + p))
    total_fail=$((total_fail + f))
    rm -f "$out"
done

echo "unit: $total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
