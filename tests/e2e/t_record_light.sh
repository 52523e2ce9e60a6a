#!/usr/bin/env bash
# t_record_light: `record --record=light` logs only the program's inputs
# and rebuilds its history and state by running it again fed from them
# (vgtool/hsrec_inputs.c, docs/record.md).
#   - Deterministic programs: the rebuilt history equals the full Valgrind
#     recorder's, address for address, both when `history` rebuilt it
#     alone (no state log, faster) and when a command that needs the
#     registers rebuilt the whole after it; the registers at sampled positions
#     equal the light run's own (its tool's trace of every instruction it
#     started, with the registers before it: what really ran, read apart
#     from the rebuild), as do the exit status and the output the native
#     run gives.
#   - A program that is never the same twice (the time, the TSC, getrandom,
#     /dev/urandom, its pid, a file): the rebuild's registers are the light
#     run's, and the globals at the end of the history hold the values the
#     recorded run printed.
#   - An exec: one thread, its history going on into the new image, the
#     process's pid the recorded run's.
#   - Signals the program raises itself, a crash, and a timer's signals
#     (delivered again at the exact point the light run took them: the
#     history is the light run's, handler and all), also ending a
#     sigsuspend and a pause, rebuild exactly.
#   - Threads: t_record_light_threads.
#   - `hindsight rebuild`: a file the program mapped that it replaced
#     itself as it ran, or that was replaced since, is mapped from the copy
#     the light run kept; one changed in place since is found; one it only
#     read is not needed; a log edited at event K is found at event K; bytes read from a file, edited in the log, are
#     found at the write that prints them (what the program gives the
#     kernel is checked, not only its registers).
#   - GDB over `serve --replay` shows a light recording's crash as the full
#     recording's, and `run --record=light` explains it as `run` with the
#     full recorder does (rebuilding only then).
. "$(dirname "$0")/lib.sh"
hindsight_only "the light recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
cd "$T_DIR" || finish

# regs NAME [N]: the registers at N sampled positions against the trace.
regs()
{
    python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$T_DIR/$1" "$T_DIR/$1.ver" \
        "$(first_tid "$T_DIR/$1.ver")" "${2:-40}" >"regs.$1" 2>&1 ||
        { fail "$1: registers differ from the light run's"; cat "regs.$1"; }
}

# 1. Deterministic: the same history as the full recorder, the light run's
# registers, the native exit status and output.
exact=$(build_prog exact -no-pie) || finish
for mode in strings longjmp; do
    light "$mode" "$exact" "$mode"
    timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/$mode.full" -- "$exact" "$mode" \
        >"$mode.full.out" 2>"$mode.full.err"
    (exec "$exact" "$mode" >"$mode.native" 2>/dev/null)
    expect_eq "$mode: exit status, light / native" "$(cat "$mode.rc")" "$?"
    cmp -s "$mode.out" "$mode.native" || fail "$mode: the program printed other things"
    expect_re "$mode.err" "^hindsight: recording in $T_DIR/$mode: the run's inputs, [0-9]+ bytes"
    expect "$mode.err" "rebuilding its history from them (once"
    expect_re "$mode.err" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
    "$HINDSIGHT" history "$T_DIR/$mode" 1,100000000 2>/dev/null | hist_ips >"$mode.hist"
    "$HINDSIGHT" history "$T_DIR/$mode.full" 1,100000000 2>/dev/null | hist_ips >"$mode.full.hist"
    [ -s "$mode.hist" ] || fail "$mode: no history"
    cmp -s "$mode.hist" "$mode.full.hist" ||
        fail "$mode: the rebuilt history differs from the full recorder's ($(wc -l <"$mode.hist") / $(wc -l <"$mode.full.hist"))"
    # `history` rebuilt the history only: no state log, said and marked;
    # the first command that needs registers rebuilds the whole, once.
    expect_re "$mode.err" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps, [0-9]+ bytes of trace \([0-9.]+ B/insn\): the history only"
    [ -e "$T_DIR/$mode/inputs.history" ] || fail "$mode: the history alone is not marked"
    ls "$T_DIR/$mode/threads/" | grep -q 'state' && fail "$mode: the history alone has a state log"
    grep -q '"stateLog"' "$T_DIR/$mode/trace.json" && fail "$mode: the history alone names a state log"
    timeout 120 "$HINDSIGHT" replay "$T_DIR/$mode" --batch -ex 'info registers rip' \
        >"$mode.whole.out" 2>"$mode.whole.err"
    expect "$mode.whole.err" "holds a light recording's history only: rebuilding its registers and memory too, from its inputs (once)"
    expect_re "$mode.whole.err" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps, .* bytes of state"
    expect_re "$mode.whole.out" "^rip +0x[0-9a-f]+"
    [ -e "$T_DIR/$mode/inputs.history" ] && fail "$mode: the whole rebuilt, still marked as the history alone"
    "$HINDSIGHT" history "$T_DIR/$mode" 1,100000000 2>"$mode.again.err" | hist_ips >"$mode.again.hist"
    grep -q rebuilding "$mode.again.err" && fail "$mode: rebuilt a third time"
    cmp -s "$mode.hist" "$mode.again.hist" ||
        fail "$mode: the whole rebuild's history differs from the history rebuilt alone"
    regs "$mode"
