#!/usr/bin/env bash
# run.sh: run the end-to-end suite (tests/e2e/t_*.sh) one test at a time.
#
#   HINDSIGHT=/abs/build/hindsight tests/e2e/run.sh [t_name ...]
#   SERVER=gdbserver tests/e2e/run.sh [t_name ...]    # validate against gdbserver
#
# Each test prints PASS/FAIL/SKIP; a failing test's log tail is shown. The last
# line is always "e2e: N passed, N failed, N skipped" (tests/run.sh parses it).
# Exit status: 0 when nothing failed. E2E_KEEP=1 keeps the work directory.
set -u

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export SERVER=${SERVER:-hindsight}
# Each test's limit: a hang's bound, well above any test's time, so that a
# slow machine does not fail one by chance (the longest, t_record_valgrind,
# took 117 s, and 211 s on a machine shared with other builds).
TEST_TIMEOUT=${TEST_TIMEOUT:-300}

if [ "$SERVER" = hindsight ]; then
    if [ -z "${HINDSIGHT:-}" ]; then
        HINDSIGHT=$(cd "$E2E_DIR/../.." && pwd)/build/hindsight
    fi
    export HINDSIGHT
    if [ ! -x "$HINDSIGHT" ]; then
        echo "e2e: HINDSIGHT=$HINDSIGHT is not an executable (build it with make)"
        echo "e2e: 0 passed, 1 failed, 0 skipped"
        exit 1
    fi
fi

for tool in gdb lldb cc timeout; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "e2e: missing tool '$tool' (run scripts/install-deps.sh)"
        echo "e2e: 0 passed, 1 failed, 0 skipped"
        exit 1
    fi
done

export E2E_WORK
E2E_WORK=$(mktemp -d /tmp/hindsight-e2e.XXXXXX)
cleanup() { [ "${E2E_KEEP:-0}" = 1 ] || rm -rf "$E2E_WORK"; }
trap cleanup EXIT

tests=()
if [ $# -gt 0 ]; then
    for t in "$@"; do
        t=$(basename "$t" .sh)
        tests+=("$E2E_DIR/$t.sh")
    done
else
    for t in "$E2E_DIR"/t_*.sh; do
        tests+=("$t")
    done
fi

pass=0 failed=0 skipped=0 failed_names=()
start=$SECONDS
for t in "${tests[@]}"; do
    name=$(basename "$t" .sh)
    log=$E2E_WORK/$name.log
    t0=$SECONDS
    if [ ! -f "$t" ]; then
        echo "no such test: $t" >"$log"
        rc=1
    else
        T_DIR=$E2E_WORK/$name timeout -k 5 "$TEST_TIMEOUT" bash "$t" </dev/null >"$log" 2>&1
        rc=$?
    fi
    dt=$((SECONDS - t0))
    case $rc in
    0)
        pass=$((pass + 1))
        echo "PASS $name (${dt}s)"
        ;;
    77)
        skipped=$((skipped + 1))
        echo "SKIP $name: $(grep -m1 '^SKIP:' "$log" | sed 's/^SKIP: //')"
        ;;
    *)
        failed=$((failed + 1))
        failed_names+=("$name")
        [ "$rc" = 124 ] && echo "  (test timed out after ${TEST_TIMEOUT}s)" >>"$log"
        echo "FAIL $name (exit $rc, ${dt}s); last lines of its log:"
        tail -n 40 "$log" | sed 's/^/    | /'
        ;;
    esac
done

# Leftover processes would mean a test leaked one: report them.
leaks=$(pgrep -f "$E2E_WORK/bin/" 2>/dev/null | tr '\n' ' ')
if [ -n "$leaks" ]; then
    echo "e2e: warning: processes left over, killing: $leaks"
    for p in $leaks; do kill -KILL "$p" 2>/dev/null; done
fi

[ "$failed" -gt 0 ] && echo "e2e: failed: ${failed_names[*]}"
echo "e2e ($SERVER, $((SECONDS - start))s): $pass passed, $failed failed, $skipped skipped"
echo "e2e: $pass passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
