#!/usr/bin/env bash
# t_record_light_killed: a light recording of a program killed from outside
# by a signal it does not handle (SIGINT, as Ctrl-C sends it) while it
# computes. Its run ends between two superblocks with no event there; the
# rebuild stops exactly there as a whole history, with no gap (it was
# reported "diverged" at that point before): the instructions are the
# light run's own trace (--vg-verify, written apart from the rebuild), the
# exit is the signal, and the registers at the end are the trace's. A run
# that exited and seems to end so (its log edited) is said diverged there.
. "$(dirname "$0")/lib.sh"
hindsight_only "the light recorder"
command -v valgrind >/dev/null || skip "valgrind is not installed"
prog=$(build_prog spinner) || finish
cd "$T_DIR" || finish

timeout 120 "$HINDSIGHT" record --record=light --vg-verify "$T_DIR/k.ver" -o "$T_DIR/k" \
    -- "$prog" >k.out 2>k.err &
rec=$!
for _ in $(seq 1 300); do
    grep -q ready k.out 2>/dev/null && break
    sleep 0.05
done
sleep 0.5
pid=$(pgrep -f -- "tool=hsrec.*$prog" | head -1)
[ -n "$pid" ] || { fail "the recorded program is not running"; finish; }
kill -INT "$pid"
wait "$rec"
expect_eq "record: exit status (SIGINT)" "$?" 130
timeout 120 "$HINDSIGHT" history "$T_DIR/k" 1,1 >/dev/null 2>k.hist.err
expect k.hist.err "1 thread, 0 gaps,"
expect_not k.hist.err "diverged"
tid=$(first_tid k.ver)
# (A rep instruction's iterations are one position in the history.)
awk -v t="$tid" '$1 == t && $2 != prev { print $2 } $1 == t { prev = $2 }' k.ver >k.ips
"$HINDSIGHT" history "$T_DIR/k" 1,1000000000 2>/dev/null | hist_ips >k.hist
n=$(wc -l <k.ips)
[ "$n" -gt 100000 ] || fail "the light run's trace has $n instructions only"
cmp -s k.ips k.hist ||
    fail "the rebuilt history is not the light run's trace ($(wc -l <k.hist) of $n instructions)"
expect_re "$T_DIR/k/trace.json" '"kind": *"signaled"'
python3 "$E2E_DIR/tools/vg_regcheck.py" "$HINDSIGHT" "$T_DIR/k" "$T_DIR/k.ver" "$tid" 10 \
    >regs 2>&1 || { fail "registers differ from the light run's"; cat regs; }

# Not for a run that exited: a log edited so that a run which exited seems
# to end between two superblocks (its exit_group taken out, its end's
# count moved before it) rebuilds to there and says it diverged.
win=$(build_prog window) || finish
timeout 120 "$HINDSIGHT" record --record=light -o "$T_DIR/x" -- "$win" 30000 >x.out 2>x.err
expect_eq "record window: exit status" "$?" $(( ($(cat x.out) + 17) & 127 ))
python3 - "$T_DIR/x/inputs.hsin" <<'PY'
import struct, sys
path = sys.argv[1]
data = open(path, "rb").read()
recs, at = [], 0
while at + 8 <= len(data):
    kind, n = struct.unpack_from("<II", data, at)
    recs.append([kind, bytearray(data[at + 8:at + 8 + n])])
    at += 8 + n
assert recs[-1][0] == 9 and recs[-2][0] == 4 and struct.unpack_from("<I", recs[-2][1], 4)[0] == 231
count = struct.unpack_from("<Q", recs[-1][1], 4)[0]
del recs[-2]
struct.pack_into("<Q", recs[-1][1], 4, count - 100)
open(path, "wb").write(b"".join(struct.pack("<II", k, len(p)) + bytes(p) for k, p in recs))
PY
timeout 120 "$HINDSIGHT" rebuild "$T_DIR/x" >/dev/null 2>x.rebuild.err
expect x.rebuild.err "diverged"
expect x.rebuild.err "with no syscall to end it"

# hindsight asked to stop (SIGTERM, as `timeout` and `kill` send it) while
# the program waits in a syscall: the program is sent SIGTERM, which the
# tool logs as the run's end, so the history is rebuilt whole up to there
# (it was killed at once, its log cut short: "diverged"); no summary of
# nothing ("0 threads, 0 bytes of trace"), and how to rebuild is said.
slp=$(build_prog sleeper) || finish
SN=$(rand_int 50 500)
timeout 120 "$HINDSIGHT" record --record=light -o "$T_DIR/t" -- "$slp" "$SN" >t.out 2>t.err &
trec=$!
for _ in $(seq 1 300); do
    grep -q "sleeper: ready" t.out 2>/dev/null && break
    sleep 0.05
done
sleep 1
hpid=$(pgrep -P "$trec" -f "record --record=light" | head -1)
[ -n "$hpid" ] || { fail "hindsight record is not running"; finish; }
kill -TERM "$hpid"
wait "$trec"
cat t.err
expect t.err "hindsight rebuild $T_DIR/t\` rebuilds its history up to there"
expect_not t.err "0 threads"
timeout 120 "$HINDSIGHT" replay "$T_DIR/t" --batch -ex 'print g_sum' >t.replay 2>t.replay.err
expect_not t.replay.err "diverged"
expect t.replay.err "1 thread, 0 gaps,"
expect_re t.replay "^\\\$1 = $((SN * (SN - 1) / 2))\$"
finish
