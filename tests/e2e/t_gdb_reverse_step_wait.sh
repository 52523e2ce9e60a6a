#!/usr/bin/env bash
# t_gdb_reverse_step_wait: `stepi` of main's thread over a read() that waits
# for a byte its worker writes. Natively the step ends when the read does,
# in main's thread, the worker having run meanwhile. Under Valgrind, which
# steps whichever thread runs next, the stop came in the worker as a
# SIGTRAP of its own: the step now goes on until main's syscall has
# returned, and stops there, in main's thread, with the read's result in
# rax; going back one instruction comes to the syscall instruction. The
# program's output checks what the worker computed meanwhile. Under
# Valgrind the worker counts long enough (seconds of single steps) that
# only going on at full speed to the stepped thread's stop is in time
# (stepping the other thread meanwhile took minutes, then said SIGTRAP).
# Then (under Valgrind) the worker ends the process instead: the step stops
# before its exit_group, as any resume does (it was stepped over: the
# process gone); and the worker, stepped, ends itself: the others go on.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog stepwait -pthread) || finish
R=$(rand_int 50 300)
[ "${E2E_SERVE_RECORD:-}" = valgrind ] && R=$(rand_int 200000 400000)
line=$(line_of stepwait.c main_read)
cat >"$T_DIR/cmds.gdb" <<GDB
break stepwait.c:$line
continue
delete
while *(unsigned short *)\$pc != 0x050f
  stepi
end
echo ==over\n
p/x \$pc
stepi
p/x \$pc
p \$rax
info threads
echo ==back\n
reverse-stepi
p/x \$pc
echo ==end\n
GDB

server_start "$prog" "$R" || finish
out=$T_DIR/gdb.out
gdb_run "$out" -x "$T_DIR/cmds.gdb" "${TO_EXIT[@]}" -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
value() { section "$1" | sed -n 's/^\$[0-9]* = \(.*\)$/\1/p' | sed -n "${2}p"; }

sys=$(value over 1)
after=$(value over 2)
[ -n "$sys" ] && [ -n "$after" ] || { fail "a \$pc is missing"; finish; }
section over | grep -q "SIGTRAP" && fail "the step stopped with a SIGTRAP"
[ $((after - sys)) -eq 2 ] || fail "the step over the syscall at $sys came to $after, not the next instruction"
[ "$(value over 3)" = 1 ] || fail "after the read, rax is $(value over 3), not the 1 byte read"
section over | grep -qE '^\* +1 +Thread ' || fail "the step did not stop in main's thread"
[ "$(value back 1)" = "$sys" ] || fail "reverse-stepi came to $(value back 1), not the syscall at $sys"
section end | grep -q "exited normally" || fail "the program did not run to its exit"
expect "$T_DIR/server.out" "stepwait: read 1 'w', sum=$((R * (R - 1) / 2))"

# The worker ends the process while main's step waits in read() (under
# Valgrind, which runs main alone until it waits there: natively the
# worker may be done before main comes to the read).
[ "${E2E_SERVE_RECORD:-}" = valgrind ] || finish
wait_gone "$SERVER_PID" 20
server_start "$prog" 100 exit || finish
out=$T_DIR/gdb-exit.out
sed -n '1,/^stepi$/p' "$T_DIR/cmds.gdb" | sed '/^echo ==over/d' >"$T_DIR/exit.gdb"
printf 'echo ==stop\\n\np sum\ncontinue\n' >>"$T_DIR/exit.gdb"
gdb_run "$out" -x "$T_DIR/exit.gdb" "$prog"
show "$out"
expect "$out" "the next instruction is syscall exit_group"
sed -n '/^==stop$/,$p' "$out" | grep -qE '^\$[0-9]+ = 4950$' || fail "the worker's sum at the end is not 4950"
expect "$out" "exited with code 03"

# The worker ends itself (the exit syscall) while stepped: Valgrind's next
# stop is in main, which was a SIGTRAP there; now the others go on, as
# under gdbserver, here to the stop before the end.
wait_gone "$SERVER_PID" 20
server_start "$prog" 100 thread || finish
out=$T_DIR/gdb-texit.out
cat >"$T_DIR/texit.gdb" <<'GDB'
break worker_exit
continue
delete
while *(unsigned short *)$pc != 0x050f || $rax != 60
  stepi
end
echo ==texit\n
stepi
echo ==done\n
continue
GDB
gdb_run "$out" -x "$T_DIR/texit.gdb" "$prog"
show "$out"
sed -n '/^==texit$/,/^==done$/p' "$out" | grep -q SIGTRAP && fail "the step over the thread's exit stopped with a SIGTRAP"
sed -n '/^==texit$/,/^==done$/p' "$out" | grep -q "the next instruction is syscall exit_group" ||
    fail "the step over the thread's exit did not come to the stop before the end"
expect "$out" "exited normally"
expect "$T_DIR/server.out" "stepwait: read 0"

finish
