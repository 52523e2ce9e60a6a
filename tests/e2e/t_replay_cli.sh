#!/usr/bin/env bash
# t_replay_cli: `hindsight replay --batch` on a recording of a small program
# (tests/programs/crash_kinds.c exit N: main calls step(i) N times, which
# adds 3 * i to acc and returns it). A breakpoint on step and K continues
# from the beginning stop at the K-th call: bt names step and main at their
# lines, the argument i (K - 1) is read from $rdi and from the frame through
# memory, finish returns to main with acc in $rax, reverse-step goes back
# into step, reverse-continue stops at the K-th call's breakpoint, then at
# the (K-1)-th; history marks the
# position; a script through -x, with GDB's errors for a bad listing
# modifier and range next to listings by range; a corrupt or missing
# recording is refused with a one-line reason. (Ctrl-C: t_replay_terminal.)
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay"

prog=$(build_prog crash_kinds) || finish
cd "$T_DIR" || finish
src=crash_kinds.c
n=$(rand_int 5 40)
k=$(rand_int 2 "$n")
timeout 120 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" exit "$n" >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" "$n"

step_open=$(grep -n '^long step(long i)' "$PROG_SRC/$src" | cut -d: -f1)
step_body=$((step_open + 2))   # acc += i * 3;
main_call=$(grep -n '        step(i);' "$PROG_SRC/$src" | cut -d: -f1)

cmds=(-ex 'goto begin' -ex 'break step' -ex 'info breakpoints')
for ((i = 0; i < k; i++)); do cmds+=(-ex continue); done
cmds+=(-ex bt -ex 'print $rdi' -ex 'print *(long *)($rbp - 8)' -ex 'x/2xg $rsp'
       -ex 'info registers rip' -ex finish -ex 'print $rax' -ex 'reverse-step'
       -ex 'info record' -ex 'reverse-continue' -ex 'print $rdi'
       -ex 'reverse-continue' -ex 'print $rdi' -ex 'history'
       -ex 'list' -ex 'delete' -ex 'continue')
timeout 120 "$HINDSIGHT" replay "$T_DIR/rec" --batch "${cmds[@]}" >out 2>err
expect_eq "exit status of replay --batch" "$?" 0
show out err

acc=$(( 3 * k * (k - 1) / 2 ))
# glibc has a step() too (misc/regexp.c): GDB gives both, the program's
# after its prologue (t_replay_break_place compares the places with GDB)
expect_re out "^Breakpoint 1 at 0x[0-9a-f]+: (file .*/$src, line $step_body\.|step\. \([0-9]+ locations\))\$"
expect_re out "^(1|1\.[0-9]+) +(breakpoint +keep )?y +0x[0-9a-f]+ in step at .*/$src:$step_body\$"
expect_eq "breakpoint stops" "$(grep -c "^Breakpoint 1, step (i=[0-9]*) at .*/$src:$step_body\$" out)" "$((k + 2))"
expect_re out "^#0  step \(i=$((k - 1))\) at .*/$src:$step_body\$"
expect_re out "^#1  0x[0-9a-f]+ in main \(argc=3, argv=0x[0-9a-f]+\) at .*/$src:$main_call\$"
# The K-th call has i = K - 1: in the register and in the frame.
expect_eq "\$rdi at the K-th call" "$(sed -n 's/^\$1 = //p' out)" "$((k - 1))"
expect_eq "i in the frame at the K-th call" "$(sed -n 's/^\$2 = //p' out)" "$((k - 1))"
expect_re out "^0x[0-9a-f]+:	0x[0-9a-f]{16}	0x[0-9a-f]{16}\$"
expect_re out "^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <step\+[0-9]+>\$"
expect out "Run till exit from #0  step (i=$((k - 1))) at"
expect_re out "in main \(argc=3, argv=0x[0-9a-f]+\) at .*/$src:$main_call\$"
expect_eq "\$rax after finish (acc)" "$(sed -n 's/^\$3 = //p' out)" "$acc"
expect_re out "^step \(i=$((k - 1))\) at .*/$src:[0-9]+\$"
expect_re out "thread [0-9]+: [0-9]+ instructions, 0 gaps, at position [0-9]+ \(current\)"
expect out "Continuing backward."
# Back from inside the K-th call: its own breakpoint first, then the one before.
expect_eq "\$rdi back in the K-th call" "$(sed -n 's/^\$4 = //p' out)" "$((k - 1))"
expect_eq "\$rdi at the call before" "$(sed -n 's/^\$5 = //p' out)" "$((k - 2))"
expect_re out "^[0-9]+	=> 0x[0-9a-f]+ <step\+[0-9]+>:	"
expect_re out "^$step_body	    acc \+= i \* 3;\$"
expect out "No more reverse-execution history."

