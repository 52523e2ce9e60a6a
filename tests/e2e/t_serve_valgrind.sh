#!/usr/bin/env bash
# t_serve_valgrind: `serve --record valgrind` serves the program live under
# Valgrind's light recorder, through Valgrind's gdbserver (docs/serve.md,
# "Live under Valgrind"):
#   - GDB stops at breakpoints (also conditional ones, evaluated at every
#     hit), single-steps, reads registers and memory: the values and the
#     places (function + offset) equal GDB's natively on the same program;
#     the program runs to its end with its own output;
#   - a write to memory in the present is made and logged (an input):
#     the value before it one instruction back, after it in the present
#     and in the program's output, and the kept recording's rebuild makes
#     it too; a write to a register is refused;
#   - going back (the run so far rebuilt up to where it stands, inside a
#     superblock): reverse-stepi returns to the places GDB natively went
#     through forward, reverse-continue stops at a breakpoint hit before,
#     with the values GDB natively reads there; forward again replays the
#     past to the present and the program goes on live to its end; a
#     write watchpoint is served in the past (backwards and forwards) and
#     live, a read watchpoint live (the values and places GDB's own
#     watchpoints give natively), and going back under a read watchpoint
#     is refused, saying why;
#   - going back several times, the program running on live between:
#     the rebuild follows the log, so each visit after the first rebuilds
#     only what ran since and extends the past; reverse-next, next through
#     the past into the present and reverse-continue give the places and
#     values GDB's own `record full` gives natively for the same commands;
#   - Ctrl-C stops a program that loops for ever, reported as SIGINT, in
#     the loop, with a counter it really advanced; going back from there
#     (a stop between two superblocks) and forward again returns to it;
#   - going back from a Ctrl-C while every thread waits in a syscall: one
#     instruction back is the syscall instruction, the values of the past
#     those the program computed, and forward again the present;
#   - an exec (where Valgrind's gdbserver lets go of its debugger) ends
#     the session, saying so, the kept recording ending at the execve;
#   - detach lets the program run on to its end; the kept recording ends
#     where the debugger let go;
#   - threads: every thread is listed, and a breakpoint in a thread stops
#     there; a continue from a place before a thread was made replays up
#     to the present in that thread and stops at its breakpoint there;
#   - the end: the program stops before the exit_group that ends it
#     (called from a worker thread), every thread there, as the
#     single-stepper does; going back from there and forward again stops
#     there again; detach lets it exit; so it stops before the last
#     thread's exit (no exit_group);
#   - the kept recording (-o) rebuilds without a gap, and GDB over `serve
#     --replay` finds the same values at the same stops.
. "$(dirname "$0")/lib.sh"
hindsight_only "serve --record valgrind"
command -v valgrind >/dev/null || skip "valgrind is not installed"
command -v vgdb >/dev/null || skip "vgdb is not installed"

prog=$(build_prog onrequest -O0 -g) || { fail "cannot build onrequest.c"; finish; }
# Stops: work(1000000) at its 5th call of nothing (a conditional
# breakpoint GDB evaluates at every hit: mark() once), then three steps.
cmds=(-ex 'break mark' -ex continue -ex 'print g' -ex 'info symbol $pc'
      -ex 'break work if n == 10' -ex continue -ex 'print n' -ex 'print g'
      -ex stepi -ex stepi -ex stepi -ex 'info symbol $pc' -ex finish -ex 'print g')

# GDB natively: the independent source of every value and place.
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set pagination off' \
    -ex 'starti' "${cmds[@]}" -ex kill "$prog" </dev/null >"$T_DIR/native.txt" 2>&1
vals() { sed -n -e 's/^\$[0-9]* = //p' -e 's/ of target:/ of /' -e 's/^\(.* in section .*\)$/\1/p' "$1"; }
vals "$T_DIR/native.txt" >"$T_DIR/native.vals"
[ "$(wc -l <"$T_DIR/native.vals")" -ge 6 ] || { fail "GDB natively gave too little"; show "$T_DIR/native.txt"; finish; }

server_start --once --record valgrind -o "$T_DIR/rec" "$prog" || finish
expect "$T_DIR/server.err" "running under Valgrind"
W=$(rand_int 1000 9000)
gdb_run "$T_DIR/live.txt" "${cmds[@]}" -ex "set var g = $W" -ex 'print g' -ex reverse-stepi \
    -ex 'print g' -ex stepi -ex 'print g' -ex 'set var $rax = 12345' -ex 'print $rax' -ex 'delete' "${TO_EXIT[@]}"
