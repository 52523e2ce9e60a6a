#!/usr/bin/env bash
# t_unwind: backtraces after a signal handler and a longjmp, frame by frame
# against GDB's. tests/programs/unwind.c is recorded in software, then
# `hindsight replay --batch` stops at breakpoints and runs bt, and GDB runs
# the same program natively with the same breakpoints (the signals passed
# to the program without stopping) and runs bt; both lists of frames must
# be the same: function names, file:line, `<signal handler called>`, and
# whether the address is shown (a return address always; frame 0 and the
# frame a signal interrupted only mid-line). Arguments are left out
# (hindsight replay does not print them). The places:
#   deep N     inside the innermost of N + 1 recursive calls
#   longjmp N  the same; inside the SIGSEGV handler (a signal frame over
#              the recursion); after the handler siglongjmp'd back to main
#              (in crash_later, at its opening line and at its faulting
#              line: the calls made before the jump are gone)
#   return N   the same, inside a SIGSEGV handler that restores the default
#              action and returns (so the write faults again and kills it)
#   inline     inside code inlined twice into through_inline (a frame per
#              inlined function, without an address), and in crash_here,
#              which that inlined code calls
#   nested     inside a SIGILL handler; in a function it calls; in a
#              SIGSEGV handler running inside it (two signal frames);
#              in a function that handler calls
# Then `hindsight run`'s explanation of each crash against GDB's bt where
# the program dies (GDB stops at each signal; `continue` passes it on),
# recorded by the single-stepper and by the Valgrind recorder (its signal
# frames are Valgrind's, laid out as the kernel's).
# And with --snapshot, where the return addresses are older than what the
# recording kept, the backtrace stops with the address it could not read
# rather than show frames it does not know.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and run"

prog=$(build_prog unwind) || finish
cd "$T_DIR" || finish
src=unwind.c
n=$(rand_int 2 6)

# frames FILE: FILE's backtrace lines as "LEVEL [@ ]FUNCTION [FILE:LINE]",
# @ when the address is shown, without arguments and directories; and
# "Backtrace stopped" lines.
frames()
{
    sed -nE -e 's/^#([0-9]+) +<signal handler called>$/\1 <signal handler called>/p' \
        -e 's/^#([0-9]+) +(0x[0-9a-f]+ in )?([^ ]+) \(.*\)( at (.*\/)?([^/]+:[0-9]+))?$/\1 \2\3 \6/p' \
        -e 's/^(Backtrace stopped: [^(]*).*/\1/p' "$1" | sed -E 's/ 0x[0-9a-f]+ in / @ /; s/ +$//'
}

# same_frames WHAT GDB_OUT HINDSIGHT_OUT MIN: the frames agree, and there are
# at least MIN of them (a bt that printed nothing proves nothing).
same_frames()
{
    frames "$2" >"$1.gdb.frames"
    frames "$3" >"$1.hs.frames"
    if ! diff -u "$1.gdb.frames" "$1.hs.frames" >"$1.diff"; then
        fail "$1: the frames differ from GDB's"
        cat "$1.diff"
    fi
    [ "$(wc -l <"$1.gdb.frames")" -ge "$4" ] || fail "$1: GDB printed fewer than $4 frames"
}

gdb_native()
{
    timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' "$@" 2>&1
}

declare -A BREAKS=(
    [deep]="$src:$(line_of $src level_fault)"
    [longjmp]="$src:$(line_of $src level_fault) on_segv crash_later $src:$(line_of $src crash_later)"
    [return]="on_segv_return"
    [inline]="$src:$(line_of $src inl_inner) crash_here"
    [nested]="on_ill in_handler on_segv_nested crash_in_segv"
)
declare -A FATAL=([deep]=1 [longjmp]=2 [return]=2 [inline]=1 [nested]=3)   # signals until the fatal one

