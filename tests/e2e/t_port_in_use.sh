#!/usr/bin/env bash
# t_port_in_use: a second server on a port that is already taken prints
# "Can't bind address: Address already in use." and exits non-zero, while the
# first server keeps working.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog exitcode) || exit 1
server_start "$prog" || finish
FIRST_INFERIOR=$INFERIOR_PID

server_cmd "127.0.0.1:$PORT" "$prog" || finish
err=$T_DIR/second.err
timeout -k 2 10 "${SERVER_CMD[@]}" </dev/null >"$err" 2>&1
rc=$?
show "$err"
[ "$rc" -eq 124 ] && fail "second server still running after 10s"
[ "$rc" -ne 0 ] || fail "second server exited with status 0"
expect "$err" "Can't bind address: Address already in use."
# Any inferior the second server may have started must be gone.
pid2=$(sed -n 's/.*created; pid = \([0-9][0-9]*\).*/\1/p' "$err")
[ -n "$pid2" ] && { wait_gone "$pid2" 5 || fail "second server left its program $pid2 behind"; }

out=$T_DIR/gdb.out
gdb_run "$out" "${TO_EXIT[@]}"
show "$out"
expect "$out" "[Inferior 1 (process $FIRST_INFERIOR) exited with code 07]"
finish
