#!/usr/bin/env bash
# t_gdb_reverse_end: a program recorded by `hindsight serve` does not vanish
# at its end (the pattern of GDB's gdb.reverse/sigall-reverse.exp). sigall
# installs handlers for six signals, raises each, and exits with a status
# drawn here. GDB, with breakpoints on every gen_X and handle_X, continues
# to the end: the program stops before exit_group, still there ("Program
# stopped.", at _exit's syscall instruction), as GDB's own `record full`
# stops on the same program run natively; reverse-continue then goes back
# through every handler to the start of history, each stop where the
# forward stop was (and where `record full`'s reverse-continue stops); the
# forward replay stops at the end again, and the continue after that stop
# exits with the status. (t_serve_end_threads: exit() from another thread,
# detach at the end, LLDB.)
. "$(dirname "$0")/lib.sh"
hindsight_only "a recorded program's end"

prog=$(build_prog sigall) || finish
N=$(rand_int 2 60)
SIGS="HUP ABRT USR1 USR2 ALRM TERM"
# Native `record full` of GDB 13 cannot record AVX-512 or AVX2 (VEX/EVEX)
# instructions: libc's string functions are asked for their SSE2 versions,
# in both runs, so that both run the same code.
export GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX512VL,-AVX512BW,-AVX2,-AVX,-AVX_Fast_Unaligned_Load

bps=()
for s in $SIGS; do bps+=(-ex "handle SIG$s stop print" -ex "break gen_$s" -ex "break handle_$s"); done
fwd=()
for s in $SIGS; do for k in 1 2 3; do fwd+=(-ex 'echo ==stop\n' -ex 'continue' -ex 'info symbol $pc'); done; done
rev=()
for s in $SIGS; do for k in 1 2 3; do rev+=(-ex 'echo ==stop\n' -ex 'reverse-continue' -ex 'info symbol $pc'); done; done
rev+=(-ex 'echo ==stop\n' -ex 'reverse-continue' -ex 'info symbol $pc')

# stops FILE: one line per stop: what stopped it, and where (symbol + offset).
stops()
{
    awk '
        /^==stop$/ { if (n++) print what " @ " where; what = "?"; where = "?"; next }
        /^==/ { if (n) print what " @ " where; n = 0; next }
        /^Breakpoint [0-9]+, / { what = "break " $3; next }
        /^Program received signal / { what = "signal " $4; sub(/,$/, "", what); next }
        /^Program stopped\.$/ { what = "stopped"; next }
        /^No more reverse-execution history\.$/ { what = "no-history"; next }
        / in section / { where = $0; sub(/ in section.*/, "", where); next }
        END { if (n) print what " @ " where }
    ' "$1"
}

# 1. GDB's own record full, natively: the reference.
nat=$T_DIR/native.out
timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx -iex 'set debuginfod enabled off' \
    -ex 'set confirm off' -ex 'set pagination off' -ex 'set width 0' \
    -ex 'break main' -ex run -ex 'record full' "${bps[@]}" \
    -ex 'echo ==fwd\n' "${fwd[@]}" -ex 'echo ==stop\n' -ex 'continue' -ex 'info symbol $pc' \
    -ex 'echo ==rev\n' "${rev[@]}" -ex 'echo ==done\n' \
    --args "$prog" "$N" </dev/null >"$nat" 2>&1
section() { sed -n "/^==$2\$/,/^==$3\$/p" "$1"; }
section "$nat" fwd rev | stops /dev/stdin >"$T_DIR/native.fwd"
section "$nat" rev done | stops /dev/stdin >"$T_DIR/native.rev"

# 2. hindsight serve, the same commands over the remote protocol.
server_start "$prog" "$N" || finish
out=$T_DIR/gdb.out
gdb_run "$out" -ex 'break main' -ex 'continue' "${bps[@]}" \
    -ex 'echo ==fwd\n' "${fwd[@]}" -ex 'echo ==stop\n' -ex 'continue' -ex 'info symbol $pc' \
    -ex 'echo ==rev\n' "${rev[@]}" \
    -ex 'echo ==again\n' -ex 'delete' -ex 'handle all nostop noprint' -ex 'continue' \
    -ex 'info symbol $pc' \
    -ex 'echo ==exit\n' -ex 'continue' -ex 'p $_exitcode' -ex 'echo ==done\n' "$prog"
