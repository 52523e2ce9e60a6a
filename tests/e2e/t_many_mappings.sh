#!/usr/bin/env bash
# t_many_mappings: a recording whose manifest maps one file 5,000 times (a
# library loaded and unloaded over and over, or a hostile bundle) opens with
# one open file per distinct image: with at most 256 file descriptors,
# `history` and `replay` read it and decode the same history as without the
# extra mappings (they lie where the program never ran). It used to open the
# file once per mapping (20,000 of them: 2.4 GB, then "Too many open files").
# libipt's image takes time quadratic in the sections mapped at once (20,000:
# 7 s a reader), hence 5,000 here.
. "$(dirname "$0")/lib.sh"
hindsight_only "reads hindsight bundles"

cd "$T_DIR" || finish
prog=$(build_prog basic) || finish
timeout 120 "$HINDSIGHT" record --record=sw -o rec -- "$prog" 3 4 >rec.out 2>rec.err
expect_eq "exit status of record" "$?" 0
cp -r rec many
python3 - many/trace.json <<'EOF' || fail "cannot add the mappings"
import json, sys
path = sys.argv[1]
d = json.load(open(path))
maps = d["hindsight"]["mappings"]
first = maps[0]
for i in range(5000):
    m = dict(first)
    m["start"] = hex(0x100000000 + i * 0x10000)
    maps.append(m)
json.dump(d, open(path, "w"))
EOF

(ulimit -n 256; timeout 120 "$HINDSIGHT" history rec 1,200000) >want.out 2>want.err
(ulimit -n 256; timeout 120 "$HINDSIGHT" history many 1,200000) >got.out 2>got.err
expect_eq "exit status of history with 5,000 mappings" "$?" 0
show got.err
expect_not got.err "Too many open files"
n=$(wc -l <want.out)
[ "$n" -gt 1000 ] || fail "the history of the recording has $n lines"
cmp -s want.out got.out || fail "the history differs with the extra mappings ($(diff want.out got.out | head -3))"

(ulimit -n 256; timeout 120 "$HINDSIGHT" replay many --batch -ex 'info record' -ex 'bt') >replay.out 2>&1
expect_eq "exit status of replay with 5,000 mappings" "$?" 0
show replay.out
expect replay.out "gaps: 0 (decoded) + 0 (recorded)"
expect_not replay.out "Too many open files"
finish