vals "$T_DIR/live.txt" >"$T_DIR/live.vals"
head -n "$(wc -l <"$T_DIR/native.vals")" "$T_DIR/live.vals" >"$T_DIR/live.head"
cmp -s "$T_DIR/native.vals" "$T_DIR/live.head" ||
    { fail "values and places under Valgrind differ from GDB's natively"; diff "$T_DIR/native.vals" "$T_DIR/live.head"; }
expect "$T_DIR/live.txt" "Breakpoint 2, work (n=10)"
# A write in the present is made and logged: g is W after it, one
# instruction back (before it) what GDB natively read there, and W again
# in the present; the program prints it at its end. A register write is
# refused.
extra=($(tail -n +"$(($(wc -l <"$T_DIR/native.vals") + 1))" "$T_DIR/live.vals"))
expect_eq "g after the write in the present" "${extra[0]:-}" "$W"
expect_eq "g one instruction back, before the write" "${extra[1]:-}" "$(tail -1 "$T_DIR/native.vals")"
expect_eq "g back in the present" "${extra[2]:-}" "$W"
expect_re "$T_DIR/live.txt" "Could not write register"
expect_not "$T_DIR/live.txt" "= 12345"
expect_re "$T_DIR/live.txt" "exited normally"
wait_gone "$SERVER_PID" 20
expect_eq "the program's output, after the write" "$(cat "$T_DIR/server.out")" "$W"

# Going back from work(10) after three steps: the same places backwards,
# then mark()'s hit before, with its values; then forward again through
# the past to the present and on to the end.
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set pagination off' \
    -ex 'break mark' -ex run -ex 'print g' -ex 'info symbol $pc' -ex 'break work if n == 10' \
    -ex continue -ex 'print g' -ex 'info symbol $pc' -ex stepi -ex 'info symbol $pc' -ex stepi \
    -ex 'info symbol $pc' -ex stepi -ex 'info symbol $pc' -ex kill "$prog" </dev/null \
    >"$T_DIR/native2.txt" 2>&1
nat=()
while IFS= read -r l; do nat+=("$l"); done < <(vals "$T_DIR/native2.txt")
[ "${#nat[@]}" -eq 7 ] || { fail "GDB natively: ${#nat[@]} values, not 7"; show "$T_DIR/native2.txt"; }
server_start --once --record valgrind "$prog" || finish
gdb_run "$T_DIR/back.txt" -ex 'break work if n == 10' -ex continue -ex stepi -ex stepi -ex stepi \
    -ex reverse-stepi -ex 'info symbol $pc' -ex reverse-stepi -ex 'info symbol $pc' \
    -ex reverse-stepi -ex 'info symbol $pc' -ex 'print g' -ex 'break mark' -ex reverse-continue \
    -ex 'info symbol $pc' -ex 'print g' -ex continue -ex 'info symbol $pc' -ex 'print g' \
    -ex 'delete' "${TO_EXIT[@]}"
back=()
while IFS= read -r l; do back+=("$l"); done < <(vals "$T_DIR/back.txt")
expect_eq "reverse-stepi 1" "${back[0]:-}" "${nat[5]:-}"
expect_eq "reverse-stepi 2" "${back[1]:-}" "${nat[4]:-}"
expect_eq "reverse-stepi 3: work(10)'s entry" "${back[2]:-}" "${nat[3]:-}"
expect_eq "g at work(10)'s entry, gone back to" "${back[3]:-}" "${nat[2]:-}"
expect_eq "reverse-continue: mark()" "${back[4]:-}" "${nat[1]:-}"
expect_eq "g at mark(), gone back to" "${back[5]:-}" "${nat[0]:-}"
expect_eq "forward again through the past: work(10)" "${back[6]:-}" "${nat[3]:-}"
expect_eq "g at work(10), replayed" "${back[7]:-}" "${nat[2]:-}"
expect "$T_DIR/server.err" "going back: rebuilding the run so far"
expect_re "$T_DIR/back.txt" "exited normally"
wait_gone "$SERVER_PID" 20
expect_eq "the program's output after going back" "$(cat "$T_DIR/server.out")" "$("$prog")"

