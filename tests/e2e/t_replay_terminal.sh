#!/usr/bin/env bash
# t_replay_terminal: `hindsight replay` as a person uses it, in a terminal
# (tmux: send-keys / capture-pane): Tab completes a command, Up recalls the
# last one, a breakpoint is found going backwards and a past register holds
# the argument the program really passed. Also the front end on a real Intel
# PT recording from shared/ptdata (LLDB's test bundle, Broadwell).
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight's own front end"
command -v tmux >/dev/null 2>&1 || skip "no tmux"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog basic) || finish
A=$(rand_int 2 50)
B=$(rand_int 2 50)
"$HINDSIGHT" record -o "$T_DIR/rec" -- "$prog" "$A" "$B" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $T_DIR/rec"

sock=hs-e2e-$$
cleanup_tmux() { tmux -L "$sock" kill-server >/dev/null 2>&1; }
trap 'cleanup_tmux' RETURN
tmux -L "$sock" new-session -d -x 180 -y 60 "$HINDSIGHT replay $T_DIR/rec" ||
    { fail "tmux did not start"; finish; }
screen() { tmux -L "$sock" capture-pane -p -S -200 2>/dev/null; }
# wait_for TEXT: until the screen shows TEXT (10 s at most).
wait_for() {
    local i
    for ((i = 0; i < 100; i++)); do
        screen | grep -qF -- "$1" && return 0
        sleep 0.1
    done
    fail "the terminal never showed: $1"
    screen >"$T_DIR/screen.txt"
    show "$T_DIR/screen.txt"
    return 1
}
keys() { tmux -L "$sock" send-keys "$@"; }

wait_for "(hindsight)"
keys 'break basic_add' Enter
wait_for "Breakpoint 1 at"
keys 'reverse-cont' Tab Enter                      # completes to reverse-continue
wait_for "Breakpoint 1, basic_add"
keys 'print $rdi' Enter
wait_for '$1 = '
keys Up Enter                                      # the same command again
wait_for '$2 = '
screen >"$T_DIR/screen.txt"
keys 'quit' Enter
show "$T_DIR/screen.txt"
expect "$T_DIR/screen.txt" "(hindsight) reverse-continue"
expect_re "$T_DIR/screen.txt" '^\$1 = '"$A"'$'
expect_re "$T_DIR/screen.txt" '^\$2 = '"$A"'$'
cleanup_tmux

# A real Intel PT recording: its 21 instructions, and stepping back from the
# end lands on its last one.
LLDB=$SHARED_DIR/ptdata/lldb/intelpt-trace
if [ -r "$LLDB/trace.json" ]; then
    last=$("$HINDSIGHT" history "$LLDB" --json | tail -1 | sed -n 's/.*"addr":"0x\([0-9a-f]*\)".*/\1/p')
    "$HINDSIGHT" replay --batch -ex 'info record' -ex 'reverse-stepi' -ex 'info registers rip' \
        "$LLDB" >"$T_DIR/lldb.txt" 2>&1 || fail "hindsight replay on the LLDB bundle"
    show "$T_DIR/lldb.txt"
    expect "$T_DIR/lldb.txt" "instructions: 21"
    expect_re "$T_DIR/lldb.txt" "^rip +0x0*$last +0x0*$last\$"
fi
finish
