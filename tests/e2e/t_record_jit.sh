#!/usr/bin/env bash
# t_record_jit: code a program makes itself (a JIT's), kept by the Valgrind
# recorders page by page as it runs (stub/recorders/stub_rec_code.c), so
# that its history decodes whole (tests/programs/jitcode.c: a loop in
# anonymous memory, other code written over it, an instruction across two
# such pages, W^X by mprotect, a page unmapped and mapped again).
#   - The light recording's history, rebuilt, is the light run's own trace
#     of every instruction it started (read apart from the rebuild), address
#     for address, with no gap: before, it ended in a gap at the first such
#     instruction ("image-missing"), and the light run counted the entry
#     of a superblock whose code had changed where the rebuild did not (the
#     rebuild diverged at the next syscall).
#   - The full recorder's history is the same, and so is the software
#     recorder's (ptrace) against the instructions it stepped.
#   - Each version of the code decodes as the bytes that ran: the
#     instruction the history shows at each place the program wrote code,
#     each time the code there changed, is the one GDB's x/i shows there in
#     the replay at that position (the program's memory, from the state
#     log: another source than the kept code).
. "$(dirname "$0")/lib.sh"
hindsight_only "the Valgrind recorders"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

prog=$(build_prog jitcode -no-pie) || finish
"$prog" page || fail "jitcode page"
light jit "$prog"
expect_eq "jit: exit status" "$(cat jit.rc)" 0
expect_re jit.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
expect_not jit.err "instructions where trace.json claims"
"$HINDSIGHT" history "$T_DIR/jit" 1,100000000 >jit.hist.raw 2>jit.hist.err
for w in image-missing damaged "no memory mapped"; do expect_not jit.hist.err "$w"; done
hist_ips <jit.hist.raw >jit.hist
tid=$(first_tid jit.ver)
awk -v t="$tid" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' jit.ver >jit.ips
[ -s jit.ips ] && cmp -s jit.ips jit.hist ||
    fail "jit: the history differs from the light run's ($(wc -l <jit.hist) / $(wc -l <jit.ips))"

timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/jit.full" -- "$prog" \
    >jit.full.out 2>jit.full.err
expect_re jit.full.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
"$HINDSIGHT" history "$T_DIR/jit.full" 1,100000000 2>/dev/null | hist_ips >jit.full.hist
cmp -s jit.hist jit.full.hist ||
    fail "jit: the full recorder's history differs ($(wc -l <jit.full.hist) / $(wc -l <jit.hist))"

# versions NAME: at every place the program wrote code to (it printed
# each), each time what NAME's history shows there changes: the history's
# instruction and GDB's x/i at that position, in the replay, and at the
# position after it (an instruction of the same code, found by the replay's
# own walk of it: code of the same length at the same place, of another
# version, must not be taken for it).
versions()
{
    local name=$1 a n ex=()

    "$HINDSIGHT" history "$T_DIR/$name" 1,100000000 >"$name.hist.raw" 2>/dev/null
    : >"$name.points"
    for a in $(sed -n 's/^at [a-z0-9]* 0x0*\([0-9a-f]*\):.*/\1/p' "$name.out" | sort -u); do
        awk -v a="$a" '{ x = $2; sub(/:$/, "", x); sub(/^0x0*/, "", x) }
            x == a { $1 = $1; t = $0; sub(/^[0-9]+ [^ ]+ /, "", t); if (t != last) print $1, $1 + 1; last = t }' \
            "$name.hist.raw" | tr ' ' '\n' >>"$name.points"
    done
    [ "$(wc -l <"$name.points")" -ge 12 ] ||
        fail "$name: fewer versions of the code in the history than written ($(wc -l <"$name.points"))"
    for n in $(cat "$name.points"); do
        ex+=(-ex "goto $n" -ex 'x/i $pc')
    done
    timeout 120 "$HINDSIGHT" replay "$T_DIR/$name" --batch "${ex[@]}" >"$name.gdb" 2>"$name.gdb.err"
    sed -n 's/^=> 0x0*\([0-9a-f]*\):[[:space:]]*\(.*\)$/\1 \2/p' "$name.gdb" | tr -s ' \t' ' ' \
        >"$name.gdb.insns"
    for n in $(cat "$name.points"); do
        "$HINDSIGHT" history "$T_DIR/$name" "$n,$n" 2>/dev/null |
            awk '{ x = $2; sub(/:$/, "", x); sub(/^0x0*/, "", x); $1 = ""; $2 = ""; sub(/^ +/, ""); print x, $0 }'
    done | tr -s ' \t' ' ' >"$name.hist.insns"
    [ -s "$name.hist.insns" ] && cmp -s "$name.hist.insns" "$name.gdb.insns" ||
        { fail "$name: the history's instructions differ from GDB's x/i in the replay"
          diff "$name.hist.insns" "$name.gdb.insns" | head; }
    grep -q "lea (%rdi,%rdi,2),%eax" "$name.hist.insns" && grep -q "xor %eax,%eax" "$name.hist.insns" ||
        fail "$name: code written over other code does not show both versions"
}
versions jit

# The software recorder (ptrace, single steps) keeps the same code as it
# steps it, reading it each time (never from its cache of decoded
# instructions: it may have been written over): its history is every
# instruction it stepped (--ip-log), and each version decodes as above.
timeout 120 "$HINDSIGHT" record --record=sw --ip-log "$T_DIR/sw.ips" -o "$T_DIR/sw" -- "$prog" \
    >sw.out 2>sw.err
expect_re sw.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
"$HINDSIGHT" history "$T_DIR/sw" 1,100000000 2>sw.hist.err | hist_ips >sw.hist
for w in image-missing damaged "no memory mapped"; do expect_not sw.hist.err "$w"; done
awk '$1 != "psb" { print $2 }' sw.ips | uniq >sw.stepped
[ -s sw.stepped ] && cmp -s sw.stepped sw.hist ||
    fail "sw: the history differs from the instructions stepped ($(wc -l <sw.hist) / $(wc -l <sw.stepped))"
versions sw
finish