# Going back, on live, back again, three times: each visit after the first
# rebuilds what ran since (the past extended, never opened again). GDB's
# `record full` natively, from mark() on, is the reference for every place
# and value: reverse-next, next through the past into the present (a range
# step ending where the past does stops there), reverse-continue.
visits=(-ex 'print g' -ex 'break work if n == 10' -ex continue
        -ex next -ex next -ex next -ex next -ex next -ex 'info symbol $pc' -ex 'print g' -ex 'print i'
        -ex reverse-next -ex reverse-next -ex 'info symbol $pc' -ex 'print g' -ex 'print i'
        -ex next -ex next -ex next -ex next -ex next -ex next
        -ex 'info symbol $pc' -ex 'print g' -ex 'print i'
        -ex reverse-next -ex reverse-next -ex reverse-next -ex 'info symbol $pc' -ex 'print g'
        -ex 'print i' -ex next -ex 'info symbol $pc' -ex 'print g' -ex 'print i'
        -ex next -ex next -ex next -ex 'info symbol $pc' -ex 'print g' -ex 'print i'
        -ex reverse-continue -ex 'info symbol $pc' -ex 'print g'
        -ex reverse-continue -ex 'info symbol $pc' -ex 'print g')
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set pagination off' \
    -ex 'break mark' -ex run -ex 'record full' "${visits[@]}" -ex kill "$prog" </dev/null \
    >"$T_DIR/native3.txt" 2>&1
vals "$T_DIR/native3.txt" >"$T_DIR/native3.vals"
[ "$(wc -l <"$T_DIR/native3.vals")" -eq 23 ] ||
    { fail "GDB's record full natively gave $(wc -l <"$T_DIR/native3.vals") values, not 23"; show "$T_DIR/native3.txt"; }
# (Valgrind's FIFOs go to $TMPDIR: the rebuild that followed, killed at
# the end, leaves none there.)
mkdir -p "$T_DIR/vgtmp"
TMPDIR="$T_DIR/vgtmp" server_start --once --record valgrind "$prog" || finish
gdb_run "$T_DIR/visits.txt" -ex 'break mark' -ex continue "${visits[@]}" -ex delete "${TO_EXIT[@]}"
vals "$T_DIR/visits.txt" >"$T_DIR/visits.vals"
cmp -s "$T_DIR/native3.vals" "$T_DIR/visits.vals" ||
    { fail "three visits to the past differ from GDB's record full natively"; diff "$T_DIR/native3.vals" "$T_DIR/visits.vals"; }
expect_re "$T_DIR/visits.txt" "exited normally"
wait_gone "$SERVER_PID" 20
expect_eq "visits that rebuilt the run from its start" \
    "$(grep -c 'going back: rebuilding the run so far' "$T_DIR/server.err")" 1
expect_eq "visits that rebuilt only what ran since" \
    "$(grep -c 'going back: rebuilding what ran since' "$T_DIR/server.err")" 2
expect_not "$T_DIR/server.err" "the past is opened again"
expect_eq "Valgrind's FIFOs left behind" "$(ls "$T_DIR/vgtmp" | grep -c vgdb-pipe)" 0

# Watchpoints. In the past (write watchpoints: the state log has every
# write): reverse-continue stops at mark()'s g++, the last write before
# work(10); forward again, the same write; on again, the present, which is
# the breakpoint in work(10) hit again (as the single-stepper's serve and
# GDB's record full stop there: the thread arrives at it). Live (the tool checks memory
# accesses for Valgrind's gdbserver while any is set): the next writes in
# work(10), each stopped after the writing instruction with its old and
# new values, as GDB's own watchpoints natively (software ones, which
# stop after each instruction on every CPU kind); a read watchpoint stops
# after the instruction that reads g, with the value it read; with one
# set, going back is refused, saying why (the past has no reads).
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'set pagination off' \
    -ex 'break work if n == 10' -ex run -ex 'set can-use-hw-watchpoints 0' -ex 'watch g' \
    -ex continue -ex 'info symbol $pc' -ex continue -ex 'info symbol $pc' -ex disassemble \
    -ex kill "$prog" </dev/null >"$T_DIR/native_watch.txt" 2>&1
nw_old=($(sed -n 's/^Old value = //p' "$T_DIR/native_watch.txt"))
nw_new=($(sed -n 's/^New value = //p' "$T_DIR/native_watch.txt"))
nw_at=$(sed -n 's/^\(work + [0-9]*\) in section.*/\1/p' "$T_DIR/native_watch.txt" | head -1)
# The instruction after work()'s load of g: where a read watchpoint stops.
nw_read=$(awk '/\(%rip\),%[a-z0-9]+ +# 0x[0-9a-f]+ <g>/ { getline; if (match($0, /<\+[0-9]+>/)) print "work + " substr($0, RSTART + 2, RLENGTH - 3); exit }' \
    "$T_DIR/native_watch.txt")
# ... and the instruction before work()'s store to g (in its superblock).
nw_pre=$(awk '/<\+[0-9]+>:/ { if (match($0, /<\+[0-9]+>/)) at = substr($0, RSTART + 2, RLENGTH - 3) }
    /%[a-z0-9]+,0x[0-9a-f]+\(%rip\) +# 0x[0-9a-f]+ <g>/ { print prev; exit } { prev = at }' \
    "$T_DIR/native_watch.txt")
