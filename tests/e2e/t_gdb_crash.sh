#!/usr/bin/env bash
# t_gdb_crash: a NULL write stops the program with SIGSEGV at the faulting
# line, the frame's arguments are readable, and `continue` then lets the
# signal kill it ("Program terminated with signal SIGSEGV").
. "$(dirname "$0")/lib.sh"

prog=$(build_prog crash) || exit 1
V=$(rand_int 100 999)
server_start "$prog" "$V" || finish
L=$(line_of crash.c crash)

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'continue' \
    -ex 'print v' \
    -ex 'print p' \
    -ex 'continue'
show "$out"

expect "$out" "Program received signal SIGSEGV, Segmentation fault."
expect_re "$out" "^0x[0-9a-f]+ in crash_here \(p=0x0, v=$V\) at crash.c:$L\$|^crash_here \(p=0x0, v=$V\) at crash.c:$L\$"
expect_re "$out" "^$L[[:space:]]+\*p = v;"
expect "$out" "\$1 = $V"
expect "$out" "\$2 = (int *) 0x0"
expect "$out" "Program terminated with signal SIGSEGV, Segmentation fault."
expect "$T_DIR/server.out" "crash: about to crash"
finish
