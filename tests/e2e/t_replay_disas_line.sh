#!/usr/bin/env bash
# t_replay_disas_line: `hindsight replay`'s disassemble /s and /m, info
# line and the $_ / $__ that x, info line and info breakpoints leave,
# against GDB 13 on the same recording of tests/programs/lines.c (built
# -no-pie, so that its addresses are the same under the recorder and under
# GDB):
#   - the static ones (disassemble /s, /m, /rs of every function and of
#     ranges, across the end of a file's rows too, info line of every function, of every line of lines.c and
#     of its header lines_inc.h, of every instruction of weigh and of an
#     address without lines, and $_ after each) against GDB natively on
#     the program, no process needed; the transcripts must be equal;
#   - x in every unit size and format, then p $_, p $__, ptype and whatis
#     of them, at a breakpoint reached backward; info line without an
#     argument (the selected frame's line, then the next) and with a line
#     alone (in the selected frame's file); libc's printf (info
#     line, disassemble /s and /m from its $_: gcc -O2 code, a relative
#     compilation directory, sources not on this machine, whose lines the
#     comparison leaves out) against GDB over `hindsight serve --replay` of
#     the same recording (stack and libc addresses are the recording's).
# The recording is Valgrind's when the tool is built, else the default.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

prog=$(build_prog lines -no-pie) || finish
cd "$T_DIR" || finish

REC=$T_DIR/rec
if ! timeout 120 "$HINDSIGHT" record --record=valgrind -o "$REC" -- "$prog" >rec.out 2>&1; then
    rm -rf "$REC"
    timeout 120 "$HINDSIGHT" record -o "$REC" -- "$prog" >rec.out 2>&1
fi
expect rec.out "hindsight: recording in"

# after_marker FILE: what follows the "---" line (the location replay
# prints on opening, GDB's chatter before the first command go).
after_marker() { sed -n '/^---$/,$p' "$1" | tail -n +2; }

# ---- static: GDB natively on the program -------------------------------------
cmds=('echo ---\n')
for f in main weigh clamp; do
    cmds+=("disassemble /s $f" "disassemble /m $f" "disassemble /rs $f" "info line $f" 'p $_')
done
cmds+=('disassemble /s clamp+13,clamp+30' 'disassemble /m weigh,+40' 'disassemble /s weigh+18,+30'
    'disassemble /s clamp+39,weigh+14' 'disassemble /m clamp+39,weigh+14' 'disassemble /rm main+201,+18'
    'disassemble /m clamp,weigh+14')
nlines=$(wc -l <"$PROG_SRC/lines.c")
for ((l = 1; l <= nlines + 2; l++)); do
    cmds+=("info line lines.c:$l" 'p $_')
done
for l in 1 3 5 9 10 12; do
    cmds+=("info line lines_inc.h:$l")
done
for a in $(objdump -d --no-show-raw-insn "$prog" | awk '/<weigh>:/,/ret/' |
           sed -n 's/^ *\([0-9a-f]*\):.*/\1/p'); do
    cmds+=("info line *0x$a")
done
plt=$(objdump -d "$prog" | sed -n 's/^0*\([0-9a-f]*\) <printf@plt>:/\1/p')
cmds+=("info line *0x$plt" 'info line *0x10' 'info line nosuch' 'info line nosuch.c:3')
printf '%s\n' "${cmds[@]}" >static.cmds
timeout 120 "$HINDSIGHT" replay "$REC" --batch -x static.cmds >static.hs 2>&1
# GDB gets them as -ex: a sourced file would stop at the first error
gargs=()
for c in "${cmds[@]}"; do
    gargs+=(-ex "$c")
done
timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx -iex 'set debuginfod enabled off' \
    -ex 'set width 0' -ex 'set pagination off' "${gargs[@]}" "$prog" </dev/null >static.gdb 2>&1
after_marker static.hs >static.hs.n
after_marker static.gdb >static.gdb.n
if ! diff -u static.gdb.n static.hs.n >static.diff; then
    fail "static: hindsight replay differs from GDB on the program"
    head -80 static.diff
fi
[ "$(wc -l <static.gdb.n)" -ge 700 ] || { fail "static: GDB said too little"; show static.gdb; }
expect static.gdb.n "lines_inc.h:"
expect static.gdb.n "but contains no code."
expect static.gdb.n "No line number information available for address 0x$plt <printf@plt>"

# ---- x, $_ and $__: GDB over serve --replay --------------------------------------
normalise()
{
    sed -E -e '/^Reading /d' -e '/^warning: File transfers/d' -e '/^\[Inferior 1 .*detached\]$/d' \
        -e '/^Continuing( backward)?\.$/d' -e 's#(at |file |\()[^ ]*/([^/ ]+)#\1\2#g' \
        -e '/^[0-9]+\t(in )?[^ ]*\/[^ ]+\.c(: No such file or directory\.)?$/d' "$1" |
        sed -n '/^---$/,$p'
}
xcmds=('echo ---\n' "break lines.c:$(line_of lines.c print)" 'reverse-continue'
    'info line' 'info line' 'p $_' 'info line 45' 'p $_' 'break weigh' 'reverse-continue' 'up'
    'info line' 'down' 'delete 2' 'continue'
    'x/4gx buf' 'p $_' 'p $__' 'ptype $_' 'ptype $__' 'x/3xw buf' 'p $_' 'p $__' 'whatis $__'
    'x/2dh buf' 'p $_' 'p $__' 'x/3db buf' 'p $_' 'p $__' 'x/c buf' 'p $_' 'p $__'
    'x/2ug &buf[1]' 'p $_' 'p $__' 'x/2i $pc' 'p $_' 'p $__' 'x/s 0x402004' 'p $_' 'p $__'
    'p *$_' 'p $_ + 1' 'x/2xg $sp' 'p $__' 'info breakpoints' 'p $_' 'info line weigh' 'p $_'
    'x/xg 0' 'p $_' 'p $__' 'x/3xg 0x404ff8' 'p $_'
    'info line printf' 'disassemble /s $_,+24' 'disassemble /m $_,+24' 'info line *($_ + 4)'
    'info line *0x404ff8')
args=()
for c in "${xcmds[@]}"; do
    args+=(-ex "$c")
done
timeout 120 "$HINDSIGHT" replay "$REC" --batch "${args[@]}" >x.hs 2>&1
server_start --replay "$REC" || finish
gdb_run x.gdb "${args[@]}"
normalise x.hs >x.hs.n
normalise x.gdb >x.gdb.n
if ! diff -u x.gdb.n x.hs.n >x.diff; then
    fail "x: hindsight replay differs from GDB over serve --replay"
    head -80 x.diff
fi
[ "$(wc -l <x.gdb.n)" -ge 40 ] || { fail "x: GDB said too little"; show x.gdb; }
expect x.gdb.n '= (int64_t *) 0x'
finish
