#!/usr/bin/env bash
# t_gdb_avx: the target description has SSE and AVX: $xmm0 and $ymm0 hold the
# eight integers the program loaded with vmovdqu (values from argv).
. "$(dirname "$0")/lib.sh"

grep -qw avx /proc/cpuinfo || skip "this CPU has no AVX"
prog=$(build_prog avx -mavx) || exit 1
BASE=$(rand_int 100 999)
server_start "$prog" "$BASE" || finish

out=$T_DIR/gdb.out
gdb_run "$out" \
    -ex 'break avx_loaded' \
    -ex 'continue' \
    -ex 'print $ymm0.v8_int32' \
    -ex 'info registers xmm0' \
    -ex 'print $xmm0.v4_int32[3]' \
    -ex 'kill'
show "$out"

ymm="{$BASE"
for i in 1 2 3 4 5 6 7; do ymm="$ymm, $((BASE + i))"; done
ymm="$ymm}"
expect "$out" "\$1 = $ymm"
xmm=$(printf 'v4_int32 = {0x%x, 0x%x, 0x%x, 0x%x}' "$BASE" $((BASE + 1)) $((BASE + 2)) $((BASE + 3)))
expect "$out" "$xmm"
expect "$out" "\$2 = $((BASE + 3))"
finish
