#!/usr/bin/env bash
# t_lldb_signals: LLDB 14 names the signals a program gets as lldb-server
# makes it name them. signals.c raises SIGUSR1, then SIGALRM three times,
# with handlers; LLDB passes each on, naming it, and each reaches its
# handler (the program's own counts). LLDB numbers signals as the host
# does (lldb-server sends Linux's numbers): hindsight sent GDB's, and LLDB
# read GDB's 30 for SIGUSR1 as Linux's 30, "signal SIGPWR".
# SERVER=lldb-server runs the same against lldb-server.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog signals) || exit 1
server_start "$prog" || finish

out=$T_DIR/lldb.out
# (lldb -b gives up its commands at a stop for a signal: LLDB is told to
# pass these on without stopping, and says each as it passes it.)
lldb_run "$out" "$prog" -o 'process handle -s false -n true -p true SIGUSR1 SIGALRM' \
    -o 'continue'
show "$out" "$T_DIR/server.out"
expect_re "$out" "received signal: SIGUSR1"
expect_not "$out" "SIGPWR"
[ "$(grep -c 'received signal: SIGALRM' "$out")" = 3 ] ||
    fail "LLDB did not pass each of the three SIGALRMs"
# (The program's output: hindsight's, or lldb-server's through LLDB.)
cat "$T_DIR/server.out" "$out" >"$T_DIR/both.out"
expect "$T_DIR/both.out" "signals: usr1=1 alrm=3"
finish
