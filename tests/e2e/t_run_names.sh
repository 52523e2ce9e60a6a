#!/usr/bin/env bash
# t_run_names: `run` names the memory a load read by the object that holds
# it, never by an index past the end of what a pointer points into.
# tests/programs/oobname.c: deref(p, i) loads p[i] past p's end and follows
# it (null: the crash). "global": p is v[8] and v[I] is best[k] (I from nm,
# k at random); it used to be named "best[k], p[I]". "heap": p is an
# 8-pointer malloc'd block and p[I] is the first word of the next block,
# main's b; it used to be "p[I], a[I], *b". "stack": p is the lower of
# main's arrays loc[8] and other[8] and p[I] element k of the higher one
# (named as it, and as main's pointer hi to it; never lo[I] or p[I]). Checked against GDB natively
# on the same program (`info symbol` of &v[I], &v[I] - &best[k],
# malloc_usable_size(a) against b - a) and against GDB over
# `serve --replay` on the recording (&best[k] there is the address run
# names).
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight run"

prog=$(build_prog oobname) || finish
cd "$T_DIR" || finish
case $(rand_int 0 2) in 0) mode=global ;; 1) mode=heap ;; 2) mode=stack ;; esac
[ -n "${MODE:-}" ] && mode=$MODE
v=$(nm "$prog" | awk '$3 == "v" {print $1}')
best=$(nm "$prog" | awk '$3 == "best" {print $1}')
if [ "$mode" = global ]; then
    [ $((0x$best)) -gt $((0x$v)) ] || skip "the linker put best before v"
    k=$(rand_int 0 7)
    i=$(((0x$best - 0x$v) / 8 + k))
elif [ "$mode" = heap ]; then
    i=10
else
    k=$(rand_int 0 7)
    i=$k
fi
echo "mode $mode, index $i${k:+, best[$k]}"

timeout 120 "$HINDSIGHT" run -o "$T_DIR/rec" -- "$prog" $mode $i >run.out 2>run.err
expect_eq "exit status" "$?" 139
show run.err
read -r a b <run.out
arr=$(sed -n 2p run.out)                 # stack: the array above the other
from=$(grep -A1 -E '^  rax = 0x0 was loaded at oobname.c:[0-9]+ in deref' run.err | tail -1)
addr=$(echo "$from" | sed -nE 's/^      from (0x[0-9a-f]+) \(8 bytes\).*/\1/p')
names=$(echo "$from" | sed -nE 's/^      from 0x[0-9a-f]+ \(8 bytes\), (.*)$/\1/p')
echo "loaded from $addr, named: $names"
[ -n "$addr" ] || fail "no load in deref: $from"

# GDB natively, stopped in deref with the same arguments
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'break deref' -ex run \
    -ex 'echo ==sym\n' -ex "info symbol (char *)&v[$i]" \
    -ex 'echo ==diff\n' -ex "p (char *)&v[$i] - (char *)&best[${k:-0}]" \
    -ex 'echo ==usable\n' -ex 'p (long)malloc_usable_size(p)' -ex 'up' -ex 'p (char *)b - (char *)a' \
    --args "$prog" $mode $i >gdb.native 2>&1
show gdb.native
section() { sed -n "/^==$1\$/,/^==/p" "$2"; }

if [ "$mode" = global ]; then
    sym="best + $((8 * k))"
    [ "$k" = 0 ] && sym=best             # GDB: "best in section .bss"
    section sym gdb.native | grep -q "^$sym in section .bss" ||
        fail "GDB's info symbol of &v[$i] is not $sym"
    section diff gdb.native | grep -q '^\$[0-9]* = 0$' || fail "GDB: &v[$i] is not &best[$k]"
    expect_eq "the names of the memory loaded" "$names" "best[$k]"
    server_start --replay "$T_DIR/rec" || finish
    gdb_run gdb.replay -ex "p/x &best[$k]" -ex "info symbol $addr" "$prog"
    show gdb.replay
    expect gdb.replay "= $addr"
    expect gdb.replay "$sym in section .bss"
elif [ "$mode" = stack ]; then
    for n in ${names//, / }; do
        case $n in "$arr[$k]" | "hi[$k]") ;; "*hi") [ "$k" = 0 ] || fail "*hi for $arr[$k]" ;; *) fail "a name not of the array holding it: $n" ;; esac
    done
    case ", $names, " in *", $arr[$k], "*) ;; *) fail "not named $arr[$k]: $names" ;; esac
    server_start --replay "$T_DIR/rec" || finish
    gdb_run gdb.replay -ex up -ex "p/x &$arr[$k]" -ex 'p sizeof(loc) / sizeof(loc[0])' \
        -ex "p hi - lo + $k" "$prog"
    show gdb.replay
    expect gdb.replay "= $addr"
    n=$(sed -nE 's/^\$3 = ([0-9]+)$/\1/p' gdb.replay)
    [ -n "$n" ] && [ "$n" -ge 8 ] || fail "GDB: the index $n is not past lo's 8 elements"
else
    usable=$(section usable gdb.native | sed -nE 's/^\$[0-9]+ = ([0-9]+)$/\1/p' | head -1)
    gap=$(section usable gdb.native | sed -nE 's/^\$[0-9]+ = ([0-9]+)$/\1/p' | tail -1)
    echo "GDB natively: malloc_usable_size(a) = $usable, b - a = $gap"
    [ -n "$usable" ] && [ -n "$gap" ] && [ "$usable" -lt $((8 * i + 8)) ] && [ "$gap" = $((8 * i)) ] ||
        fail "GDB natively: a[$i] is not past a's block and at b"
    expect_eq "the address loaded is b" "$addr" "$b"
    expect_eq "the names of the memory loaded" "$names" "*b"
fi
finish
