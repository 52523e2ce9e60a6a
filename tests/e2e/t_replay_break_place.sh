#!/usr/bin/env bash
# t_replay_break_place: `break FUNC` and `break *EXPR` of `hindsight replay`
# go where GDB 13 natively puts them, and hit as often. The program
# (tests/programs/breakplace.c, breakplace_b.c at -O0, breakplace_opt.c at
# -O2 -fno-omit-frame-pointer, linked -no-pie) has each kind GDB places
# differently: a one-line -O0 function with arguments (add: after the
# prologue has stored them), a longer -O0 one (count), a static function
# of one name in two files (helper: two locations), a function inlined
# twice (sq: its inlined instances), -O2 functions in a unit with location
# lists (opt_sum, opt_squares, and opt_call, whose push %rbp; mov %rsp,%rbp
# GDB does not skip there), main, and libc's free, malloc, write and exit
# (libc's entry; ld.so's inlined copies of free and malloc: tens of
# locations), and dl_scale in a library the program loads with dlopen
# (breakplace_dl.c). Recorded in software (the program runs natively).
#
# 1. Addresses: GDB natively, stopped at write (every library loaded), and the
#    front end over the recording each answer `break` for every name and
#    for *free, *free+4, *(&add)+4, *add+4, *0xADDR; both `info
#    breakpoints` are reduced to one line a location (breakpoint number,
#    then the address: the program's as it is, a library's as
#    name+offset from its .text start in `info sharedlibrary`), and must
#    be equal.
# 2. Hits: the same breakpoints set before the program starts (GDB's
#    pending ones resolve as libraries load: libc, then libbpdl.so), each told to ignore 100000
#    crossings, the program run to its end (the front end: goto begin,
#    continue): every breakpoint's "already hit N times" must be equal
#    (free counts its free(NULL) calls, malloc and free ld.so's own).
# 3. At add's second hit, `info args` shows a = 5, b = 7 in both.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay"
"$HINDSIGHT" record --help >/dev/null 2>&1 || skip "no hindsight record"

cd "$T_DIR" || finish
(cd "$PROG_SRC" &&
    cc -g -O0 -no-pie -c breakplace.c -o "$T_DIR/a.o" &&
    cc -g -O0 -no-pie -c breakplace_b.c -o "$T_DIR/b.o" &&
    cc -g -O2 -fno-omit-frame-pointer -c breakplace_opt.c -o "$T_DIR/o.o" &&
    cc -g -O0 -fPIC -shared breakplace_dl.c -o "$T_DIR/libbpdl.so") \
    >cc.out 2>&1 && cc -no-pie -o prog a.o b.o o.o -ldl >>cc.out 2>&1 ||
    { show cc.out; fail "cannot build breakplace"; finish; }

lib=$T_DIR/libbpdl.so
timeout 120 "$HINDSIGHT" record --record=sw -o rec -- ./prog "$lib" >rec.out 2>rec.err
expect_eq "exit status of the recorded program" "$?" 0
expect rec.out "done"

names=(free malloc write exit add count helper sq opt_sum opt_squares opt_call main dl_scale)
exprs=('*free' '*free+4' '*(&add)+4' '*add+4')
add_at=$(nm prog | awk '$3 == "add" { print "0x" $1 }')
[ -n "$add_at" ] || { fail "no add in nm prog"; finish; }
exprs+=("*$((add_at + 4))")

native()
{
    timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx -iex 'set debuginfod enabled off' \
        -ex 'set confirm off' -ex 'set pagination off' -ex 'set width 0' \
        -ex 'set breakpoint pending on' -ex 'unset environment LINES' \
        -ex 'unset environment COLUMNS' -ex "set args $lib" "$@" ./prog </dev/null 2>&1
}

