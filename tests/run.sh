#!/usr/bin/env bash
# run.sh BIN...: every test of one build, as `make check-fast` runs it:
# the cmocka unit binaries given as arguments (tests/run-unit.sh), then the
# end-to-end suite (tests/e2e/run.sh) against $HINDSIGHT. Ends with exactly
# one line "check: N passed, N failed" (N = cmocka test cases + e2e tests;
# skipped e2e tests are counted in neither) and exits non-zero on any failure.
#   env: HINDSIGHT=/abs/path/to/hindsight  BUILD=build|build-asan
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
BUILD=${BUILD:-build}
export HINDSIGHT=${HINDSIGHT:-$(cd "$here/.." && pwd)/$BUILD/hindsight}
# ASan: make leaks and errors fatal and readable in the e2e logs too.
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

pass=0
failed=0

# count LOG PREFIX: add the "PREFIX: N passed, N failed" numbers of LOG.
count()
{
    local line p f
    line=$(grep -E "^$2: [0-9]+ passed, [0-9]+ failed" "$1" | tail -1)
    if [ -z "$line" ]; then
        echo "run.sh: no '$2:' summary line; counting one failure"
        failed=$((failed + 1))
        return
    fi
    p=$(echo "$line" | sed -E 's/^[^:]*: ([0-9]+) passed.*/\1/')
    f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
    pass=$((pass + p))
    failed=$((failed + f))
}

log=$(mktemp)
trap 'rm -f "$log"' EXIT

echo "== unit tests ($BUILD): $# binaries"
if [ $# -gt 0 ]; then
    "$here/run-unit.sh" "$@" 2>&1 | tee "$log"
    count "$log" unit
fi

echo "== end-to-end tests ($BUILD): $HINDSIGHT"
"$here/e2e/run.sh" 2>&1 | tee "$log"
count "$log" e2e

# The gdb.reverse-style tests again, served live under Valgrind (`serve
# --record valgrind`) and natively until recording is asked for at the
# first instruction (`serve --record on-request`, then `monitor record
# start`; E2E_SERVE_RECORD in e2e/lib.sh): every mode of serve passes them.
# (t_gdb_reverse_replay and _watch serve a recording: no mode.) Under
# Valgrind, t_serve_end_threads too (its LLDB part records nothing under
# on-request).
reverse_tests=$(cd "$here/e2e" && ls t_gdb_reverse_*.sh |
    grep -v -e t_gdb_reverse_replay -e t_gdb_reverse_watch)
if command -v valgrind >/dev/null && command -v vgdb >/dev/null; then
    echo "== end-to-end tests ($BUILD), gdb.reverse-style, under serve --record valgrind"
    E2E_SERVE_RECORD=valgrind "$here/e2e/run.sh" $reverse_tests t_serve_end_threads.sh 2>&1 |
        tee "$log"
    count "$log" e2e
fi
echo "== end-to-end tests ($BUILD), gdb.reverse-style, under serve --record on-request"
E2E_SERVE_RECORD=on-request "$here/e2e/run.sh" $reverse_tests 2>&1 | tee "$log"
count "$log" e2e

echo "check: $pass passed, $failed failed"
[ "$failed" -eq 0 ]
