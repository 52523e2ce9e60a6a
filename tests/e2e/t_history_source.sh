#!/usr/bin/env bash
# t_history_source: a software recording's history speaks the program's
# language. An -O2 program whose helpers are inlined (built -no-pie, so its
# runtime addresses are its file addresses) is recorded; then, for addresses
# it executed in main, `history --json` gives exactly what
# `addr2line -f -i -e PROG ADDR` says (function, file:line, and the inlined
# functions innermost first), `history /s` interleaves the source text, and
# `calls /l` gives line ranges.
. "$(dirname "$0")/lib.sh"
hindsight_only "records programs"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

src=$(dirname "$0")/../programs/inline.c
prog=$T_DIR/inline
cc -O2 -g -no-pie "$src" -o "$prog" || { fail "cannot build inline.c"; finish; }
N=$(rand_int 5 40)
"$HINDSIGHT" record -o "$T_DIR/rec" -- "$prog" "$N" >"$T_DIR/record.out" 2>&1
expect "$T_DIR/record.out" "recording in $T_DIR/rec"

"$HINDSIGHT" history "$T_DIR/rec" 1,100000000 --json >"$T_DIR/h.json"
grep '"function":"main"' "$T_DIR/h.json" >"$T_DIR/main.json"
[ -s "$T_DIR/main.json" ] || { fail "no instruction of main in the history"; finish; }

# Every 7th instruction of main against addr2line.
checked=0
while read -r line; do
    addr=$(echo "$line" | sed -n 's/.*"addr":"\(0x[0-9a-f]*\)".*/\1/p')
    mapfile -t a2l < <(addr2line -f -i -e "$prog" "$addr")
    # addr2line: function, file:line pairs, innermost first; the last pair
    # is the real function.
    n=$((${#a2l[@]} / 2))
    want_fn=${a2l[$((2 * n - 2))]}
    want_loc=${a2l[1]%% (discriminator*}
    want_inl=""
    for ((k = 0; k < n - 1; k++)); do
        want_inl+="${want_inl:+,}\"${a2l[$((2 * k))]}\""
    done
    echo "$line" | grep -qF "\"function\":\"$want_fn\"" || fail "$addr: function, want $want_fn: $line"
    echo "$line" | grep -qF "\"file\":\"${want_loc%:*}\",\"line\":${want_loc##*:}" ||
        fail "$addr: file:line, want $want_loc: $line"
    if [ -n "$want_inl" ]; then
        echo "$line" | grep -qF "\"inlined\":[$want_inl]" || fail "$addr: inlined, want [$want_inl]: $line"
    else
        echo "$line" | grep -q '"inlined"' && fail "$addr: no inlined frames expected: $line"
    fi
    checked=$((checked + 1))
done < <(awk 'NR % 7 == 1' "$T_DIR/main.json")
echo "checked $checked addresses of main against addr2line"
grep -q '"inlined":\["inl_twice","inl_mix"\]' "$T_DIR/main.json" ||
    fail "no instruction of inl_twice inlined into inl_mix inlined into main"

# /s: the source text of the loop line, under its file:line header.
L=$(line_of inline.c loop)
first=$(grep -m1 "\"line\":$L," "$T_DIR/main.json" | sed -n 's/^{"index":\([0-9]*\),.*/\1/p')
if [ -n "$first" ]; then
    "$HINDSIGHT" history "$T_DIR/rec" "$first,$((first + 3))" /s >"$T_DIR/s.txt"
    expect_re "$T_DIR/s.txt" "^.*inline\.c:$L	 *acc \+= inl_mix\(i \* n\); /\* LINE:loop \*/\$"
else
    fail "no instruction at inline.c:$L"
fi

# calls /l: main's segments carry inline.c line ranges.
"$HINDSIGHT" calls "$T_DIR/rec" 1,100000 /l >"$T_DIR/calls.txt"
expect_re "$T_DIR/calls.txt" "	main	at .*inline\.c:[0-9]+(,[0-9]+)?\$"
finish
