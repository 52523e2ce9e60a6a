#!/usr/bin/env bash
# t_bad_packets: a raw client (tools/rsp_client.py) sends bad input and the
# connection stays usable: a wrong checksum is answered with "-", a malformed
# packet ("m zz,4") and a read of unmapped memory ("m0,4") get an E reply, and
# a valid "?" is still answered with a stop reply. Under hindsight also: a
# packet twice the announced PacketSize gets an E reply (gdbserver instead
# drops the connection) and the stub keeps serving.
. "$(dirname "$0")/lib.sh"

PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3) || skip "python3 not installed"
prog=$(build_prog loop) || exit 1
server_start "$prog" || finish

out=$T_DIR/raw.out
timeout -k 2 30 "$PY" "$E2E_DIR/tools/rsp_client.py" "$PORT" \
    'send:qSupported' 'badsum:?' 'send:m zz,4' 'send:m0,4' 'send:?' >"$out" 2>&1
rc=$?
show "$out"
[ "$rc" -eq 0 ] || fail "raw client failed (exit $rc)"
expect_re "$out" "^reply .*PacketSize=[0-9a-fA-F]+"
expect "$out" "ack -"
n=$(grep -cE '^reply E[0-9a-fA-F]{2}' "$out")
[ "$n" -eq 2 ] || fail "want 2 E replies (m zz,4 and m0,4), got $n"
expect_re "$out" "^reply [TS]05"

if ! is_gdbserver; then
    out2=$T_DIR/raw2.out
    timeout -k 2 30 "$PY" "$E2E_DIR/tools/rsp_client.py" "$PORT" \
        'send:qSupported' 'oversize' 'send:?' >"$out2" 2>&1
    rc=$?
    show "$out2"
    [ "$rc" -eq 0 ] || fail "raw client (oversized packet) failed (exit $rc)"
    expect_re "$out2" "^reply E"
    expect_re "$out2" "^reply [TS]05"
fi

# A real debugger can still connect afterwards and the program is intact.
out3=$T_DIR/gdb.out
gdb_run "$out3" -ex 'break loop_spin' -ex 'continue' -ex 'kill'
show "$out3"
expect "$out3" "Breakpoint 1, loop_spin () at loop.c:"

# vKill / D naming another process (pid 1) are refused (E01; gdbserver
# refuses D;1 but kills its own process on vKill;1), leaving the served one
# alone; then the first resume with no breakpoint at
# all runs it to its end (under UBSan this was an abort: qsort of an empty,
# NULL table): to the stop before its exit_group (the reason on the console
# first), and the next resume to its exit.
is_gdbserver && finish
basic=$(build_prog basic) || finish
server_start "$basic" 3 4 || finish
out4=$T_DIR/raw4.out
# (recording the whole program: a minute at most, under ASan)
RSP_CLIENT_TIMEOUT=60 timeout -k 2 90 "$PY" "$E2E_DIR/tools/rsp_client.py" "$PORT" \
    'send:qSupported' 'send:vKill;1' 'send:D;1' 'send:?' 'send:vCont;c' 'send:vCont;c' >"$out4" 2>&1
show "$out4"
[ "$(grep -c '^reply E01' "$out4")" = 2 ] || fail "vKill;1 and D;1 were not both refused with E01"
expect_re "$out4" "^reply T05"
expect_re "$out4" "^reply O$(printf %s 'hindsight: the next instruction is syscall exit_group' | od -An -tx1 | tr -d ' \n')"
expect_re "$out4" "^reply T00"
expect_re "$out4" "^reply W00"
finish
