# lib.sh: helpers shared by every end-to-end test (sourced, not run).
#
# A test sources this file, builds its program(s), starts the server on port 0,
# drives a real gdb or lldb against it, and checks the transcript with grep.
#
# Environment:
#   HINDSIGHT   path to the hindsight binary (needed when SERVER=hindsight)
#   SERVER      hindsight (default) or gdbserver: the same tests validated
#               against Debian's gdbserver; hindsight-only tests skip there.
#               SERVER=lldb-server validates the LLDB tests (t_lldb_*) only,
#               against LLVM's own stub; every other test skips.
#   E2E_WORK    per-run directory (run.sh sets it); compiled programs are
#               cached in $E2E_WORK/bin for the whole run
#   T_DIR       this test's scratch directory (run.sh sets it)
#
# Conventions: every external command runs under `timeout`; every process a
# test starts is recorded and killed by the EXIT trap; a check that fails
# prints why and makes the test exit 1; exit 77 means "skipped".

set -u

E2E_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO_ROOT=$(cd "$E2E_DIR/../.." && pwd)
PROG_SRC=$REPO_ROOT/tests/programs
SERVER=${SERVER:-hindsight}
T_NAME=$(basename "$0" .sh)
if [ -z "${E2E_WORK:-}" ]; then
    E2E_WORK=$(mktemp -d /tmp/hindsight-e2e.XXXXXX)
    E2E_OWN_WORK=1
fi
T_DIR=${T_DIR:-$E2E_WORK/$T_NAME}
mkdir -p "$T_DIR" "$E2E_WORK/bin"

# Per-command time limits (seconds).
DBG_TIMEOUT=${DBG_TIMEOUT:-60}
LISTEN_TIMEOUT=${LISTEN_TIMEOUT:-10}

T_FAILS=0
T_PIDS=()          # processes to kill at exit (servers, inferiors, helpers)
SERVER_PID=
PORT=
INFERIOR_PID=

# ---- cleanup ---------------------------------------------------------------

# Kill every process this test started, then the inferiors it knows about.
e2e_cleanup()
{
    local p
    for p in "${T_PIDS[@]}"; do
        kill -KILL "$p" 2>/dev/null
    done
    wait 2>/dev/null
    if [ "${E2E_OWN_WORK:-0}" = 1 ] && [ "${E2E_KEEP:-0}" != 1 ]; then
        rm -rf "$E2E_WORK"
    fi
}
trap e2e_cleanup EXIT
trap 'exit 130' INT TERM

# ../shared beside the repository: the real recordings in shared/ptdata.
SHARED_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared

track_pid() { T_PIDS+=("$1"); }

# ---- results ---------------------------------------------------------------

fail()
{
    echo "CHECK FAILED: $*"
    T_FAILS=$((T_FAILS + 1))
}

# finish: exit 0 when every check passed, 1 otherwise.
finish()
{
    if [ "$T_FAILS" -eq 0 ]; then
        exit 0
    fi
    echo "$T_FAILS check(s) failed"
    exit 1
}

# skip REASON: end the test as skipped (exit 77).
skip()
{
    echo "SKIP: $*"
    exit 77
}

# hindsight_only REASON: skip under gdbserver.
# The light recorder's tests (t_record_light, t_record_light_threads):
# hist_ips: `history` lines to their addresses, as the tool's trace has
# them; first_tid FILE: the first thread of a trace.
hist_ips() { awk '{ a = $2; sub(/:$/, "", a); sub(/^0x0*/, "", a); print a }'; }
first_tid() { awk 'NR == 1 { print $1 }' "$1"; }

# light NAME ARGS...: records ARGS with the light recorder into NAME, the
# tool's own trace (--vg-verify) into NAME.ver; NAME.rc its exit status.
# `record` ends with the program; the first `history` rebuilds the past
# (its lines in NAME.err too).
light()
{
    local name=$1
    shift
    timeout 120 "$HINDSIGHT" record --record=light --vg-verify "$T_DIR/$name.ver" \
        -o "$T_DIR/$name" -- "$@" >"$name.out" 2>"$name.err"
    echo $? >"$name.rc"
    [ -f "$T_DIR/$name/trace.json" ] && fail "$name: rebuilt before it was needed"
    timeout 120 "$HINDSIGHT" history "$T_DIR/$name" 1,1 >/dev/null 2>>"$name.err"
}

hindsight_only()
{
    if [ "$SERVER" = gdbserver ]; then
        skip "hindsight-only: $*"
    fi
}

