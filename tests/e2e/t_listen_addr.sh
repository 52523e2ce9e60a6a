#!/usr/bin/env bash
# t_listen_addr: with an empty HOST (":0") hindsight listens on 127.0.0.1
# only, and port 0 picks a free port that "Listening on port N" names.
# (gdbserver listens on every address for ":PORT", so this is hindsight-only.)
. "$(dirname "$0")/lib.sh"
hindsight_only "gdbserver binds 0.0.0.0 when HOST is empty"

prog=$(build_prog loop) || exit 1
"$HINDSIGHT" serve :0 "$prog" </dev/null >"$T_DIR/server.out" 2>"$T_DIR/server.err" &
SERVER_PID=$!
track_pid "$SERVER_PID"
wait_for_file "$T_DIR/server.err" "Listening on port [0-9]+" "$LISTEN_TIMEOUT" || fail "no 'Listening on port N'"
PORT=$(sed -n 's/.*Listening on port \([0-9][0-9]*\).*/\1/p' "$T_DIR/server.err" | head -1)
INFERIOR_PID=$(sed -n 's/.*created; pid = \([0-9][0-9]*\).*/\1/p' "$T_DIR/server.err" | head -1)
[ -n "$INFERIOR_PID" ] && track_pid "$INFERIOR_PID"
show "$T_DIR/server.err"
expect_re "$T_DIR/server.err" "^Process .*loop created; pid = [0-9]+\$"
[ -n "$PORT" ] && [ "$PORT" -gt 0 ] || { fail "bad port '$PORT'"; finish; }
# /proc/net/tcp: local address 0100007F:<port hex> in state 0A (LISTEN).
hexport=$(printf '%04X' "$PORT")
grep -qE "^ *[0-9]+: 0100007F:$hexport 00000000:0000 0A" /proc/net/tcp ||
    fail "not listening on 127.0.0.1:$PORT"
grep -qE "^ *[0-9]+: 00000000:$hexport 00000000:0000 0A" /proc/net/tcp &&
    fail "listening on 0.0.0.0:$PORT"
out=$T_DIR/gdb.out
gdb_run "$out" -ex 'kill'
expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"
finish
