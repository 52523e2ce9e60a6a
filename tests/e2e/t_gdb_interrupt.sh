#!/usr/bin/env bash
# t_gdb_interrupt: Ctrl-C. GDB (batch) continues a program that loops
# forever; SIGINT sent to GDB makes it send the 0x03 interrupt byte, the stub
# stops the program and GDB reports SIGINT in loop_spin, then reads a counter
# the loop really advanced, and kills the program.
# hindsight serve, recording by single steps, says on GDB's console why
# the program runs slowly and how to go faster, once it has run a while
# (here after 1 s: HINDSIGHT_SERVE_NOTICE_SECS).
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1
export HINDSIGHT_SERVE_NOTICE_SECS=1
server_start "$prog" || finish
L=$(line_of loop.c spin)

out=$T_DIR/gdb.out
gdb_run_bg "$out" \
    -ex 'continue' \
    -ex 'bt' \
    -ex 'print g_spins > 1000' \
    -ex 'kill'
# Wait until the program is running (it prints its pid), then interrupt.
wait_for_file "$T_DIR/server.out" "loop: pid" 10 || fail "loop did not start"
sleep 2.5
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 30 || fail "gdb did not finish after SIGINT"
show "$out"

expect "$out" "Program received signal SIGINT, Interrupt."
expect_re "$out" "in loop_spin \(\) at loop.c:$L\$|^loop_spin \(\) at loop.c:$L\$"
expect_re "$out" "^#1  0x[0-9a-f]+ in main \(argc=1, argv=0x[0-9a-f]+\) at loop.c:"
expect "$out" "\$1 = 1"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"
if [ "$SERVER" = hindsight ] && [ -z "${E2E_SERVE_RECORD:-}" ]; then
    expect_re "$out" "^hindsight: the program has run for [0-9]+ s by single steps since it was resumed"
    expect "$out" "--record valgrind"
    expect_re "$T_DIR/server.err" "^hindsight serve: the program has run for [0-9]+ s by single steps"
fi
finish
