#!/usr/bin/env bash
# t_lldb_replay: LLDB 14 against `hindsight serve --replay` of a software
# recording. LLDB reads the top of the initial stack (argv, envp, auxv) as
# soon as it connects; the recording had none of it and LLDB crashed on
# the E05. The recorder now logs that memory at the start: at position 1
# GDB reads argc and argv[0] from the stack (the command line the test
# ran), and LLDB connects, shows a backtrace and reads argv[0]'s string.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
command -v lldb >/dev/null || skip "no lldb"

prog=$(build_prog crash_kinds) || finish
n=$(rand_int 5 30)
timeout 120 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" exit "$n" \
    >"$T_DIR/rec.out" 2>&1
expect_eq "exit status of the recorded program" "$?" "$n"

server_start --replay "$T_DIR/rec" || finish
gdb_run "$T_DIR/gdb.out" -ex 'monitor goto 1' -ex 'maintenance flush register-cache' \
    -ex 'x/gx $rsp' -ex 'x/s *(char **)($rsp + 8)' -ex 'x/s *(char **)($rsp + 16)' \
    -ex 'p/x *(long *)($rsp + 8)' "$prog"
show "$T_DIR/gdb.out"
expect_re "$T_DIR/gdb.out" '^0x[0-9a-f]+:	0x0000000000000003$'
expect_re "$T_DIR/gdb.out" "^0x[0-9a-f]+:	\"$prog\"\$"
expect_re "$T_DIR/gdb.out" '^0x[0-9a-f]+:	"exit"$'
argv0=$(sed -n 's/^\$1 = \(0x[0-9a-f]*\)$/\1/p' "$T_DIR/gdb.out")
[ -n "$argv0" ] || fail "no argv[0] pointer from GDB"
kill "$SERVER_PID" 2>/dev/null; wait_gone "$SERVER_PID" 10

server_start --replay "$T_DIR/rec" || finish
lldb_run "$T_DIR/lldb.out" "$prog" -o 'bt' -o "memory read -f s -c 1 $argv0"
expect_eq "lldb's exit status" "$?" 0
show "$T_DIR/lldb.out"
expect_not "$T_DIR/lldb.out" "PLEASE submit a bug report"
expect_re "$T_DIR/lldb.out" 'frame #0: 0x[0-9a-f]+ '
expect_re "$T_DIR/lldb.out" "^$argv0: \"$prog\"\$"
finish
