#!/usr/bin/env bash
# t_gdb_signals: signals reach the program in GDB's numbering and are passed
# on resume: the SIGUSR1 the program raises stops it ("Program received
# signal SIGUSR1") and its handler runs after `continue`; `signal SIGUSR1`
# (session 1) and `queue-signal SIGUSR1` (session 2) deliver a second one;
# `handle SIGALRM nostop noprint pass` lets three SIGALRMs through silently.
# The program prints how many of each its handlers saw.
. "$(dirname "$0")/lib.sh"

prog=$(build_prog signals) || exit 1

for mode in signal queue-signal; do
    server_start "$prog" || finish
    out=$T_DIR/gdb-$mode.out
    if [ "$mode" = signal ]; then
        inject=(-ex 'signal SIGUSR1')
    else
        inject=(-ex 'queue-signal SIGUSR1' -ex 'continue')
    fi
    gdb_run "$out" \
        -ex 'handle SIGALRM nostop noprint pass' \
        -ex 'break signals_checkpoint' \
        -ex 'continue' \
        -ex 'print g_usr1' \
        -ex 'continue' \
        -ex 'print g_usr1' \
        -ex 'delete' \
        "${inject[@]}" "${TO_EXIT[@]:2}"   # the continue after the end's stop
    show "$out" "$T_DIR/server.out"

    expect "$out" "Program received signal SIGUSR1, User defined signal 1."
    expect "$out" "\$1 = 0"
    expect "$out" "Breakpoint 1, signals_checkpoint () at signals.c:"
    expect "$out" "\$2 = 1"
    expect_not "$out" "SIGALRM"
    expect "$out" "[Inferior 1 (process $INFERIOR_PID) exited normally]"
    expect "$T_DIR/server.out" "signals: usr1=2 alrm=3"
done
finish