done

# Two commands at once on a recording not rebuilt yet take turns (a
# rebuild replaces the files the other reads): both answer, one waited,
# and the bundle is the whole one after them.
light_only=$T_DIR/twice
timeout 120 "$HINDSIGHT" record --record=light -o "$light_only" -- "$exact" strings \
    >twice.out 2>twice.err
timeout 120 "$HINDSIGHT" history "$light_only" 1,100000000 >twice.h.raw 2>twice.h.err &
hpid=$!
timeout 120 "$HINDSIGHT" replay "$light_only" --batch -ex 'info registers rip' >twice.r.out 2>twice.r.err
expect_eq "twice: replay's exit status" "$?" 0
wait "$hpid"
expect_eq "twice: history's exit status" "$?" 0
hist_ips <twice.h.raw >twice.hist
cmp -s twice.hist strings.hist || fail "twice: history beside replay differs from the full recorder's"
expect_re twice.r.out "^rip +0x[0-9a-f]+"
cat twice.h.err twice.r.err >twice.both.err
expect twice.both.err "waiting for another hindsight that uses it"
[ -e "$light_only/inputs.history" ] && fail "twice: left marked as the history alone"
ls "$light_only"/threads/*.state >/dev/null 2>&1 || fail "twice: no state log after replay"

# An exec: the process's one thread goes on into the new image, in one
# history (the light run's own trace of it, instruction for instruction),
# and the bundle's process and thread are the recorded run's, as it
# printed its pid.
execself=$(build_prog execself) || finish
light exec "$execself"
expect_eq "exec: exit status" "$(cat exec.rc)" 3
expect_re exec.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
"$HINDSIGHT" history "$T_DIR/exec" 1,100000000 2>/dev/null | hist_ips >exec.hist
tid=$(first_tid exec.ver)
awk -v t="$tid" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' exec.ver >exec.ips
[ -s exec.ips ] && cmp -s exec.ips exec.hist ||
    fail "exec: the history differs from the light run's ($(wc -l <exec.hist) / $(wc -l <exec.ips))"
pid=$(sed -n 's/^execself: parent //p' exec.out)
expect_eq "exec: the process and its thread, as the program printed its pid" \
    "$(python3 -c 'import json, sys; p = json.load(open(sys.argv[1]))["processes"][0]; print(p["pid"], *[t["tid"] for t in p["threads"]])' "$T_DIR/exec/trace.json")" \
    "$pid $pid"

# 2. Inputs that differ every run.
inputs=$(build_prog inputs) || finish
echo "first line" >"$T_DIR/data.txt"
light inputs "$inputs" read "$T_DIR/data.txt"
regs inputs 60
read -r nsec tsc rnd urnd pid line <"inputs.out"
expect_eq "inputs: exit status" "$(cat inputs.rc)" "$((rnd % 7))"
timeout 120 "$HINDSIGHT" replay "$T_DIR/inputs" --batch -ex 'print g_nsec' -ex 'print g_tsc' \
    -ex 'print g_rand' -ex 'print g_urand' -ex 'print g_pid' -ex 'print g_line' \
    >inputs.replay 2>&1
show inputs.replay
for v in "$nsec" "$tsc" "$rnd" "$urnd" "$pid"; do
    expect inputs.replay "= $v"
done
expect inputs.replay '= "first line"'

# 3. Signals it raises itself; a crash.
signals=$(build_prog signals) || finish
light signals "$signals"
expect_re signals.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
regs signals
light crash "$exact" crash
expect_eq "crash: exit status" "$(cat crash.rc)" 139
tid=$(first_tid crash.ver)
awk -v t="$tid" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' crash.ver | sed '$d' \
    >crash.ver.ips
"$HINDSIGHT" history "$T_DIR/crash" 1,100000000 2>/dev/null | hist_ips >crash.hist
cmp -s crash.hist crash.ver.ips || fail "crash: the history differs from the light run's trace"
regs crash
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/crash.full" -- "$exact" crash \
    >/dev/null 2>&1
for rec in crash crash.full; do
    server_start --replay "$T_DIR/$rec" || finish
    gdb_run "$rec.gdb" -ex 'bt' "$exact"
    kill "$SERVER_PID" 2>/dev/null
    wait_gone "$SERVER_PID" 10
    grep -E '^#[0-9]' "$rec.gdb" | sed 's/ 0x[0-9a-f]* in / /' >"$rec.bt"
done
[ -s crash.bt ] || fail "crash: GDB shows no backtrace"
cmp -s crash.bt crash.full.bt || { fail "crash: GDB's backtraces differ"; show crash.bt crash.full.bt; }

# `run --record=light`: the history rebuilt only when the program crashed,
# and the explanation is the full recorder's; a program that exits leaves
# nothing.
crashp=$(build_prog crash) || finish
for m in light valgrind; do
    (cd "$T_DIR" && exec timeout 240 "$HINDSIGHT" run --record=$m -o "$T_DIR/run.$m" -- "$crashp") \
        >"run.$m.out" 2>"run.$m.err"
    expect_eq "run --record=$m: exit status" "$?" 139
    sed -n '/^Program terminated/,/^The last lines/p' "run.$m.err" | sed 's/[0-9]* of thread [0-9]*/N of thread T/' \
        >"run.$m.explained"
