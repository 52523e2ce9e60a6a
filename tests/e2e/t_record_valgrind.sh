#!/usr/bin/env bash
# t_record_valgrind: `record --record=valgrind` (the Valgrind tool in
# vgtool/, stub/recorders/stub_vgrec.c) records exactly what ran.
#   - A static program without libc (tests/programs/nolibc.c) runs the same
#     instructions natively and under Valgrind: the recorder's count and its
#     decoded history equal an independent single-stepper's (tools/stepper.c),
#     address by address, and so do the registers at 400 sampled positions
#     (the stack's addresses and the flags the architecture leaves undefined
#     aside).
#   - On programs with libc, threads, signal handlers, longjmp, a crash and
#     an exec, the decoded history of every thread equals the tool's own
#     trace of every instruction it started (--vg-verify: a helper call per
#     instruction, not the superblock stream the history is made of), with
#     a rep string instruction's iterations counted once and the faulting
#     instruction of a crash not counted, as the CPU retires them.
#   - The registers `hindsight replay` shows at sampled positions of every
#     thread equal the tool's own reading of the guest state before that
#     instruction (the verify trace, not the stream the state log is made
#     of); memory in the past has the values the program stored (exact.c's
#     g_after_cpuid, round by round, as t_record_exact checks for the other
#     recorder).
#   - The exit status and output are the program's; `info record` names the
#     recorder; GDB over `serve --replay` shows at the crash the backtrace,
#     arguments and locals GDB shows running the program natively (addresses
#     aside: Valgrind loads it elsewhere), and a reverse watchpoint finds
#     the store; vector registers, which are not recorded, are refused.
#   - A timer's signals, between superblocks (the top of an unrolled
#     loop), against the tool's trace too.
#   - A fork: the children run on unrecorded, the parent's threads have no gap.
#   - No Valgrind for --attach, a missing tool, a program that does not exist,
#     an instruction Valgrind cannot run (AVX-512): clear errors.
. "$(dirname "$0")/lib.sh"
hindsight_only "the Valgrind recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

# strip_hist FILE: the addresses of `hindsight history` output, bare hex.
hist_ips() { awk '{ a = $2; sub(/:$/, "", a); sub(/^0x0*/, "", a); print a }'; }

# check_verify NAME REC VERIFY [DROP_LAST_OF_TID]: every thread's history
# equals the tool's trace of it.
check_verify()
{
    local name=$1 rec=$2 ver=$3 drop=${4:-} tid n
    for tid in $(awk '{ print $1 }' "$ver" | sort -un); do
        awk -v t="$tid" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' "$ver" \
            >"ver.$name.$tid"
        [ "$tid" = "$drop" ] && sed -i '$d' "ver.$name.$tid"
        n=$(wc -l <"ver.$name.$tid")
        "$HINDSIGHT" history "$rec" "1,$((n + 100))" --thread "$tid" 2>"hist.$name.$tid.err" |
            hist_ips >"hist.$name.$tid"
        if ! cmp -s "hist.$name.$tid" "ver.$name.$tid"; then
            fail "$name: thread $tid's history differs from the tool's trace ($(wc -l <"hist.$name.$tid") / $n):"
            diff "hist.$name.$tid" "ver.$name.$tid" | head -5
        fi
    done
}

# 1. Against the single-stepper.
nolibc=$(build_prog nolibc -O1 -static -nostdlib -fno-stack-protector -fno-builtin -fno-pie -no-pie) ||
    finish
stepper=$E2E_WORK/bin/stepper
[ -x "$stepper" ] || cc -O2 -o "$stepper" "$E2E_DIR/tools/stepper.c" || { fail "cannot compile stepper.c"; finish; }
timeout 120 "$HINDSIGHT" record --record=valgrind --vg-verify "$T_DIR/nolibc.ver" \
    -o "$T_DIR/nolibc" -- "$nolibc" >rec.nolibc.out 2>rec.nolibc.err
rc_rec=$?
STEPPER_REGS=1 "$stepper" "$T_DIR/nolibc.ssr" "$nolibc" >ss.nolibc.out 2>ss.nolibc.err
rc_ss=$?
cut -d' ' -f1 "$T_DIR/nolibc.ssr" >"$T_DIR/nolibc.ss"
show rec.nolibc.err ss.nolibc.err
expect_eq "nolibc: exit status, recorded / stepped" "$rc_rec" "$rc_ss"
cmp -s rec.nolibc.out ss.nolibc.out || fail "nolibc: the program printed other things"
n_rec=$(sed -n 's/^hindsight: \([0-9]*\) instructions, 1 thread, 0 gaps.*/\1/p' rec.nolibc.err)
n_ss=$(sed -n 's/^stepper: \([0-9]*\) instructions$/\1/p' ss.nolibc.err)
[ -n "$n_ss" ] && [ "$n_ss" -gt 10000 ] || fail "nolibc: the stepper counted '$n_ss'"
expect_eq "nolibc: instructions, recorder / stepper" "$n_rec" "$n_ss"
"$HINDSIGHT" history "$T_DIR/nolibc" "1,$((n_ss + 100))" 2>/dev/null | hist_ips >hist.nolibc
sed 's/^0*//' "$T_DIR/nolibc.ss" >ss.nolibc.ips
cmp -s hist.nolibc ss.nolibc.ips || {
    fail "nolibc: the history differs from the stepper's"
    diff hist.nolibc ss.nolibc.ips | head -5
}
check_verify nolibc "$T_DIR/nolibc" "$T_DIR/nolibc.ver"

