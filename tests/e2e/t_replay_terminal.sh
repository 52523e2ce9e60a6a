#!/usr/bin/env bash
# t_replay_terminal: `hindsight replay` as a person uses it, in a terminal
# (tmux: send-keys / capture-pane): Tab completes a command, Up recalls the
# last one, a breakpoint is found going backwards and a past register holds
# the argument the program really passed. Also the front end on a real Intel
# PT recording from shared/ptdata (LLDB's test bundle, Broadwell).
#
# Ctrl-C, on a history of 1.65 billion instructions (a PT stream written
# here for a loop of eleven instructions run 150 million times, imported
# with `hindsight import --raw`): at the prompt it prints GDB's "Quit" and
# clears the line; a `continue` to a breakpoint on the one instruction
# inside the loop that never runs (so every iteration's block is looked at
# instruction by instruction: seconds of scanning) is still running 3 s
# later, and stops at once with "Program stopped." at an instruction of
# the loop; continuing from there stops in the next iteration; `stepi N`
# stops the same way; building the call structure (`calls`) stops with
# "Quit", also when Tab completion builds it; the prompt comes back each
# time. In --batch, SIGINT stops the running command and the next one runs,
# as in `gdb -batch`.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight's own front end"
command -v tmux >/dev/null 2>&1 || skip "no tmux"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog basic) || finish
A=$(rand_int 2 50)
B=$(rand_int 2 50)
"$HINDSIGHT" record -o "$T_DIR/rec" -- "$prog" "$A" "$B" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $T_DIR/rec"

sock=hs-e2e-$$
cleanup_tmux() { tmux -L "$sock" kill-server >/dev/null 2>&1; }
trap 'cleanup_tmux' RETURN
trap 'cleanup_tmux; e2e_cleanup' EXIT
tmux -L "$sock" new-session -d -x 180 -y 60 "$HINDSIGHT replay $T_DIR/rec" ||
    { fail "tmux did not start"; finish; }
screen() { tmux -L "$sock" capture-pane -p -S -200 2>/dev/null; }
# wait_for TEXT [COUNT [SECONDS]]: until the screen shows TEXT on COUNT
# lines (default 1), for 10 s at most unless SECONDS.
wait_for() {
    local i n=${2:-1} limit=$((${3:-10} * 10))
    for ((i = 0; i < limit; i++)); do
        [ "$(screen | grep -cF -- "$1")" -ge "$n" ] && return 0
        sleep 0.1
    done
    fail "the terminal never showed: $1"
    screen >"$T_DIR/screen.txt"
    show "$T_DIR/screen.txt"
    return 1
}
keys() { tmux -L "$sock" send-keys "$@"; }

wait_for "(hindsight)"
keys 'break basic_add' Enter
wait_for "Breakpoint 1 at"
keys 'reverse-cont' Tab Enter                      # completes to reverse-continue
wait_for "Breakpoint 1, basic_add"
keys 'print $rdi' Enter
wait_for '$1 = '
keys Up Enter                                      # the same command again
wait_for '$2 = '
screen >"$T_DIR/screen.txt"
keys 'quit' Enter
show "$T_DIR/screen.txt"
expect "$T_DIR/screen.txt" "(hindsight) reverse-continue"
expect_re "$T_DIR/screen.txt" '^\$1 = '"$A"'$'
expect_re "$T_DIR/screen.txt" '^\$2 = '"$A"'$'
cleanup_tmux

# A real Intel PT recording: its 21 instructions, and stepping back from the
# end lands on its last one.
LLDB=$SHARED_DIR/ptdata/lldb/intelpt-trace
if [ -r "$LLDB/trace.json" ]; then
    last=$("$HINDSIGHT" history "$LLDB" --json | tail -1 | sed -n 's/.*"addr":"0x\([0-9a-f]*\)".*/\1/p')
    "$HINDSIGHT" replay --batch -ex 'info record' -ex 'reverse-stepi' -ex 'info registers rip' \
        "$LLDB" >"$T_DIR/lldb.txt" 2>&1 || fail "hindsight replay on the LLDB bundle"
    show "$T_DIR/lldb.txt"
    expect "$T_DIR/lldb.txt" "instructions: 21"
    expect_re "$T_DIR/lldb.txt" "^rip +0x0*$last +0x0*$last\$"