# locations FILE: "N ADDR" a location of `info breakpoints` (N.M as N),
# each address as the program's or as LIB+OFFSET from its .text start.
locations()
{
    local -a from=() lib=()
    local n a f l i best off
    while read -r f _ _ l; do
        from+=("$f")
        lib+=("$(basename "$l")")
    done < <(grep -E '^0x[0-9a-f]+ +0x[0-9a-f]+ +Yes' "$1")
    grep -E '^[0-9]+(\.[0-9]+)? .*0x[0-9a-f]{16}' "$1" |
        sed -E 's/^([0-9]+)[. 0-9]* .*(0x[0-9a-f]{16}).*/\1 \2/' |
        while read -r n a; do
            best=
            for i in "${!from[@]}"; do
                if ((a >= from[i])) && { [ -z "$best" ] || ((from[i] > from[best])); }; then
                    best=$i
                fi
            done
            if [ -n "$best" ] && ((a - from[best] < 0x10000000)); then
                off=$((a - from[best]))
                printf '%s %s+0x%x\n' "$n" "${lib[best]}" "$off"
            else
                printf '%s %s\n' "$n" "$a"
            fi
        done | sort -u
}

# 1. addresses
g=(-ex 'break write' -ex run -ex 'delete')
f=(-ex 'break main' -ex 'delete')   # the same numbers
for n in "${names[@]}" "${exprs[@]}"; do
    g+=(-ex "break $n")
    f+=(-ex "break $n")
done
g+=(-ex 'info breakpoints' -ex 'info sharedlibrary')
f+=(-ex 'info breakpoints' -ex 'info sharedlibrary')
native "${g[@]}" >gdb1.out
timeout 120 "$HINDSIGHT" replay rec --batch "${f[@]}" >hs1.out 2>hs1.err
expect_eq "exit status of replay" "$?" 0
locations gdb1.out >gdb1.loc
locations hs1.out >hs1.loc
expect_eq "locations GDB gives" "$(wc -l <gdb1.loc)" "$(wc -l <hs1.loc)"
if ! diff gdb1.loc hs1.loc >loc.diff; then
    fail "break places differ from GDB's (< GDB, > hindsight)"
    show loc.diff gdb1.out hs1.out hs1.err
fi
# every name has a place; free has libc's and ld.so's
[ "$(wc -l <gdb1.loc)" -gt 30 ] || fail "GDB gave only $(wc -l <gdb1.loc) locations"
# GDB's words for a breakpoint of several locations
for n in free malloc helper sq; do
    want=$(grep -E "^Breakpoint [0-9]+ at 0x[0-9a-f]+: $n\. \([0-9]+ locations\)$" gdb1.out |
           sed 's/ at 0x[0-9a-f]*//')
    [ -n "$want" ] || fail "GDB gave one location for $n"
    expect hs1.out "${want%%:*} at 0x"
    expect hs1.out "${want#*:}"
done
expect_not hs1.err "Malformed location"

# 2. hits over the whole run
g=() f=()
k=0
for n in "${names[@]}"; do
    k=$((k + 1))
    g+=(-ex "break $n" -ex "ignore $k 100000")
    f+=(-ex "break $n" -ex "ignore $k 100000")
done
native "${g[@]}" -ex run -ex 'info breakpoints' >gdb2.out
timeout 120 "$HINDSIGHT" replay rec --batch "${f[@]}" -ex 'goto begin' -ex continue \
    -ex 'info breakpoints' >hs2.out 2>hs2.err
hits()
{
    awk '/^[0-9]+ +breakpoint/ { n = $1 } /already hit/ { print n, $4 }' "$1"
}
hits gdb2.out >gdb2.hits
hits hs2.out >hs2.hits
expect_eq "breakpoints GDB counted hits of" "$(wc -l <gdb2.hits)" "${#names[@]}"
if ! diff gdb2.hits hs2.hits >hits.diff; then
    fail "hit counts differ from GDB's (< GDB, > hindsight; numbers: ${names[*]})"
    show hits.diff gdb2.out hs2.out hs2.err
fi
echo "hits (${names[*]}):"
cat gdb2.hits

# 3. the arguments at add's second call
native -ex 'break add' -ex run -ex continue -ex 'info args' >gdb3.out
timeout 120 "$HINDSIGHT" replay rec --batch -ex 'break add' -ex 'goto begin' -ex continue \
    -ex continue -ex 'info args' >hs3.out 2>hs3.err
for want in 'a = 5' 'b = 7'; do
    expect gdb3.out "$want"
    expect hs3.out "$want"
done
finish
