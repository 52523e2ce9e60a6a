#!/usr/bin/env bash
# t_replay_frames: `hindsight replay`'s frame commands against GDB's over
# `hindsight serve --replay` of the same recording, at the same positions:
# frame N, up, down (their edges and counts), info frame (its levels,
# CFAs, saved registers, the signal frame's), info registers and print of
# registers in a frame above 0, and a move resetting the selection to
# frame 0, finish and reverse-finish from a frame above 0; break if,
# tbreak, condition, ignore, enable and disable; until and advance.
# tests/programs/unwind.c recorded in software: `longjmp` (a
# SIGSEGV handler over a recursion that siglongjmps back to main) and
# `nested` (two signal frames). Both transcripts are compared whole, after
# removing what only one of them says (GDB's "Reading ..." chatter, our
# "Continuing backward.", the directories of source files: GDB shows the
# file name the compiler was given); frame lines and info frame's args are
# compared with their arguments' values.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

prog=$(build_prog unwind) || finish
cd "$T_DIR" || finish
src=unwind.c
n=$(rand_int 3 5)     # level(1) has at least two callers named level

# normalise FILE: what both must print the same.
normalise()
{
    sed -E -e '/^Reading /d' -e '/^warning: File transfers/d' -e '/^\[Inferior 1 .*detached\]$/d' \
        -e '/^Continuing( backward)?\.$/d' -e '/^Run (till exit from|back to call of) #/d' \
        -e '/^Value returned is /d' -e '/^Will (ignore next|stop next time)/d' \
        -e 's#(at |file |\()/[^ ]*/([^/ ]+)#\1\2#g' "$1"
}

# compare NAME MODE MIN_LINES CMD...: CMDs in both, from the end of the
# recording of MODE; the transcripts must be the same and GDB's have at
# least MIN_LINES lines (a transcript of errors proves nothing).
compare()
{
    local name=$1 mode=$2 min=$3 hs=() c
    shift 3
    local gd=()
    for c in "$@"; do
        hs+=(-ex "$c")
        gd+=(-ex "$c")
    done
    timeout 120 "$HINDSIGHT" replay "$T_DIR/rec-$mode" --batch "${hs[@]}" >"$name.hs" 2>&1
    server_start --replay "$T_DIR/rec-$mode" || return
    gdb_run "$name.gdb" "${gd[@]}"
    normalise "$name.hs" >"$name.hs.n"
    normalise "$name.gdb" >"$name.gdb.n"
    if ! diff -u "$name.gdb.n" "$name.hs.n" >"$name.diff"; then
        fail "$name: hindsight replay differs from GDB over serve --replay"
        cat "$name.diff"
    fi
    [ "$(wc -l <"$name.gdb.n")" -ge "$min" ] || { fail "$name: GDB said too little"; show "$name.gdb"; }
    grep -E '^(No |Cannot|Invalid|Undefined)' "$name.hs" | grep -v -E "$ALLOWED_ERRORS" &&
        fail "$name: unexpected errors"
}

for mode in longjmp nested; do
    timeout 120 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec-$mode" -- "$prog" "$mode" "$n" \
        >"rec-$mode.out" 2>"rec-$mode.err"
    expect_eq "exit status of the recorded $mode" "$?" 139
done

regs='info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip'
ALLOWED_ERRORS='^No frame at level 99\.$|outermost frame|^No more reverse-execution history\.$'

# In the recursion: every level, up and down by counts, past the edges.
compare recursion longjmp 60 \
    'break level' 'reverse-continue' 'reverse-continue' 'bt' \
    'info frame' 'frame 1' 'info frame' "$regs" 'p $rsp' 'p $pc' 'p $rbp' \
    'up' 'info frame' 'up 2' 'info frame' 'up' 'frame' 'down 2' 'info frame' 'frame 99' \
    'frame' 'down' 'down' 'frame 0' 'info frame'

# reverse-finish in frame 1 goes back to the call of frame 0's function,
# as GDB's does; finish out of a frame above 0 stops where its caller
# resumes at the return address with the frame's CFA as rsp: level never
# returns (the handler's siglongjmp leaves it), but main passes there
# after the jump, in the same frame, and GDB stops there too.
compare finish longjmp 30 \
    'break level' 'reverse-continue' 'reverse-continue' 'frame 1' 'reverse-finish' 'bt' \
    'info frame' 'delete' 'up' 'finish' 'bt' 'info frame'

# After the siglongjmp, main's frames again; then back in the SIGSEGV
# handler over the recursion: the signal frame and the frame it
# interrupted (its registers from the sigcontext); a move selects frame 0.
compare longjmp longjmp 50 \
    'break on_segv' 'break crash_later' 'reverse-continue' 'bt' \
    'up' 'info frame' 'up' 'info frame' "$regs" \
    'reverse-continue' 'bt' 'frame 1' 'info frame' 'frame 2' 'info frame' "$regs" 'p $sp' \
    'p $pc' 'up 2' 'info frame' 'stepi' 'frame' 'info frame'

# Two signal frames: SIGSEGV inside the SIGILL handler.
compare nested nested 60 \
    'break crash_in_segv' 'reverse-continue' 'bt' \
    'frame 2' 'info frame' 'up' 'info frame' "$regs" 'p $sp' \
    'frame 5' 'info frame' 'up' 'info frame' "$regs" 'up' 'info frame' \
    'reverse-stepi' 'info frame'

# Breakpoints: a condition (of registers: what both evaluate), a
# temporary one at the same place (deleted when both stop), ignore counts,
# disable / enable, conditions changed and removed; backward and forward.
compare breaks longjmp 60 \
    'break level if $rdi - 1' 'tbreak level' 'info breakpoints' 'reverse-continue' \
    'info breakpoints' 'reverse-continue' 'p $rdi' 'reverse-continue' 'p $rdi' \
    'info breakpoints' 'ignore 1 1' 'continue' 'p $rdi' 'info breakpoints' \
    'disable 1' 'break crash_later' 'break on_segv' 'disable 3' 'info breakpoints' \
    'continue' 'bt' 'enable 3' 'tbreak after_jump' 'continue' 'info breakpoints' \
    'condition 3 $rsp - $rsp' 'continue' 'reverse-continue' 'p $pc' 'condition 3' \
    'enable 1' 'info breakpoints' 'continue' 'info breakpoints'

# advance / until LOCATION: to a line of the same function, into a
# callee (advance stops there, until only in its own frame: it runs on,
# after_jump never returns), to a line of it.
compare until longjmp 25 \
    'break level' 'reverse-continue' 'reverse-continue' 'delete' \
    "advance $(line_of $src level_fault)" 'bt' 'break after_jump' 'continue' \
    'advance crash_later' 'bt' "until $src:$(line_of $src crash_later)" 'info frame' \
    'reverse-continue' 'until crash_later' 'bt'

expect_re breaks.hs '^Temporary breakpoint 2 at 0x[0-9a-f]+: file .*, line [0-9]+\.$'
expect_re breaks.hs '^	stop only if \$rdi - 1$'
expect_re breaks.hs '^1       breakpoint     keep n   0x'
expect_re recursion.hs '^Stack level 2, frame at 0x[0-9a-f]+:$'
expect_re longjmp.hs '^#1  <signal handler called>$'
expect_re nested.hs '^ Locals at unknown address, Previous frame.s sp at 0x[0-9a-f]+$'
finish
