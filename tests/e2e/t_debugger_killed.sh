#!/usr/bin/env bash
# t_debugger_killed: the debugger dies (SIGKILL) in the middle of a session.
# Without --once the stub keeps the program and listens again, so a new GDB
# connects, finds the program in loop_spin and kills it; with --once the stub
# exits and takes the program with it. Nothing hangs.
# Two moments: while the program is stopped at a breakpoint (gdbserver and
# hindsight), and while it runs in `continue` (hindsight only: gdbserver
# prints "client connection closed" and then waits for the looping program
# forever, with or without --once).
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1

# start_and_kill_gdb WHEN: WHEN=stopped (at a breakpoint) or running.
start_and_kill_gdb()
{
    local out=$T_DIR/gdb-$1-$2.out
    if [ "$1" = stopped ]; then
        gdb_run_bg "$out" -ex 'break loop_spin' -ex 'continue' -ex 'shell sleep 100'
        wait_for_file "$out" "Breakpoint 1, loop_spin" 20 || fail "breakpoint not hit"
    else
        gdb_run_bg "$out" -ex 'continue'
        wait_for_file "$T_DIR/server.out" "loop: pid" 10 || fail "loop did not start"
        sleep 0.5
    fi
    kill -KILL "$GDB_PID"
    wait_gone "$GDB_TIMEOUT_PID" 10
    pkill -KILL -P "$GDB_PID" 2>/dev/null   # the `shell sleep`
}

for when in stopped running; do
    if [ "$when" = running ] && is_gdbserver; then
        echo "skipping the 'running' cases under gdbserver (it hangs there)"
        continue
    fi
    # 1. Without --once: reconnect after the crash.
    server_start "$prog" || finish
    start_and_kill_gdb "$when" multi
    # The stub must say "Listening on port N" a second time (bounded wait).
    for ((i = 0; i < 200; i++)); do
        [ "$(grep -c "Listening on port $PORT" "$T_DIR/server.err")" -ge 2 ] && break
        sleep 0.05
    done
    kill -0 "$SERVER_PID" 2>/dev/null || fail "$when: server exited after its debugger was killed (without --once)"
    if [ "$(grep -c "Listening on port $PORT" "$T_DIR/server.err")" -lt 2 ]; then
        fail "$when: server not listening again 10s after its debugger was killed"
        show "$T_DIR/server.err"
        kill -KILL "$SERVER_PID" "$INFERIOR_PID" 2>/dev/null
    else
        out2=$T_DIR/gdb-$when-again.out
        DBG_TIMEOUT=20 gdb_run "$out2" -ex 'bt 1' -ex 'print g_spins > 0' -ex 'kill'
        show "$out2" "$T_DIR/server.err"
        expect_re "$out2" "^#0  .*loop_spin \(\) at loop.c:"
        expect "$out2" "[Inferior 1 (process $INFERIOR_PID) killed]"
        wait_gone "$INFERIOR_PID" 5 || fail "$when: inferior still exists after kill"
    fi

    # 2. With --once: the stub exits and the program is gone.
    server_start --once "$prog" || finish
    start_and_kill_gdb "$when" once
    wait_gone "$SERVER_PID" 10 || fail "$when: --once server still running 10s after its debugger died"
    wait_gone "$INFERIOR_PID" 5 || fail "$when: inferior $INFERIOR_PID outlived the --once server"
    show "$T_DIR/server.err"
done
finish
