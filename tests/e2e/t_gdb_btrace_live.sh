#!/usr/bin/env bash
# t_gdb_btrace_live: GDB's `record btrace pt` and `record btrace bts` against
# a live program served (and recorded) by `hindsight serve`, enabled at the
# first instruction: at a breakpoint GDB's own decoder (pt) and the blocks
# hindsight hands over (bts) count exactly the instructions hindsight's
# recording holds (monitor when), GDB replays backwards with its own btrace
# (reverse-stepi), and the program runs on to its exit after `record stop`.
. "$(dirname "$0")/lib.sh"
hindsight_only "records while serving"

prog=$(build_prog basic) || finish
for fmt in pt bts; do
    A=$(rand_int 2 50)
    B=$(rand_int 2 50)
    server_start "$prog" "$A" "$B" || finish
    out=$T_DIR/gdb-$fmt.out
    gdb_run "$out" \
        -ex 'set record btrace bts buffer-size unlimited' -ex "record btrace $fmt" \
        -ex 'break basic_compute' -ex 'continue' \
        -ex 'echo ==info\n' -ex 'info record' -ex 'monitor when' \
        -ex 'echo ==back\n' -ex 'reverse-stepi' -ex 'info record' \
        -ex 'echo ==end\n' -ex 'record goto end' -ex 'record stop' "${TO_EXIT[@]}" \
        -ex 'echo ==done\n' "$prog"
    show "$out"
    section() { sed -n "/^==$1\$/,/^==/p" "$out"; }
    expect_re "$out" "^Breakpoint 1, basic_compute \(a=$A, b=$B\)"
    n_gdb=$(section info | sed -n 's/^Recorded \([0-9]*\) instructions in .*/\1/p')
    n_hs=$(section info | sed -n 's/^position [0-9]* of \([0-9]*\) in thread .*/\1/p')
    echo "$fmt: GDB counts ${n_gdb:-?}, hindsight holds ${n_hs:-?}"
    [ -n "$n_gdb" ] && [ "$n_gdb" = "$n_hs" ] && [ "$n_gdb" -gt 1000 ] ||
        fail "$fmt: GDB counts '${n_gdb}' instructions, hindsight holds '${n_hs}'"
    section back | grep -q "^Replay in progress.  At instruction $n_gdb\.\$" ||
        fail "$fmt: GDB's own replay is not at instruction $n_gdb after reverse-stepi"
    section end | grep -q "exited normally" || fail "$fmt: the program did not run to its exit"
    wait_gone "$SERVER_PID" 10 || fail "$fmt: the stub did not end after the program"
done

finish
