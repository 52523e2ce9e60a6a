#!/usr/bin/env bash
# t_gdb_exitcode: the exit status reaches GDB through a W reply: a program
# returning 7 ends with "[Inferior 1 (process PID) exited with code 07]".
# Recorded (hindsight serve's default), the program first stops before its
# exit_group, still there ("Program stopped.", as GDB's record full); the
# continue after that stop gives the exit, as gdbserver gives it at once.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog exitcode) || exit 1
server_start "$prog" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break exit_helper' \
    -ex 'continue' \
    -ex 'print x' \
    "${TO_EXIT[@]}" \
    -ex 'print $_exitcode'
show "$out"

expect "$out" "Breakpoint 1, exit_helper (x=3) at exitcode.c:"
expect "$out" "\$1 = 3"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited with code 07]"
expect "$out" "\$2 = 7"
if [ "${#TO_EXIT[@]}" = 4 ]; then
    expect "$out" "hindsight: the next instruction is syscall exit_group, which ends the program"
    [ "$(grep -c '^Program stopped\.$' "$out")" = 1 ] || fail "not one stop at the end"
fi
wait_gone "$INFERIOR_PID" 5 || fail "inferior $INFERIOR_PID still exists"
finish