# check_regs NAME REC VERIFY: the registers of every thread.
check_regs()
{
    local name=$1 rec=$2 ver=$3 tid
    for tid in $(awk '{ print $1 }' "$ver" | sort -un); do
        python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$rec" "$ver" "$tid" 30 \
            >"regs.$name.$tid" 2>&1 ||
            { fail "$name: thread $tid's registers differ from the tool's"; cat "regs.$name.$tid"; }
    done
}
check_regs nolibc "$T_DIR/nolibc" "$T_DIR/nolibc.ver"
# Memory around rep string instructions (VEX unrolls their iterations in a
# superblock; all of them are one instruction of the history): nolibc's
# 512-byte buffer is all zeros before the rep stosb that fills it with 'x',
# all 'x' after it, and holds the message after the rep movsb.
buf=$(printf '0x%x' "0x$(nm "$nolibc" | awk '$3 == "buf" { print $1 }')")
small=$(printf '0x%x' "0x$(nm "$nolibc" | awk '$3 == "small" { print $1 }')")
read -r stos0 stos movs < <("$HINDSIGHT" history "$T_DIR/nolibc" "1,$((n_ss + 100))" 2>/dev/null |
    awk '/rep stos/ { s[++n] = $1 } /rep movs/ && !m { m = $1 } END { print s[1], s[2], m }')
"$HINDSIGHT" replay "$T_DIR/nolibc" --batch -ex "goto $stos" -ex "x/512xb $buf" \
    -ex "goto $((stos + 1))" -ex "x/512xb $buf" -ex "goto $((movs + 1))" \
    -ex "x/13c $buf + 256" -ex "goto $stos0" -ex "x/8xb $small" -ex "goto $((stos0 + 1))" \
    -ex "x/8xb $small" >rep.out 2>&1
