#!/usr/bin/env bash
# t_bad_memory: reading or writing an invalid address gets an E reply, which
# GDB shows as "Cannot access memory at address 0x0"; the session goes on.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog exitcode) || exit 1
server_start "$prog" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'x/x 0' \
    -ex 'print *(int *)8' \
    -ex 'set var *(int *)0 = 1' \
    -ex 'x/2xg 0xffffffffffff0000' \
    -ex 'break exit_helper' \
    -ex 'continue' \
    "${TO_EXIT[@]}"
show "$out"

expect "$out" "Cannot access memory at address 0x0"
expect "$out" "Cannot access memory at address 0x8"
expect "$out" "Cannot access memory at address 0xffffffffffff0000"
expect "$out" "Breakpoint 1, exit_helper (x=3)"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited with code 07]"
finish
