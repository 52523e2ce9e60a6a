#!/usr/bin/env bash
# t_gdb_replay_globals: GDB knows the types of the main program's globals
# while it stands in a shared library with debug info, over serve --replay
# as over the live serve (and gdbserver). globals.c keeps g_sum (1 + ... + N)
# and g_point ({N, -N}) and calls lib_visit in libglobals_lib.so (built with
# -g). Stopped there, `ptype g_sum` must say `type = long`, not "'g_sum' has
# unknown type": GDB 13 looks a global up only in the namespace (lmid) of the
# library it stands in, and the main program is in the one elf_locate_base
# finds, so the replay target's library list must put its libraries there.
# The same commands at the same breakpoint print the same lines live (the
# program recorded while served, or gdbserver) and from a recording of it.
. "$(dirname "$0")/lib.sh"

lib=$(build_lib globals_lib) || finish
prog=$(build_prog globals -Wl,--no-as-needed "$lib") || finish
N=$(rand_int 5 60)
SUM=$((N * (N + 1) / 2))
globals=(-ex 'echo ==globals\n' -ex 'ptype g_sum' -ex 'p g_sum' -ex 'ptype g_point'
    -ex 'p g_point' -ex 'whatis lib_calls' -ex 'echo ==end\n')

# section FILE NAME: the transcript between ==NAME and the next ==.
section() { sed -n "/^==$2\$/,/^==/p" "$1"; }

# check_globals FILE: the globals' types and values, exactly.
check_globals()
{
    local s
    s=$(section "$1" globals)
    grep -qx 'type = long' <<<"$s" || fail "$(basename "$1"): ptype g_sum is not 'type = long'"
    grep -qx "\\\$1 = $SUM" <<<"$s" || fail "$(basename "$1"): g_sum is not $SUM"
    grep -qx 'type = struct point {' <<<"$s" || fail "$(basename "$1"): ptype g_point"
    grep -qx "\\\$2 = {x = $N, y = -$N}" <<<"$s" || fail "$(basename "$1"): g_point is not {$N, -$N}"
    grep -qx 'type = int' <<<"$s" || fail "$(basename "$1"): whatis lib_calls"
    expect_not "$1" "unknown type"
    expect_not "$1" "no debug info"
}

server_start "$prog" "$N" || finish
live=$T_DIR/live.out
gdb_run "$live" -ex 'break lib_visit' -ex 'continue' "${globals[@]}" -ex 'kill'
show "$live"
expect_re "$live" "^Breakpoint 1, lib_visit \(n=$N\) at globals_lib\.c:[0-9]+"
check_globals "$live"

is_gdbserver && finish

rec=$T_DIR/rec
"$HINDSIGHT" record --record=sw -o "$rec" -- "$prog" "$N" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "globals: sum=$SUM visit=$((2 * N))"
server_start --replay "$rec" || finish
replay=$T_DIR/replay.out
gdb_run "$replay" -ex 'echo ==at_end\n' -ex 'ptype g_sum' -ex 'ptype g_point' \
    -ex 'break lib_visit' -ex 'reverse-continue' "${globals[@]}"
show "$replay"
# At the end of history (in _exit: libc's, with its debug info when
# libc6-dbg is installed) as at the breakpoint.
section "$replay" at_end | grep -qx 'type = long' || fail "at the end: ptype g_sum"
expect_re "$replay" "^Breakpoint 1, lib_visit \(n=$N\) at globals_lib\.c:[0-9]+"
check_globals "$replay"
expect_eq "the replay's answers against the live ones" \
    "$(section "$replay" globals)" "$(section "$live" globals)"
finish
