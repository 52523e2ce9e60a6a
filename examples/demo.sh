#!/usr/bin/env bash
# demo.sh BIN: four sessions.
#  1. `BIN run` records examples/cart.c, which crashes (SIGSEGV): hindsight
#     explains how it got there and keeps the recording.
#  2. examples/demo.c served with `BIN serve 127.0.0.1:0` and a scripted
#     `gdb -batch` session against it: a breakpoint, a backtrace, locals,
#     next/step/finish, a watchpoint-free continue to the end (where a
#     recorded program stops before it exits), and on to the exit.
#  3. GDB on cart's recording (`BIN serve --replay`): from the crash back to
#     the write that broke the pointer, with reverse-continue.
#  4. The same in `BIN replay`: C values, then `last c->cheapest` straight to
#     the write.
# Prints the transcripts and the programs' own output. Under
# SERVER=gdbserver only session 2 runs.
#   examples/demo.sh build/hindsight
#   SERVER=gdbserver examples/demo.sh      # same session against gdbserver
set -u

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
SERVER=${SERVER:-hindsight}
BIN=${1:-}
if [ "$SERVER" = hindsight ] && { [ -z "$BIN" ] || [ ! -x "$BIN" ]; }; then
    echo "usage: $0 /path/to/hindsight   (or SERVER=gdbserver $0)" >&2
    exit 2
fi
for tool in gdb cc timeout; do
    command -v "$tool" >/dev/null || { echo "demo: $tool is not installed (make deps)" >&2; exit 1; }
done

work=$(mktemp -d /tmp/hindsight-demo.XXXXXX)
server_pid=
cleanup()
{
    [ -n "$server_pid" ] && kill -KILL "$server_pid" 2>/dev/null
    [ -n "${inferior:-}" ] && kill -KILL "$inferior" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT

(cd "$here" && cc -g -O0 demo.c -o "$work/demo") || exit 1

gdb_batch()
{
    local port=$1
    shift
    local args=() c
    for c in "$@"; do args+=(-ex "echo (gdb) $c\\n" -ex "$c"); done
    timeout -k 5 60 gdb -batch -nx -iex 'set debuginfod enabled off' \
        -ex 'set confirm off' -ex 'set pagination off' \
        -ex "target remote 127.0.0.1:$port" "${args[@]}" </dev/null 2>&1 |
        grep -v -e '^Reading .* from remote target' -e 'File transfers from remote targets'
    return "${PIPESTATUS[0]}"
}

# wait_port PID ERRFILE: the port a server printed, empty if it did not.
wait_port()
{
    local port= i
    for ((i = 0; i < 200; i++)); do
        port=$(sed -n 's/.*Listening on port \([0-9][0-9]*\).*/\1/p' "$2" | head -1)
        [ -n "$port" ] && break
        kill -0 "$1" 2>/dev/null || break
        sleep 0.05
    done
    echo "$port"
}

# 1. A crash, recorded and explained.
crash_position=
if [ "$SERVER" = hindsight ]; then
    (cd "$here" && cc -g -O0 cart.c -o "$work/cart") || exit 1
    # run's own choice of recorder: Valgrind's light one where Valgrind
    # and hindsight's tool are here (`make deps` installs Valgrind, `make`
    # builds the tool), which rebuilds the history since the program
    # crashed; else single steps.
    echo "=== 1. hindsight run: a program that crashes, and how it got there"
    echo "\$ hindsight run -o $work/cart.rec -- $work/cart"
    "$BIN" run -o "$work/cart.rec" -- "$work/cart" 2>"$work/run.err"
    echo "(exit status $?)"
    cat "$work/run.err"
    crash_position=$(sed -n 's/.*instruction, number \([0-9][0-9]*\) of thread.*/\1/p' "$work/run.err")
    # The page outlives the demo's directory: open it in a browser.
    page=${TMPDIR:-/tmp}/hindsight-demo-cart.html
    echo "\$ hindsight timeline $work/cart.rec -o $page"
    "$BIN" timeline "$work/cart.rec" -o "$page" &&
        echo "(every call of the run, the crash marked: open $page in a browser)"
    echo
    echo "=== 2. hindsight serve: a scripted GDB session on a live program"
fi

if [ "$SERVER" = gdbserver ]; then
    cmd=(gdbserver --once 127.0.0.1:0 "$work/demo")
else
    cmd=("$BIN" serve --once 127.0.0.1:0 "$work/demo")
fi
echo "\$ ${cmd[*]}"
"${cmd[@]}" </dev/null >"$work/program.out" 2>"$work/server.err" &
server_pid=$!
port=$(wait_port "$server_pid" "$work/server.err")
inferior=$(sed -n 's/.*created; pid = \([0-9][0-9]*\).*/\1/p' "$work/server.err" | head -1)
cat "$work/server.err"
if [ -z "$port" ]; then
    echo "demo: the server did not start listening" >&2
    exit 1
fi

gdb_cmds=(
    'break fib'
    'continue'
    'backtrace'
    'info args'
    'next'
    'next'
    'info locals'
    'finish'
    'step'
    'step'
    'print g_total'
    'delete'
    'continue'
)
# A recorded program stops before the syscall that ends it (its past can
# still be gone back over there); the next continue lets it exit.
[ "$SERVER" = hindsight ] && gdb_cmds+=('continue')
echo "\$ gdb -batch -ex 'target remote 127.0.0.1:$port' ..."
gdb_batch "$port" "${gdb_cmds[@]}"
rc=$?
echo "--- the program's output:"
cat "$work/program.out"
for ((i = 0; i < 100; i++)); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.05; done

# 3. Back from the crash to the bad write, in the recording of session 1.
if [ "$SERVER" = hindsight ] && [ -n "$crash_position" ]; then
    echo
    echo "=== 3. hindsight serve --replay: GDB walks back from the crash to its cause"
    echo "\$ hindsight serve --once --replay $work/cart.rec 127.0.0.1:0"
    "$BIN" serve --once --replay "$work/cart.rec" 127.0.0.1:0 </dev/null \
        >/dev/null 2>"$work/replay.err" &
    server_pid=$!
    port=$(wait_port "$server_pid" "$work/replay.err")
    cat "$work/replay.err"
    if [ -z "$port" ]; then
        echo "demo: the replay server did not start listening" >&2
        exit 1
    fi
    echo "\$ gdb -batch -ex 'target remote 127.0.0.1:$port' $work/cart ..."
    gdb_batch "$port" \
        "monitor goto $crash_position" 'maintenance flush register-cache' \
        'backtrace' 'print it' 'break add_day' 'reverse-continue' 'backtrace' \
        'print day' 'print &c->subtotal[day] == (long *)&c->cheapest' \
        'print c->cheapest' 'next' 'print c->cheapest' || rc=1
    echo
    echo "=== 4. hindsight replay: the same in hindsight's own front end, with last"
    echo "\$ hindsight replay $work/cart.rec --batch -ex 'goto $crash_position' -ex 'print it' -ex up \\"
    echo "    -ex 'last c->cheapest' -ex 'info args' -ex 'print c->subtotal'"
    "$BIN" replay "$work/cart.rec" --batch -ex "goto $crash_position" -ex 'print it' -ex up \
        -ex 'last c->cheapest' -ex 'info args' -ex 'print c->subtotal' || rc=1
fi
exit "$rc"
