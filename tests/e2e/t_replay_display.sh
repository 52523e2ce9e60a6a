#!/usr/bin/env bash
# t_replay_display: `hindsight replay`'s display, undisplay, info display,
# enable / disable display, disassemble, x/i, info sharedlibrary and until
# against GDB's over `hindsight serve --replay` of the same recording of
# tests/programs/cvars.c: displays of locals (shown only in their block,
# "cannot be evaluated in the current context" elsewhere), of statics and
# globals, print formats (x c t a o d u), memory formats (x/i $pc with the
# current pc marked, x/s, x/3xw, errors at address 0), after next, step,
# stepi, finish, reverse moves and continue both ways; none after frame /
# up. disassemble of every function of the program and of libc's _exit,
# /r, ranges. info sharedlibrary (a library without debugging information
# too: "Yes (*)"). The transcripts are compared whole after removing what
# only one of them says (GDB's "Reading ..." chatter and "target:" prefix,
# our "Continuing backward.", the directories of source files, GDB's
# question for undisplay, which `set confirm off` takes away); frame lines
# are compared with their arguments' values.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

prog=$(build_prog cvars) || finish
cd "$T_DIR" || finish

normalise()
{
    sed -E -e '/^Reading /d' -e '/^warning: File transfers/d' -e '/^\[Inferior 1 .*detached\]$/d' \
        -e '/^Continuing( backward)?\.$/d' -e '/^Run (till exit from|back to call of) #/d' \
        -e '/^Value returned is /d' -e 's/  target:\//  \//' -e '/^Delete all auto-display expressions\?/d' \
        -e 's#(at |file |\()[^ ]*/([^/ ]+)#\1\2#g' \
        -e '/^[0-9]+\t(in )?[^ ]*\/[^ ]+\.c(: No such file or directory\.)?$/d' "$1"
}

# compare NAME MIN_LINES CMD...: CMDs in both, from the end of the
# recording; the transcripts must be the same and GDB's have at least
# MIN_LINES lines.
compare()
{
    local name=$1 min=$2 args=() c
    shift 2
    for c in "$@"; do
        args+=(-ex "$c")
    done
    timeout 120 "$HINDSIGHT" replay "$REC" --batch "${args[@]}" >"$name.hs" 2>&1
    server_start --replay "$REC" || return
    gdb_run "$name.gdb" "${args[@]}"
    normalise "$name.hs" >"$name.hs.n"
    normalise "$name.gdb" >"$name.gdb.n"
    if ! diff -u "$name.gdb.n" "$name.hs.n" >"$name.diff"; then
        fail "$name: hindsight replay differs from GDB over serve --replay"
        head -120 "$name.diff"
    fi
    [ "$(wc -l <"$name.gdb.n")" -ge "$min" ] || { fail "$name: GDB said too little"; show "$name.gdb"; }
}

REC=$T_DIR/rec
timeout 120 "$HINDSIGHT" record --record=sw -o "$REC" -- "$prog" >rec.out 2>&1
expect rec.out "cvars: "

compare display 150 \
    'break walk' 'reverse-continue' 'display total' 'display/x limit' 'display/i $pc' \
    'display nosuch' 'display 1 +' 'display origin' 'display g_int' 'display/x g_flags' \
    'display *(int*)0' 'display/3xw &g_int' 'display/s g_str' 'display/2i $pc' \
    'display/c g_int' 'display/t g_short' 'display/a g_op' 'display/o g_int' \
    'display/d g_points' 'display/u g_schar' 'display/s g_buf' 'display g_intp' \
    'display/xg 0' 'display/i 0' 'display/2xh &g_short' 'info display' 'next' 'next' \
    'up' 'info display' 'display' 'frame 0' 'undisplay 2' 'undisplay 4-5 99' \
    'info display' 'disable display 1' 'info display' 'step' 'finish' 'enable display 1' \
    'display' 'reverse-step' 'delete display 3' 'stepi' 'reverse-stepi' 'continue' \
    'undisplay' 'info display' 'display'

# Locals of a nested block (doubled, deep: shown only inside it), of a
# loop (n), a static local, and of a recursion (shown in every level of
# descend, not in main).
compare scopes 60 \
    "break cvars.c:$(line_of cvars.c walk_deep)" 'reverse-continue' \
    'reverse-continue' 'display doubled' 'display/x deep' 'display n->value' 'display calls' \
    'display/x g_marker' 'info display' 'next' 'next' 'next' 'next' 'next' 'info display' \
    'continue' 'delete' 'finish' 'info display' 'break descend' 'continue' 'continue' \
    'display level' 'display/x here' 'display here + level' 'continue' 'continue' 'up' \
    'info display' 'finish' 'finish' 'reverse-finish' 'info display'
# disassemble: the function at the pc ("=> " on it, in frame 1 the
# return address), every function of the program by name, /r, ranges
# START,END and START,+LEN, an address no function holds, memory not
# there; x/i and display/i through the same printer.
funcs=(main walk descend scale_clamp on_usr1 jumper list_build add stop_here_1 _exit)
cmds=('disassemble' 'break walk' 'reverse-continue' 'disassemble' 'up' 'disassemble' 'down')
for f in "${funcs[@]}"; do
    cmds+=("disassemble $f")
done
cmds+=('disassemble /r descend' 'disassemble /r $pc,+12' 'disassemble main,+20' \
    'disassemble walk+4,walk+30' 'disassemble 0x0,0x4' 'disassemble 0' 'disassemble g_op' \
    'x/12i $pc' 'display/3i $pc' 'stepi' 'nexti 3')
compare disas 300 "${cmds[@]}"
# until without an argument: next, but not back into a loop (the for
# loop of walk runs to its end), out to the caller at the end of the
# function; in list_build's loop and across descend's recursion.
compare until 30 \
    'break walk' 'reverse-continue' 'next' 'next' 'next' 'until' 'until' 'until' 'until' \
    'until' 'until' 'until' 'until' 'until' 'delete' 'break list_build' 'reverse-continue' 'until' \
    'until' 'until' 'until' 'until' 'until' 'until' 'until' 'until' 'delete' 'break descend' \
    'continue' 'continue' 'until' 'until' 'until' 'until' 'until' 'until' 'until' 'u' 'u'

compare solib 3 'info sharedlibrary' 'break walk' 'reverse-continue' 'info dll'

# A library stripped of its debugging information: "Yes (*)" and the note.
lib=$(build_lib globals_lib) || finish
strip --strip-debug -o "$T_DIR/libglobals_lib.so" "$lib"
(cd "$PROG_SRC" && cc -g -O0 globals.c -o "$T_DIR/globals" -Wl,--no-as-needed \
    "$T_DIR/libglobals_lib.so") || fail "cannot build globals"
REC=$T_DIR/rec_lib
timeout 120 "$HINDSIGHT" record --record=sw -o "$REC" -- "$T_DIR/globals" >rec_lib.out 2>&1
compare solib_nodebug 5 'info sharedlibrary'
expect solib_nodebug.hs 'Yes (*)     '
expect solib_nodebug.hs '(*): Shared library is missing debugging information.'
finish
