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
[ "${E2E_SERVE_RECORD:-}" = valgrind ] && skip "Valgrind's gdbserver lists a thread clone3 made only once that thread has run"

prog=$(build_prog threads -pthread) || finish
BASE=$(rand_int 100 900)
cat >"$T_DIR/cmds.gdb" <<'GDB'
break main
continue
break clone3
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

server_start "$prog" "$BASE" || finish
out=$T_DIR/gdb.out
gdb_run "$out" -x "$T_DIR/cmds.gdb" "${TO_EXIT[@]}" -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
value() { section "$1" | sed -n 's/^\$[0-9]* = .*\(0x[0-9a-f]*\).*$/\1/p' | sed -n "${2}p"; }

[ "$(section fwd | grep -cE '^[* ] +[0-9]+ +Thread ')" -ge 2 ] ||
    fail "the new thread is not listed after the clone3 syscall"
after=$(value fwd 1)
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

finish
