#!/usr/bin/env bash
# t_history_exec: function names before and after an exec are each
# program's own. execa runs its library libexeca.so's loop, then execs
# execsym, which runs libexeclib.so's: the loader places each library
# first after itself, at the same address (the light recorder runs both
# under Valgrind, which lays every process out the same way). Every
# `history` line in that range names the function addr2line finds at its
# offset in the library mapped there at that time, an independent source
# (before the symbolizer knew the images by time, execsym's lines named
# execa's functions); `calls` lists both loops' callees by name.
. "$(dirname "$0")/lib.sh"
hindsight_only "reads recordings"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"
command -v addr2line >/dev/null || skip "no addr2line"

libb=$(build_lib execlib) || { fail "cannot build execlib.c"; finish; }
liba=$(compile_cached "$E2E_WORK/bin/libexeca.so" execlib -fPIC -shared -DEXEC_A) ||
    { fail "cannot build execlib.c -DEXEC_A"; finish; }
progb=$(build_prog execsym -Wl,--no-as-needed "$libb") || { fail "cannot build execsym.c"; finish; }
proga=$(compile_cached "$E2E_WORK/bin/execa" execsym -DEXEC_A -Wl,--no-as-needed "$liba") ||
    { fail "cannot build execsym.c -DEXEC_A"; finish; }
rec=$T_DIR/rec
timeout 120 "$HINDSIGHT" record -o "$rec" -- "$proga" "$progb" >"$T_DIR/record.out" 2>&1 ||
    { fail "record failed"; show "$T_DIR/record.out"; finish; }
expect "$T_DIR/record.out" "124750"
expect "$T_DIR/record.out" "499500"
timeout 300 "$HINDSIGHT" history "$rec" 1,100000000 >"$T_DIR/history.txt" 2>"$T_DIR/history.err" ||
    { fail "history failed"; show "$T_DIR/history.err"; finish; }

# Each library's mapping, that the two share addresses, and each history
# line there against addr2line's function at its offset in the library
# mapped at that line's time (a line's time: its position, as the
# history is one thread's and the libraries' times are its positions').
python3 - "$rec/trace.json" "$T_DIR/history.txt" "$liba" "$libb" >"$T_DIR/check.txt" 2>&1 <<'PY'
import json, subprocess, sys
b = json.load(open(sys.argv[1]))
num = lambda v: int(v, 0) if isinstance(v, str) else v
libs = []
for path in sys.argv[3:]:
    name = "/" + path.split("/")[-1]
    ms = [m for m in b["hindsight"]["mappings"] if m["file"].endswith(name)]
    if not ms:
        print("FAIL no mapping of", path); sys.exit(0)
    m = ms[0]
    libs.append((path, num(m["start"]), num(m["size"]), num(m["offset"])))
(pa, sa, na, oa), (pb, sb, nb, ob) = libs
if not (sa < sb + nb and sb < sa + na):
    print("FAIL the two libraries do not share addresses: nothing to prove")
lines = {pa: {}, pb: {}}
order = []
for line in open(sys.argv[2]):
    p = line.split()
    if len(p) < 3 or not p[2].startswith("<"):
        continue
    a = int(p[1].rstrip(":"), 16)
    if p[2].split("+")[0].endswith("@plt"):
        continue           # addr2line knows no PLT entries
    if any(s <= a < s + n for _, s, n, _ in libs):
        order.append((int(p[0]), a, p[2][1:].split("+")[0].rstrip(">:")))
# The first program's lines come before the exec, the second's after: the
# exec is where the second library's first line is.
firstb = min((i for i, a, f in order if f.startswith("execlib_")), default=None)
for i, a, f in order:
    path, s, n, o = (libs[1] if firstb is not None and i >= firstb else libs[0])
    if s <= a < s + n:
        lines[path][a - s + o] = f
bad = 0
for path, seen in lines.items():
    print(path.split("/")[-1], "lines:", len(seen))
    if len(seen) < 5:
        print("FAIL only %d instructions of %s in the history" % (len(seen), path))
        continue
    offs = sorted(seen)
    out = subprocess.run(["addr2line", "-f", "-e", path] + ["0x%x" % x for x in offs],
                         capture_output=True, text=True).stdout.split("\n")
    for k, x in enumerate(offs):
        if out[2 * k] != seen[x]:
            bad += 1
            if bad <= 5:
                print("%s+0x%x: history says %s, addr2line %s" % (path.split("/")[-1], x, seen[x], out[2 * k]))
if bad:
    print("FAIL %d library instructions named wrongly" % bad)
PY
cat "$T_DIR/check.txt"
if grep -q '^FAIL' "$T_DIR/check.txt"; then
    grep '^FAIL' "$T_DIR/check.txt" | sed 's/^FAIL/CHECK FAILED:/'
    T_FAILS=$((T_FAILS + 1))
fi
grep -q 'lines: ' "$T_DIR/check.txt" || fail "the check did not run"

# calls: each loop's callee by name, as often as it was called.
timeout 300 "$HINDSIGHT" calls "$rec" 1,100000000 >"$T_DIR/calls.txt" 2>"$T_DIR/calls.err" ||
    { fail "calls failed"; show "$T_DIR/calls.err"; }
expect_eq "execa_add segments" "$(grep -c '	execa_add$' "$T_DIR/calls.txt")" 500
expect_eq "execlib_add segments" "$(grep -c '	execlib_add$' "$T_DIR/calls.txt")" 1000
finish
