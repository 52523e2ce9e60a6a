#!/usr/bin/env bash
# t_gdb_vfile_btrfs: a program on a btrfs subvolume (a 200 MB file system in
# a file) is served to GDB through host I/O: its symbols load and its
# breakpoint is hit. /proc/PID/maps gives the superblock's device number,
# stat the subvolume's; the stub checked served files against maps' number
# and refused the program ("could not open as an executable file:
# Permission denied"). Needs root and mkfs.btrfs (scripts/install-deps.sh).
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight's host I/O checks"

[ "$(id -u)" = 0 ] || skip "mounting a file system needs root"
command -v mkfs.btrfs >/dev/null || skip "no mkfs.btrfs (btrfs-progs)"
img=$T_DIR/btrfs.img
mnt=$T_DIR/mnt
truncate -s 200M "$img"
mkfs.btrfs -q "$img" >/dev/null 2>&1 || skip "mkfs.btrfs failed"
mkdir -p "$mnt"
mount -o loop "$img" "$mnt" 2>/dev/null || skip "cannot mount a btrfs image here"
trap 'umount -l "$mnt" 2>/dev/null; e2e_cleanup' EXIT
btrfs subvolume create "$mnt/sub" >/dev/null || fail "no subvolume"

src=$(build_prog basic) || finish
prog=$mnt/sub/basic
cp "$src" "$prog"
[ "$(stat -c %d "$prog")" != "$(stat -c %d "$mnt")" ] ||
    echo "note: the subvolume has the file system's device number here"

for mode in no-record recorded; do
    opt=()
    [ "$mode" = no-record ] && opt=(--no-record)
    server_start "${opt[@]}" "$prog" 3 4 || finish
    out=$T_DIR/gdb-$mode.out
    gdb_run "$out" -ex 'break basic_square' -ex 'continue' -ex "remote get $prog $T_DIR/got-$mode" \
        -ex 'kill'
    show "$out"
    expect "$out" "Reading symbols from target:$prog..."
    expect_not "$out" "Permission denied"
    expect_re "$out" "^Breakpoint 1, basic_square \(x=4\) at "
    cmp -s "$prog" "$T_DIR/got-$mode" || fail "$mode: remote get of the program did not bring its bytes"
done
finish
