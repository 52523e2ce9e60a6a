#!/usr/bin/env bash
# t_replay_bigmap: a program that reserves 1 TiB of address space is
# recorded, and its recording opens at once (the state log's mapping
# records of 2^40 bytes once asked for 2^28 page references: 6 minutes and
# 8 GB to open; the limit is time, as address-space limits do not mix with
# AddressSanitizer). Where it stops, the registers are GDB's
# natively at the program's exit_group (a static, non-PIE program: the
# same code addresses), and the byte the program wrote reads back.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"

cd "$T_DIR" || finish
prog=$(build_prog bigmap -static -no-pie) || finish
timeout 120 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" 0
show rec.out rec.err

timeout 30 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'info registers rip' \
    -ex 'p small[7]' >replay.out 2>replay.err
expect_eq "replay of the recording, in 30 s" "$?" 0
show replay.out replay.err

timeout 60 gdb -nx -batch -ex 'catch syscall exit_group' -ex run -ex 'info registers rip' \
    -ex 'p small[7]' "$prog" >gdb.out 2>gdb.err
show gdb.out gdb.err
rip_gdb=$(sed -n 's/^rip  *\(0x[0-9a-f]*\) .*/\1/p' gdb.out)
rip_hs=$(sed -n 's/^rip  *\(0x[0-9a-f]*\) .*/\1/p' replay.out)
[ -n "$rip_gdb" ] || fail "GDB gave no rip"
expect_eq "rip at the end, hindsight replay against GDB natively" "$rip_hs" "$rip_gdb"
expect replay.out '= 42'
expect gdb.out '= 42'
finish