done
expect run.light.err "rebuilding its history from them (once"
expect run.light.explained "Program terminated with signal SIGSEGV, Segmentation fault."
expect_re run.light.explained "^#1 .* in main \(\) at .*crash.c:$(line_of crash.c call)"
cmp -s run.light.explained run.valgrind.explained ||
    { fail "run: the light recording's explanation differs from the full one's"; diff run.light.explained run.valgrind.explained | head; }
(cd "$T_DIR" && exec timeout 120 "$HINDSIGHT" run --record=light -o "$T_DIR/run.exits" -- "$exact" strings) \
    >run.exits.out 2>run.exits.err
expect run.exits.err "recording deleted"
[ -e "$T_DIR/run.exits" ] && fail "run: a light recording of a program that exited is left in $T_DIR/run.exits"

# as_light_run NAME: the history of light recording NAME is the light
# run's own trace of its first thread, instruction for instruction.
as_light_run()
{
    local tid
    "$HINDSIGHT" history "$T_DIR/$1" 1,100000000 2>/dev/null | hist_ips >"$1.hist"
    tid=$(first_tid "$1.ver")
    awk -v t="$tid" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' "$1.ver" >"$1.ips"
    cmp -s "$1.ips" "$1.hist" ||
        fail "$1: the history differs from the light run's ($(wc -l <"$1.hist") / $(wc -l <"$1.ips"))"
}
# handler_runs NAME PROG: how many times PROG's on_alarm starts in NAME.hist.
handler_runs()
{
    grep -c "^$(printf '%x' "0x$(nm "$2" | awk '$3 == "on_alarm" { print $1 }')")\$" "$1.hist"
}

# 4. A timer's signals, from outside the program: each delivered again at
# the point the light run took it (its superblock count), so the history
# is the light run's, instruction for instruction, handler and all.
itimer=$(build_prog itimer -no-pie) || finish
light itimer "$itimer"
expect_re itimer.out "^ticks [34]$"
expect_re itimer.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
as_light_run itimer
# (A cached build: the same flags as t_record_valgrind's.)
expect_eq "itimer: the handler's runs in the history, as it counted them" \
    "$(handler_runs itimer "$itimer")" "$(sed -n 's/^ticks //p' itimer.out)"
