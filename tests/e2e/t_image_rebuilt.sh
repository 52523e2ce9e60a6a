#!/usr/bin/env bash
# t_image_rebuilt: a recording whose program was rebuilt after it was
# recorded (same path, another build-id). `history`, `replay` and
# `serve --replay` warn that the file is not the recorded build (they used
# to decode its code silently as if it were); given the recorded build
# through --image-dir they use it instead, warn no more, and decode the
# same history as before the rebuild.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"

cd "$T_DIR" || finish
cp "$PROG_SRC/crash_kinds.c" prog.c
cc -g -O0 prog.c -o prog || { fail "cannot compile"; finish; }
n=$(rand_int 5 30)
timeout 120 "$HINDSIGHT" record --record=sw -o rec -- ./prog exit "$n" >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" "$n"
timeout 120 "$HINDSIGHT" history rec 1,300000 >before.out 2>before.err
expect_eq "history before the rebuild" "$?" 0
expect_not before.err "warning"
timeout 120 "$HINDSIGHT" replay rec --batch -ex 'info record' >before_info.out 2>&1
count=$(grep '^instructions: ' before_info.out)
[ -n "$count" ] || fail "no instruction count before the rebuild"
id=$(sed -n '/"file": *"[^"]*\/prog"/,/uuid/s/.*"uuid": *"\([0-9a-f]*\)".*/\1/p' rec/trace.json | head -1)
[ -n "$id" ] || fail "no build-id recorded for prog"

# Rebuilt: other code at the same path.
mkdir -p orig && mv prog orig/prog
cc -g -O2 -DREBUILT=1 prog.c -o prog || { fail "cannot rebuild"; finish; }
warning="hindsight: warning: $T_DIR/prog has another build-id than the recording's ($id), and no copy with it was found: using it, its code may differ"

timeout 120 "$HINDSIGHT" history rec 1,300000 >after.out 2>after.err
show after.err
expect after.err "$warning"
timeout 120 "$HINDSIGHT" replay rec --batch -ex 'info record' >replay.out 2>replay.err
expect replay.err "$warning"
server_start --replay "$T_DIR/rec" || finish
expect "$T_DIR/server.err" "$warning"
kill "$SERVER_PID" 2>/dev/null

# The recorded build, found by name in an image directory: no warning,
# the same history as before.
timeout 120 "$HINDSIGHT" history rec 1,300000 --image-dir orig >found.out 2>found.err
expect_eq "history with --image-dir" "$?" 0
expect_not found.err "warning"
cmp -s before.out found.out || fail "the history with the recorded build found differs from the original"
timeout 120 "$HINDSIGHT" replay rec --image-dir orig --batch -ex 'info record' >found_replay.out 2>found_replay.err
expect_not found_replay.err "warning"
expect found_replay.out "$count"
finish
