#!/usr/bin/env bash
# t_lldb_connect_many: LLDB 14 connects to `hindsight serve --replay` and to
# a live `hindsight serve` many times in a row and never crashes.
# As it connects, LLDB reads the stack in 512-byte cache lines. A recording
# knows the stack only as far as the program touched it, so such a line
# can run past the known bytes anywhere in a page; hindsight answered that
# `m` with the known part and refused the rest, and LLDB 14's memory cache
# segfaults on exactly that (fixed in LLDB 17). A Valgrind recording's
# stack always ended inside LLDB's first line (the crash every time); a
# software one only when ASLR put its end there (the crash by chance, as in
# CI's ASan pass). An `m` is now answered whole or refused, as gdbserver
# and lldb-server do; and since LLDB 14 then cannot read a known word in a
# line that holds an unknown byte, the software recorder logs the whole
# stack mapping at the start (below the stack pointer: zeros), so that
# every line of the stack is known; so does the Valgrind tool, as
# Valgrind built it.
# Each connection: LLDB's exit status is 0, it shows frame #0 and reads the
# stack pointer's 8 bytes; the same 8 bytes as GDB reads them at the end of
# the recording. Three software recordings: three stack layouts; the
# Valgrind recording's layout depends on the environment's size, and
# CI's made it refuse the word before its tool logged the initial stack.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
command -v lldb >/dev/null || skip "no lldb"
cd "$T_DIR" || finish

ROUNDS=${ROUNDS:-8}
prog=$(build_prog origin) || finish

# connect_many NAME N WORD SERVER_ARGS...: N LLDB sessions in a row, each
# against a new server (LLDB kills the program as it leaves, and the
# server ends with it, as gdbserver does); each must end cleanly with a
# frame and the stack's first word (WORD, unless empty).
connect_many()
{
    local name=$1 n=$2 sp_word=$3 i rc bad=0
    shift 3
    for ((i = 1; i <= n; i++)); do
        if ! server_start "$@"; then
            bad=$((bad + 1))
            continue
        fi
        lldb_run "$T_DIR/$name.$i.lldb" "$prog" -o 'bt 1' -o 'memory read -s8 -fx -c1 $sp'
        rc=$?
        if [ "$rc" -ne 0 ] || ! grep -q 'frame #0: 0x' "$T_DIR/$name.$i.lldb" ||
            { [ -n "$sp_word" ] && ! grep -qE "^0x[0-9a-f]+: $sp_word\$" "$T_DIR/$name.$i.lldb"; }; then
            bad=$((bad + 1))
            echo "== $name, connection $i: exit $rc"
            show "$T_DIR/$name.$i.lldb"
        fi
        kill "$SERVER_PID" 2>/dev/null
        wait_gone "$SERVER_PID" 10
    done
    expect_eq "$name: connections that failed, of $n" "$bad" 0
}

# replay_many NAME REC: GDB reads the word at $sp at the end of REC, then
# LLDB connects ROUNDS times to serve --replay of it.
replay_many()
{
    local name=$1 rec=$2 word
    server_start --replay "$rec" || return
    gdb_run "$T_DIR/$name.gdb" -ex 'x/gx $sp' "$prog"
    kill "$SERVER_PID" 2>/dev/null
    wait_gone "$SERVER_PID" 10
    word=$(sed -n 's/^0x[0-9a-f]*:[[:space:]]*\(0x[0-9a-f]*\)$/\1/p' "$T_DIR/$name.gdb" | tail -1)
    [ -n "$word" ] || { fail "$name: GDB read no word at \$sp"; show "$T_DIR/$name.gdb"; }
    connect_many "$name" "$ROUNDS" "$word" --replay "$rec"
}

# Valgrind recordings: Valgrind places the stack the same way every run,
# so the environment's size moves the stack pointer within its line.
if command -v valgrind >/dev/null; then
    for pad in 0 200 333; do
        HS_PAD=$(printf "%${pad}s" "") timeout 120 "$HINDSIGHT" record --record=valgrind \
            -o "vg$pad" -- "$prog" chain 5 9 >"vg$pad.out" 2>&1
        expect "vg$pad.out" "chain 16"
        ROUNDS=$((ROUNDS / 3 + 1)) replay_many "valgrind$pad" "vg$pad"
    done
fi
# Software recordings: each run's stack is elsewhere (ASLR), so several.
for i in 1 2 3; do
    timeout 120 "$HINDSIGHT" record --record=sw -o "sw$i" -- "$prog" chain 5 9 >"sw$i.out" 2>&1
    expect "sw$i.out" "chain 16"
    ROUNDS=$((ROUNDS / 3 + 1)) replay_many "software$i" "sw$i"
done
connect_many live $((ROUNDS / 2)) "" "$prog" chain 5 9
finish
