#!/usr/bin/env bash
# t_gdb_reverse_new_thread: going back while a thread exists that has not
# run an instruction yet (how CI once failed t_gdb_reverse_threads, by
# chance of timing). With scheduler-locking on, main alone steps over
# clone3's syscall: the new thread is made, stops, and GDB is told of it,
# but it never steps, so its recording holds no instruction and its state
# log no byte. Going back over the syscall must work (it was refused with
# "Invalid argument": the empty log read as damage), the new thread must
# not be listed before the syscall made it, forward again must reach the
# same pc with the thread listed again, and the program must run to its
# exit with the right sum.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog threads -pthread) || finish
# Valgrind 3.19 has no clone3 (ENOSYS: glibc then calls clone), so under it
# the syscall that makes the thread is clone's.
clonefn=clone3
[ "${E2E_SERVE_RECORD:-}" = valgrind ] && clonefn=clone
BASE=$(rand_int 100 900)
cat >"$T_DIR/cmds.gdb" <<'GDB'
break main
continue
break CLONEFN
continue
delete
set scheduler-locking on
while *(unsigned short *)$pc != 0x050f
  stepi
end
echo ==fwd\n
stepi
info threads
p $pc
echo ==regs1\n
thread 1
info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags
p $xmm1.uint128
CHILDSTACK
echo ==regs2\n
thread 2
info registers rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags
p $xmm1.uint128
p/x $fs_base
thread 1
echo ==back\n
reverse-stepi
p $pc
p *(unsigned short *)$pc == 0x050f
info threads
reverse-stepi
p $pc
echo ==again\n
stepi
stepi
p $pc
info threads
echo ==end\n
set scheduler-locking off
GDB
sed -i "s/CLONEFN/$clonefn/" "$T_DIR/cmds.gdb"
# The new thread's stack and TLS, as the parent passed them: glibc's clone
# in rsi and r8, clone3 in its struct clone_args (rdi): stack + stack_size,
# tls.
if [ "$clonefn" = clone ]; then
    sed -i 's|^CHILDSTACK$|p/x $rsi\np/x $r8|' "$T_DIR/cmds.gdb"
else
    sed -i 's|^CHILDSTACK$|p/x ((unsigned long *)$rdi)[5] + ((unsigned long *)$rdi)[6]\np/x ((unsigned long *)$rdi)[7]|' "$T_DIR/cmds.gdb"
fi

server_start "$prog" "$BASE" || finish
out=$T_DIR/gdb.out
gdb_run "$out" -x "$T_DIR/cmds.gdb" "${TO_EXIT[@]}" -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
value() { section "$1" | sed -n 's/^\$[0-9]* = .*\(0x[0-9a-f]*\).*$/\1/p' | sed -n "${2}p"; }

[ "$(section fwd | grep -cE '^[* ] +[0-9]+ +Thread ')" -ge 2 ] ||
    fail "the new thread is not listed after the clone3 syscall"
after=$(value fwd 1)
# The new thread's registers, before it ran an instruction (under
# Valgrind, those its clone left, from the tool while Valgrind's gdbserver
# does not list it yet): its parent's after the syscall, but rax (0) and
# rsp (the stack the parent passed); fs_base the TLS it passed.
reg() { section "$1" | awk -v r="$2" '$1 == r {print $2}'; }
val() { section "$1" | grep '^\$' | sed -n "${2}p" | cut -d= -f2 | tr -d ' '; }
for r in rbx rcx rdx rsi rdi rbp r8 r9 r10 r11 r12 r13 r14 r15 rip eflags; do
    [ -n "$(reg regs1 $r)" ] && [ "$(reg regs1 $r)" = "$(reg regs2 $r)" ] ||
        fail "the new thread's $r is $(reg regs2 $r), its parent's $(reg regs1 $r)"
done
[ "$(reg regs2 rax)" = 0x0 ] || fail "the new thread's rax is $(reg regs2 rax), not 0"
[ -n "$(val regs1 2)" ] && [ "$(reg regs2 rsp)" = "$(val regs1 2)" ] ||
    fail "the new thread's rsp is $(reg regs2 rsp), not the stack its parent passed ($(val regs1 2))"
[ -n "$(val regs1 1)" ] && [ "$(val regs1 1)" = "$(val regs2 1)" ] ||
    fail "the new thread's xmm1 is $(val regs2 1), its parent's $(val regs1 1)"
[ "$(val regs2 2)" = "<unavailable>" ] || [ "$(val regs2 2)" = "$(val regs1 3)" ] ||
    fail "the new thread's fs_base is $(val regs2 2), not the TLS its parent passed ($(val regs1 3))"
section back | grep -q "Remote failure" && fail "going back was refused"
sys=$(value back 1)
before=$(value back 2)
[ -n "$after" ] && [ -n "$sys" ] && [ -n "$before" ] || { fail "a \$pc is missing"; finish; }
section back | grep -qE '^\$[0-9]+ = 1$' || fail "reverse-stepi did not go back to the syscall instruction"
[ $((after - sys)) -eq 2 ] || fail "the syscall at $sys is not 2 bytes before $after"
[ "$before" != "$sys" ] || fail "the second reverse-stepi did not move"
[ "$(section back | grep -cE '^[* ] +[0-9]+ +Thread ')" -eq 1 ] ||
    fail "before the clone3 syscall, a thread it makes is listed"
section again | grep -q "Remote failure" && fail "going forward again was refused"
[ "$(value again 1)" = "$after" ] || fail "forward again did not reach $after"
[ "$(section again | grep -cE '^[* ] +[0-9]+ +Thread ')" -ge 2 ] ||
    fail "after the clone3 syscall again, the new thread is not listed"
section end | grep -q "exited normally" || fail "the program did not run to its exit"
expect "$T_DIR/server.out" "threads: sum=$((3 * BASE + 0 + 1 + 4))"

# Under Valgrind, a step of the new thread alone: where Valgrind has not
# run it yet, it cannot be, and GDB is told why, the thread where it was;
# where it has (it got the turn as its parent's syscall ended), it steps.
if [ "${E2E_SERVE_RECORD:-}" = valgrind ]; then
    wait_gone "$SERVER_PID" 20
    server_start "$prog" "$BASE" || finish
    out2=$T_DIR/gdb-born.out
    cat >"$T_DIR/born.gdb" <<'GDB'
break main
continue
break clone
continue
delete
set scheduler-locking on
while *(unsigned short *)$pc != 0x050f
  stepi
end
stepi
p $pc
thread 2
p $pc
stepi
p $pc
kill
GDB
    gdb_run "$out2" -x "$T_DIR/born.gdb" "$prog"
    show "$out2"
    pcs=($(sed -n 's/^\$[0-9]* = .*\(0x[0-9a-f]*\) <.*$/\1/p' "$out2"))
    if [ "${#pcs[@]}" -ne 3 ]; then
        fail "a step of the new thread: ${#pcs[@]} pcs, not 3"
    elif grep -q "has not run yet" "$out2"; then
        expect_eq "the new thread's pc after a refused step" "${pcs[2]}" "${pcs[1]}"
    else
        [ "${pcs[2]}" != "${pcs[1]}" ] || fail "the new thread, run already, did not step"
    fi
fi

finish
