#!/usr/bin/env bash
# t_lldb_break: LLDB 14 breakpoints. A breakpoint on a program function stops
# with "stop reason = breakpoint 1.1" and pc exactly at the breakpoint address
# (LLDB 14 does not announce swbreak+, so the stub must rewind the pc itself),
# locals are readable, `thread step-over` works, a breakpoint on puts resolves
# in libc.so.6 (needs qShlibInfoAddr) and is hit, and `process kill` gets an
# exit status.
# Not run under gdbserver: it reports pc = breakpoint + 1 to LLDB 14 (which
# then shows "signal SIGTRAP" at _start+1) and has no qShlibInfoAddr.
# Validated instead with SERVER=lldb-server (LLVM's own stub).
. "$(dirname "$0")/lib.sh"
hindsight_only "gdbserver reports pc=bp+1 to LLDB 14 (no swbreak+) and lacks qShlibInfoAddr"

prog=$(build_prog libc) || exit 1
MSG="lldb-msg-$(rand_int 1000 9999)"
server_start "$prog" "$MSG" || finish
L=$(line_of libc.c measure)

out=$T_DIR/lldb.out
lldb_run "$out" "$prog" \
    -o 'breakpoint set -n libc_measure' \
    -o 'continue' \
    -o 'register read rip' \
    -o 'frame variable s' \
    -o 'thread step-over' \
    -o 'breakpoint set -n puts' \
    -o 'continue' \
    -o 'register read rip' \
    -o 'bt 2' \
    -o 'process kill'
show "$out" "$T_DIR/server.err"

# Breakpoint 1: where = libc`libc_measure + 12 at libc.c:8:12, address = 0x...
bp1=$(sed -n 's/^Breakpoint 1: where = .*`libc_measure + [0-9]* at libc.c:'"$L"':[0-9]*, address = \(0x[0-9a-f]*\)$/\1/p' "$out")
bp2=$(sed -n 's/^Breakpoint 2: where = libc.so.6`.*puts.*, address = \(0x[0-9a-f]*\)$/\1/p' "$out")
[ -n "$bp1" ] || fail "breakpoint 1 did not resolve in libc_measure at libc.c:$L"
[ -n "$bp2" ] || fail "breakpoint 2 (puts) did not resolve in libc.so.6"
rips=$(sed -n 's/^ *rip = \(0x[0-9a-f]*\).*/\1/p' "$out")
rip1=$(echo "$rips" | sed -n 1p)
rip2=$(echo "$rips" | sed -n 2p)
if [ -n "$bp1" ]; then
    [ -n "$rip1" ] && [ $((rip1)) -eq $((bp1)) ] || fail "pc at breakpoint 1 is '$rip1', want $bp1"
fi
if [ -n "$bp2" ]; then
    [ -n "$rip2" ] && [ $((rip2)) -eq $((bp2)) ] || fail "pc at breakpoint 2 is '$rip2', want $bp2"
fi
expect "$out" "stop reason = breakpoint 1.1"
expect_re "$out" "frame #0: 0x[0-9a-f]+ .*\`libc_measure\(s=\"$MSG\"\) at libc.c:$L:"
expect_re "$out" "^\(const char \*\) s = 0x[0-9a-f]+ \"$MSG\"\$"
expect "$out" "stop reason = step over"
expect "$out" "stop reason = breakpoint 2.1"
expect_re "$out" "frame #1: 0x[0-9a-f]+ .*\`main\(argc=2, argv=0x[0-9a-f]+\) at libc.c:"
# The connect-time stop is a SIGTRAP (the exec stop, as with gdbserver); any
# later one would mean LLDB did not recognise a breakpoint (pc not rewound).
sed -n '/breakpoint set -n libc_measure/,$p' "$out" > "$out.after-connect"
expect_not "$out.after-connect" "stop reason = signal SIGTRAP"
expect_re "$out" "Process [0-9]+ exited with status = 9 \(0x00000009\)"
[ -n "$INFERIOR_PID" ] && { wait_gone "$INFERIOR_PID" 5 || fail "inferior still exists after process kill"; }
finish
