#!/usr/bin/env bash
# t_state_cut: a state log cut short (what a recorder killed between two
# flushes, or a full disk, leaves) is never read as if it were whole. A
# software recording is copied and its state log truncated at a random
# point. `info record` counts the cut as a recorded gap and says up to
# which position the registers are known. There, every register and the
# stack are those of the intact recording; one position later the
# registers are <unavailable> in `hindsight replay` and in GDB over
# `serve --replay`, and memory at the end cannot be read (the intact
# recording reads it). The intact recording has no cut (its logs end with
# an end record).
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"

cd "$T_DIR" || finish
record_and_cut state || finish

replay() { timeout 120 "$HINDSIGHT" replay "$@"; }

replay "$T_DIR/rec" --batch -ex 'info record' -ex 'info registers rsp' >whole.out 2>whole.err
expect_eq "replay of the intact recording" "$?" 0
show whole.out whole.err
expect whole.out "gaps: 0 (decoded) + 0 (recorded)"
expect_not whole.out "cut short"
replay "$T_DIR/cut" --batch -ex 'info record' >info.out 2>info.err
show info.out info.err
expect info.out "gaps: 0 (decoded) + 1 (recorded)"
expect_re info.out "^    state log cut short \(no end record\): registers known up to position [0-9]+, memory up to time [0-9]+\$"
p=$(sed -n 's/.*registers known up to position \([0-9]*\),.*/\1/p' info.out)
total=$(sed -n 's/^instructions: //p' info.out)
# A cut inside the log's opening (the initial stack, 256 KiB at most, is
# written before the first instruction's registers) leaves no position
# known, rightly: position 0. The rest of the test needs one, so the
# intact log is cut again, later, 10% at a time (CUT_PCT=30 lands there).
for pct in 60 70 80 90; do
    [ "$p" = 0 ] || break
    rm -rf "$T_DIR/cut"
    cp -r "$T_DIR/rec" "$T_DIR/cut"
    file=$(ls "$T_DIR"/cut/threads/*.state)
    truncate -s $(($(stat -c %s "$file") * pct / 100)) "$file"
    echo "position 0 known: threads/*.state cut again, to $pct%"
    replay "$T_DIR/cut" --batch -ex 'info record' >info.out 2>info.err
    p=$(sed -n 's/.*registers known up to position \([0-9]*\),.*/\1/p' info.out)
done
[ -n "$p" ] && [ -n "$total" ] && [ "$p" -gt 1 ] && [ "$p" -le "$total" ] ||
    { fail "the cut position '$p' is not inside the history of '$total' instructions"; finish; }

# At the last known position both recordings agree on every register;
# the stack, where the cut one knows it, is the same (bytes first written
# after the cut were known only from the lost writes' old bytes).
# (What each says where it opens, at the end, differs: the cut one has no
# registers there, so no arguments: only what follows the mark counts.)
at=(-ex 'echo ==at\n' -ex "goto $p" -ex 'info registers')
replay "$T_DIR/rec" --batch "${at[@]}" 2>&1 | sed -n '/^==at$/,$p' >rec_p.out
replay "$T_DIR/cut" --batch "${at[@]}" 2>&1 | sed -n '/^==at$/,$p' >cut_p.out
show cut_p.out
expect_re cut_p.out '^rax +0x[0-9a-f]+ '
cmp -s rec_p.out cut_p.out ||
    { fail "registers at position $p differ from the intact recording"; diff rec_p.out cut_p.out | head; }
sp_p=$(sed -n 's/^rsp  *\(0x[0-9a-f]*\) .*/\1/p' cut_p.out)
for ((i = 0; i < 8; i++)); do
    a=$(printf '0x%x' $((sp_p + 8 * i)))
    replay "$T_DIR/cut" --batch -ex "goto $p" -ex "x/gx $a" 2>&1 | tail -1 >word.out
    grep -q 'Cannot access memory' word.out && continue
    replay "$T_DIR/rec" --batch -ex "goto $p" -ex "x/gx $a" 2>&1 | tail -1 >word_rec.out
    cmp -s word.out word_rec.out ||
        fail "the stack word at $a: $(cat word.out), the intact recording: $(cat word_rec.out)"
done

replay "$T_DIR/cut" --batch -ex "goto $((p + 1))" -ex 'info registers rax rsp rip' \
    -ex 'print $rsp' >next.out 2>next.err
show next.out next.err
expect_re next.out '^rax +<unavailable>$'
expect_re next.out '^rsp +<unavailable>$'
expect_re next.out '^rip +0x[0-9a-f]+ +0x[0-9a-f]+'
expect next.err "The state log was cut short before this position: only rip is known."
expect next.err '$rsp: not known here: the state log was cut short before this position'
expect_not next.out '$1 = '

# Memory at the end: the stack the intact recording shows is not known.
sp=$(sed -n 's/^rsp  *\(0x[0-9a-f]*\) .*/\1/p' whole.out)
replay "$T_DIR/rec" --batch -ex "x/2gx $sp" >mem_whole.out 2>&1
replay "$T_DIR/cut" --batch -ex "x/2gx $sp" >mem_cut.out 2>&1
show mem_whole.out mem_cut.out
expect_re mem_whole.out "^$sp:	0x[0-9a-f]{16}	0x[0-9a-f]{16}\$"
expect mem_cut.out "Cannot access memory at address $sp"

# GDB over serve --replay: the same registers are unavailable at the end,
# and known at position p.
server_start --replay "$T_DIR/cut" || finish
gdb_run gdb.out -ex 'info registers rax rsp' -ex "monitor goto $p" \
    -ex 'maintenance flush register-cache' -ex 'info registers rax rsp' "$prog"
show gdb.out
expect_re gdb.out '^rax +<unavailable>$'
rax_p=$(sed -n 's/^rax  *\(0x[0-9a-f]*\) .*/\1/p' rec_p.out)
expect_re gdb.out "^rax +$rax_p "
finish