[ "${#nw_old[@]}" -eq 2 ] && [ -n "$nw_at" ] && [ -n "$nw_read" ] && [ -n "$nw_pre" ] ||
    { fail "GDB's watchpoint natively gave too little"; show "$T_DIR/native_watch.txt"; }
server_start --once --record valgrind "$prog" || finish
gdb_run "$T_DIR/watch.txt" -ex 'break work if n == 10' -ex continue -ex 'watch g' \
    -ex reverse-continue -ex 'info symbol $pc' -ex 'print g' -ex continue -ex 'print g' \
    -ex continue \
    -ex continue -ex 'info symbol $pc' -ex continue -ex 'info symbol $pc' -ex 'print g' \
    -ex 'rwatch g' -ex continue -ex 'info symbol $pc' -ex reverse-stepi -ex 'info symbol $pc' \
    -ex delete "${TO_EXIT[@]}"
expect_eq "the breakpoint in work(10): hit live, then at the present again from the past" \
    "$(grep -c '^Breakpoint 1, work (n=10)' "$T_DIR/watch.txt")" 2
w=()
while IFS= read -r l; do w+=("$l"); done < <(vals "$T_DIR/watch.txt")
old=($(sed -n 's/^Old value = //p' "$T_DIR/watch.txt"))
new=($(sed -n 's/^New value = //p' "$T_DIR/watch.txt"))
case ${w[0]:-} in mark\ +\ *) ;; *) fail "reverse-continue with a watchpoint stopped at '${w[0]:-}', not in mark()" ;; esac
expect_eq "g where the watchpoint stopped, gone back" "${w[1]:-}" "${nat[0]:-}"
expect_eq "g where the watchpoint stopped, forward" "${w[2]:-}" "${nat[2]:-}"
expect_eq "the past's watched write: old value" "${old[0]:-}" "${nat[2]:-x}"
expect_eq "the past's watched write: new value" "${new[0]:-}" "${nat[0]:-x}"
# (The past's write shows twice: going back, then forward again.)
expect_eq "live watched writes: old values" "${old[*]:2}" "${nw_old[*]}"
expect_eq "live watched writes: new values" "${new[*]:2}" "${nw_new[*]}"
expect_eq "where the first live watched write stopped" "${w[3]%% in section*}" "$nw_at"
expect_eq "g after the live watched writes" "${w[5]:-}" "${nw_new[1]:-x}"
expect_re "$T_DIR/watch.txt" "^Value = ${nw_new[1]:-x}\$"
expect_eq "where the read watchpoint stopped" "${w[6]%% in section*}" "$nw_read"
expect "$T_DIR/watch.txt" "read and access watchpoints are served only live under Valgrind"
expect_eq "where the refused reverse-stepi left it" "${w[7]%% in section*}" "$nw_read"
expect_re "$T_DIR/watch.txt" "exited normally"
wait_gone "$SERVER_PID" 20
expect_eq "the program's output after watching" "$(cat "$T_DIR/server.out")" "$("$prog")"

# A watchpoint set at a stop inside a superblock sees the rest of that
# one: stopped just before the store of i = 1 in work(10), `watch g`
# stops after that store (the first write that changes g: GDB's first
# natively).
server_start --once --record valgrind "$prog" || finish
gdb_run "$T_DIR/watch_in.txt" -ex 'break work if n == 10' -ex continue -ex delete \
    -ex "break *(work + $nw_pre) if i == 1" -ex continue -ex delete -ex 'watch g' -ex continue \
    -ex 'info symbol $pc' -ex delete "${TO_EXIT[@]}"
expect_eq "the first write watched from inside its superblock: old value" \
    "$(sed -n 's/^Old value = //p' "$T_DIR/watch_in.txt" | head -1)" "${nw_old[0]:-x}"
expect_eq "... its new value" "$(sed -n 's/^New value = //p' "$T_DIR/watch_in.txt" | head -1)" \
    "${nw_new[0]:-x}"
expect_eq "... where it stopped" "$(sed -n 's/^\(work + [0-9]*\) in section.*/\1/p' "$T_DIR/watch_in.txt")" \
    "$nw_at"
expect_re "$T_DIR/watch_in.txt" "exited normally"
wait_gone "$SERVER_PID" 20

# A write at a stop inside a superblock (before work(10)'s store of i = 1),
# after going back once (the place logged), the program then run to its
# end: a window of the kept recording (which starts after the write) and
# its whole rebuild both make the write at its instruction: no divergence,
# no gap. Over `serve --replay`, at the end g is what the program printed;
# back at the place, g is the written value, one instruction before it
# the value GDB read there live.
W2=$(rand_int 100 900)
server_start --once --record valgrind -o "$T_DIR/poke" "$prog" || finish
gdb_run "$T_DIR/poke.txt" -ex 'break work if n == 10' -ex continue -ex delete \
    -ex "break *(work + $nw_pre) if i == 1" -ex continue -ex delete -ex 'print g' \
    -ex reverse-stepi -ex stepi -ex "set var g = $W2" -ex 'print g' "${TO_EXIT[@]}"
