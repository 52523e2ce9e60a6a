#!/usr/bin/env bash
# t_lldb_unavailable: a register the recording does not know is shown as
# unavailable by both clients. GDB reads `xx` bytes as <unavailable>; LLDB 14
# decodes them as 0xcc bytes (`xmm0 = {0xcc 0xcc ...}`, a double made of
# them), so LLDB gets lldb-server's answer for a register it cannot read:
# E15 to `p` (and to a `g` holding one).
# fpreg (-O2) faults in scale(x, NULL) with x in a vector register:
#  - a Valgrind recording knows no x87 / SSE / AVX register: GDB shows
#    x=<unavailable>, LLDB `x = <register xmmN is not available>`, xmm0 and
#    st0 `error: unavailable`, no 0xcc anywhere; rax is the same number in
#    both, and LLDB reads x only where the recording knows it;
#  - a software recording knows them: both show x as the command line gave it;
#  - LLDB's own Intel PT bundle (no state log): rip alone, as GDB.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
command -v lldb >/dev/null || skip "no lldb"
cd "$T_DIR" || finish

prog=$(build_prog fpreg -O2) || finish
x="$(rand_int 2 99).5"

# gdb_lldb NAME REC PROG: GDB's and LLDB's transcripts of REC at its end.
gdb_lldb()
{
    local name=$1 rec=$2 p=$3
    server_start --replay "$rec" || return
    gdb_run "$name.gdb" -ex 'p x' -ex 'info registers xmm0' -ex 'p $st0' -ex 'p/x $rax' "$p"
    kill "$SERVER_PID" 2>/dev/null
    wait_gone "$SERVER_PID" 10
    server_start --replay "$rec" || return
    # LLDB's batch mode stops at the first command that fails: p $xmm0 last.
    lldb_run "$name.lldb" "$p" -o 'frame variable x' -o 'register read' \
        -o 'register read xmm0' -o 'register read st0' -o 'register read rax' -o 'p $rax' \
        -o 'p $xmm0'
    kill "$SERVER_PID" 2>/dev/null
    wait_gone "$SERVER_PID" 10
    show "$name.gdb" "$name.lldb"
    expect_not "$name.lldb" "PLEASE submit a bug report"
    expect_not "$name.lldb" "0xcc 0xcc"
}

if command -v valgrind >/dev/null; then
    timeout 120 "$HINDSIGHT" record --record=valgrind -o vg -- "$prog" "$x" >vg.out 2>&1
    gdb_lldb vg vg "$prog"
    expect_re vg.gdb '^\$1 = <unavailable>$'
    expect_re vg.gdb '^xmm0 +\{v8_bfloat16 = \{<unavailable>|^xmm0 +\{v4_float = \{<unavailable>'
    expect_re vg.gdb '^\$2 = <unavailable>$'
    expect_re vg.lldb '^\(double\) x = <register xmm[0-9]+ is not available>$'
    expect_re vg.lldb '^[0-9]+ registers were unavailable\.$'
    expect_re vg.lldb '^xmm0 += error: unavailable$'
    expect_re vg.lldb '^st0 += error: unavailable$'
    expect vg.lldb "couldn't read the value of register xmm0"
    rax=$(sed -n 's/^\$3 = \(0x[0-9a-f]*\)$/\1/p' vg.gdb)
    [ -n "$rax" ] || fail "GDB printed no rax"
    expect_re vg.lldb "^ +rax = 0x0*${rax#0x}\$"
    expect_re vg.lldb "^\(unsigned long\) \\\$0 = $((rax))\$"
fi

timeout 120 "$HINDSIGHT" record --record=sw -o sw -- "$prog" "$x" >sw.out 2>&1
gdb_lldb sw sw "$prog"
expect_eq "x in GDB, software recording" "$(sed -n 's/^\$1 = //p' sw.gdb)" "$x"
expect_re sw.lldb "^\(double\) x = $x\$"
expect_re sw.lldb '^ +xmm0 = \{0x'
expect_not sw.lldb "registers were unavailable"

# LLDB's own bundle: no state log, every register but rip unknown.
BUNDLE=$SHARED_DIR/ptdata/lldb/intelpt-trace
if [ -r "$BUNDLE/trace.json" ]; then
    server_start --replay "$BUNDLE" || finish
    gdb_run pt.gdb -ex 'p $rax' -ex 'p/x $rip' "$BUNDLE/a.out"
    kill "$SERVER_PID" 2>/dev/null
    wait_gone "$SERVER_PID" 10
    server_start --replay "$BUNDLE" || finish
    lldb_run pt.lldb "$BUNDLE/a.out" -o 'register read' -o 'register read rbp'
    kill "$SERVER_PID" 2>/dev/null
    wait_gone "$SERVER_PID" 10
    show pt.gdb pt.lldb
    expect_re pt.gdb '^\$1 = <unavailable>$'
    rip=$(sed -n 's/^\$2 = \(0x[0-9a-f]*\)$/\1/p' pt.gdb)
    [ -n "$rip" ] || fail "GDB printed no rip"
    expect_re pt.lldb "^ +rip = 0x0*${rip#0x}\$"
    expect_re pt.lldb '^[0-9]+ registers were unavailable\.$'
    expect_re pt.lldb '^rbp += error: unavailable$'
    expect_not pt.lldb "0xcccccccc"
fi
finish
