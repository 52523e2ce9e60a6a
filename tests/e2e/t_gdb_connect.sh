#!/usr/bin/env bash
# t_gdb_connect: GDB connects with `target remote` and sees the program stopped
# before its first instruction: rip is ld.so's _start, the thread list names
# the inferior's pid, the amd64 Linux registers (orig_rax, fs_base, gs_base)
# exist, auxv (qXfer:auxv:read) gives the program's real entry point, and the
# executable is found through qXfer:exec-file:read (no file given to gdb).
. "$(dirname "$0")/lib.sh"

prog=$(build_prog basic) || exit 1
server_start "$prog" 1 2 || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'info registers rip' \
    -ex 'info registers orig_rax fs_base gs_base' \
    -ex 'info threads' \
    -ex 'info auxv' \
    -ex 'info files' \
    -ex 'kill'
show "$out"

expect_re "$out" '^rip +0x[0-9a-f]+ +0x[0-9a-f]+ <_start>'
expect_re "$out" '^orig_rax +0x'
expect_re "$out" '^fs_base +0x'
expect_re "$out" '^gs_base +0x'
expect_re "$out" "^\* 1 +Thread $INFERIOR_PID\.$INFERIOR_PID .*_start"
expect_re "$out" "Reading symbols from .*$(basename "$prog")"
# AT_ENTRY from the auxv must equal the entry point gdb computed from the ELF.
auxv_entry=$(sed -n 's/^9 *AT_ENTRY .* \(0x[0-9a-f]*\)$/\1/p' "$out" | head -1)
elf_entry=$(sed -n 's/^[[:space:]]*Entry point: \(0x[0-9a-f]*\)$/\1/p' "$out" | head -1)
[ -n "$auxv_entry" ] || fail "no AT_ENTRY in info auxv"
expect_eq "AT_ENTRY vs ELF entry" "$auxv_entry" "$elf_entry"
expect "$out" "[Inferior 1 (process $INFERIOR_PID) killed]"
finish
