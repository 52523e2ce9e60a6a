#!/usr/bin/env bash
# t_gdb_vfile: GDB, with its default sysroot (target:), reads the program,
# ld.so and libc through the stub (host I/O, vFile) and loads their symbols,
# live (recorded or --no-record) and from a recording (serve --replay); and
# it reads nothing else: `remote get` of /etc/shadow, of the stub's own
# /proc/self/environ and of a file beside the program fails with "Permission
# denied" (EACCES) and writes nothing, while `remote get` of the program
# brings its bytes. With --vfile-any the stub serves any file it can read,
# as gdbserver does. (gdbserver serves any file: hindsight only.)
. "$(dirname "$0")/lib.sh"
hindsight_only "gdbserver serves any file through vFile"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

prog=$(build_prog libc) || finish
MSG="vfile-msg-$(rand_int 1000 9999)"
SECRET="vfile-secret-$(rand_int 100000 999999)"
printf '%s\n' "$SECRET" >"$T_DIR/secret.txt"
# In the stub's own environment: /proc/self/environ would give it away.
export HINDSIGHT_E2E_SECRET=$SECRET

# gets NAME: in GETS, the gdb commands that get what must not be read, and
# the program, which must be, into $T_DIR/got-NAME.*.
gets()
{
    GETS=(-ex 'echo ==gets\n'
        -ex "remote get /etc/shadow $T_DIR/got-$1.shadow"
        -ex "remote get /proc/self/environ $T_DIR/got-$1.environ"
        -ex "remote get $T_DIR/secret.txt $T_DIR/got-$1.secret"
        -ex "remote get $prog $T_DIR/got-$1.prog"
        -ex 'echo ==end\n')
}

# check_gets NAME OUT
check_gets()
{
    local n
    n=$(sed -n '/^==gets$/,/^==end$/p' "$2" | grep -c '^Remote I/O error: Permission denied$')
    expect_eq "$1: remote get refused" "$n" 3
    for f in shadow environ secret; do
        [ -e "$T_DIR/got-$1.$f" ] && fail "$1: remote get of the $f wrote $T_DIR/got-$1.$f"
    done
    cmp -s "$prog" "$T_DIR/got-$1.prog" || fail "$1: remote get of the program did not bring its bytes"
    grep -rqF -- "$SECRET" "$T_DIR"/got-"$1".* && fail "$1: the secret came through"
}

# check_symbols NAME OUT: the program's and the libraries' symbols, read
# through the stub.
check_symbols()
{
    expect "$2" "Reading symbols from target:$prog..."
    expect_not "$2" "No debugging symbols found in target:$prog"
    expect "$2" "Breakpoint 1, libc_measure (s=0x"
    expect_re "$2" "^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes.* target:.*/libc\.so\.6\$"
    expect_re "$2" "^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes.* target:.*/ld-linux-x86-64\.so\.2\$"
    expect_re "$2" "^#1  0x[0-9a-f]+ in main \("
    expect_not "$2" "unable to open /proc file"
    expect_not "$2" "Could not load shared library symbols"
}

for mode in recorded no-record; do
    opt=()
    [ "$mode" = no-record ] && opt=(--no-record)
    server_start "${opt[@]}" "$prog" "$MSG" || finish
    out=$T_DIR/gdb-$mode.out
    gets "$mode"
    gdb_run "$out" -ex 'break libc_measure' -ex 'continue' -ex 'bt 2' -ex 'info sharedlibrary' \
        -ex 'info proc' "${GETS[@]}" -ex 'kill'
    show "$out"
    check_symbols "$mode" "$out"
    check_gets "$mode" "$out"
    # GDB's info proc reads the process's own /proc files.
    expect "$out" "exe = '$prog'"
    expect "$out" "cmdline = '$prog $MSG'"
done

rec=$T_DIR/rec
"$HINDSIGHT" record --record=sw -o "$rec" -- "$prog" "$MSG" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $rec"
server_start --replay "$rec" || finish
out=$T_DIR/gdb-replay.out
gets replay
gdb_run "$out" -ex 'break libc_measure' -ex 'reverse-continue' -ex 'bt 2' \
    -ex 'info sharedlibrary' "${GETS[@]}"
show "$out"
check_symbols replay "$out"
check_gets replay "$out"

# A recording of user 4242's naming a file of root's as a module: served
# as 4242 could read it, i.e. not, even after its directory is swapped for
# a link to root's / once the stub has opened it (the owner is taken at the
# opening, not looked up again at GDB's request). The recording sits where
# 4242 may read it (the run's directory is root's, 0700: serve --replay
# reads no file of a recording its owner could not, t_replay_foreign_owner).
if [ "$(id -u)" = 0 ]; then
    UW=$(mktemp -d /tmp/hindsight-vfile.XXXXXX) || finish
    chmod 755 "$UW"
    trap 'rm -rf "$UW"; e2e_cleanup' EXIT
    urec=$UW/urec
    cp -r "$rec" "$urec"
    python3 - "$urec/trace.json" "$T_DIR/secret.txt" <<'EOF2' || fail "cannot add the mapping"
import json, sys
d = json.load(open(sys.argv[1]))
d["hindsight"]["mappings"].append({"timeMap": 0, "start": "0x10000", "size": 4096,
    "offset": 0, "file": sys.argv[2], "systemPath": sys.argv[2]})
json.dump(d, open(sys.argv[1], "w"))
EOF2
    chmod 600 "$T_DIR/secret.txt"
    chown -R 4242 "$urec"
    server_start --replay "$urec" || finish
    mv "$urec" "$urec.away" && ln -s / "$urec"
    out=$T_DIR/gdb-owner.out
    gdb_run "$out" -ex "remote get $T_DIR/secret.txt $T_DIR/got-owner.secret"
    show "$out"
    expect "$out" "Remote I/O error: Permission denied"
    [ -e "$T_DIR/got-owner.secret" ] && fail "a recording of user 4242's got root's file served"
    rm -f "$urec"
    chmod 644 "$T_DIR/secret.txt"
fi

# --vfile-any: gdbserver's way, any file the stub can read.
server_start --vfile-any --replay "$rec" || finish
out=$T_DIR/gdb-any.out
gdb_run "$out" -ex "remote get $T_DIR/secret.txt $T_DIR/got-any.secret"
show "$out"
expect_eq "--vfile-any: remote get of a file beside the program" \
    "$(cat "$T_DIR/got-any.secret" 2>/dev/null)" "$SECRET"
finish
