#!/usr/bin/env bash
# t_bad_program: a program that does not exist, or is not executable, gives a
# clear message naming it and a non-zero exit, quickly and without listening.
# So does a recording directory that cannot be made (`serve -o`): the started
# program is killed, an attached one let go, running and untraced. A
# program its user may run but not read, and a disk full from the start,
# are said as such by `record`.
. "$(dirname "$0")/lib.sh"

missing=$T_DIR/no-such-program
noexec=$T_DIR/not-executable
printf 'int x;\n' >"$noexec"
chmod 644 "$noexec"

for prog in "$missing" "$noexec"; do
    server_cmd 127.0.0.1:0 "$prog" || finish
    err=$T_DIR/$(basename "$prog").err
    timeout -k 2 10 "${SERVER_CMD[@]}" </dev/null >"$err" 2>&1
    rc=$?
    show "$err"
    [ "$rc" -eq 124 ] && fail "$prog: server still running after 10s"
    [ "$rc" -ne 0 ] || fail "$prog: exit status 0"
    expect "$err" "$prog"
    expect_not "$err" "Listening on port"
done
expect "$T_DIR/no-such-program.err" "No such file or directory"
expect "$T_DIR/not-executable.err" "Permission denied"

if ! is_gdbserver; then
    basic=$(build_prog basic) || finish
    loop=$(build_prog loop) || finish
    timeout -k 2 10 "$HINDSIGHT" serve --once -o /dev/null/x 127.0.0.1:0 "$basic" 1 2 \
        </dev/null >"$T_DIR/o.err" 2>&1
    expect_eq "exit status of serve -o /dev/null/x" "$?" 1
    show "$T_DIR/o.err"
    expect "$T_DIR/o.err" "cannot record in /dev/null/x: Not a directory"
    expect_not "$T_DIR/o.err" "Listening on port"
    "$loop" >/dev/null 2>&1 &
    lpid=$!
    track_pid "$lpid"
    sleep 0.2
    timeout -k 2 10 "$HINDSIGHT" serve --once -o /dev/null/x --attach "$lpid" 127.0.0.1:0 \
        </dev/null >"$T_DIR/a.err" 2>&1
    expect_eq "exit status of serve --attach -o /dev/null/x" "$?" 1
    show "$T_DIR/a.err"
    expect "$T_DIR/a.err" "Cannot attach to process $lpid: cannot record in /dev/null/x"
    sleep 0.2
    expect_re "/proc/$lpid/status" "^TracerPid:[[:space:]]+0$"
    expect_re "/proc/$lpid/status" "^State:[[:space:]]+[RS]"
    # The recorder that cannot serve a live program is refused before
    # anything starts, saying why and what to do (the recorder interface's
    # words); the attached process is not touched.
    for m in pt; do
        timeout -k 2 10 "$HINDSIGHT" serve --once --record "$m" 127.0.0.1:0 "$basic" 1 2 \
            </dev/null >"$T_DIR/r-$m.err" 2>&1
        expect_eq "exit status of serve --record $m" "$?" 1
        show "$T_DIR/r-$m.err"
        expect "$T_DIR/r-$m.err" "hindsight serve: "
        expect "$T_DIR/r-$m.err" "serve with --record=sw"
        expect "$T_DIR/r-$m.err" "--record=$m\` and serve the bundle with \`serve --replay\`"
        expect_not "$T_DIR/r-$m.err" "Listening on port"
        expect_not "$T_DIR/r-$m.err" "Cannot exec"
    done
    timeout -k 2 10 "$HINDSIGHT" serve --once --record valgrind --attach "$lpid" 127.0.0.1:0 \
        </dev/null >"$T_DIR/ra.err" 2>&1
    expect_eq "exit status of serve --record valgrind --attach" "$?" 1
    expect "$T_DIR/ra.err" "cannot attach to a running one"
    expect_re "/proc/$lpid/status" "^TracerPid:[[:space:]]+0$"
    timeout -k 2 10 "$HINDSIGHT" serve --once --record bogus 127.0.0.1:0 "$basic" \
        </dev/null >"$T_DIR/rb.err" 2>&1
    expect_eq "exit status of serve --record bogus (a usage error)" "$?" 2
    expect "$T_DIR/rb.err" "--record wants auto, sw, on-request, pt or valgrind, not 'bogus'"

    # A program its user may execute but not read (mode 111): the kernel
    # lets no one but root read its memory, so it cannot be recorded; the
    # message says that, not that the recording's directory is at fault
    # (it said "cannot record in DIR: Permission denied"). Run as nobody.
    if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
        nodir=$(mktemp -d /tmp/hindsight-nobody.XXXXXX)
        chmod 755 "$nodir" && cp "$basic" "$nodir/secret" && chmod 111 "$nodir/secret" &&
            chown nobody "$nodir"
        su nobody -s /bin/sh -c "cd '$nodir' && timeout 60 '$HINDSIGHT' record --record=sw -o rec -- ./secret 1 2" \
            </dev/null >"$T_DIR/secret.err" 2>&1
        expect_eq "exit status of record of an unreadable program" "$?" 1
        show "$T_DIR/secret.err"
        expect_re "$T_DIR/secret.err" "^hindsight: cannot record process [0-9]+: cannot read its memory \(a program you may not read cannot be recorded\): Permission denied\$"
        expect_not "$T_DIR/secret.err" "cannot record in"
        rm -rf "$nodir"
    fi
    # A disk full from the start: said as such (it was "Input/output
    # error", from the vDSO's copy).
    small=$T_DIR/small
    mkdir -p "$small"
    if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=64k tmpfs "$small" 2>/dev/null; then
        dd if=/dev/zero of="$small/fill" bs=4k count=64 2>/dev/null
        timeout 60 "$HINDSIGHT" record --record=sw -o "$small/rec" -- "$basic" 1 2 \
            </dev/null >"$T_DIR/full.err" 2>&1
        expect_eq "exit status of record on a full disk" "$?" 1
        show "$T_DIR/full.err"
        expect "$T_DIR/full.err" "No space left on device"
        expect_not "$T_DIR/full.err" "Input/output error"
        umount -l "$small"
    fi
fi
finish
