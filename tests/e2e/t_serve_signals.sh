#!/usr/bin/env bash
# t_serve_signals: `hindsight serve` ended by a signal while GDB debugs a
# running program leaves nothing behind and loses nothing it was asked to keep:
# - SIGTERM: the started program is killed, the temporary recording removed,
#   the stub says so and dies of SIGTERM (status 143);
# - SIGTERM with --attach: the program is let go and keeps running;
# - SIGHUP with -o DIR: the recording is kept, whole, and opens;
# - a crash (SIGSEGV): the temporary recording is removed all the same and
#   the program dies with its tracer.
# Before, every one of them left /tmp/hindsight-serve.* behind.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight's own recording and messages"

prog=$(build_prog loop) || exit 1

# rec_dir: the directory the server said it records in.
rec_dir() { sed -n 's/^Recording in //p' "$T_DIR/server.err" | head -1; }

# running_under_gdb OUT: gdb continues the program in the background.
running_under_gdb()
{
    gdb_run_bg "$1" -ex 'continue'
    wait_for_file "$T_DIR/server.out" "loop: pid" 20 || fail "program did not start running"
    sleep 1
}

# server_status: the server's exit status in ST (it is this shell's child);
# a server still there after 10 s is killed (137) and fails the check.
server_status()
{
    (sleep 10; kill -KILL "$SERVER_PID" 2>/dev/null) &
    local guard=$!
    wait "$SERVER_PID" 2>/dev/null
    ST=$?
    kill "$guard" 2>/dev/null
    wait "$guard" 2>/dev/null
}

# 1. SIGTERM, a started program.
server_start "$prog" || finish
dir=$(rec_dir)
[ -d "$dir" ] || fail "no recording directory '$dir'"
running_under_gdb "$T_DIR/gdb1.out"
kill -TERM "$SERVER_PID"
server_status
show "$T_DIR/server.err"
expect_eq "status after SIGTERM" "$ST" 143
expect "$T_DIR/server.err" "hindsight serve: Terminated; killing process $INFERIOR_PID; removing the temporary recording $dir"
wait_gone "$INFERIOR_PID" 5 || fail "program $INFERIOR_PID outlived the server"
[ -e "$dir" ] && fail "temporary recording $dir left behind after SIGTERM"
wait_gone "$GDB_TIMEOUT_PID" 10 || fail "gdb still waiting after the server ended"

# 2. SIGTERM, an attached program: let go, still running.
"$prog" "$T_DIR/alive" </dev/null >"$T_DIR/loop.out" 2>&1 &
LOOP_PID=$!
track_pid "$LOOP_PID"
wait_for_file "$T_DIR/alive" alive 10 || fail "loop did not start"
server_start --attach "$LOOP_PID" || finish
dir=$(rec_dir)
gdb_run_bg "$T_DIR/gdb2.out" -ex 'continue'
sleep 2
kill -TERM "$SERVER_PID"
server_status
show "$T_DIR/server.err"
expect_eq "status after SIGTERM (attached)" "$ST" 143
expect "$T_DIR/server.err" "; detaching from process $LOOP_PID; removing the temporary recording $dir"
[ -e "$dir" ] && fail "temporary recording $dir left behind after SIGTERM (attached)"
sleep 0.5
state=$(ps -o stat= -p "$LOOP_PID" 2>/dev/null | cut -c1)
[ "$state" = R ] || fail "attached program not running after the server ended (state '$state')"
kill -KILL "$LOOP_PID" 2>/dev/null

# 3. SIGHUP with -o DIR: kept, and it opens.
keep=$T_DIR/kept
server_start -o "$keep" "$prog" || finish
running_under_gdb "$T_DIR/gdb3.out"
kill -HUP "$SERVER_PID"
server_status
show "$T_DIR/server.err"
expect_eq "status after SIGHUP" "$ST" 129
expect "$T_DIR/server.err" "; the recording is kept in $keep"
"$HINDSIGHT" history "$keep" >"$T_DIR/history.out" 2>&1 || fail "the kept recording does not open"
show "$T_DIR/history.out"
expect_re "$T_DIR/history.out" "<loop_spin\+[0-9]+>"

# 4. A crash: the handler removes the temporary recording.
server_start "$prog" || finish
dir=$(rec_dir)
running_under_gdb "$T_DIR/gdb4.out"
kill -SEGV "$SERVER_PID"
server_status
show "$T_DIR/server.err"
expect "$T_DIR/server.err" "hindsight: crashed; its temporary recording $dir is removed"
[ -e "$dir" ] && fail "temporary recording $dir left behind by a crash"
wait_gone "$INFERIOR_PID" 5 || fail "program $INFERIOR_PID outlived the crashed server"
finish