regs itimer 60
# Waits for a signal from the timer, every way (tests/programs/sigwait.c):
# sigsuspend, pause, ppoll, pselect and epoll_pwait, SIGALRM blocked outside
# the call or let in there too. Rebuilt whole: the history the light run's,
# each handler's run in it, and every instruction's registers the light
# run's (the rebuild's own trace of them, HINDSIGHT_REBUILD_VERIFY): the
# register Valgrind's ppoll and pselect wrappers point at a copy of the
# mask, which the handler sees, too.
sigwait=$(build_prog sigwait -no-pie) || finish
light sigwait "$sigwait"
expect_re sigwait.out "^alarms [0-9]+ suspends [1-9][0-9]* pauses [1-9][0-9]* open suspends [1-9][0-9]* polls [1-9][0-9]* selects [1-9][0-9]* epolls [1-9][0-9]* open polls [1-9][0-9]*$"
expect_re sigwait.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
as_light_run sigwait
expect_eq "sigwait: the handler's runs in the history" "$(handler_runs sigwait "$sigwait")" \
    "$(sed -n 's/^alarms \([0-9]*\) .*/\1/p' sigwait.out)"
regs sigwait 40
cp -r "$T_DIR/sigwait" "$T_DIR/sigwait.again"
HINDSIGHT_REBUILD_VERIFY="$T_DIR/sigwait.again.ver" timeout 120 "$HINDSIGHT" rebuild \
    "$T_DIR/sigwait.again" >sigwait.again.err 2>&1
expect_re sigwait.again.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
cut -d' ' -f2- "$T_DIR/sigwait.ver" >sigwait.regs
cut -d' ' -f2- "$T_DIR/sigwait.again.ver" >sigwait.again.regs
[ -s sigwait.regs ] && cmp -s sigwait.regs sigwait.again.regs ||
    fail "sigwait: the rebuild's registers differ from the light run's ($(cmp sigwait.regs sigwait.again.regs 2>&1 | head -1))"

# Valgrind's client requests (valgrind.h, as GLib, V8 and Qt make them):
# each special sequence's five instructions in the history, as the light
# run's own trace (every instruction's registers too) and the full
# recorder's have them: a request that ends its superblock, and a read of
# the wrapped function's address (rcx marker, 0 here) in the middle of one.
# The core's answer is in rdx after the request's marker (the thread's
# registers sent again: before, the state log kept rdx's old value there,
# and the rebuild of any GLib program stopped at the sequence, 19 bytes
# that decode as no one instruction).
clreq=$(build_prog clreq -no-pie) || finish
light clreq "$clreq"
expect clreq.out "on valgrind 1 errors 0 nraddr 0 odd 3"
expect_re clreq.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
as_light_run clreq
regs clreq 60
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/clreq.full" -- "$clreq" \
    >clreq.full.out 2>clreq.full.err
"$HINDSIGHT" history "$T_DIR/clreq.full" 1,100000000 2>/dev/null | hist_ips >clreq.full.hist
cmp -s clreq.hist clreq.full.hist || fail "clreq: the rebuilt history differs from the full recorder's"
main=$(nm "$clreq" | awk '$3 == "main" { print $1 }')
for m in rbx rcx; do
    marker=$(objdump -d "$clreq" | awk -v m="xchg +%$m,%$m" '/<main>:/ { f = 1 } f && $0 ~ m { sub(/:.*/, ""); gsub(/ /, ""); print; exit }')
    [ -n "$marker" ] || { fail "clreq: no $m marker in main"; continue; }
    first=$(printf '%x' $((0x$marker - 16)))
    grep -A5 -x "$first" clreq.hist | tr '\n' ' ' >"clreq.$m.seq"
    expect_eq "clreq: the $m sequence, instruction by instruction" "$(cat "clreq.$m.seq")" \
        "$first $(printf '%x %x %x' $((0x$first + 4)) $((0x$first + 8)) $((0x$first + 12))) $marker $(printf '%x' $((0x$marker + 3))) "