bytes_at() { awk -v n="$1" '/^0x[0-9a-f]+:/ { if (++l > (n - 1) * 64 && l <= n * 64) for (i = 2; i <= NF; i++) c[$i]++ }
    END { for (k in c) printf "%s:%d ", k, c[k] }' rep.out; }
expect_eq "buf before the rep stosb" "$(bytes_at 1)" "0x00:512 "
expect_eq "buf after the rep stosb" "$(bytes_at 2)" "0x78:512 "
expect rep.out "110 'n'	111 'o'	108 'l'	105 'i'	98 'b'	99 'c'	58 ':'	32 ' '"
expect rep.out "100 'd'	111 'o'	110 'n'	101 'e'	10 "
expect_eq "small, before and after its unrolled rep stosb" \
    "$(grep "^$small" rep.out | cut -f2- | tr '\n\t' '  ')" \
    "0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x00 0x79 0x79 0x79 0x79 0x79 0x79 0x79 0x79 "

# ... and against the native run's, register by register (the stack aside).
python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$T_DIR/nolibc" "$T_DIR/nolibc.ssr" \
    "$(awk 'NR == 1 { print $1 }' "$T_DIR/nolibc.ver")" 400 --native >regs.nolibc.native 2>&1 ||
    { fail "nolibc: registers differ from the native run's"; cat regs.nolibc.native; }

# 2. Programs with libc, against the tool's own trace.
exact=$(build_prog exact -no-pie) || finish
threads=$(build_prog threads -pthread) || finish
execself=$(build_prog execself) || finish
crash=$(build_prog crash) || finish
for mode in strings signal longjmp crash; do
    timeout 120 "$HINDSIGHT" record --record=valgrind --vg-verify "$T_DIR/$mode.ver" \
        -o "$T_DIR/$mode" -- "$exact" "$mode" >"rec.$mode.out" 2>"rec.$mode.err"
    rc=$?
    (exec "$exact" "$mode" >"native.$mode.out" 2>/dev/null)
    expect_eq "$mode: exit status, recorded / native" "$rc" "$?"
    cmp -s "rec.$mode.out" "native.$mode.out" || fail "$mode: the program printed other things"
    expect_re "rec.$mode.err" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
    drop=
    [ "$mode" = crash ] && drop=$(awk 'NR == 1 { print $1 }' "$T_DIR/$mode.ver")
    check_verify "$mode" "$T_DIR/$mode" "$T_DIR/$mode.ver" "$drop"
    check_regs "$mode" "$T_DIR/$mode" "$T_DIR/$mode.ver"
done
expect_eq "crash: exit status" "$rc" 139

timeout 120 "$HINDSIGHT" record --record=valgrind --vg-verify "$T_DIR/threads.ver" \
    -o "$T_DIR/threads" -- "$threads" 7 >rec.threads.out 2>rec.threads.err
expect_eq "threads: exit status" "$?" 0
expect rec.threads.out "$("$threads" 7)"
expect_re rec.threads.err "^hindsight: [0-9]+ instructions, 4 threads, 0 gaps"
check_verify threads "$T_DIR/threads" "$T_DIR/threads.ver"
check_regs threads "$T_DIR/threads" "$T_DIR/threads.ver"

# Signals from outside (a 1 ms timer) land between superblocks, often at
# the top of a small loop VEX unrolled into one superblock that ends where
# it starts: its last round ran (it used to be dropped, as if the signal
# had come before it).
itimer=$(build_prog itimer -no-pie) || finish
timeout 120 "$HINDSIGHT" record --record=valgrind --vg-verify "$T_DIR/itimer.ver" \
    -o "$T_DIR/itimer" -- "$itimer" >rec.itimer.out 2>rec.itimer.err
expect_re rec.itimer.out "^ticks [34]$"
check_verify itimer "$T_DIR/itimer" "$T_DIR/itimer.ver"

timeout 120 "$HINDSIGHT" record --record=valgrind --vg-verify "$T_DIR/exec.ver" \
    -o "$T_DIR/exec" -- "$execself" >rec.exec.out 2>rec.exec.err
expect_eq "exec: exit status" "$?" 3
expect rec.exec.out "execself: child"
check_verify exec "$T_DIR/exec" "$T_DIR/exec.ver"
check_regs exec "$T_DIR/exec" "$T_DIR/exec.ver"

# fork: the children run on under Valgrind unrecorded (the parent is
# followed, as by the other recorders); the parent's two threads are whole.
forkrep=$(build_prog forkrep -pthread) || finish
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/fork" -- "$forkrep" \
    >rec.fork.out 2>rec.fork.err
expect_eq "fork: exit status" "$?" 0
expect rec.fork.out "forkrep: 15 of 15 children exited normally"
expect_re rec.fork.err "^hindsight: [0-9]+ instructions, 2 threads, 0 gaps"
"$HINDSIGHT" replay "$T_DIR/fork" --batch -ex 'info record' >info.fork 2>&1
expect info.fork "gaps: 0 (decoded) + 0 (recorded)"

# Memory in the past: the store right after each CPUID, round by round.
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/cpuid" -- "$exact" cpuid \
    >/dev/null 2>rec.cpuid.err
store=$(objdump -d "$exact" | awk '/\tcpuid/ { getline; sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
g=$(printf '0x%x' "0x$(nm "$exact" | awk '$3 == "g_after_cpuid" { print $1 }')")
"$HINDSIGHT" replay "$T_DIR/cpuid" --batch \
    -ex "break *0x$store" \
    -ex 'reverse-continue' -ex 'stepi' -ex "x/gx $g" \
    -ex 'reverse-stepi' -ex "x/gx $g" \
    -ex 'reverse-continue' -ex 'reverse-continue' \
    -ex 'stepi' -ex "x/gx $g" \
    -ex 'reverse-stepi' -ex "x/gx $g" -ex 'p $xmm0' >past.out 2>&1
show past.out
grep "^$g:" past.out | awk '{ print $NF }' >values
expect_eq "g_after_cpuid in the past" "$(tr '\n' ' ' <values)" \
    "0x000000005eed0001 0x000000005eed0002 0x000000005eed0001 0x0000000000000000 "
"$HINDSIGHT" history "$T_DIR/exec" 1,100000000 /s 2>/dev/null | grep -c "execself.c:$(line_of execself.c child)" \
    >exec.child-lines
[ "$(cat exec.child-lines)" -ge 1 ] || fail "exec: the history never reaches the child's line"

# 3. What the readers make of it.
"$HINDSIGHT" replay "$T_DIR/crash" --batch -ex 'info record' -ex 'p $rsp' >info.out 2>&1
show info.out
expect info.out "recorder: valgrind"
expect info.out "gaps: 0 (decoded) + 0 (recorded)"
expect info.out "end: signaled 11"
expect_re info.out '^\$1 = \(void \*\) 0x1fff' 

timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex run -ex 'x/i $pc' -ex bt \
    -ex 'info args' -ex up -ex 'info locals' "$crash" >native.gdb 2>&1
want=$(grep -o '<crash_here+[0-9]*>' native.gdb | head -1)
[ -n "$want" ] || fail "native GDB did not stop in crash_here"
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/crashrec" -- "$crash" >/dev/null 2>&1
server_start --replay "$T_DIR/crashrec" || finish
gdb_run replay.gdb -ex 'x/i $pc' -ex bt -ex 'info args' -ex up -ex 'info locals' \
    -ex 'watch v' -ex 'reverse-continue' -ex 'info registers ymm0' -ex 'kill' "$crash"
show replay.gdb
expect replay.gdb "$want"
# The backtrace, arguments and locals, addresses aside.
frames() { grep -E '^(#[0-9]|[a-z]+ = )' "$1" | sed 's/0x[0-9a-f]*/ADDR/g'; }
frames native.gdb >native.frames
frames replay.gdb >replay.frames
expect_eq "frames, arguments and locals at the crash, replayed / native" \
    "$(head -6 replay.frames)" "$(head -6 native.frames)"
[ "$(wc -l <native.frames)" -ge 5 ] || fail "native GDB showed too little: $(cat native.frames)"
expect replay.gdb "Old value = 1"
expect replay.gdb "New value = 0"
expect replay.gdb "v2_int128 = {<unavailable>, <unavailable>}"

# A fault right after a register write that the next instruction
# overwrites again (examples/cart.c): the register at the fault as GDB sees
# it natively.
cart=$E2E_WORK/bin/cart
cc -g -O0 -o "$cart" "$E2E_DIR/../../examples/cart.c" || fail "cannot compile cart.c"
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/cart" -- "$cart" >/dev/null 2>&1
"$HINDSIGHT" replay "$T_DIR/cart" --batch -ex 'p/x $rax' -ex 'p/x $rcx' >cart.replay 2>&1
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex run -ex 'p/x $rax' \
    -ex 'p/x $rcx' "$cart" 2>&1 | grep '^\$' >cart.native
show cart.replay cart.native
expect_eq "cart: rax, rcx at the crash, replayed / native" \
    "$(grep '^\$' cart.replay | tr '\n' ' ')" "$(tr '\n' ' ' <cart.native)"

# 4. `run` explains the crash from a Valgrind recording.
(cd "$T_DIR" && exec "$HINDSIGHT" run --record=valgrind -o "$T_DIR/run" -- "$crash") \
    >run.out 2>run.err
expect_eq "run: exit status" "$?" 139
show run.err
expect run.err "Program terminated with signal SIGSEGV, Segmentation fault."
expect run.err "$want:"
expect run.err "memory operand: 0x0 (written): in the first page, a null or corrupted pointer"
expect_re run.err "^  rip 0x[0-9a-f]+  rsp 0x1fff"
expect_re run.err "^#1 .* in main \(\) at .*crash.c:$(line_of crash.c call)"
expect run.err "Valgrind's messages are in $T_DIR/run/valgrind.log"
expect "$T_DIR/run/valgrind.log" "Process terminating with default action of signal 11"
expect_not run.err "Process terminating"

# 5. Refusals.
"$HINDSIGHT" record --record=valgrind --attach $$ >attach.out 2>&1
expect_eq "--attach with valgrind: exit status" "$?" 2
expect attach.out "Valgrind cannot attach to a running process; --record=sw can"
HINDSIGHT_VGTOOL_DIR=/nonexistent "$HINDSIGHT" record --record=valgrind -o "$T_DIR/none" \
    -- "$crash" >notool.out 2>&1
expect_eq "no tool: exit status" "$?" 1
expect notool.out "cannot record with Valgrind: HINDSIGHT_VGTOOL_DIR=/nonexistent holds no hsrec-amd64-linux"
[ -e "$T_DIR/none" ] && fail "no tool: a bundle directory was made"
"$HINDSIGHT" record --record=valgrind -o "$T_DIR/missing" -- "$T_DIR/no-such-program" \
    >missing.out 2>&1
expect_eq "a program that does not exist: exit status" "$?" 1
expect missing.out "cannot start $T_DIR/no-such-program under Valgrind"
[ -e "$T_DIR/missing" ] && fail "a program that does not exist: a bundle directory was left"
# An instruction Valgrind does not emulate (AVX-512): the program dies of
# SIGILL under it, and hindsight says so and what records it instead.
avx512=$(build_prog avx512) || finish
"$HINDSIGHT" record --record=valgrind -o "$T_DIR/avx512" -- "$avx512" >avx512.out 2>&1
expect_eq "AVX-512 under Valgrind: exit status" "$?" 132
expect avx512.out "hindsight: Valgrind cannot run the instruction at 0x"
expect avx512.out "--record=sw records it natively"
finish