for mode in deep longjmp return inline nested; do
    rec=$T_DIR/rec-$mode
    timeout 120 "$HINDSIGHT" record --record=sw -o "$rec" -- "$prog" "$mode" "$n" \
        >"rec-$mode.out" 2>"rec-$mode.err"
    expect_eq "exit status of the recorded $mode" "$?" 139

    hs=(-ex 'goto begin') gd=(-ex 'handle SIGSEGV nostop noprint pass'
                              -ex 'handle SIGILL nostop noprint pass')
    nbreaks=0
    for b in ${BREAKS[$mode]}; do
        hs+=(-ex "break $b")
        gd+=(-ex "break $b")
        nbreaks=$((nbreaks + 1))
    done
    gd+=(-ex run -ex bt)
    hs+=(-ex continue -ex bt)
    for ((i = 1; i < nbreaks; i++)); do
        gd+=(-ex continue -ex bt)
        hs+=(-ex continue -ex bt)
    done
    timeout 120 "$HINDSIGHT" replay "$rec" --batch "${hs[@]}" >"replay-$mode.all" 2>"replay-$mode.err"
    expect_eq "exit status of replay --batch ($mode)" "$?" 0
    # From the first stop on (goto prints where it lands as a frame too).
    sed -n '/^Continuing\./,$p' "replay-$mode.all" >"replay-$mode.out"
    gdb_native "${gd[@]}" --args "$prog" "$mode" "$n" >"gdb-$mode.out" 2>&1
    show "replay-$mode.out" "gdb-$mode.out"
    expect_eq "breakpoint stops in replay ($mode)" "$(grep -c '^Breakpoint [0-9]' "replay-$mode.out")" "$nbreaks"
    same_frames "replay-$mode" "gdb-$mode.out" "replay-$mode.out" $((nbreaks * 2))

    # run's explanation against GDB where the program dies.
    timeout 120 "$HINDSIGHT" run -o "$T_DIR/run-$mode" -- "$prog" "$mode" "$n" \
        >"run-$mode.out" 2>"run-$mode.err"
    expect_eq "exit status of run ($mode)" "$?" 139
    gd=(-ex run)
    for ((i = 1; i < FATAL[$mode]; i++)); do gd+=(-ex continue); done
    gdb_native "${gd[@]}" -ex bt --args "$prog" "$mode" "$n" >"gdb-run-$mode.out" 2>&1
    show "run-$mode.err" "gdb-run-$mode.out"
    expect "run-$mode.err" "Call stack:"
    same_frames "run-$mode" "gdb-run-$mode.out" "run-$mode.err" 3
    if command -v valgrind >/dev/null; then
        timeout 300 "$HINDSIGHT" run --record=valgrind -o "$T_DIR/vg-$mode" -- "$prog" "$mode" "$n" \
            >"vg-$mode.out" 2>"vg-$mode.err"
        expect_eq "exit status of run --record=valgrind ($mode)" "$?" 139
        same_frames "vg-$mode" "gdb-run-$mode.out" "vg-$mode.err" 3
    fi
done

# The frames these places must have, spelled out once (GDB agrees above).
expect_re replay-longjmp.out '^#1  <signal handler called>$'
expect_re replay-longjmp.out "^#2  level \([^)]*\) at .*/$src:$(line_of $src level_fault)\$"
expect_re replay-nested.out '^#4  <signal handler called>$'
expect_re run-nested.err '^#5  <signal handler called>$'
expect_re run-longjmp.err "^#2  0x[0-9a-f]+ in main \(\) at .*/$src:$(line_of $src after_jump)\$"
expect_not run-longjmp.hs.frames "on_segv"
expect_re run-inline.err "^#1  0x[0-9a-f]+ in inl_inner \(\) at .*/$src:$(line_of $src inl_inner)\$"
expect_re run-inline.err "^#2  inl_outer \(\) at .*/$src:$(line_of $src inl_outer)\$"
# The fatal fault comes right after the handler's rt_sigreturn: the pc is
# the one the kernel restored, not where the trace's decoding walks on.
expect run-return.err "The faulting instruction, number"
expect run-return.err "(after the rt_sigreturn of a signal handler: its pc is the one the kernel restored"
expect_re run-return.err "^   0x[0-9a-f]+ <level\+[0-9]+>:	movl +\\\$0x2,\(%rax\)\$"

# --snapshot keeps the newest 16K: the calls into level were made before
# the spin, their return addresses are not in the recording.
timeout 120 "$HINDSIGHT" run --snapshot 16K -o "$T_DIR/run-spin" -- "$prog" spin "$n" \
    >run-spin.out 2>run-spin.err
expect_eq "exit status of run --snapshot" "$?" 139
show run-spin.err
expect_re run-spin.err "^#0  level \([^)]*\) at .*/$src:$(line_of $src level_fault)\$"
expect_re run-spin.err '^Backtrace stopped: Cannot access memory at address 0x[0-9a-f]+ \(not in the recording\)$'
expect_not run-spin.err "#1 "
finish