done
marker=$(sed 's/.* \([0-9a-f]*\) [0-9a-f]* $/\1/' clreq.rbx.seq)
first=$(printf '%x' $((0x$marker - 16)))
after=$(printf '%x' $((0x$marker + 3)))
for rec in clreq clreq.full; do
    timeout 120 "$HINDSIGHT" replay "$T_DIR/$rec" --batch -ex "break *0x$after" -ex reverse-continue \
        -ex 'print $rdx' -ex 'print $pc' -ex "break *0x$first" -ex reverse-continue -ex 'print $rdx' \
        -ex 'print $pc' -ex 'print g_nraddr' >"$rec.replay" 2>&1
    expect_eq "$rec: rdx after the request's marker, and before the sequence" \
        "$(sed -n 's/^\$[0-9]* = //p' "$rec.replay" | tr '\n' ' ')" \
        "1 (void (*)()) 0x$after <main+$((0x$after - 0x$main))> 0 (void (*)()) 0x$first <main+$((0x$first - 0x$main))> 0 "
done

# Lengths the kernel writes back that Valgrind's wrappers only read
# (getsockname's, getsockopt's), and the lock type F_GETLK writes: in the
# history's memory, light and full, as the program printed them (before:
# the buffer's sizes, 110 and 64, and F_WRLCK in the full recorder's state
# log, and a light run's rebuild stopped at the printf that wrote other
# bytes; SQLite's WAL mode took another path in the rebuild).
sockname=$(build_prog sockname -no-pie) || finish
light sockname "$sockname"
expect_re sockname.err "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps"
timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/sockname.full" -- "$sockname" \
    >sockname.full.out 2>sockname.full.err
expect_re sockname.out "^before [0-9]+ [0-9]+ 1 len [0-9]+ optlen [0-9]+ type 2$"
printed=$(sed -n 's/^before \([0-9]*\) \([0-9]*\) \([0-9]*\) len \([0-9]*\) optlen \([0-9]*\) type \([0-9]*\)$/\1 \2 \3 \4 \5 \6/p' sockname.out)
before=$(line_of sockname.c before)
line=$(line_of sockname.c print)
for rec in sockname sockname.full; do
    timeout 120 "$HINDSIGHT" replay "$T_DIR/$rec" --batch -ex "break sockname.c:$line" \
        -ex reverse-continue -ex "break sockname.c:$before" -ex reverse-continue \
        -ex 'print len' -ex 'print optlen' -ex 'print fl.l_type' -ex "continue" \
        -ex 'print len' -ex 'print optlen' -ex 'print fl.l_type' \
        >"$rec.replay" 2>&1
    expect_eq "$rec: the lengths and lock type before the calls and as the kernel wrote them, as the program printed them" \
        "$(sed -n 's/^\$[0-9]* = //p' "$rec.replay" | tr '\n' ' ')" "$printed "
done

