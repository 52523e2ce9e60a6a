#!/usr/bin/env bash
# t_gdb_reverse_threads: reverse execution on a multi-threaded program
# served by `hindsight serve` (threads recorded one at a time). A worker
# stops at a breakpoint in the present; `next` twice (scheduler-locking
# step: no other worker's hit in between) stores its result;
# reverse-next shows the store undone (the past value of the global the
# worker wrote, and of its local); forward again, the next worker's hit is
# live; the program runs on to its exit with the right sum.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog threads -pthread) || finish
BASE=$(rand_int 100 900)

server_start "$prog" "$BASE" || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'set scheduler-locking step' -ex 'break thread_work' \
    -ex 'echo ==hit1\n' -ex 'continue' -ex 'p id' -ex 'info threads' \
    -ex 'echo ==fwd\n' -ex 'next' -ex 'next' -ex 'p g_results[id]' \
    -ex 'echo ==back\n' -ex 'reverse-next' -ex 'p g_results[id]' -ex 'p value' \
    -ex 'echo ==back2\n' -ex 'reverse-next' -ex 'p value' \
    -ex 'echo ==hit2\n' -ex 'continue' -ex 'p id' \
    -ex 'echo ==end\n' -ex 'delete' "${TO_EXIT[@]}" \
    -ex 'echo ==done\n' "$prog"
show "$out"

section() { sed -n "/^==$1\$/,/^==/p" "$out"; }

id1=$(section hit1 | sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p' | head -1)
[ -n "$id1" ] || { fail "no first hit of thread_work"; finish; }
v1=$((id1 * id1 + BASE))
section hit1 | grep -qE "^Thread [0-9]+ .*hit Breakpoint 1, thread_work \(id=$id1\)" ||
    fail "the first hit is not reported in a worker thread"
[ "$(section hit1 | grep -cE '^[* ] +[0-9]+ +Thread ')" -ge 2 ] || fail "info threads lists fewer than 2 threads"
section fwd | grep -q "^\$[0-9]* = $v1\$" || fail "g_results[$id1] is not $v1 after the store"
section back | grep -q "^\$[0-9]* = 0\$" || fail "g_results[$id1] before the store is not 0"
section back | grep -q "^\$[0-9]* = $v1\$" || fail "the local value is not $v1 before the store"
section back2 | grep -q "^\$[0-9]* = $v1\$" &&
    fail "value is already $v1 before the line that computes it"
section hit2 | grep -qE "hit Breakpoint 1, thread_work \(id=[0-9]+\)" || fail "no live hit in another worker"
id2=$(section hit2 | sed -n 's/^\$[0-9]* = \([0-9]*\)$/\1/p' | head -1)
[ -n "$id2" ] && [ "$id2" != "$id1" ] || fail "the second hit is in the same worker ($id2)"
section end | grep -q "exited normally" || fail "the program did not run to its exit"
expect "$T_DIR/server.out" "threads: sum=$((3 * BASE + 0 + 1 + 4))"

finish
