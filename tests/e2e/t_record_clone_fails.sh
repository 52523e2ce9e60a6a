#!/usr/bin/env bash
# t_record_clone_fails: a clone the kernel refuses (EINVAL). Valgrind lets
# go of the thread it was making, which never ran; the tool named it by the
# running thread's id as it ended, so the history lost its one real thread
# ("the tool ran a superblock in no thread", a review found it). Recorded
# whole (--record=valgrind) and light then rebuilt: one thread, no gap,
# the same history instruction for instruction, the program's output its
# own.
. "$(dirname "$0")/lib.sh"
hindsight_only "the Valgrind recorders"
command -v valgrind >/dev/null || skip "valgrind is not installed"
prog=$(build_prog clonefail) || finish
N=$(rand_int 100 5000)
cd "$T_DIR" || finish
"$HINDSIGHT" record --record=valgrind -o "$T_DIR/full" -- "$prog" "$N" >full.out 2>full.err
expect full.err "1 thread, 0 gaps,"
"$HINDSIGHT" record --record=light -o "$T_DIR/light" -- "$prog" "$N" >light.out 2>light.err
"$HINDSIGHT" rebuild "$T_DIR/light" >/dev/null 2>rebuild.err
cat full.err rebuild.err
expect rebuild.err "1 thread, 0 gaps,"
expect_not rebuild.err "stopped"
for f in full.out light.out; do
    expect "$f" "clonefail: r=-1 errno=22 sum=$((N * (N - 1) / 2))"
done
"$HINDSIGHT" history "$T_DIR/full" 1,100000000 2>/dev/null | hist_ips >full.ips
"$HINDSIGHT" history "$T_DIR/light" 1,100000000 2>/dev/null | hist_ips >light.ips
[ "$(wc -l <full.ips)" -gt 10000 ] || fail "the full recording's history has $(wc -l <full.ips) instructions"
cmp -s full.ips light.ips || fail "the rebuilt history is not the full recorder's"
finish