g0=$(sed -n 's/^\$1 = //p' "$T_DIR/poke.txt")
expect_re "$T_DIR/poke.txt" "^\\\$2 = $W2\$"
expect_re "$T_DIR/poke.txt" "exited normally"
wait_gone "$SERVER_PID" 20
g_end=$(cat "$T_DIR/server.out")
[ -n "$g0" ] && [ -n "$g_end" ] || { fail "no value before the write, or no output"; show "$T_DIR/poke.txt"; }
timeout 120 "$HINDSIGHT" rebuild --last 300 "$T_DIR/poke" >"$T_DIR/poke_win.txt" 2>&1 ||
    fail "a window of the recording, after a write, does not rebuild"
expect_not "$T_DIR/poke_win.txt" "diverged"
expect "$T_DIR/poke_win.txt" "the history is a window"
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/poke" >"$T_DIR/poke_whole.txt" 2>&1 ||
    fail "the recording with a write in it does not rebuild"
expect_re "$T_DIR/poke_whole.txt" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
server_start --once --replay "$T_DIR/poke" || finish
gdb_run "$T_DIR/poke_replay.txt" -ex 'print g' -ex "break *(work + $nw_pre) if i == 1" \
    -ex reverse-continue -ex 'print g' -ex reverse-stepi -ex 'print g' -ex kill "$prog"
expect_eq "g at the recording's end" "$(sed -n 's/^\$1 = //p' "$T_DIR/poke_replay.txt")" "$g_end"
expect_eq "g where the debugger wrote it" "$(sed -n 's/^\$2 = //p' "$T_DIR/poke_replay.txt")" "$W2"
expect_eq "g one instruction before the write" "$(sed -n 's/^\$3 = //p' "$T_DIR/poke_replay.txt")" "$g0"
wait_gone "$SERVER_PID" 10

# Two writes into the program's heap at one stop (stdio's buffer, from
# the brk heap, which Valgrind maps executable where the kernel would
# not): at `write`, the first digits the program prints become 9 and 8.
# Its output changes so; one instruction back, the buffer holds what the
# program wrote there, both writes undone (the past is extended only once
# the rebuild made both).
native_out=$("$prog")
server_start --once --record valgrind "$prog" || finish
gdb_run "$T_DIR/heap.txt" -ex 'set breakpoint pending on' -ex 'break write' -ex continue \
    -ex 'set $b = (char *)$rsi' -ex 'set var *$b = 0x39' -ex 'set var *($b + 1) = 0x38' \
    -ex 'x/s $b' -ex reverse-stepi -ex 'x/s $b' -ex 'delete' "${TO_EXIT[@]}"
bufs=($(sed -n 's/^0x[0-9a-f]*:[[:space:]]*"\([0-9]*\)\\n"$/\1/p' "$T_DIR/heap.txt"))
expect_eq "the heap buffer after the writes" "${bufs[0]:-}" "98${native_out:2}"
expect_eq "the heap buffer one instruction back" "${bufs[1]:-}" "$native_out"
expect_re "$T_DIR/heap.txt" "exited normally"
wait_gone "$SERVER_PID" 20
expect_eq "the program's output after the writes into its heap" "$(cat "$T_DIR/server.out")" \
    "98${native_out:2}"

# The end by the last thread's exit, not an exit_group (exit_last.c:
# main's thread ends with the raw exit syscall, then the worker, alone,
# with the status drawn here): the program stops before that exit, at the
# syscall instruction; going back and forward again stops there again;
# the continue after it exits with the status.
lastprog=$(build_prog exit_last -O0 -g -pthread) || { fail "cannot build exit_last.c"; finish; }
M2=$(rand_int 2 60)
server_start --once --record valgrind "$lastprog" "$M2" || finish
gdb_run "$T_DIR/last.txt" -ex continue -ex 'x/i $pc' -ex reverse-stepi -ex continue \
    -ex 'x/i $pc' -ex continue
[ "$(grep -c "^hindsight: the next instruction is syscall exit, which ends the program" \
    "$T_DIR/last.txt")" = 2 ] || fail "no stop before the last thread's exit (or not again)"
[ "$(grep -cE '^=> 0x[0-9a-f]+ <syscall\+[0-9]+>:[[:space:]]+syscall' "$T_DIR/last.txt")" = 2 ] ||
    fail "the end is not at the syscall instruction"
