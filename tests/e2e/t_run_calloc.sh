#!/usr/bin/env bash
# t_run_calloc: `run`'s origin of a pointer calloc left zero.
# tests/programs/czero.c callocs a struct (small: from the heap that brk
# grows during the recording; "big", drawn at random: 1 MiB, which glibc
# mmaps) and writes through its never-set pointer, recorded by either
# software recorder (drawn at random; RECORDER=sw|valgrind, MODE=small|big
# choose). No instruction wrote those zeros: the kernel made them, at the
# brk or mmap system call (calloc's memset, when it runs, leaves them as they
# were, which is no change), and
# `run` says so, with where and how long before the crash (it used to say
# "there when the recording started"). Checked against the program (the
# struct's address it prints) and GDB over `serve --replay`: at the
# position `run` gives, GDB disassembles a `syscall` with rax = brk's or
# mmap's number, whose result covers the pointer's address; and a `watch
# -l` on the pointer, reverse-continued from the crash, finds no write
# back to the start of the recording. `hindsight replay`'s `last` on the
# pointer names the same system call at the same position.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight run"

prog=$(build_prog czero) || finish
cd "$T_DIR" || finish
if [ "$(rand_int 0 1)" = 1 ]; then mode=big call=mmap nr=9; else mode=small call=brk nr=12; fi
# either software recorder: both log brk's and mmap's new memory
if [ "$(rand_int 0 1)" = 1 ]; then recorder=valgrind; else recorder=sw; fi
[ -n "${RECORDER:-}" ] && recorder=$RECORDER
[ "$recorder" = valgrind ] && ! command -v valgrind >/dev/null && recorder=sw
[ -n "${MODE:-}" ] && { mode=$MODE; [ "$mode" = big ] && call=mmap nr=9 || call=brk nr=12; }
echo "mode $mode: $call, --record=$recorder"

timeout 120 "$HINDSIGHT" run --record=$recorder -o "$T_DIR/rec" -- "$prog" $mode >run.out 2>run.err
expect_eq "exit status" "$?" 139
show run.err
c=$(head -1 run.out)
[ -n "$c" ] || fail "the program printed no address"
field=$(printf '0x%x' $((c + 8)))
expect run.err "      from $field (8 bytes), c->out"
expect_not run.err "there when the recording started"
expect run.err "  which $call gave, zero-filled by the kernel, no instruction changed it since:"
n=$(sed -nE 's/^The faulting instruction, number ([0-9]+) of thread .*/\1/p' run.err)
d=$(grep -A1 "  which $call gave" run.err | sed -nE 's/.*the system call at .*, ([0-9,]+) instructions? before the crash,?$/\1/p' | tr -d ,)
[ -n "$n" ] && [ -n "$d" ] || { fail "no crash position or no distance to the system call"; finish; }
p=$((n - d))
echo "crash at $n, the system call at $p"

# `replay`'s `last` says the same of the pointer, at the same position
timeout 120 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex "last *(long *)$field" >last.out 2>&1
show last.out
expect last.out "No earlier write to 8 bytes at $field in the recording: they held 0 since $call gave them, zero-filled by the kernel, $d instructions back (the system call: thread 1, position $p)."

server_start --replay "$T_DIR/rec" || finish
gdb_run gdb.out \
    -ex "monitor goto $p" -ex 'maintenance flush register-cache' \
    -ex 'echo ==insn\n' -ex 'x/i $pc' -ex 'p $rax' -ex 'p/x $rsi' -ex "x/gx $field" \
    -ex "monitor goto $((p + 1))" -ex 'maintenance flush register-cache' \
    -ex 'echo ==after\n' -ex 'p/x $rax' -ex "x/gx $field" \
    -ex "monitor goto $n" -ex 'maintenance flush register-cache' \
    -ex 'echo ==watch\n' -ex "watch -l *(long *)$field" -ex 'reverse-continue' \
    -ex 'echo ==done\n' "$prog"
show gdb.out
section() { sed -n "/^==$1\$/,/^==/p" gdb.out; }
section insn | grep -qE '^(=>)? +0x[0-9a-f]+ <[_a-zA-Z0-9]+\+[0-9]+>:[[:space:]]+syscall *$' ||
    fail "the instruction at $p is not a syscall"
section insn | grep -q "^\$1 = $nr\$" || fail "rax at the syscall is not $call's number $nr"
ret=$(section after | sed -nE 's/^\$3 = (0x[0-9a-f]+)$/\1/p')
len=$(section insn | sed -nE 's/^\$2 = (0x[0-9a-f]+)$/\1/p')
[ -n "$ret" ] || fail "no result of the syscall"
if [ -n "$ret" ] && [ "$call" = brk ]; then
    # the new break: the struct is below it
    [ $((c + 16)) -le $((ret)) ] || fail "brk's new break $ret is below the struct's end"
elif [ -n "$ret" ]; then
    [ $((ret)) -le $((field)) ] && [ $((field + 8)) -le $((ret + len)) ] ||
        fail "mmap's [$ret, +$len) does not hold $field"
fi
section insn | grep -q "Cannot access memory at address $field" ||
    fail "before the syscall the pointer's memory was already there"
section after | grep -qE "^$field:[[:space:]]+0x0+\$" || fail "after the syscall the pointer is not 0"
section watch | grep -q "^No more reverse-execution history" || fail "a write to the pointer before the crash"
finish
