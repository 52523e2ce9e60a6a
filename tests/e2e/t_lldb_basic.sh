#!/usr/bin/env bash
# t_lldb_basic: LLDB 14 `gdb-remote` connects, reads registers and memory
# (argc on the initial stack is the count this test passed), single-steps an
# instruction (pc moves), and `process kill` ends the program.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
server_start "$prog" 11 22 33 || finish

out=$T_DIR/lldb.out
lldb_run "$out" "$prog" \
    -o 'register read rip rsp' \
    -o 'memory read --format x --size 8 --count 1 $rsp' \
    -o 'thread step-inst' \
    -o 'register read rip' \
    -o 'process kill'
show "$out"

expect "$out" "Process $INFERIOR_PID stopped"
pc0=$(sed -n 's/^ *rip = \(0x[0-9a-f]*\).*/\1/p' "$out" | sed -n 1p)
pc1=$(sed -n 's/^ *rip = \(0x[0-9a-f]*\).*/\1/p' "$out" | sed -n 2p)
[ -n "$pc0" ] && [ -n "$pc1" ] || fail "no rip values"
[ "$pc0" != "$pc1" ] || fail "stepi did not move the pc ($pc0)"
# argc = 4 (program + 3 arguments) at the top of the initial stack
expect_re "$out" "^0x[0-9a-f]+: 0x0000000000000004\$"
expect "$out" "stop reason = instruction step into"
expect_re "$out" "Process $INFERIOR_PID exited with status = 9|Process $INFERIOR_PID exited with status = .*failed to send the k packet"
if ! is_gdbserver; then
    # gdbserver closes the connection on `k`; hindsight must answer X09.
    expect_not "$out" "failed to send the k packet"
fi
wait_gone "$INFERIOR_PID" 5 || fail "inferior still exists after process kill"
finish