expect_re "$T_DIR/last.txt" "exited with code 0*$(printf %o "$M2")\]"
wait_gone "$SERVER_PID" 20

# The kept recording: rebuilt, whole, and the same values at the same stops.
timeout 120 "$HINDSIGHT" history "$T_DIR/rec" 1,1 >"$T_DIR/hist.txt" 2>"$T_DIR/hist.err" ||
    { fail "the kept recording does not rebuild"; show "$T_DIR/hist.err"; }
expect_re "$T_DIR/hist.err" '^hindsight: [0-9]+ instructions, 1 thread, 0 gaps'
expect_not "$T_DIR/hist.err" "diverged"
# Whole, though the session went back once (a rebuild up to there): it
# ends with the program's exit.
"$HINDSIGHT" history "$T_DIR/rec" >"$T_DIR/hist_end.txt" 2>&1
expect_re "$T_DIR/hist_end.txt" 'syscall *$'
expect_re "$T_DIR/hist_end.txt" '<(__GI_)?_exit\+[0-9]+>'
server_start --once --replay "$T_DIR/rec" || finish
gdb_run "$T_DIR/replay.txt" -ex 'reverse-continue' -ex 'break mark' -ex continue -ex 'print g' \
    -ex 'info symbol $pc' -ex 'break work if n == 10' -ex continue -ex 'print n' -ex 'print g' \
    -ex 'delete' -ex continue -ex 'print g' -ex kill
vals "$T_DIR/replay.txt" >"$T_DIR/replay.vals"
expect_eq "the recording's values at mark() and work(10)" "$(head -4 "$T_DIR/replay.vals")" \
    "$(head -4 "$T_DIR/native.vals")"
# The rebuild made the debugger's write where it was made: g at the end.
expect_eq "the recording's g at its end" "$(sed -n 5p "$T_DIR/replay.vals")" "$W"
wait_gone "$SERVER_PID" 10

# Threads: each thread listed; a breakpoint in thread_work stops in a
# worker, with its argument.
tprog=$(build_prog threads -O0 -g -pthread) || { fail "cannot build threads.c"; finish; }
server_start --once --record valgrind "$tprog" 7 || finish
gdb_run "$T_DIR/threads.txt" -ex 'break thread_work if id == 2' -ex continue -ex 'print id' \
    -ex 'print g_base' -ex 'info threads' -ex 'delete' "${TO_EXIT[@]}"
expect_re "$T_DIR/threads.txt" '^\$1 = 2$'
expect_re "$T_DIR/threads.txt" '^\$2 = 7$'
n=$(grep -c '^[* ] *[0-9]\+ *Thread ' "$T_DIR/threads.txt")
[ "$n" -ge 2 ] || { fail "info threads lists $n threads while a worker runs"; show "$T_DIR/threads.txt"; }
expect_re "$T_DIR/threads.txt" "exited normally"
wait_gone "$SERVER_PID" 20
expect "$T_DIR/server.out" "threads: sum=$((7 * 3 + 0 + 1 + 4))"

# Forward through the past to a present in a thread made after the place
# gone back to (timeline.c: workers 0, 1, 2 take turns 0, 1, 2; back to
# turn 0, when worker 2 had not run): the continue that replays up to the
# present stops at its breakpoint there (turn 2), not past it (turn 3).
lprog2=$(build_prog timeline -O0 -g -pthread) || { fail "cannot build timeline.c"; finish; }
server_start --once --record valgrind "$lprog2" 0:1111 1:2222 2:3333 0:4444 || finish
gdb_run "$T_DIR/later.txt" -ex 'break worker_step' -ex continue -ex continue -ex continue \
    -ex reverse-continue -ex reverse-continue -ex 'echo ==fwd\n' -ex continue -ex continue \
    -ex 'echo ==live\n' -ex continue -ex 'delete' "${TO_EXIT[@]}"
hits=$(sed -n '/^==fwd$/,/^==live$/s/.*hit Breakpoint 1, worker_step (id=\([0-9]\), n=\([0-9]\).*/\1:\2/p' \
    "$T_DIR/later.txt" | tr '\n' ' ')
expect_eq "forward through the past to the present in a later thread" "$hits" "1:1 2:2 "
expect_re "$T_DIR/later.txt" "worker_step \(id=0, n=3, value=4444\)"
expect_re "$T_DIR/later.txt" "exited normally"
wait_gone "$SERVER_PID" 20

