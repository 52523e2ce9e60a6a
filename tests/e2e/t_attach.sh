#!/usr/bin/env bash
# t_attach: --attach PID attaches to a program that is already running: GDB
# finds it inside loop_spin with a counter that has advanced, qAttached makes
# GDB detach (not kill) at the end, and the program keeps running afterwards,
# on the CPUs it had (the recorder moves it to its own CPU while recording).
. "$(dirname "$0")/lib.sh"

prog=$(build_prog loop) || exit 1
"$prog" "$T_DIR/alive" </dev/null >"$T_DIR/loop.out" 2>&1 &
LOOP_PID=$!
track_pid "$LOOP_PID"
wait_for_file "$T_DIR/alive" alive 10 || fail "loop did not start"
cpus_before=$(taskset -p "$LOOP_PID" | sed 's/.*: //')
server_start --attach "$LOOP_PID" || finish
L=$(line_of loop.c spin)

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'bt' \
    -ex 'print g_spins > 0' \
    -ex 'info threads' \
    -ex 'print $_inferior' \
    -ex 'detach'
show "$out" "$T_DIR/server.err"

expect_re "$out" "^#0  (0x[0-9a-f]+ in )?loop_spin \(\) at loop.c:$L\$"
expect_re "$out" "^#1  0x[0-9a-f]+ in main \(argc=2, argv=0x[0-9a-f]+\) at loop.c:"
expect "$out" "\$1 = 1"
expect_re "$out" "^\* 1 +Thread $LOOP_PID\.$LOOP_PID "
expect "$out" "[Inferior 1 (process $LOOP_PID) detached]"
sleep 0.5
if kill -0 "$LOOP_PID" 2>/dev/null; then
    state=$(ps -o stat= -p "$LOOP_PID" | cut -c1)
    [ "$state" = R ] || fail "program not running after detach (state $state)"
    if ! is_gdbserver; then
        cpus_after=$(taskset -p "$LOOP_PID" | sed 's/.*: //')
        [ "$cpus_after" = "$cpus_before" ] ||
            fail "CPU mask after detach is $cpus_after, was $cpus_before"
    fi
else
    fail "program $LOOP_PID died after detach"
fi
finish
