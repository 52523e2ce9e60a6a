#!/usr/bin/env bash
# t_gdb_sharedlib: qXfer:libraries-svr4:read lets GDB list libc in
# `info sharedlibrary`, and a breakpoint on a libc function (puts) is hit
# with the program's own argument in rdi.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog libc) || exit 1
MSG="libc-msg-$(rand_int 1000 9999)"
server_start "$prog" "$MSG" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break libc_measure' \
    -ex 'continue' \
    -ex 'info sharedlibrary' \
    -ex 'break puts' \
    -ex 'continue' \
    -ex 'bt 2' \
    -ex 'x/s $rdi' \
    -ex 'delete' \
    "${TO_EXIT[@]}"
show "$out" "$T_DIR/server.out"

expect "$out" "Breakpoint 1, libc_measure (s=0x"
expect_re "$out" "^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes.* .*/libc\.so\.6\$"
expect_re "$out" "^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes.* .*/ld-linux-x86-64\.so\.2\$"
expect_re "$out" "^Breakpoint 2, .*puts.* from .*libc\.so\.6\$|^Breakpoint 2, .*puts .*at "
expect_re "$out" "^#1  0x[0-9a-f]+ in main \("
expect_re "$out" "^0x[0-9a-f]+:[[:space:]]+\"$MSG\"\$"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
expect "$T_DIR/server.out" "$MSG"
expect "$T_DIR/server.out" "libc: len=${#MSG}"
finish