# The end: a worker thread calls exit(); the program stops before its
# exit_group, still there, main's thread too (the tool stops it as it
# enters the call, before Valgrind acts on it): at the syscall
# instruction, rax the call's number, rcx and r11 unknown (the
# instruction set them before the stop); reverse-finish goes
# back up to worker's exit() call, forward again stops at the end again,
# and detach there lets the program run on to its exit.
xprog=$(build_prog exit_thread -O0 -g -pthread) || { fail "cannot build exit_thread.c"; finish; }
M=$(rand_int 2 60)
line_exit=$(line_of exit_thread.c worker_exit)
server_start --once --record valgrind "$xprog" "$M" || finish
gdb_run "$T_DIR/end.txt" -ex 'echo ==end\n' -ex continue -ex 'x/i $pc' -ex 'p $rcx' -ex 'p $rax' \
    -ex 'info threads' \
    -ex 'echo ==back\n' -ex reverse-finish -ex reverse-finish -ex reverse-finish \
    -ex 'echo ==again\n' -ex continue -ex 'x/i $pc' -ex 'echo ==detach\n' -ex detach
section() { sed -n "/^==$1\$/,/^==$2\$/p" "$T_DIR/end.txt"; }
section end back | grep -q "^hindsight: the next instruction is syscall exit_group" ||
    fail "continue did not stop before exit_group"
section end back | grep -qE '^=> 0x[0-9a-f]+ <(__GI_)?_exit\+[0-9]+>:[[:space:]]+syscall' ||
    fail "the end is not at _exit's syscall instruction"
section end back | grep -q '^\$1 = <unavailable>$' || fail "rcx at the end is not unknown"
section end back | grep -q '^\$2 = 231$' || fail "rax at the end is not exit_group's number"
[ "$(section end back | grep -cE '^[* ] +[12] +Thread ')" = 2 ] ||
    fail "not both threads there at the end (main waits in pthread_join)"
section back again | grep -qE "worker \(arg=.*exit_thread\.c:$line_exit" ||
    fail "reverse-finish did not go back to worker's exit() call"
section again detach | grep -q "^hindsight: the next instruction is syscall exit_group" ||
    fail "the forward replay did not stop at the end again"
section again detach | grep -qE '^=> 0x[0-9a-f]+ <(__GI_)?_exit\+[0-9]+>:[[:space:]]+syscall' ||
    fail "the end is not at the syscall instruction again"
section again detach | grep -q "exited" && fail "the forward replay went through the end"
wait_gone "$INFERIOR_PID" 20 || fail "the program detached at its end did not exit"
wait_gone "$SERVER_PID" 20
expect "$T_DIR/server.err" "Detached from process $INFERIOR_PID"
show "$T_DIR/end.txt"

# Ctrl-C: GDB sends 0x03, vgdb makes Valgrind stop the program.
lprog=$(build_prog loop) || { fail "cannot build loop.c"; finish; }
server_start --once --record valgrind "$lprog" || finish
gdb_run_bg "$T_DIR/int.txt" -ex continue -ex bt -ex 'print g_spins > 1000' -ex kill
wait_for_file "$T_DIR/server.out" "loop: pid" 20 || fail "loop did not start"
sleep 1
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 30 || fail "gdb did not finish after SIGINT"
expect "$T_DIR/int.txt" "Program received signal SIGINT, Interrupt."
expect_re "$T_DIR/int.txt" "loop_spin \\(\\) at .*loop.c:"
expect "$T_DIR/int.txt" '$1 = 1'
expect "$T_DIR/int.txt" "[Inferior 1 (process $INFERIOR_PID) killed]"
wait_gone "$SERVER_PID" 20

# Going back from a Ctrl-C (a stop Valgrind takes between two
# superblocks): one instruction back and one forward is where the stop
# was, and the counter read there is the one read live.
server_start --once --record valgrind "$lprog" || finish
gdb_run_bg "$T_DIR/intback.txt" -ex continue -ex 'print $pc' -ex 'print g_spins' -ex reverse-stepi \
    -ex 'print $pc' -ex stepi -ex 'print $pc' -ex 'print g_spins' -ex kill
wait_for_file "$T_DIR/server.out" "loop: pid" 20 || fail "loop did not start"
sleep 1
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 60 || fail "gdb did not finish after SIGINT"
ib=($(sed -n 's/^\$[0-9]* = \(.*0x[0-9a-f]*\).*/\1/p; s/^\$[0-9]* = \([0-9]*\)$/\1/p' "$T_DIR/intback.txt" | awk '{print $NF}'))
[ "${#ib[@]}" -eq 5 ] || { fail "Ctrl-C then going back: ${#ib[@]} values, not 5"; show "$T_DIR/intback.txt"; }
[ "${ib[2]:-}" != "${ib[0]:-}" ] || fail "reverse-stepi after Ctrl-C did not move"
expect_eq "stepi after reverse-stepi: the pc of the Ctrl-C" "${ib[3]:-}" "${ib[0]:-}"
expect_eq "the counter at the Ctrl-C, gone back and forward to" "${ib[4]:-}" "${ib[1]:-}"
expect_not "$T_DIR/intback.txt" "cannot go back"
wait_gone "$SERVER_PID" 20