# A script file, a bad command (status 1), an expression it cannot read,
# listings by range and bad ones.
printf 'goto end\nbt\nnonsense\nprint $rsp\nhistory 1,3\nhistory /z\ncalls 1,2\ncalls 99999999\n' \
    >script.gdb
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -x script.gdb >x.out 2>x.err
expect_eq "exit status after a bad command" "$?" 1
show x.out x.err
expect x.err 'Undefined command: "nonsense".'
expect_re x.out '^\$1 = \(void \*\) 0x7f[0-9a-f]+$'
expect_eq "history 1,3 lines" "$(grep -cE '^[123]	   0x[0-9a-f]+ <' x.out)" 3
expect x.err 'Invalid modifier: z.'
expect_re x.out '^1	_start$'
expect_re x.out '^2	_dl_start$'
expect x.err 'Range out of bounds.'
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'print some_var' >v.out 2>v.err
expect v.err 'No symbol "some_var" in current context'

# x/i names each address <function+offset> (<function> at its start), and
# bt shows frame 0's address only mid-line, as GDB does.
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'goto begin' -ex 'break step' \
    -ex continue -ex 'bt 1' -ex 'x/2i $pc' -ex stepi -ex 'bt 1' >xi.out 2>xi.err
show xi.out
off=$(sed -n 's/^=> 0x[0-9a-f]* <step+\([0-9]*\)>:.*/\1/p' xi.out)
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'goto begin' -ex 'break step' \
    -ex continue -ex "x/1i \$pc - ${off:-0}" >xi2.out 2>&1
expect_re xi2.out "^   0x[0-9a-f]+ <step>:	push +%rbp\$"
expect_re xi.out "^#0  step \(i=[0-9]+\) at .*/$src:$step_body\$"
expect_re xi.out "^=> 0x[0-9a-f]+ <step\+[0-9]+>:	"
expect_re xi.out "^#0  0x[0-9a-f]{16} in step \(i=[0-9]+\) at .*/$src:$step_body\$"

# info registers in the order asked (GDB's); list where the source is not
# on this machine (the end of history is in libc's _exit) and past a file's
# end: GDB's words, and a failed command.
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'info registers rip rdi $rax' \
    >order.out 2>order.err
grep '^[a-z]' order.out | awk '{ print $1 }' | tr '\n' ' ' >order.names
expect_eq "info registers rip rdi \$rax" "$(cat order.names)" "rip rdi rax "
# Opening, it says where it stands, as GDB does when it connects (the
# address only when the pc is not where a line-table row starts: after
# _exit's syscall, libc 2.36's row for line 30 starts there).
expect_re order.out '^(0x[0-9a-f]{16} in )?[_A-Za-z]*exit \(status=[^)]*\) at .*:[0-9]+$'
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'list' >nosrc.out 2>nosrc.err
expect_eq "exit status of list without the source" "$?" 1
expect_re nosrc.err "^[0-9]+	.*: No such file or directory\.\$"
nlines=$(wc -l <"$PROG_SRC/$src")
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex "list $src:$((nlines - 2))" -ex 'list' \
    >eof.out 2>eof.err
expect_eq "exit status of list past the end" "$?" 1
expect eof.err "Line number $((nlines + 1)) out of range; \""
expect eof.err "has $nlines lines."

# Reads at the top of the address space (GDB sends them itself, e.g. after
# reverse-stepping with rbp = 0): refused, not a crash.
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'x/4xb 0xfffffffffffff000' \
    -ex 'x/4xb 0xfffffffffffffffe' -ex 'x/2xg 0x00fffffffffffff8' >top.out 2>top.err
expect_eq "exit status of reads at the top" "$?" 1
expect top.err "Cannot access memory at address 0xfffffffffffff000"
expect top.err "Cannot access memory at address 0xfffffffffffffffe"
expect top.err "Cannot access memory at address 0xfffffffffffff8"

