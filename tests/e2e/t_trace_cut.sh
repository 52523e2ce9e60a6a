#!/usr/bin/env bash
# t_trace_cut: a recording whose trace was cut short (a recorder killed
# between two flushes, a copy cut off) is said damaged where its checksums
# find it. Read without them (a bundle written before checksums), it ends
# with an instruction whose successor the trace does not say (the cut
# falls inside a packet). `hindsight replay` shows rip there as
# <unavailable> and refuses $pc (it used to show a stale rip from the state
# log as the current one), while the other registers stay known; GDB
# connects to `serve --replay` (it used to refuse: "PC register is not
# available"), starting at the last position with a known pc: the address
# of the last instruction `hindsight history` lists. Every command warns
# that the trace decodes fewer instructions than trace.json claims; a
# missing state log is said too.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"

cd "$T_DIR" || finish
record_and_cut pt || finish

# Its checksums (docs/bundle.md, "Checksums") say where: the trace is read
# up to the start of the block the cut is in.
timeout 120 "$HINDSIGHT" history "$T_DIR/cut" >/dev/null 2>sums.err
show sums.err
expect_re sums.err "^hindsight: warning: trace threads/[0-9]+\\.pt is damaged at byte [0-9]+ \\(it ends inside a block its checksums cover: it was cut short\\)"
# The rest is about a trace that ends inside a packet: the copy is read
# without its checksums, as a bundle written before them is.
rm "$T_DIR"/cut/threads/*.sum
python3 - "$T_DIR/cut/trace.json" <<'EOF'
import json, sys
m = json.load(open(sys.argv[1]))
for t in m["hindsight"]["threads"]:
    t.pop("ptSums", None)
    t.pop("stateSums", None)
json.dump(m, open(sys.argv[1], "w"), indent=2)
EOF

# last_listed: "POS ADDR" of the last instruction hist.out lists (a decode
# error may follow it: the cut can fall inside a packet).
last_listed()
{
    grep -E $'^[0-9]+\t *(=> )?0x' hist.out | tail -1 |
        sed -n 's/^\([0-9]*\)\t *\(=> \)*0x0*\([0-9a-f]*\) .*/\1 \3/p'
}

# A cut that falls just after a packet which says where the thread goes
# next (the end of a syscall's flush: the thread resumes after the
# syscall) leaves the pc at the end known: it must then be the address the
# whole recording has at the next position. The cut moves back a byte at a
# time until it falls where the trace does not say, the case the rest of
# the test is about.
trace=$(ls "$T_DIR"/cut/threads/*.pt)
for ((try = 0; try < 32; try++)); do
    timeout 120 "$HINDSIGHT" history "$T_DIR/cut" >hist.out 2>hist.err
    expect_eq "history of the cut recording" "$?" 0
    last=$(last_listed)
    pos=${last%% *}
    addr=${last##* }
    [ -n "$pos" ] && [ -n "$addr" ] || { fail "no last instruction in the history"; finish; }
    timeout 120 "$HINDSIGHT" replay "$T_DIR/cut" --batch -ex 'info registers rip' >try.out 2>&1
    grep -qE '^rip +<unavailable>$' try.out && break
    next=$(timeout 120 "$HINDSIGHT" history "$T_DIR/rec" "$((pos + 1)),$((pos + 1))" 2>/dev/null |
        sed -n 's/^[0-9]*\t *\(=> \)*0x0*\([0-9a-f]*\) .*/\2/p' | head -1)
    echo "cut at $(stat -c %s "$trace") bytes: the pc after position $pos is known"
    expect_re try.out "^rip +0x0*$next "
    truncate -s -1 "$trace"
done
tail -2 hist.out

timeout 120 "$HINDSIGHT" replay "$T_DIR/cut" --batch -ex 'info registers rip rsp' -ex 'print $pc' \
    >end.out 2>end.err
show end.out end.err
expect_re end.out '^rip +<unavailable>$'
expect_re end.out '^rsp +0x[0-9a-f]+ '
expect end.err '$pc: not known here: the trace does not say where the thread went from its last instruction'

server_start --replay "$T_DIR/cut" || finish
show "$T_DIR/server.err"
expect "$T_DIR/server.err" "the pc at the end of its history is not known (a gap, or a trace cut short): it starts at position $pos, the last with a known pc"
gdb_run gdb.out -ex 'info registers rip' -ex 'monitor when' "$prog"
show gdb.out
expect_not gdb.out "PC register is not available"
expect_re gdb.out "^rip +0x0*$addr "
expect gdb.out "position $pos of"
# The recording claims to be complete, with a count of instructions its
# trace no longer decodes: every command says the recording is damaged
# (it ended early without a word), naming both counts.
claimed=$(sed -n 's/^hindsight: \([0-9]*\) instructions, .*/\1/p' rec.out rec.err | head -1)
# (Instructions only: a cut inside a packet ends the listing with a
# numbered decode error, which is no instruction.)
decoded=$(timeout 120 "$HINDSIGHT" history "$T_DIR/cut" 1,100000000 2>/dev/null |
    grep -cE $'^[0-9]+\t *(=> )?0x')
for f in hist.err end.err "$T_DIR/server.err"; do
    expect "$f" "hindsight: warning: thread "
    expect_re "$f" "its trace decodes $decoded instructions where trace.json claims $claimed: the recording is damaged"
done
"$HINDSIGHT" history "$T_DIR/rec" >whole.out 2>whole.err
expect_not whole.err "warning"

# A state log the manifest names that is gone: said (it was ignored), and
# the registers are unknown.
cp -r "$T_DIR/rec" "$T_DIR/nolog"
rm "$T_DIR"/nolog/threads/*.state
timeout 60 "$HINDSIGHT" replay "$T_DIR/nolog" --batch -ex 'print $rax' >nolog.out 2>nolog.err
show nolog.out nolog.err
expect_re nolog.err "^hindsight: warning: thread [0-9]+'s state log .*/nolog/threads/[0-9]+\\.state is missing: its registers and memory are unknown\$"
expect nolog.err 'no state log'
finish