fi

# ---- Ctrl-C ----------------------------------------------------------------
if ! command -v python3 >/dev/null 2>&1; then
    echo "no python3 to write the long trace: Ctrl-C not tested"
    finish
fi
cat >"$T_DIR/spin.c" <<'CEOF'
#include <stdio.h>
#include <stdlib.h>
long spin(long n);
/* n iterations of eleven instructions; the jmp skips one, never run. */
__asm__(".text\n.globl spin\n.type spin,@function\nspin:\n"
	"\txor %eax,%eax\n\tmov %rdi,%rcx\n"
	"0:\n\tadd $1,%rax\n\tadd $2,%rax\n\tadd $3,%rax\n\tadd $4,%rax\n\tjmp 1f\n"
	"\tadd $100,%rax\n"
	"1:\n\tadd $5,%rax\n\tadd $6,%rax\n\tadd $7,%rax\n\tadd $8,%rax\n"
	"\tdec %rcx\n\tjnz 0b\n\tret\n.size spin,.-spin\n");
int main(int argc, char **argv)
{
	printf("%ld\n", spin(argc > 1 ? atol(argv[1]) : 10));
	return 0;
}
CEOF
cc -O1 -g -no-pie -o "$T_DIR/spin" "$T_DIR/spin.c" || { fail "cc spin.c"; finish; }
objdump -d "$T_DIR/spin" | awk '/<spin>:/,/ret/' >"$T_DIR/spin.dis"
addr_of() { awk -F: -v re="$1" '$0 ~ re {gsub(/ /, "", $1); print $1}' "$T_DIR/spin.dis"; }
spin=$(sed -n 's/^0*\([0-9a-f]*\) <spin>:$/\1/p' "$T_DIR/spin.dis")
top=$(addr_of 'add +[$]0x1,%rax')
never=$(addr_of 'add +[$]0x64,%rax')
last=$(addr_of 'ret')
[ -n "$spin" ] && [ -n "$top" ] && [ -n "$never" ] && [ -n "$last" ] ||
    { show "$T_DIR/spin.dis"; fail "no loop in spin"; finish; }
ITER=150000000
SIZE=$((2 + 11 * ITER + 1))
# The PT stream of spin(ITER) as a CPU writes it: PSB+, TIP.PGE at spin,
# six taken branches per TNT-8 byte with a PSB+ (FUP at the loop) every
# 4 KiB of them, the last branch not taken, TIP.PGD at the ret.
python3 - "$T_DIR/spin.pt" "0x$spin" "0x$top" "$ITER" <<'PYEOF' || { fail "writing spin.pt"; finish; }
import struct, sys
out, spin, top, n = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16), int(sys.argv[4])
psb, mode, psbend = bytes([0x02, 0x82] * 8), bytes([0x99, 0x01]), bytes([0x02, 0x23])
def ip(header, addr):
    return bytes([header | 0x60]) + struct.pack('<Q', addr)[:6]
per, taken = 4096, n - 1
with open(out, 'wb') as f:
    f.write(psb + mode + psbend + ip(0x11, spin))
    full = taken // 6
    while full >= per:
        f.write(b'\xfe' * per + psb + mode + ip(0x1d, top) + psbend)
        full -= per
    k = taken % 6
    f.write(b'\xfe' * full + bytes([((1 << (k + 1)) | ((1 << k) - 1) << 1) << 1, 0x01]))
PYEOF
timeout 120 "$HINDSIGHT" import -o "$T_DIR/big" --raw "$T_DIR/spin.pt" --cpu 6/94/3 \
    --elf "$T_DIR/spin" >"$T_DIR/import.out" 2>&1 ||
    { show "$T_DIR/import.out"; fail "hindsight import"; finish; }
rm -f "$T_DIR/spin.pt"

position() { screen | sed -n 's/.* at position \([0-9]*\) (current)$/\1/p' | tail -1; }
now() { date +%s%N; }
cleanup_tmux
tmux -L "$sock" new-session -d -x 180 -y 60 "$HINDSIGHT replay $T_DIR/big" ||
    { fail "tmux did not start"; finish; }