# Missing and corrupt recordings.
timeout 60 "$HINDSIGHT" replay "$T_DIR/nothing-here" --batch -ex bt >m.out 2>m.err
expect_eq "exit status of a missing recording" "$?" 1
expect m.err "hindsight: cannot open the recording $T_DIR/nothing-here: "
expect m.err "No such file or directory"
mkdir -p bad && cp -r "$T_DIR/rec/." bad/ && printf '{"type": "intel-pt", "hindsight": ' >bad/trace.json
timeout 60 "$HINDSIGHT" replay "$T_DIR/bad" --batch -ex bt >b.out 2>b.err
expect_eq "exit status of a corrupt recording" "$?" 1
expect_re b.err "^hindsight: cannot open the recording $T_DIR/bad: trace.json"
# A state log that is a directory or a FIFO: refused at once, not a huge
# allocation or an open that never returns.
for kind in dir fifo; do
    rm -rf "st-$kind" && mkdir "st-$kind" && cp -r "$T_DIR/rec/." "st-$kind/"
    log=$(ls "st-$kind"/threads/*.state | head -1)
    rm -f "$log"
    if [ $kind = dir ]; then mkdir "$log"; else mkfifo "$log"; fi
    timeout 20 "$HINDSIGHT" replay "st-$kind" --batch -ex 'info registers rip' \
        >"st-$kind.out" 2>"st-$kind.err"
    expect_eq "exit status with a state log that is a $kind" "$?" 1
    expect_re "st-$kind.err" "^hindsight: cannot open the recording st-$kind: threads/[0-9]+.state: (Is a directory|not a regular file)$"
done
# An image of the recording that is a FIFO (the vDSO's copy): read as
# missing, never waited on.
rm -rf img-fifo && mkdir img-fifo && cp -r "$T_DIR/rec/." img-fifo/
vdso=$(ls img-fifo/images/vdso-*.so | head -1)
rm -f "$vdso" && mkfifo "$vdso"
timeout 30 "$HINDSIGHT" history img-fifo >fifo.out 2>fifo.err
expect_eq "exit status of history with a FIFO image" "$?" 0
expect_re fifo.out "^[0-9]+"
timeout 30 "$HINDSIGHT" replay img-fifo --batch -ex 'info registers rip' >fifo2.out 2>fifo2.err
expect_eq "exit status of replay with a FIFO image" "$?" 0
# Read-only data of the program (.rodata, never written): the file's bytes
# at the load address (the load bias from step's address at its
# breakpoint), chars printed as GDB prints them.
timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'break step' -ex 'goto begin' \
    -ex continue -ex 'info registers rip' >ro1.out 2>&1
rip=$(sed -n 's/^rip  *\(0x[0-9a-f]*\) .*<step+\([0-9]*\)>$/\1 \2/p' ro1.out)
step_off=$(nm "$prog" | sed -n 's/^\([0-9a-f]*\) T step$/\1/p')
ro_off=$(readelf -SW "$prog" | sed -n 's/.* \.rodata  *PROGBITS  *\([0-9a-f]*\) .*/\1/p')
ro_file=$(readelf -SW "$prog" | sed -n 's/.* \.rodata  *PROGBITS  *[0-9a-f]*  *\([0-9a-f]*\) .*/\1/p')
if [ -n "$rip" ] && [ -n "$step_off" ] && [ -n "$ro_off" ]; then
    base=$(( ${rip% *} - ${rip#* } - 0x$step_off ))
    ro=$(printf '0x%x' $((base + 0x$ro_off)))
    timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex "x/8xb $ro" -ex "x/8c $ro" >ro2.out 2>&1
    show ro2.out
    want=$(od -An -tx1 -j $((0x$ro_file)) -N 8 "$prog" | sed 's/ /\t0x/g')
    expect ro2.out "$ro:$want"
    expect_re ro2.out "^$ro:	-?[0-9]+ '"
else
    fail "no load address for .rodata (rip '$rip', step at '$step_off', .rodata at '$ro_off')"
fi
"$HINDSIGHT" replay --batch 2>u.err
expect_eq "exit status without a recording" "$?" 2
"$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 2>noarg.err
expect_eq "exit status of -ex without a command" "$?" 2
expect noarg.err "hindsight: -ex wants an argument"
many=()
for i in $(seq 1 65); do many+=(-ex 'info record'); done
"$HINDSIGHT" replay "$T_DIR/rec" --batch "${many[@]}" >many.out 2>many.err
expect_eq "exit status of 65 -ex" "$?" 2
expect many.err "hindsight: at most 64 -ex and -x; put the commands in a file for -x"
finish