is_gdbserver() { [ "$SERVER" = gdbserver ]; }

# expect FILE FIXED-STRING: FILE must contain a line with the string.
expect()
{
    if ! grep -qF -- "$2" "$1"; then
        fail "$(basename "$1") lacks: $2"
    fi
}

# expect_re FILE EXTENDED-REGEX
expect_re()
{
    if ! grep -qE -- "$2" "$1"; then
        fail "$(basename "$1") lacks /$2/"
    fi
}

# expect_not FILE FIXED-STRING
expect_not()
{
    if grep -qF -- "$2" "$1"; then
        fail "$(basename "$1") must not contain: $2"
    fi
}

# expect_eq WHAT GOT WANT
expect_eq()
{
    if [ "$2" != "$3" ]; then
        fail "$1: got '$2', want '$3'"
    fi
}

# show FILE...: print files into the test log (the runner shows its tail).
show()
{
    local f
    for f in "$@"; do
        echo "----- $(basename "$f")"
        cat "$f" 2>/dev/null
    done
}

# ---- programs --------------------------------------------------------------

# compile_cached OUT NAME [CFLAGS...]: compile tests/programs/NAME.c with
# -g -O0 into OUT unless the run has it already, and print OUT. Compiled
# from inside tests/programs so debuggers print "NAME.c:LINE".
compile_cached()
{
    local out=$1 name=$2
    shift 2
    if [ ! -f "$out" ]; then
        (cd "$PROG_SRC" && timeout 60 cc -g -O0 "$@" "$name.c" -o "$out.tmp.$$") \
            >"$out.log" 2>&1 || {
            echo "cannot compile $name.c:" >&2
            cat "$out.log" >&2
            return 1
        }
        mv "$out.tmp.$$" "$out"
    fi
    echo "$out"
}

# build_prog NAME [CFLAGS...]: the program NAME.c in the run's cache.
build_prog()
{
    local name=$1
    shift
    compile_cached "$E2E_WORK/bin/$name" "$name" "$@"
}

# build_lib NAME: NAME.c as the shared library lib$NAME.so in the run's
# cache. A program links it with `build_prog PROG -Wl,--no-as-needed PATH`
# (the library has no soname: the program needs it by that path).
build_lib()
{
    compile_cached "$E2E_WORK/bin/lib$1.so" "$1" -fPIC -shared
}

