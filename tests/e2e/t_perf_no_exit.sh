#!/usr/bin/env bash
# t_perf_no_exit: a perf.data with no EXIT record (`perf record --snapshot`
# ended by a signal, as HASE's Broadwell recordings are; perf killed) ends
# at the last time it knows, so the images mapped then are its memory at
# its end. The recording: HASE's Skylake loopy perf.data copied with its
# EXIT record turned into an UNTHROTTLE of the same size and its
# AUXTRACE_INFO saying snapshot mode (`perf script` still decodes ptxed's
# instructions from the copy). At the end of its history:
#   - `hindsight replay`'s x/2i $pc shows the code there, the bytes
#     objdump shows for loopy at that address;
#   - GDB over `serve --replay` has a backtrace and its own Intel PT decoder
#     (`record btrace pt`) decodes ptxed's instructions with no gap.
. "$(dirname "$0")/lib.sh"
hindsight_only "reads recordings"

L=$SHARED_DIR/ptdata/hase/skl-20180404-loopy
SRC=$L/loopy-20180404T162955.perf
[ -r "$SRC" ] || skip "no HASE loopy recording at $L"
command -v python3 >/dev/null || skip "no python3"
command -v objdump >/dev/null || skip "no objdump"

# The copy, made by walking the data section's records.
python3 - "$SRC" "$T_DIR/noexit.perf" >"$T_DIR/patch.out" <<'EOF'
import struct, sys
b = bytearray(open(sys.argv[1], 'rb').read())
off, size = struct.unpack_from('<QQ', b, 40)
at, end, exits = off, off + size, 0
while at < end:
    typ, misc, sz = struct.unpack_from('<IHH', b, at)
    if typ == 4:            # PERF_RECORD_EXIT -> PERF_RECORD_UNTHROTTLE
        struct.pack_into('<I', b, at, 6)
        exits += 1
    elif typ == 70:         # AUXTRACE_INFO: priv[8] is snapshot_mode
        struct.pack_into('<Q', b, at + 16 + 8 * 8, 1)
    elif typ == 71:         # AUXTRACE: its payload follows the record
        at += struct.unpack_from('<Q', b, at + 8)[0]
    at += sz
open(sys.argv[2], 'wb').write(b)
print("exits", exits)
EOF
expect "$T_DIR/patch.out" "exits 1"

ref=$L/ref-libipt-2.0.5/ptxed-insn-noinst.txt
n=$(grep -c '^[0-9a-f]\{16\}$' "$ref")
last=$(grep '^[0-9a-f]\{16\}$' "$ref" | tail -1)
end=$(printf '0x%x' $((0x$last + 2)))        # after the last syscall
# objdump's bytes of the instruction at the end, as x/Nxb prints them
objdump -d --start-address="$end" --stop-address=$((end + 7)) "$L/loopy" |
    sed -n "s/^ *${end#0x}:\t\(\([0-9a-f][0-9a-f] \)*\).*/\1/p" | head -1 >"$T_DIR/objdump.bytes"
bytes=$(sed 's/\([0-9a-f][0-9a-f]\) */0x\1\t/g; s/\t$//' "$T_DIR/objdump.bytes")
nb=$(wc -w <"$T_DIR/objdump.bytes")
[ "$nb" -gt 0 ] || fail "objdump shows no instruction at $end"

cp "$L/loopy" "$T_DIR/"             # the image, found next to the recording
"$HINDSIGHT" replay "$T_DIR/noexit.perf" --batch -ex 'info record' \
    -ex 'x/2i $pc' -ex "x/${nb}xb \$pc" >"$T_DIR/replay.out" 2>&1
show "$T_DIR/replay.out"
expect "$T_DIR/replay.out" "instructions: $n"
expect_re "$T_DIR/replay.out" "^=> $end <exit\+[0-9]+>:"
expect "$T_DIR/replay.out" "$end:	$bytes"
expect_not "$T_DIR/replay.out" "Cannot access memory"

server_start --replay "$T_DIR/noexit.perf" || finish
gdb_run "$T_DIR/gdb.out" -ex 'bt' -ex 'record btrace pt' -ex 'info record' "$L/loopy"
show "$T_DIR/gdb.out"
expect_re "$T_DIR/gdb.out" "^#0 +exit \(\) at "
expect_re "$T_DIR/gdb.out" "^Recorded $n instructions in [0-9]+ functions \(0 gaps\) for thread 1 "
expect_not "$T_DIR/gdb.out" "Decode error"
finish
