#!/usr/bin/env bash
# t_bad_program: a program that does not exist, or is not executable, gives a
# clear message naming it and a non-zero exit, quickly and without listening.
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
finish