# 5. `hindsight rebuild`: files changed since; an edited log.
echo "mapped" >"$T_DIR/map.txt"
echo "first of two" >"$T_DIR/remap.txt"
light mapped "$inputs" map "$T_DIR/map.txt"
light readonly "$inputs" read "$T_DIR/data.txt"
light remapped "$inputs" remap "$T_DIR/remap.txt"
expect_re readonly.err "0 gaps"
expect_re mapped.err "0 gaps"
sleep 0.01
cp -r "$T_DIR/mapped" "$T_DIR/mapped.kept"
echo "changed" >"$T_DIR/map.txt"
echo "changed" >"$T_DIR/data.txt"
# A file the program mapped is kept (a copy in the recording's files/,
# named by what the log says of it): replaced by the program itself as it
# ran (renamed over, as git its index), or since, the rebuild maps the
# copy, and the line is the one the program read. Changed in place (the
# program may have seen that through its mapping), it ends the rebuild,
# saying so.
expect remap.txt "replaced"
expect_re remapped.err "0 gaps"
expect_re remapped.out " \\[first of two\\]\$"
timeout 120 "$HINDSIGHT" replay "$T_DIR/remapped" --batch -ex 'print g_line' >remapped.line 2>&1
expect remapped.line '= "first of two"'
cat "$T_DIR/mapped/files/"* 2>/dev/null | grep -qx mapped || fail "mapped: the file it mapped is not kept"
exit_of() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["hindsight"]["exit"])' "$1/trace.json"; }
exit_before=$(exit_of "$T_DIR/mapped")
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/mapped" >rebuild.mapped 2>&1
expect rebuild.mapped "the program maps $T_DIR/map.txt, which is not the file it was when recorded"
# The recorded run's end stays the bundle's, though the rebuild stopped.
expect_eq "mapped: the exit after a rebuild that diverged" "$(exit_of "$T_DIR/mapped")" "$exit_before"
expect_re mapped.out " \\[mapped\\]\$"
echo "another" >"$T_DIR/map.txt.new"
mv "$T_DIR/map.txt.new" "$T_DIR/map.txt"
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/mapped.kept" >rebuild.mapped.kept 2>&1
expect_re rebuild.mapped.kept "0 gaps"
timeout 120 "$HINDSIGHT" replay "$T_DIR/mapped.kept" --batch -ex 'print g_line' >mapped.kept.line 2>&1
expect mapped.kept.line '= "mapped"'
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/readonly" >rebuild.readonly 2>&1
expect_re rebuild.readonly "0 gaps"
timeout 120 "$HINDSIGHT" replay "$T_DIR/readonly" --batch -ex 'print g_line' >readonly.line 2>&1
expect readonly.line '= "first line"'
# The line the program read from its file, changed in the log to other
# letters of the same length: no register differs from the recording's
# (the line's bytes are only copied, and printed), so only what the
# program gives the kernel shows it: the rebuild stops at the write that
# prints the line (HSIN_READS), not before: the close and the fstat
# between them are as recorded.
cp -r "$T_DIR/readonly" "$T_DIR/output"
k=$(python3 - "$T_DIR/output/inputs.hsin" <<'EOF'
import struct, sys
path = sys.argv[1]
d = bytearray(open(path, "rb").read())
i = n = 0
edited, at = False, ""
while i + 8 <= len(d):
    kind, size = struct.unpack_from("<II", d, i)
    body = bytes(d[i + 8:i + 8 + size])
    if kind == 3 and not edited and b"first line" in body:
        j = i + 8 + body.index(b"first line")
        d[j:j + 10] = b"FIRST LINE"
        edited = True
    elif kind == 4 and edited and struct.unpack_from("<I", d, i + 12)[0] == 1:
        at = str(n)                    # the first write after it
        break
    n += 1
    i += 8 + size
open(path, "wb").write(d)
print(at)
EOF
)
[ -n "$k" ] || fail "no write after the line is read, in the log"
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/output" >rebuild.output 2>&1
show rebuild.output
expect_re rebuild.output "at event $k \\(write at 0x[0-9a-f]+\\): the program gives the kernel other bytes than when recorded \\(the [0-9]+ bytes at 0x[0-9a-f]+\\)"
cp -r "$T_DIR/readonly" "$T_DIR/othercpu"
# The CPU's features the log names (HSIN_CPU), made other (AVX2 off, or
# on): refused, with the features named, before anything runs.
python3 - "$T_DIR/othercpu/inputs.hsin" <<'EOF'
import struct, sys
d = bytearray(open(sys.argv[1], "rb").read())
kind, size = struct.unpack_from("<II", d, 0)
i = 8 + size
kind, size = struct.unpack_from("<II", d, i)
assert kind == 11 and size == 8, (kind, size)
struct.pack_into("<Q", d, i + 8, struct.unpack_from("<Q", d, i + 8)[0] ^ (1 << 11))
open(sys.argv[1], "wb").write(d)
EOF
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/othercpu" >rebuild.cpu 2>&1
show rebuild.cpu
expect_re rebuild.cpu "the recording ran on a CPU with other features \\(hwcaps 0x[0-9a-f]+ there, 0x[0-9a-f]+ here: AVX2 (here|there), not (here|there)\\)"
# The pc of the 40th syscall in the log, changed: found there.
k=$(python3 - "$T_DIR/readonly/inputs.hsin" <<'EOF'
import struct, sys
path = sys.argv[1]
d = bytearray(open(path, "rb").read())
i = n = calls = 0
while i + 8 <= len(d):
    kind, size = struct.unpack_from("<II", d, i)
    if kind == 4:
        calls += 1
        if calls == 40:
            struct.pack_into("<Q", d, i + 8 + 64, 0x1234)
            open(path, "wb").write(d)
            print(n)
            break
    n += 1
    i += 8 + size
EOF
)
[ -n "$k" ] || fail "no 40th syscall in the log"
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/readonly" >rebuild.edited 2>&1
show rebuild.edited
expect_re rebuild.edited "at event $k \\([a-z0-9_]+\\): the pc is 0x[0-9a-f]+ where the recording has 0x1234"
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/nothere" >rebuild.none 2>&1
expect_re rebuild.none "^hindsight: .*nothere: "
finish
