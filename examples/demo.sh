#!/usr/bin/env bash
# demo.sh BIN: build examples/demo.c, serve it with `BIN serve 127.0.0.1:0`,
# and run a scripted `gdb -batch` session against it: a breakpoint, a
# backtrace, locals, next/step/finish, a watchpoint-free continue to the
# exit. Prints the GDB transcript and the program's own output.
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

if [ "$SERVER" = gdbserver ]; then
    cmd=(gdbserver --once 127.0.0.1:0 "$work/demo")
else
    cmd=("$BIN" serve --once 127.0.0.1:0 "$work/demo")
fi
echo "\$ ${cmd[*]}"
"${cmd[@]}" </dev/null >"$work/program.out" 2>"$work/server.err" &
server_pid=$!
port=
for ((i = 0; i < 200; i++)); do
    port=$(sed -n 's/.*Listening on port \([0-9][0-9]*\).*/\1/p' "$work/server.err" | head -1)
    [ -n "$port" ] && break
    kill -0 "$server_pid" 2>/dev/null || break
    sleep 0.05
done
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
args=()
for c in "${gdb_cmds[@]}"; do args+=(-ex "echo (gdb) $c\\n" -ex "$c"); done
echo "\$ gdb -batch -ex 'target remote 127.0.0.1:$port' ..."
timeout -k 5 60 gdb -batch -nx -iex 'set debuginfod enabled off' \
    -ex 'set confirm off' -ex 'set pagination off' \
    -ex "target remote 127.0.0.1:$port" "${args[@]}" </dev/null 2>&1 |
    grep -v -e '^Reading .* from remote target' -e 'File transfers from remote targets'
rc=${PIPESTATUS[0]}
echo "--- the program's output:"
cat "$work/program.out"
for ((i = 0; i < 100; i++)); do kill -0 "$server_pid" 2>/dev/null || break; sleep 0.05; done
exit "$rc"
