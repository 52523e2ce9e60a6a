#!/usr/bin/env bash
# t_replay_threads_created: a thread is not listed before it exists, nor
# after it exited.
# tests/programs/threads.c (main starts three workers) recorded in
# software; at main, before any pthread_create, `info threads` of `hindsight
# replay` and of GDB over serve --replay list the main thread alone, as GDB
# run natively does at the same breakpoint (a recording's other threads
# used to be listed at every position). Then forward to the first
# thread_work, in a worker: both list that worker and the main thread,
# the same set, and GDB over serve --replay gets `thread N` of a listed
# thread only.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

prog=$(build_prog threads -pthread) || finish
cd "$T_DIR" || finish

timeout 60 "$HINDSIGHT" record --record=sw -o "$T_DIR/rec" -- "$prog" 7 >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" 0
nthreads=$(grep -c '"tid"' "$T_DIR/rec/trace.json")
[ "$nthreads" -ge 4 ] || fail "the recording has $nthreads threads, not 4"

# tids FILE [SECTION]: the thread ids `info threads` listed in the
# SECTION-th listing (1 or 2), sorted.
tids() {
    awk -v n="${2:-1}" '/Id +Target Id/{k++} k==n && /^[* ] +[0-9]+ +Thread /' "$1" |
        sed -E 's/.*Thread [0-9]+\.([0-9]+).*/\1/' | sort -n | tr '\n' ' '
}

timeout 60 "$HINDSIGHT" replay "$T_DIR/rec" --batch -ex 'break main' -ex 'reverse-continue' \
    -ex 'info threads' -ex 'break thread_work' -ex 'continue' -ex 'info threads' >hs.out 2>&1
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex 'break main' -ex 'run 7' \
    -ex 'info threads' "$prog" </dev/null >native.out 2>&1
server_start --replay "$T_DIR/rec" || finish
gdb_run served.out -ex 'break main' -ex 'reverse-continue' -ex 'info threads' \
    -ex 'break thread_work' -ex 'continue' -ex 'info threads'

native=$(awk '/Id +Target Id/{k++} k==1 && /^[* ] +[0-9]+ +Thread /' native.out | wc -l)
expect_eq "threads GDB lists natively at main" "$native" 1
main_tid=$(tids hs.out 1)
expect_eq "threads replay lists at main" "$(echo $main_tid | wc -w)" 1
expect_eq "threads GDB lists over serve --replay at main" "$(tids served.out 1)" "$main_tid"
worker=$(tids hs.out 2)
[ "$(echo $worker | wc -w)" -ge 2 ] || fail "replay lists $worker at the first thread_work"
case " $worker " in *" ${main_tid% } "*) ;; *) fail "the main thread is not listed at thread_work" ;; esac
expect_eq "threads over serve --replay at the first thread_work" "$(tids served.out 2)" "$worker"
[ "$(echo $worker | wc -w)" -lt "$nthreads" ] ||
    fail "every thread is listed at the first thread_work: $worker"

# Nor after it exited: once main has joined the workers, main alone, as
# GDB natively lists it there (`hindsight replay` lists the workers too,
# said exited); the same from a light recording rebuilt under Valgrind
# (each worker's history ends with its exit syscall).
done_line=$(line_of threads.c threads_done)
timeout 60 gdb -batch -nx -iex 'set debuginfod enabled off' -ex "break threads.c:$done_line" \
    -ex 'run 7' -ex 'info threads' "$prog" </dev/null >native.done 2>&1
native=$(awk '/Id +Target Id/{k++} k==1 && /^[* ] +[0-9]+ +Thread /' native.done | wc -l)
expect_eq "threads GDB lists natively after the joins" "$native" 1
timeout 60 "$HINDSIGHT" record --record=light -o "$T_DIR/light" -- "$prog" 7 >light.out 2>&1
for rec in rec light; do
    timeout 120 "$HINDSIGHT" replay "$T_DIR/$rec" --batch -ex "break threads.c:$done_line" \
        -ex 'reverse-continue' -ex 'info threads' >"hs.done.$rec" 2>&1
    expect "hs.done.$rec" "threads.c:$done_line"
    # (`hindsight replay` still lists them, said exited, to look at.)
    expect_eq "threads replay lists after the joins ($rec)" \
        "$(grep -v '(exited)' "hs.done.$rec" | tids /dev/stdin 1 | wc -w)" 1
    expect_eq "threads replay says exited after the joins ($rec)" \
        "$(grep -c '^  [0-9]* *Thread [0-9.]* (exited) ' "hs.done.$rec")" 3
    server_start --replay "$T_DIR/$rec" || finish
    gdb_run "served.done.$rec" -ex "break threads.c:$done_line" -ex 'reverse-continue' \
        -ex 'info threads'
    expect "served.done.$rec" "threads.c:$done_line"
    expect_eq "threads over serve --replay after the joins ($rec)" \
        "$(tids "served.done.$rec" 1 | wc -w)" 1
done
finish
