#!/usr/bin/env bash
# t_disk_full: a recording that fills its disk (a 1 MiB tmpfs) ends; the
# program does not. churn.c prints a checksum of its whole run, so the
# program finishing unharmed is checked against its native run.
# - record: warns as it starts that the disk is nearly full (less than
#   1 GiB left), then says "No space left on device" (it said "Input/output error"),
#   lets the program go on unrecorded, waits for it, exits 1; the bundle
#   opens (a state log cut short is a recorded gap).
# - record --record=valgrind: the same, the program under Valgrind to its end;
#   and when only the state log's last batches cannot be written.
# - serve: GDB's continue stops with the reason on GDB's console (it was
#   "Child terminated with signal = 9", the program killed); the program is
#   alive and readable there, a resume is refused with the reason, and
#   `detach` lets it finish.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight's recorder"

[ "$(id -u)" = 0 ] || skip "mounting a small tmpfs needs root"
small=$T_DIR/small
mkdir -p "$small"
mount -t tmpfs -o size=1M tmpfs "$small" 2>/dev/null || skip "cannot mount a tmpfs here"
trap 'umount -l "$small" 2>/dev/null; e2e_cleanup' EXIT

prog=$(build_prog churn) || finish

# warned_first ERR DIR: the recorder warned that DIR's disk was nearly full
# (as it started: the tmpfs has 1 MiB), before it stopped for it.
warned_first()
{
    local warn stop
    warn=$(grep -n "^hindsight: warning: $2 has [0-9.]* [KMi]*B left on its file system.*: the recording stops when the disk is full" "$1" | head -1 | cut -d: -f1)
    stop=$(grep -n "^hindsight: recording stopped: No space left on device" "$1" | head -1 | cut -d: -f1)
    [ -n "$warn" ] && [ -n "$stop" ] && [ "$warn" -lt "$stop" ] ||
        fail "$1: no warning of the full disk before the recording stopped (lines ${warn:-none}, ${stop:-none})"
}
n=200000
want=$("$prog" $n)

# 1. record
timeout 120 "$HINDSIGHT" record --record=sw -o "$small/rec" -- "$prog" $n \
    >"$T_DIR/rec.out" 2>"$T_DIR/rec.err"
expect_eq "exit status of record on a full disk" "$?" 1
show "$T_DIR/rec.out" "$T_DIR/rec.err"
expect_eq "the program's checksum, recorded until the disk filled" "$(cat "$T_DIR/rec.out")" "$want"
expect "$T_DIR/rec.err" "hindsight: recording stopped: No space left on device; $small/rec keeps what was written before"
warned_first "$T_DIR/rec.err" "$small/rec"
expect_re "$T_DIR/rec.err" "^hindsight: the program \(pid [0-9]+\) goes on unrecorded; waiting for it\$"
expect "$T_DIR/rec.err" "hindsight: the program exited with status 0"
expect_not "$T_DIR/rec.err" "Input/output error"
timeout 60 "$HINDSIGHT" replay "$small/rec" --batch -ex 'info record' >"$T_DIR/info.out" 2>&1
expect_eq "exit status of replay of the cut recording" "$?" 0
show "$T_DIR/info.out"
# The manifest saved last (at the end, if the disk had room for it, else
# at the last checkpoint) says how far the history goes; a state log cut
# before that is a recorded gap.
expect_re "$T_DIR/info.out" "^instructions: [1-9][0-9]*\$"
if grep -q "state log cut short" "$T_DIR/info.out"; then
    expect "$T_DIR/info.out" "gaps: 0 (decoded) + 1 (recorded)"
fi
rm -rf "${small:?}"/*

# 1b. record --record=valgrind: the program goes on under Valgrind, its
# stream dropped (it was killed: status 137).
if command -v valgrind >/dev/null; then
    timeout 120 "$HINDSIGHT" record --record=valgrind -o "$small/vrec" -- "$prog" $((n * 10)) \
        >"$T_DIR/vrec.out" 2>"$T_DIR/vrec.err"
    expect_eq "exit status of record --record=valgrind on a full disk" "$?" 1
    show "$T_DIR/vrec.out" "$T_DIR/vrec.err"
    expect_eq "the program's checksum under Valgrind" "$(cat "$T_DIR/vrec.out")" "$("$prog" $((n * 10)))"
    expect "$T_DIR/vrec.err" "hindsight: recording stopped: No space left on device; $small/vrec keeps what was written before (its end is a gap); the program went on unrecorded, under Valgrind, to its end"
    warned_first "$T_DIR/vrec.err" "$small/vrec"
    # The summary's count is what ran, not what was kept: it says so (it
    # claimed 649,777 instructions where 72,373 could be read).
    expect "$T_DIR/vrec.err" "hindsight: those are what ran while recording: the disk filled before all of it was written, and $small/vrec holds what was"
    timeout 60 "$HINDSIGHT" replay "$small/vrec" --batch -ex 'info record' >"$T_DIR/vinfo.out" 2>&1
    expect_eq "exit status of replay of the cut Valgrind recording" "$?" 0
    # Where its history ends depends on the last save before the disk
    # filled: a recorded gap or not, what it holds reads back.
    expect_re "$T_DIR/vinfo.out" "^instructions: [1-9][0-9]*\$"
    rm -rf "${small:?}"/*

    # 1c. The disk fills with the state log's last batches, which the
    # writer thread writes after the log worker handed them over: still
    # the recording's error, the bundle not complete (it was lost: exit
    # 0, "complete": true, the log cut short). A file size limit just
    # under the log's size (EFBIG) stands in for the full disk.
    timeout 120 "$HINDSIGHT" record --record=valgrind -o "$T_DIR/whole" -- "$prog" $n \
        >/dev/null 2>&1
    size=$(stat -c %s "$T_DIR"/whole/threads/*.state | sort -n | tail -1)
    rm -rf "$T_DIR/whole"
    (trap '' XFSZ; ulimit -f $(((size - 150000) / 1024)); exec timeout 120 "$HINDSIGHT" \
        record --record=valgrind -o "$T_DIR/tail" -- "$prog" $n >"$T_DIR/tail.out" 2>"$T_DIR/tail.err")
    expect_eq "exit status of record --record=valgrind, the log's last 150 KB not written" "$?" 1
    show "$T_DIR/tail.err"
    expect "$T_DIR/tail.err" "hindsight: recording stopped: File too large; $T_DIR/tail keeps what was written before"
    grep -q '"complete": *false' "$T_DIR/tail/trace.json" ||
        fail "the bundle whose log's end was not written says it is complete"
    rm -rf "$T_DIR/tail"
fi

# 2. serve
server_start --once -o "$small/srv" "$prog" $n || finish
out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'continue' \
    -ex 'print i > 0' \
    -ex 'continue' \
    -ex 'detach'
wait_gone "$SERVER_PID" 30 || fail "server still running after detach"
show "$out" "$T_DIR/server.out" "$T_DIR/server.err"
expect "$out" "hindsight: the recording in $small/srv stopped: No space left on device. The program is stopped here, alive"
expect "$out" "Program stopped."
expect "$out" "\$1 = 1"
expect "$out" "Remote failure reply: E.No space left on device"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) detached]"
expect_not "$T_DIR/server.err" "terminated with signal"
expect_eq "the served program's checksum after detach" "$(cat "$T_DIR/server.out")" "$want"
finish
