#!/usr/bin/env bash
# t_run_computed: `run`'s origin of a bad address tells a value computed
# with a memory operand from a load. tests/programs/xorptr.c: mangle xors
# a pointer with keys[i] straight from memory (`xor MEM,REG`) and writes
# through it. The register was computed there, from its own value and the
# 8 bytes of keys[i] together (it used to be "loaded ... from keys[i]", and
# the chain then went on to main's store of the key, which is not where
# the pointer came from). Checked against objdump (the instruction's text),
# nm (&target, &keys[i]) and the program (the operand is &target ^ key).
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight run"

prog=$(build_prog xorptr) || finish
cd "$T_DIR" || finish
i=$(rand_int 0 3)
src=xorptr.c
xline=$(line_of "$src" xor)

timeout 120 "$HINDSIGHT" run -o "$T_DIR/rec" -- "$prog" "$i" >run.out 2>run.err
expect_eq "exit status" "$?" 139
show run.err
insn=$(objdump -d --no-show-raw-insn "$prog" | awk '/<mangle>:/{m=1} m && /\txor +\(/{sub(/^[^\t]*\t/, ""); print; exit}')
[ -n "$insn" ] || fail "objdump shows no xor with a memory operand in mangle"
reg=$(echo "$insn" | sed -E 's/.*,%//')
line=$(grep -E "^  $reg = 0x[0-9a-f]+ was " run.err | head -1)
expect_re run.err "^  $reg = 0x[0-9a-f]+ was computed at $src:$xline in mangle, .*: $(printf '%s' "$insn" | sed 's/[.()*$]/\\&/g'),\$"
case $line in *" was loaded "*) fail "the xor's result is called a load: $line" ;; esac
expect_not run.err "which main wrote"
# from REG = &target together with the 8 bytes at &keys[i], keys[i]
from=$(grep -A1 -E "^  $reg = 0x[0-9a-f]+ was computed" run.err | tail -1)
before=$(echo "$from" | sed -nE "s/.*from $reg = (0x[0-9a-f]+) together with the 8 bytes at (0x[0-9a-f]+), keys\[$i\]\$/\1/p")
at=$(echo "$from" | sed -nE "s/.*together with the 8 bytes at (0x[0-9a-f]+), keys\[$i\]\$/\1/p")
[ -n "$before" ] && [ -n "$at" ] || fail "no 'from $reg = ... together with the 8 bytes at ..., keys[$i]': $from"
operand=$(sed -nE 's/^  the operand is (0x[0-9a-f]+):.*/\1/p' run.err)
# The load address and the register's value are the bias plus nm's.
t=$(nm "$prog" | awk '$3 == "target" {print $1}')
k=$(nm "$prog" | awk '$3 == "keys" {print $1}')
if [ -n "$before" ] && [ -n "$at" ] && [ -n "$operand" ]; then
    expect_eq "register before the xor minus &target = bias = keys[$i]'s address minus its nm address" \
        $((before - 0x$t)) $((at - 0x$k - 8 * i))
    expect_eq "the operand is &target xor keys[$i]" "$(printf '0x%x' $((before ^ 0x4141000000000000)))" "$operand"
fi
finish