# Ctrl-C while the only thread waits in a syscall: the past ends where it
# entered it (it was refused, with no instruction a rebuild could stop
# at): one instruction back is the syscall instruction, 2 bytes before the
# pc of the stop, the sum of the work before it the program's, and one
# forward is the stop's pc again.
sprog=$(build_prog sleeper) || { fail "cannot build sleeper.c"; finish; }
SN=$(rand_int 50 500)
server_start --once --record valgrind "$sprog" "$SN" || finish
gdb_run_bg "$T_DIR/sysback.txt" -ex continue -ex 'print $pc' -ex reverse-stepi -ex 'print $pc' \
    -ex 'print *(unsigned short *)$pc' -ex 'print g_sum' -ex stepi -ex 'print $pc' -ex kill
wait_for_file "$T_DIR/server.out" "sleeper: ready" 20 || fail "sleeper did not start"
sleep 1
kill -INT "$GDB_PID"
wait_gone "$GDB_TIMEOUT_PID" 60 || fail "gdb did not finish after SIGINT"
expect_not "$T_DIR/sysback.txt" "cannot go back"
sb=($(sed -n 's/^\$[0-9]* = .*\(0x[0-9a-f]*\).*/\1/p' "$T_DIR/sysback.txt"))
if [ "${#sb[@]}" -eq 3 ]; then
    expect_eq "one instruction back from a stop in a syscall" "$(printf '%#x' $((sb[0] - 2)))" "${sb[1]}"
    expect_eq "one instruction forward again" "${sb[2]}" "${sb[0]}"
else
    fail "Ctrl-C in a syscall, then reverse-stepi and stepi: ${#sb[@]} pcs, not 3"
    show "$T_DIR/sysback.txt"
fi
expect_re "$T_DIR/sysback.txt" '^\$3 = 1295$'
expect_re "$T_DIR/sysback.txt" "^\\\$4 = $((SN * (SN - 1) / 2))\$"
expect "$T_DIR/sysback.txt" "[Inferior 1 (process $INFERIOR_PID) killed]"
wait_gone "$SERVER_PID" 20

# exec: Valgrind's gdbserver lets go of its debugger there. The session
# ends, saying so to GDB, the program killed; the kept recording ends at
# the execve syscall.
eprog=$(build_prog execself) || { fail "cannot build execself.c"; finish; }
server_start --once --record valgrind -o "$T_DIR/exec" "$eprog" || finish
gdb_run "$T_DIR/exec.txt" -ex 'break main' -ex continue -ex continue
expect "$T_DIR/exec.txt" "Valgrind's gdbserver let go of the program while it ran on (it execs"
expect "$T_DIR/exec.txt" "Program terminated with signal SIGKILL, Killed."
wait_gone "$SERVER_PID" 20
"$HINDSIGHT" history "$T_DIR/exec" >"$T_DIR/exec_hist.txt" 2>"$T_DIR/exec_hist.err" ||
    { fail "the recording kept at the exec does not rebuild"; show "$T_DIR/exec_hist.err"; }
expect_re "$T_DIR/exec_hist.txt" '<(__GI_)?(__)?execve\+[0-9]+>:[[:space:]]*syscall[[:space:]]*$'

# detach: the program runs on to its end, unrecorded; the kept recording
# ends where the debugger let go (it says so: still running), at mark().
server_start --once --record valgrind -o "$T_DIR/det" "$prog" || finish
gdb_run "$T_DIR/detach.txt" -ex 'break mark' -ex continue -ex 'print $pc' -ex detach
expect "$T_DIR/detach.txt" "[Inferior 1 (process $INFERIOR_PID) detached]"
wait_gone "$SERVER_PID" 20
wait_gone "$INFERIOR_PID" 20
expect_eq "the program's output after detach" "$(cat "$T_DIR/server.out")" "$("$prog")"
"$HINDSIGHT" history "$T_DIR/det" 1,1 >/dev/null 2>"$T_DIR/det.err" ||
    { fail "the recording kept at detach does not rebuild"; show "$T_DIR/det.err"; }
expect_not "$T_DIR/det.err" "diverged"
"$HINDSIGHT" history "$T_DIR/det" >"$T_DIR/det_hist.txt" 2>/dev/null
# Its last instruction is the call into mark(): the breakpoint's pc is
# where it stands, not run.
expect_re "$T_DIR/det_hist.txt" 'call +0x[0-9a-f]+ <mark>$'
finish
