#!/usr/bin/env bash
# t_record_light_shared: what the light recorder's input log cannot hold
# becomes a visible gap where it starts, never a different past
# (vgtool/hsrec_rebuild.c, docs/record.md "Not supported").
#   - A page mapped MAP_SHARED that a child writes into (no syscall of
#     the parent brings the bytes in): `record` warns that the rebuild
#     will stop at that mmap (at its syscall instruction's address, which
#     the light run's own trace has), and the rebuild stops there and
#     says why; the same program with MAP_PRIVATE rebuilds whole, fork and
#     all, and its end shows what it printed.
#   - io_uring (rings the kernel writes into): the rebuild stops at
#     io_uring_setup where a ring was made; where the kernel or Valgrind
#     refused it, the run rebuilds whole.
. "$(dirname "$0")/lib.sh"
hindsight_only "the light recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

prog=$(build_prog sharedmem -no-pie) || finish
light shared "$prog" shared
expect_eq "shared: exit status" "$(cat shared.rc)" 0
expect_re shared.out "^read [0-9]*[13579]\$"
show shared.err
at=$(sed -n 's/.*warning: the program maps memory writable and shared (MAP_SHARED), which another process may write (the syscall at 0x\([0-9a-f]*\)): the rebuild of its history will stop there.*/\1/p' shared.err)
[ -n "$at" ] || fail "shared: record did not warn that the rebuild stops at the mmap"
# The light run's own trace (--vg-verify): it ran an instruction there,
# and the one after it 2 bytes on (a syscall, 0f 05, returns there).
awk -v a="$at" -v b="$(printf '%x' $((0x$at + 2)))" '$2 == a { s = 1; next } s && $2 == b { f = 1 } { s = 0 } END { exit !f }' \
    "$T_DIR/shared.ver" || fail "shared: the light run did not make a syscall at 0x$at"
expect_re shared.err "the program maps memory writable and shared \\(MAP_SHARED\\): what other processes write into it is not in the input log"
expect_re shared.err "^hindsight: [0-9]+ instructions, 1 thread, 1 gap"

light private "$prog" private
expect_eq "private: exit status" "$(cat private.rc)" 0
expect private.out "read 0"
expect_re private.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
expect_not private.err "warning"
# The whole run, up to its exit: the end of the history is in _exit's
# syscall of the parent, as natively.
timeout 120 "$HINDSIGHT" replay "$T_DIR/private" --batch -ex 'goto end' -ex 'bt 1' \
    >private.end 2>&1
expect_re private.end "^#0 .*exit"

light uring "$prog" uring
expect_eq "uring: exit status" "$(cat uring.rc)" 0
show uring.out uring.err
if grep -q "made a ring" uring.out; then
    expect_re uring.err "the program sets up io_uring: what the kernel writes into its rings is not in the input log"
    expect_re uring.err "warning: the program sets up io_uring, whose rings the kernel writes \\(the syscall at 0x[0-9a-f]+\\): the rebuild of its history will stop there"
else
    expect_re uring.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
fi
finish
