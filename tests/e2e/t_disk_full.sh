#!/usr/bin/env bash
# t_disk_full: a recording that fills its disk (a 1 MiB tmpfs) ends; the
# program does not. churn.c prints a checksum of its whole run, so the
# program finishing unharmed is checked against its native run.
# - record: says "No space left on device" (it said "Input/output error"),
#   lets the program go on unrecorded, waits for it, exits 1; the bundle
#   opens and counts its cut end as a recorded gap.
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
n=200000
want=$("$prog" $n)

# 1. record
timeout 120 "$HINDSIGHT" record --record=sw -o "$small/rec" -- "$prog" $n \
    >"$T_DIR/rec.out" 2>"$T_DIR/rec.err"
expect_eq "exit status of record on a full disk" "$?" 1
show "$T_DIR/rec.out" "$T_DIR/rec.err"
expect_eq "the program's checksum, recorded until the disk filled" "$(cat "$T_DIR/rec.out")" "$want"
expect "$T_DIR/rec.err" "hindsight: recording stopped: No space left on device; $small/rec keeps what was written before"
expect_re "$T_DIR/rec.err" "^hindsight: the program \(pid [0-9]+\) goes on unrecorded; waiting for it\$"
expect "$T_DIR/rec.err" "hindsight: the program exited with status 0"
expect_not "$T_DIR/rec.err" "Input/output error"
timeout 60 "$HINDSIGHT" replay "$small/rec" --batch -ex 'info record' >"$T_DIR/info.out" 2>&1
expect_eq "exit status of replay of the cut recording" "$?" 0
show "$T_DIR/info.out"
expect "$T_DIR/info.out" "gaps: 0 (decoded) + 1 (recorded)"
expect_re "$T_DIR/info.out" "state log cut short \(no end record\): registers known up to position [0-9]+"
rm -rf "${small:?}"/*

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
