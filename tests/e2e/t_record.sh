#!/usr/bin/env bash
# t_record: `hindsight record` from the command line: the program's output and
# exit status pass through (128 + N when signal N kills it), the messages
# (software fallback, where the bundle is, the summary), the bundle's files,
# -o and the default directory name, --record=pt failing without a PT PMU,
# the hardware recorder's options (--snapshot, --aux-size), bad options, a
# missing program, and --attach to a running process.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight record"

exitcode=$(build_prog exitcode) || finish
crash=$(build_prog crash) || finish
loop=$(build_prog loop) || finish
cd "$T_DIR" || finish

# A program's exit status and the summary.
timeout 120 "$HINDSIGHT" record -o "$T_DIR/ec" -- "$exitcode" >ec.out 2>ec.err
expect_eq "exit status of exitcode" "$?" 7
show ec.err
# auto without Intel PT: Valgrind's light recorder where it and hindsight's
# tool are installed (the history rebuilt from the run's inputs when first
# needed: here, by `hindsight rebuild`), else single steps; either way it
# says why.
auto=sw
[ -x "$(dirname "$HINDSIGHT")/vgtool/hsrec-amd64-linux" ] && command -v valgrind >/dev/null &&
    auto=light
auto_says() { [ "$auto" = light ] && echo "recording the program's inputs with Valgrind" || echo "recording in software"; }
summary=ec.err
if [ "$auto" = light ]; then
    expect_re ec.err "^hindsight: recording in $T_DIR/ec: the run's inputs, [0-9]+ bytes"
    [ -e "$T_DIR/ec/trace.json" ] && fail "auto: the light recording was rebuilt before it was needed"
    timeout 120 "$HINDSIGHT" rebuild "$T_DIR/ec" >ec.rebuild 2>&1
    expect_eq "exit status of rebuild" "$?" 0
    summary=ec.rebuild
    expect ec.rebuild "hindsight: rebuilding the history in $T_DIR/ec"
    expect_not ec.rebuild "recording in"
else
    expect "$summary" "hindsight: recording in $T_DIR/ec"
fi
expect_re "$summary" "^hindsight: [0-9]+ instructions, 1 thread, 0 gaps, [0-9]+ bytes of trace \([0-9.]+ B/insn\), [0-9]+ bytes of state \([0-9.]+ B/insn\): [0-9.]+ bytes per instruction in all$"
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
    expect ec.err "Intel PT is not available here"
    expect ec.err "$(auto_says)"
    expect "$T_DIR/ec/trace.json" "\"recorder\": \"${auto/light/valgrind}\""
fi
[ -s "$T_DIR/ec/trace.json" ] || fail "no trace.json"
ls "$T_DIR"/ec/threads/*.pt >/dev/null 2>&1 || fail "no PT stream"
# (Valgrind does not give its program the vDSO.)
[ "$auto" = light ] || ls "$T_DIR"/ec/images/vdso-*.so >/dev/null 2>&1 || fail "no vDSO image"
expect "$T_DIR/ec/trace.json" '"intel-pt"'
expect "$T_DIR/ec/trace.json" "$exitcode"

# A crash: 128 + SIGSEGV, the program's stdout still there.
timeout 120 "$HINDSIGHT" record -o "$T_DIR/crash" -- "$crash" >crash.out 2>crash.err
expect_eq "exit status of crash" "$?" 139
expect crash.out "crash: about to crash"

# The default directory: hindsight-PROG-PID in the current directory.
timeout 120 "$HINDSIGHT" record --record=sw --psb-period 256 --noretcomp -- "$exitcode" 2>def.err
expect_eq "exit status with options" "$?" 7
expect_re def.err "^hindsight: recording in hindsight-exitcode-[0-9]+$"
ls -d hindsight-exitcode-* >/dev/null 2>&1 || fail "no default directory"
expect_not def.err "not available"

# --record=pt without the PMU, bad options, a missing program.
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
    "$HINDSIGHT" record --record=pt -- "$exitcode" 2>pt.err
    expect_eq "exit status of --record=pt" "$?" 1
    expect pt.err "Intel PT is not available here"
fi
# The hardware recorder's options: sizes with K / M / G; wrong ones refused.
"$HINDSIGHT" record --snapshot 12x -- "$exitcode" 2>snap.err
expect_eq "exit status of a bad --snapshot" "$?" 2
expect snap.err "--snapshot wants a size from 4K to 1G"
"$HINDSIGHT" record --aux-size 100 -- "$exitcode" 2>aux.err
expect_eq "exit status of a too small --aux-size" "$?" 2
expect aux.err "--aux-size wants a size"
"$HINDSIGHT" record --help >help.out
expect help.out "--snapshot SIZE"
if [ ! -e /sys/bus/event_source/devices/intel_pt ]; then
    "$HINDSIGHT" record --record=pt --snapshot 64K -- "$exitcode" 2>ptsnap.err
    expect_eq "exit status of --record=pt --snapshot" "$?" 1
    expect ptsnap.err "Intel PT is not available here"
    # auto: a software recorder (--aux-size is for hardware only); of
    # Valgrind's, the full one: the light one's rebuild has no --snapshot.
    timeout 120 "$HINDSIGHT" record -o "$T_DIR/snapsw" --snapshot 1M --aux-size 2M -- "$exitcode" 2>snapsw.err
    expect_eq "exit status of auto with hardware options" "$?" 7
    if [ "$auto" = light ]; then
        expect snapsw.err "recording with Valgrind, every effect (--snapshot wants the full recorder"
    else
        expect snapsw.err "$(auto_says)"
    fi
fi
"$HINDSIGHT" record --record=maybe -- "$exitcode" 2>bad.err
expect_eq "exit status of a bad --record" "$?" 2
expect bad.err "--record wants auto, sw, pt, valgrind or light"
"$HINDSIGHT" record --psb-period x -- "$exitcode" 2>bad2.err
expect_eq "exit status of a bad --psb-period" "$?" 2
"$HINDSIGHT" record -o "$T_DIR/missing" -- "$T_DIR/no-such-program" 2>missing.err
expect_eq "exit status of a missing program" "$?" 1
expect missing.err "No such file or directory"

# --attach: record a running loop for a moment, then Ctrl-C detaches it.
"$loop" >/dev/null 2>&1 &
lpid=$!
track_pid "$lpid"
sleep 0.3
timeout 60 "$HINDSIGHT" record -o "$T_DIR/att" --attach "$lpid" 2>att.err &
rpid=$!
track_pid "$rpid"
sleep 2
kill -INT "$rpid"
wait "$rpid"
expect_eq "exit status of an attached recording" "$?" 0
show att.err
expect att.err "hindsight: recording in $T_DIR/att"
# auto cannot attach with Valgrind: single steps, and it says so.
[ -e /sys/bus/event_source/devices/intel_pt ] ||
    expect att.err "recording in software (single steps: Valgrind cannot attach)"
expect "$T_DIR/att/trace.json" '"detached"'
kill -0 "$lpid" 2>/dev/null || fail "the attached program did not survive the detach"
kill "$lpid" 2>/dev/null
finish