section "$out" fwd rev | stops /dev/stdin >"$T_DIR/hs.fwd"
section "$out" rev again | stops /dev/stdin >"$T_DIR/hs.rev"
show "$nat" "$out" "$T_DIR/native.fwd" "$T_DIR/hs.fwd" "$T_DIR/native.rev" "$T_DIR/hs.rev"

# Forward: 18 stops then the end, every one as GDB's record full has it.
[ "$(grep -c '^break ' "$T_DIR/native.fwd")" = 12 ] || fail "native record full: not 12 breakpoint stops"
[ "$(grep -c '^signal ' "$T_DIR/native.fwd")" = 6 ] || fail "native record full: not 6 signal stops"
tail -1 "$T_DIR/native.fwd" | grep -qE '^stopped @ (__GI_)?_exit \+ [0-9]+$' ||
    fail "native record full did not stop in _exit"
cmp -s "$T_DIR/native.fwd" "$T_DIR/hs.fwd" || fail "forward stops differ from GDB's record full"
grep -q "^hindsight: the next instruction is syscall exit_group, which ends the program" "$out" ||
    fail "no reason given for the stop at the end"
section "$out" fwd rev | grep -q "exited" && fail "the program exited at its end"
# Reverse: every handler and gen_X back to the start, as record full has
# them. Record full also stops, going back, where each signal was delivered
# ("Program received signal"); hindsight's replay does not report signals
# (docs/serve.md), which sigall-reverse.exp accepts: its breakpoint stops
# are compared. Record full's history starts at main, where it was turned
# on; this one at ld.so's _start, the program's first instruction.
# On some machines GDB 13's own reverse execution fails at once on this
# kernel ("Couldn't write extended state status: Bad address": it cannot
# put the FPU state back); its forward stops, taken in reverse order, are
# the reference then (where it works the two are the same).
native_back=1
if grep -q "Couldn't write extended state status" "$nat"; then
    native_back=0
    echo "note: GDB's own record full cannot go back here; its forward stops, reversed, are the reference"
    grep '^break ' "$T_DIR/native.fwd" | tac >"$T_DIR/native.rev.cmp"
else
    grep '^break ' "$T_DIR/native.rev" >"$T_DIR/native.rev.cmp"
fi
head -n 12 "$T_DIR/hs.rev" >"$T_DIR/hs.rev.cmp"
[ "$(wc -l <"$T_DIR/native.rev.cmp")" = 12 ] || fail "native record full: not 12 breakpoint stops back"
cmp -s "$T_DIR/native.rev.cmp" "$T_DIR/hs.rev.cmp" || fail "reverse stops differ from GDB's record full"
sed -n 13,14p "$T_DIR/hs.rev" | tr '\n' '|' | grep -q '^break main @ main + [0-9]*|no-history @ _start|$' ||
    fail "reverse-continue did not go back through main to the start of history"
grep '^break ' "$T_DIR/hs.fwd" | tac >"$T_DIR/hs.fwd.bp"
grep '^break ' "$T_DIR/hs.rev" | head -n 12 >"$T_DIR/hs.rev.bp"
cmp -s "$T_DIR/hs.fwd.bp" "$T_DIR/hs.rev.bp" || fail "reverse breakpoint stops are not the forward ones"
[ "$native_back" = 0 ] || grep -q "^no-history @ main" "$T_DIR/native.rev" ||
    fail "native record full did not go back to main"
# Forward again: replayed to the end, stopped there again; then the exit.
end_at=$(tail -1 "$T_DIR/hs.fwd" | sed 's/^stopped @ //')
section "$out" again exit | grep -q "^Program stopped\.$" || fail "the replay did not stop at the end again"
section "$out" again exit | grep -qF "$end_at in section" || fail "the replay's end is not at $end_at"
section "$out" exit done | grep -qE "^\[Inferior 1 \(process $INFERIOR_PID\) exited with code 0*$(printf %o "$N")\]$" ||
    fail "the continue after the end's stop did not exit with code $N"
section "$out" exit done | grep -q "^\$[0-9]* = $N$" || fail "\$_exitcode is not $N"
expect "$T_DIR/server.out" "sigall: handled 6"
expect "$T_DIR/server.err" "Child exited with status $N"

finish