wait_for "(hindsight)" 1 120 || finish               # indexing the history
keys 'print 12345'
sleep 0.3
keys C-c
wait_for "(hindsight) print 12345Quit" || finish
keys 'info record' Enter                             # on a new, empty line
wait_for "instructions: $SIZE" || finish
keys 'break sp' Tab                                  # function names: the call structure
sleep 1
keys C-c
wait_for "(hindsight) break spQuit" || finish
keys 'goto begin' Enter
wait_for "#0  spin ()" || finish
keys "break *0x$never" Enter
wait_for "Breakpoint 1 at 0x$never" || finish
keys 'continue' Enter
wait_for "Continuing." || finish
sleep 3
t0=$(now)
keys C-c
wait_for "Program stopped." || finish
t1=$(now)
keys 'info record' Enter
wait_for "(current)" 2 || finish
p1=$(position)
keys 'info registers rip' Enter
wait_for "rip   " || finish
keys "break *0x$top" Enter
wait_for "Breakpoint 2 at" || finish
keys 'continue' Enter
wait_for "Breakpoint 2, " || finish
keys 'info record' Enter
wait_for "(current)" 3 || finish
p2=$(position)
keys 'stepi 4000000000' Enter
sleep 1
keys C-c
wait_for "Program stopped." 2 || finish
keys 'info record' Enter
wait_for "(current)" 4 || finish
p3=$(position)
keys 'calls' Enter                                   # builds the call structure: minutes
sleep 1
keys C-c
wait_for "Quit" 3 || finish
keys 'info breakpoints' Enter
wait_for "breakpoint already hit 1 time" || finish
screen >"$T_DIR/ctrlc.txt"
keys 'quit' Enter
show "$T_DIR/ctrlc.txt"
ms=$(((t1 - t0) / 1000000))
[ "$ms" -lt 5000 ] || fail "continue took $ms ms to stop after Ctrl-C"
expect_not "$T_DIR/ctrlc.txt" "No more reverse-execution history"
expect_not "$T_DIR/ctrlc.txt" "Breakpoint 1, "
# Stopped at an instruction of the loop, its address shown (no lines here).
expect_re "$T_DIR/ctrlc.txt" '^0x0*[0-9a-f]+ in spin \(\)$'
rip=$(sed -n 's/^rip  *0x\([0-9a-f]*\) .*/\1/p' "$T_DIR/ctrlc.txt" | head -1)
[ -n "$rip" ] && [ $((0x$rip)) -ge $((0x$top)) ] && [ $((0x$rip)) -lt $((0x$last)) ] ||
    fail "rip 0x$rip after Ctrl-C is not in the loop (0x$top .. 0x$last)"
[ -n "$p1" ] && [ "$p1" -gt 2 ] && [ "$p1" -le "$SIZE" ] || fail "position after Ctrl-C: '$p1'"
[ -n "$p2" ] && [ "$p2" -gt "$p1" ] && [ "$p2" -le $((p1 + 11)) ] ||
    fail "continue from $p1 did not stop in the next iteration: $p2"
[ -n "$p3" ] && [ "$p3" -gt $((p2 + 1000)) ] && [ "$p3" -lt "$SIZE" ] ||
    fail "stepi N stopped by Ctrl-C at '$p3' (from $p2)"
expect_re "$T_DIR/ctrlc.txt" '^(\^C)?Quit$'
cleanup_tmux

# --batch: SIGINT stops the running command, the next one runs, status 0.
"$HINDSIGHT" replay "$T_DIR/big" --batch -ex 'goto begin' -ex "break *0x$never" -ex continue \
    -ex 'info record' >"$T_DIR/batch.out" 2>"$T_DIR/batch.err" &
pid=$!
track_pid "$pid"
for ((i = 0; i < 1200; i++)); do
    grep -q "Continuing." "$T_DIR/batch.out" && break
    sleep 0.1
done
sleep 1
kill -INT "$pid"
wait "$pid"
expect_eq "exit status of --batch after SIGINT" "$?" 0
show "$T_DIR/batch.out" "$T_DIR/batch.err"
expect "$T_DIR/batch.out" "Program stopped."
pb=$(sed -n 's/.* at position \([0-9]*\) (current)$/\1/p' "$T_DIR/batch.out")
[ -n "$pb" ] && [ "$pb" -gt 2 ] && [ "$pb" -le "$SIZE" ] ||
    fail "position after SIGINT in --batch: '$pb'"
finish