# record_and_cut EXT: records crash_kinds (exit N, N random) in software into
# $T_DIR/rec, copies it to $T_DIR/cut and truncates the copy's threads/*.EXT
# (pt: the trace, state: the state log) to 30-80% of its size (CUT_PCT%, if
# set), as a recorder killed between two flushes or a copy cut off leaves
# it. Sets prog. Run from $T_DIR.
record_and_cut()
{
    local n file size pct
    prog=$(build_prog crash_kinds) || return 1
    n=$(rand_int 20 60)
    timeout 120 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" exit "$n" \
        >rec.out 2>rec.err
    expect_eq "exit status of the recorded program" "$?" "$n"
    cp -r "$T_DIR/rec" "$T_DIR/cut"
    file=$(ls "$T_DIR"/cut/threads/*."$1")
    size=$(stat -c %s "$file")
    pct=${CUT_PCT:-$(rand_int 30 80)}
    truncate -s $((size * pct / 100)) "$file"
    echo "threads/*.$1 cut to $pct% of $size bytes"
}

# line_of FILE TAG: line number of the "LINE:TAG" marker in tests/programs/FILE.
line_of()
{
    local n
    n=$(grep -n "LINE:$2 " "$PROG_SRC/$1" | head -1 | cut -d: -f1)
    if [ -z "$n" ]; then
        echo "no marker LINE:$2 in $1" >&2
        echo 0
        return 1
    fi
    echo "$n"
}

# rand_int LO HI
rand_int() { echo $(($1 + RANDOM % ($2 - $1 + 1))); }

# draw_schedule: a schedule for tests/programs/timeline.c: NT turns (6 to 9),
# worker W[n] stores V[n] (args: its command line, "W:V" each), no worker
# twice in a row, every worker at least once (a word of g_vals no
# instruction wrote is not in the recording: debuggers cannot print it).
draw_schedule()
{
    local n w
    NT=$(rand_int 6 9)
    W=()
    while [ "$(printf '%s\n' "${W[@]}" | sort -u | grep -c .)" != 3 ]; do
        W=() V=() args=()
        for ((n = 0; n < NT; n++)); do
            w=$(rand_int 0 2)
            if [ "$n" -gt 0 ] && [ "$w" = "${W[n - 1]}" ]; then
                w=$(((w + $(rand_int 1 2)) % 3))
            fi
            W+=("$w")
            V+=("$(rand_int 1000 9999)")
            args+=("$w:${V[n]}")
        done
    done
}

# schedule_vals N: g_vals as GDB prints it when turn N of draw_schedule's
# schedule begins (each worker's latest value of an earlier turn, 0 before
# its first).
schedule_vals()
{
    local v=(0 0 0) k
    for ((k = 0; k < $1; k++)); do
        v[W[k]]=${V[k]}
    done
    echo "{${v[0]}, ${v[1]}, ${v[2]}}"
}

# ---- the server ------------------------------------------------------------

# server_cmd [--once] [--attach PID] ADDR [PROG ARGS...]: print nothing, fill
# the array SERVER_CMD with the command line for $SERVER.
server_cmd()
{
    local once= attach= replay= norecord= recdir= vfileany= record=
    while [ $# -gt 0 ]; do
        case $1 in
        --once) once=--once; shift ;;
        --record) record=$2; shift 2 ;;
        -o) recdir=$2; shift 2 ;;
        --no-record) norecord=--no-record; shift ;;
        --vfile-any) vfileany=--vfile-any; shift ;;
        --attach) attach=$2; shift 2 ;;
        --replay) replay=$2; shift 2 ;;
        *) break ;;
        esac
    done
    local addr=$1
    shift
    case $SERVER in
    gdbserver)
        [ -n "$replay" ] && { echo "gdbserver cannot replay a recording" >&2; return 1; }
        [ -n "$recdir" ] && { echo "gdbserver does not record" >&2; return 1; }
        SERVER_CMD=(gdbserver ${once:+$once})
        if [ -n "$attach" ]; then
            SERVER_CMD+=(--attach "$addr" "$attach")
        else
            SERVER_CMD+=("$addr" "$@")
        fi
        ;;
    hindsight)
        if [ -z "${HINDSIGHT:-}" ] || [ ! -x "$HINDSIGHT" ]; then
            echo "HINDSIGHT is not set to an executable (got '${HINDSIGHT:-}')" >&2
            return 1
        fi
        SERVER_CMD=("$HINDSIGHT" serve ${once:+$once} ${norecord:+$norecord} ${vfileany:+$vfileany}
                    ${record:+--record "$record"})
        if [ -n "$recdir" ]; then
            SERVER_CMD+=(-o "$recdir")
        fi
        if [ -n "$attach" ]; then
            SERVER_CMD+=(--attach "$attach")
        fi
        if [ -n "$replay" ]; then
            SERVER_CMD+=(--replay "$replay")
        fi
        SERVER_CMD+=("$addr" "$@")
        ;;
    *)
        echo "unknown SERVER '$SERVER' (hindsight or gdbserver)" >&2
        return 1
        ;;
    esac
}

# server_start_lldb PROG [ARGS...]: lldb-server prints no "Listening on port";
# it writes the port to a named pipe instead. The inferior is its child.
server_start_lldb()
{
    local fifo=$T_DIR/port.fifo
    rm -f "$fifo"
    mkfifo "$fifo"
    SERVER_CMD=(lldb-server gdbserver --named-pipe "$fifo" 127.0.0.1:0 "$@")
    "${SERVER_CMD[@]}" </dev/null >"$T_DIR/server.out" 2>"$T_DIR/server.err" &
    SERVER_PID=$!
    track_pid "$SERVER_PID"
    PORT=$(timeout "$LISTEN_TIMEOUT" cat "$fifo" | tr -d '\0')
    INFERIOR_PID=
    local i
    for ((i = 0; i < 100; i++)); do
        INFERIOR_PID=$(pgrep -P "$SERVER_PID" | head -1)
        [ -n "$INFERIOR_PID" ] && break
        sleep 0.05
    done
    [ -n "$INFERIOR_PID" ] && track_pid "$INFERIOR_PID"
    if [ -z "$PORT" ]; then
        fail "lldb-server did not report its port"
        return 1
    fi
    echo "server: ${SERVER_CMD[*]} (pid $SERVER_PID, port $PORT, inferior ${INFERIOR_PID:-?})"
}

# server_start [--once] [--no-record] [--record MODE] [--vfile-any] [--attach PID | --replay DIR]
# PROG [ARGS...]: start the server on
# 127.0.0.1:0 with stdout in $T_DIR/server.out and stderr in
# $T_DIR/server.err; wait (bounded) for "Listening on port N". Sets
# SERVER_PID, PORT and INFERIOR_PID (from "Process ... created; pid = N", or
# the attached pid). Returns 1 if the server did not start listening.
# TO_EXIT: the GDB commands that run a stopped program on to its exit,
# set by server_start. A program `hindsight serve` records stops before the
# syscall that ends it, still there to be gone back over (docs/serve.md,
# "The end of the program"), and the continue after that stop lets it exit;
# gdbserver and `serve --no-record` exit at the first continue.
# E2E_SERVE_RECORD=MODE: a server started with no recorder named (no
# --record, --replay, --no-record or --attach) records with MODE instead:
# tests/run.sh runs the gdb.reverse-style tests again so under `serve
# --record valgrind`.
TO_EXIT=(-ex continue)
RECORD_START=()
# A resume that runs long by single steps says so on GDB's console (after
# 15 s): not in the tests' transcripts, but where a test asks for it
# (t_gdb_interrupt sets it to 1 s).
export HINDSIGHT_SERVE_NOTICE_SECS=${HINDSIGHT_SERVE_NOTICE_SECS:-1000000}

server_start()
{
    local opts=() attach=
    RECORD_START=()
    if [ -n "${E2E_SERVE_RECORD:-}" ] && [ "$SERVER" = hindsight ]; then
        case " $* " in
        *" --record "* | *" --replay "* | *" --no-record "* | *" --attach "*) ;;
        *) set -- --record "$E2E_SERVE_RECORD" "$@"
           # on-request, turned on at the first instruction
           [ "$E2E_SERVE_RECORD" = on-request ] && RECORD_START=(-ex 'monitor record start') ;;
        esac
    fi
    TO_EXIT=(-ex continue)
    case " $* " in
    *" --no-record "* | *" --replay "*) ;;
    *" on-request "*) [ ${#RECORD_START[@]} -gt 0 ] && TO_EXIT=(-ex continue -ex continue) ;;
    *) [ "$SERVER" = hindsight ] && TO_EXIT=(-ex continue -ex continue) ;;
    esac
    if [ "$SERVER" = lldb-server ]; then
        case $1 in --*) skip "lldb-server mode has no $1" ;; esac
        server_start_lldb "$@"
        return
    fi
    while [ $# -gt 0 ]; do
        case $1 in
        --once) opts+=(--once); shift ;;
        --record) opts+=(--record "$2"); shift 2 ;;
        -o) opts+=(-o "$2"); shift 2 ;;
        --no-record) opts+=(--no-record); shift ;;
        --vfile-any) opts+=(--vfile-any); shift ;;
        --attach) opts+=(--attach "$2"); attach=$2; shift 2 ;;
        --replay) opts+=(--replay "$2"); shift 2 ;;
        *) break ;;
        esac
    done
    server_cmd "${opts[@]}" 127.0.0.1:0 "$@" || return 1
    : >"$T_DIR/server.out"
    : >"$T_DIR/server.err"
    "${SERVER_CMD[@]}" </dev/null >"$T_DIR/server.out" 2>"$T_DIR/server.err" &
    SERVER_PID=$!
    track_pid "$SERVER_PID"
    PORT=
    local i
    for ((i = 0; i < LISTEN_TIMEOUT * 20; i++)); do
        PORT=$(sed -n 's/.*Listening on port \([0-9][0-9]*\).*/\1/p' "$T_DIR/server.err" | tail -1)
        [ -n "$PORT" ] && break
        kill -0 "$SERVER_PID" 2>/dev/null || break
        sleep 0.05
    done
    INFERIOR_PID=$(sed -n 's/.*created; pid = \([0-9][0-9]*\).*/\1/p' "$T_DIR/server.err" | head -1)
    [ -n "$attach" ] && INFERIOR_PID=$attach
    [ -n "$INFERIOR_PID" ] && track_pid "$INFERIOR_PID"
    if [ -z "$PORT" ]; then
        fail "server did not print 'Listening on port N' within ${LISTEN_TIMEOUT}s: ${SERVER_CMD[*]}"
        show "$T_DIR/server.err"
        return 1
    fi
    echo "server: ${SERVER_CMD[*]} (pid $SERVER_PID, port $PORT, inferior ${INFERIOR_PID:-?})"
}

# wait_gone PID SECONDS: wait until PID has exited; 1 if it is still there.
# Works for children (reaped by wait) and for unrelated processes.
wait_gone()
{
    local pid=$1 i
    for ((i = 0; i < $2 * 20; i++)); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            return 0
        fi
        # A zombie child counts as gone.
        if [ "$(ps -o stat= -p "$pid" 2>/dev/null | cut -c1)" = Z ]; then
            wait "$pid" 2>/dev/null
            return 0
        fi
        sleep 0.05
    done
    return 1
}

# wait_for_file FILE REGEX SECONDS
wait_for_file()
{
    local i
    for ((i = 0; i < $3 * 20; i++)); do
        grep -qE -- "$2" "$1" 2>/dev/null && return 0
        sleep 0.05
    done
    return 1
}

# ---- debuggers -------------------------------------------------------------

# gdb_run OUT [-ex CMD]...: connect gdb to 127.0.0.1:$PORT in batch mode,
# run the commands, transcript (stdout+stderr) in OUT. Returns gdb's status.
gdb_run()
{
    local out=$1
    shift
    timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx \
        -iex 'set debuginfod enabled off' -iex 'set tcp connect-timeout 5' -iex 'set remotetimeout 30' \
        -ex 'set confirm off' -ex 'set pagination off' -ex 'set width 0' \
        -ex "target remote 127.0.0.1:$PORT" "${RECORD_START[@]}" \
        "$@" </dev/null >"$out" 2>&1
    local rc=$?
    [ "$rc" -eq 124 ] && fail "gdb timed out after ${DBG_TIMEOUT}s"
    return "$rc"
}

# gdb_run_bg OUT [-ex CMD]...: like gdb_run in the background; sets GDB_PID
# (gdb's own pid) and GDB_TIMEOUT_PID (its timeout wrapper).
gdb_run_bg()
{
    local out=$1
    shift
    timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx \
        -iex 'set debuginfod enabled off' -iex 'set tcp connect-timeout 5' -iex 'set remotetimeout 30' \
        -ex 'set confirm off' -ex 'set pagination off' -ex 'set width 0' \
        -ex "target remote 127.0.0.1:$PORT" "${RECORD_START[@]}" \
        "$@" </dev/null >"$out" 2>&1 &
    GDB_TIMEOUT_PID=$!
    track_pid "$GDB_TIMEOUT_PID"
    # GDB_PID is gdb itself (the child of timeout), so signals reach it.
    GDB_PID=
    local i
    for ((i = 0; i < 100; i++)); do
        GDB_PID=$(pgrep -P "$GDB_TIMEOUT_PID" | head -1)
        [ -n "$GDB_PID" ] && break
        sleep 0.05
    done
    if [ -z "$GDB_PID" ]; then
        fail "gdb did not start"
        GDB_PID=$GDB_TIMEOUT_PID
    fi
    track_pid "$GDB_PID"
}

# lldb_run OUT PROG [-o CMD]...: lldb in batch mode with PROG as the target,
# connected with gdb-remote to 127.0.0.1:$PORT.
lldb_run()
{
    local out=$1 prog=$2
    shift 2
    lldb_batch "$out" -x "$prog" -o "gdb-remote 127.0.0.1:$PORT" "$@"
}

# lldb_batch OUT ARGS...: `lldb -b ARGS` into OUT, bounded; its status.
lldb_batch()
{
    local out=$1
    shift
    timeout -k 5 "$DBG_TIMEOUT" lldb -b "$@" </dev/null >"$out" 2>&1
    local rc=$?
    [ "$rc" -eq 124 ] && fail "lldb timed out after ${DBG_TIMEOUT}s"
    return "$rc"
}

# lldb_run_remote OUT PROG [-o CMD]...: lldb_run with the remote-linux
# platform selected before the target is made: LLDB 14 then takes the
# program from its target, not from /proc/PID/exe on this machine (under
# Valgrind, the tool's).
lldb_run_remote()
{
    local out=$1 prog=$2
    shift 2
    lldb_batch "$out" -x -o 'platform select remote-linux' -o "target create \"$prog\"" \
        -o "gdb-remote 127.0.0.1:$PORT" "$@"
}

if [ "$SERVER" = lldb-server ] && [ "${T_NAME#t_lldb_}" = "$T_NAME" ]; then
    skip "SERVER=lldb-server validates only the t_lldb_* tests"
fi

# Print the environment once, into the test log.
echo "test $T_NAME: SERVER=$SERVER${HINDSIGHT:+ HINDSIGHT=$HINDSIGHT} dir=$T_DIR"
