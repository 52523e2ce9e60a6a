#!/usr/bin/env bash
# t_recording_private: a recording holds the program's memory and
# environment; like a core dump it is its owner's alone, whatever the umask:
# every directory 0700, every file 0600 (they were 0755 / 0644), for every
# writer: record (software, with --snapshot's rewritten files too; Valgrind,
# its log included), run, serve -o, import of a perf.data, of an LLDB bundle
# and of a raw stream. The recorded program keeps its own umask: it prints
# 0022 recorded as it does natively.
. "$(dirname "$0")/lib.sh"
hindsight_only "writes recordings"
cd "$T_DIR" || finish
umask 022

# private DIR: every directory of DIR 0700, every file 0600 (stat).
private()
{
    local dir=$1 bad
    [ -d "$dir" ] || { fail "$dir: no recording"; return; }
    [ -f "$dir/trace.json" ] || fail "$dir: no trace.json"
    bad=$(find "$dir" \( -type d ! -perm 0700 \) -o \( -type f ! -perm 0600 \) |
          xargs -r stat -c '%A %n')
    [ -z "$bad" ] || { fail "$dir: not private to its owner"; echo "$bad"; }
}

prog=$(build_prog crash_kinds) || finish
nolibc=$(build_prog nolibc -O1 -static -nostdlib -fno-stack-protector -fno-builtin -fno-pie -no-pie) ||
    finish
"$nolibc" >/dev/null
want=$?
n=$(rand_int 5 30)
vg=sw
command -v valgrind >/dev/null && vg=valgrind

# The software recorder single-steps: a program without libc keeps it short.
timeout 120 "$HINDSIGHT" record --record=sw -o sw -- "$nolibc" >sw.out 2>&1
expect_eq "exit status, software recorder" "$?" "$want"
private sw

if [ "$vg" = valgrind ]; then
    timeout 120 "$HINDSIGHT" record --record=valgrind -o vg -- "$prog" exit "$n" >vg.out 2>&1
    expect_eq "exit status, Valgrind recorder" "$?" "$n"
    [ -f vg/valgrind.log ] || fail "no vg/valgrind.log"
    private vg
fi

# --snapshot rewrites each thread's files from a cut at the end.
timeout 120 "$HINDSIGHT" record --record="$vg" --snapshot 16K -o snap -- "$prog" exit "$n" \
    >snap.out 2>&1
expect_eq "exit status, --snapshot" "$?" "$n"
private snap

timeout 120 "$HINDSIGHT" run --record="$vg" -o run -- "$prog" segv >run.out 2>&1
[ -d run ] || show run.out
private run

# serve -o: GDB runs the program, the recording stays.
server_start -o "$T_DIR/served" "$nolibc" || finish
gdb_run served.gdb -ex 'continue' "$nolibc"
kill "$SERVER_PID" 2>/dev/null
wait_gone "$SERVER_PID" 10
private served

# The program's umask is its own.
native=$(/bin/sh -c umask)
timeout 120 "$HINDSIGHT" record --record="$vg" -o sh -- /bin/sh -c umask >sh.out 2>&1
expect_eq "umask of the recorded program" "$(head -1 sh.out)" "$native"
expect_eq "umask of the test" "$native" 0022

# Imports.
H=$SHARED_DIR/ptdata/hase/skl-20180404-loopy
if [ -r "$H/loopy-20180404T162955.perf" ]; then
    "$HINDSIGHT" import -o perf --image-dir "$H" "$H/loopy-20180404T162955.perf" \
        >perf.out 2>&1 || { fail "import of a perf.data"; show perf.out; }
    private perf
fi
L=$SHARED_DIR/ptdata/lldb/intelpt-trace
if [ -r "$L/trace.json" ]; then
    "$HINDSIGHT" import -o lldb "$L" >lldb.out 2>&1 || { fail "import of an LLDB bundle"; show lldb.out; }
    private lldb
fi
D=$SHARED_DIR/ptdata/dynamorio/test_simple
if [ -r "$D/pt.bin" ]; then
    "$HINDSIGHT" import -o raw --raw "$D/pt.bin" --cpu 6/85/4 --mtc-freq 3 --nom-freq 37 \
        --cpuid-0x15.eax 2 --cpuid-0x15.ebx 308 --elf "$D/hello" >raw.out 2>&1 ||
        { fail "import of a raw stream"; show raw.out; }
    private raw
fi
finish
