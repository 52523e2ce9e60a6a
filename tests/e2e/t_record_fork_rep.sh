#!/usr/bin/env bash
# t_record_fork_rep: where debug registers do not fire, the recorder runs a
# long rep string instruction to an int3 written after it; a fork by another
# thread (in a syscall meanwhile) copies that int3 into the child, which the
# recorder lets go. The child gets it taken out first: every child of
# tests/programs/forkrep.c exits normally under the recorder, as without it.
. "$(dirname "$0")/lib.sh"
hindsight_only "the software recorder"

prog=$(build_prog forkrep -O1 -pthread) || finish
cd "$T_DIR" || finish
"$prog" >plain.out 2>&1
expect_eq "exit status without the recorder" "$?" 0
# A full recorder (single steps, or Valgrind's full one where it is
# installed): the program spins on rep strings until its forks are done,
# for as long as they take, so a light recording of it is 30-200M
# instructions at 50 bytes of state each, minutes to rebuild.
rec=()
[ -x "$(dirname "$HINDSIGHT")/vgtool/hsrec-amd64-linux" ] && command -v valgrind >/dev/null &&
    rec=(--record=valgrind)
timeout 300 "$HINDSIGHT" record "${rec[@]}" -o "$T_DIR/rec" -- "$prog" >rec.out 2>rec.err
rc=$?
show rec.out rec.err
expect_eq "exit status under the recorder" "$rc" 0
expect rec.out "forkrep: 15 of 15 children exited normally"
expect_re rec.err "^hindsight: [0-9]+ instructions, 2 threads, 0 gaps"
finish
