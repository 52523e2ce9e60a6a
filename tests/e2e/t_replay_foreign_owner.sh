#!/usr/bin/env bash
# t_replay_foreign_owner: `serve --replay`, run as root, of a recording
# owned by another user (nobody) gives the debugger nothing that user could
# not read. The recording names its files: a mapping whose file is a
# root-only file, or a thread's trace that is a link to one, showed its
# bytes to GDB (x/s; qXfer:btrace:read). Every file opened for the
# recording now passes the check vFile applies (readable by all, or the
# owner's own and readable by it, on a path it may search).
#  - a mapping of a 0600 root file: x/s is refused and its bytes appear
#    nowhere; a mapping of a 0644 file beside it is read (the check is about
#    the owner, and x/s would have shown the other one);
#  - threads/TID.pt a link to the root-only file: the recording is refused
#    (Permission denied), and no reply carries its bytes.
. "$(dirname "$0")/lib.sh"
hindsight_only "replays recordings"
[ "$(id -u)" = 0 ] || skip "needs root (serves another user's recording)"
id nobody >/dev/null 2>&1 || skip "no user nobody"

# A directory every user may search, as a recording's usually is (the
# run's own is root's, 0700).
W=$(mktemp -d /tmp/hindsight-owner.XXXXXX) || finish
chmod 755 "$W"
trap 'rm -rf "$W"; e2e_cleanup' EXIT
cd "$W" || finish

cp "$(build_prog basic)" "$W/basic" || finish
timeout 120 "$HINDSIGHT" record --record=sw -o rec -- "$W/basic" >rec.out 2>&1 ||
    { show rec.out; fail "record"; finish; }
secret="HSSECRET-$(rand_int 10000 99999)-root-only"
public="HSPUBLIC-$(rand_int 10000 99999)-for-all"
printf '%s\n' "$secret" >secret
chmod 600 secret
printf '%s\n' "$public" >public
chmod 644 public
# its first 15 bytes as hex: what a reply would carry of it
secret_hex=$(printf '%s' "${secret:0:15}" | od -An -tx1 | tr -d ' \n')

# evil: rec with the two files mapped at 0x10000000 and 0x10001000.
cp -r rec evil
python3 - "$W" <<'EOF' || fail "cannot edit evil/trace.json"
import json, sys
w = sys.argv[1]
d = json.load(open("evil/trace.json"))
for addr, name in (("0x10000000", "secret"), ("0x10001000", "public")):
    d["hindsight"]["mappings"].append({"timeMap": 0, "start": addr, "size": 4096,
                                       "offset": 0, "file": f"{w}/{name}",
                                       "systemPath": f"{w}/{name}"})
json.dump(d, open("evil/trace.json", "w"), indent=1)
EOF
# evil2: its trace a link to the secret.
cp -r rec evil2
pt=$(ls evil2/threads/*.pt)
ln -sf "$W/secret" "$pt"
chown -R nobody evil evil2
chown -h nobody "$pt"

server_start --replay evil || finish
gdb_run "$T_DIR/evil.gdb" -ex 'x/s 0x10000000' -ex 'x/s 0x10001000' -ex 'p $pc' "$W/basic"
kill "$SERVER_PID" 2>/dev/null
wait_gone "$SERVER_PID" 10
show "$T_DIR/evil.gdb"
expect "$T_DIR/evil.gdb" "Cannot access memory at address 0x10000000"
expect "$T_DIR/evil.gdb" "0x10001000:	\"$public\\n\""
expect_re "$T_DIR/evil.gdb" '^\$1 = \(void \(\*\)\(\)\) 0x[0-9a-f]+ <(__GI_)?_exit\+[0-9]+>$'
expect_not "$T_DIR/evil.gdb" "$secret"
expect_not "$T_DIR/server.err" "$secret"

# evil2: refused when opened; if it ever serves, no reply holds the bytes.
timeout 20 "$HINDSIGHT" serve --once --replay evil2 127.0.0.1:0 >evil2.out 2>evil2.err &
pid=$!
track_pid "$pid"
for ((i = 0; i < 100; i++)); do
    grep -q 'Listening on port' evil2.err && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
done
port=$(sed -n 's/.*Listening on port \([0-9]*\).*/\1/p' evil2.err)
if [ -n "$port" ]; then
    fail "serve --replay evil2 serves a trace that is a link to a root-only file"
    python3 "$E2E_DIR/tools/rsp_client.py" "$port" \
        'send:qSupported:multiprocess+;vContSupported+' 'send:Qbtrace:pt' \
        'send:qXfer:btrace:read:all:0,fff' >evil2.rsp 2>&1
    show evil2.rsp
    # the bytes, or their hex (qXfer:btrace's <raw>, cut into lines)
    python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.exit(sys.argv[2].encode() in d or sys.argv[3].encode() in b"".join(d.split()))' \
        evil2.rsp "$secret" "$secret_hex" || fail "qXfer:btrace:read sent the root-only file"
fi
wait_gone "$pid" 10
show evil2.err
expect_re evil2.err '^Cannot replay evil2: .*Permission denied$'
expect_not evil2.err "$secret"
finish
