#!/usr/bin/env bash
# t_recording_sums: damage inside a recording's files is found, and shown
# as damage, never as other values (issue 28, "Nothing checks a
# recording's integrity"). churn is recorded with the single-stepper and
# with Valgrind; copies of each get one bit flipped (seeded: E2E_SEED, said
# in the log) at a random place of the trace, the state log or the state
# log's checksums, each copy its own flip. Each damaged copy is either
# refused with an error naming the damage, or:
#   - `history` (a damaged trace) and `replay` warn "FILE is damaged at
#     byte B", B the start of the 64 KiB (at most) block the flip is in;
#   - its history is the intact recording's, cut short: every instruction
#     it lists is the intact one at that position; with a damaged state log
#     it is the intact one whole, and `history` says nothing (it reads no
#     state log: only the commands that do check it);
#   - at sampled positions (random ones, its last, and around where the
#     state log stops being known) every register and memory word
#     `replay` shows is the intact recording's, or said unknown.
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight's own recordings"
cd "$T_DIR" || finish

seed=${E2E_SEED:-$(date +%s%N | cut -c10-15)}
RANDOM=$seed
echo "seed $seed (E2E_SEED=$seed reproduces the flips)"
prog=$(compile_cached "$E2E_WORK/bin/churn_static" churn -static) || finish
N=$(rand_int 200 400)
recorders=(sw)
command -v valgrind >/dev/null && recorders+=(valgrind)

# flip FILE: one random bit of FILE flipped; prints its byte offset.
flip()
{
    local size off bit b
    size=$(stat -c %s "$1")
    off=$(((RANDOM << 15 | RANDOM) % size))
    bit=$((RANDOM % 8))
    b=$(od -An -tu1 -j "$off" -N1 "$1" | tr -d ' ')
    printf "$(printf '\\%03o' $((b ^ (1 << bit))))" |
        dd of="$1" bs=1 seek="$off" conv=notrunc status=none
    echo "$off"
}

replay() { timeout 120 "$HINDSIGHT" replay "$1" --batch "${@:2}"; }

# at P...: the commands that show registers and memory at each position.
at()
{
    local p k
    for p in "$@"; do
        printf 'echo ==%s\\n\ngoto %s\ninfo registers\n' "$p" "$p"
        for k in 0 8 16 24; do echo "x/gx \$sp+$k"; done
        for k in 0 5 11 23 42 63; do echo "x/gx &table[$k]"; done
    done
}

# same_or_unknown INTACT DAMAGED: every value DAMAGED shows after its first
# position mark is INTACT's at the same position, or said unknown.
same_or_unknown()
{
    python3 - "$1" "$2" <<'EOF'
import re, sys
def sections(path):
    out, cur = {}, None
    for line in open(path, errors='replace'):
        line = line.rstrip('\n')
        m = re.match(r'^==(\d+)$', line)
        if m:
            cur = out.setdefault(m.group(1), [])
        elif cur is not None:
            cur.append(line)
    return out
unknown = re.compile(r'<unavailable>|not known|cut short|Cannot access memory|damaged')
intact, damaged = sections(sys.argv[1]), sections(sys.argv[2])
bad = 0
for p, lines in damaged.items():
    ref = intact.get(p, [])
    regs = {l.split()[0]: l for l in ref if re.match(r'^[a-z0-9_]+ {2,}', l)}
    mem = {l.split(':')[0]: l for l in ref if re.match(r'^0x[0-9a-f]+:\t', l)}
    for l in lines:
        if unknown.search(l):
            continue
        if re.match(r'^[a-z0-9_]+ {2,}', l):
            ok = regs.get(l.split()[0]) == l
        elif re.match(r'^0x[0-9a-f]+:\t', l):
            ok = mem.get(l.split(':')[0]) == l
        else:   # a frame whose arguments are unknown is shown without them
            ok = l in ref or (l.startswith('#') and
                              l in [re.sub(r' \(.*\)( at |$)', r' ()\1', r) for r in ref])
        if not ok:
            print(f'position {p}: "{l}" is not the intact recording\'s')
            bad += 1
sys.exit(1 if bad else 0)
EOF
}

for rec in "${recorders[@]}"; do
    timeout 120 "$HINDSIGHT" record --record="$rec" -o "$T_DIR/$rec" -- "$prog" "$N" \
        >"$rec.out" 2>"$rec.err"
    expect_eq "$rec: exit status of the recorded program" "$?" 0
    timeout 120 "$HINDSIGHT" history "$T_DIR/$rec" 1,100000000 >"$rec.hist" 2>"$rec.hist.err"
    expect_not "$rec.hist.err" "warning"
    total=$(grep -cE $'^[0-9]+\t' "$rec.hist")
    all=() outs=()
    for what in pt state state.sum pt state; do
        d=$T_DIR/$rec.$what.$RANDOM
        cp -r "$T_DIR/$rec" "$d"
        file=$(ls "$d"/threads/*."$what")
        off=$(flip "$file")
        name=threads/$(basename "$file" .sum)
        echo "== $rec: threads/*.$what: bit flipped at byte $off"
        timeout 120 "$HINDSIGHT" history "$d" 1,100000000 >d.hist 2>d.err
        rc=$?
        show d.err
        if [ "$what" != pt ]; then
            # The history reads no state log: the intact one's, whole, unwarned.
            expect_eq "$rec: history's exit status with $name damaged" "$rc" 0
            expect_not d.err "damaged"
            cmp -s d.hist "$rec.hist" || fail "$rec: $name damaged changed the history"
        elif [ "$rc" != 0 ]; then
            expect_re d.err "$name is damaged at byte [0-9]+ "
            continue
        fi
        # The warning: from history for the trace, from replay for the state log.
        replay "$d" -ex 'info record' >d.info 2>d.info.err
        rrc=$?
        warned=d.err
        [ "$what" = pt ] || warned=d.info.err
        b=$(sed -n "s|.*warning: .* $name is damaged at byte \([0-9]*\) .*|\1|p" "$warned" | head -1)
        if [ -z "$b" ] && [ "$rrc" != 0 ] && [ "$what" != pt ]; then
            show d.info.err
            expect_re d.info.err "$name is damaged at byte [0-9]+ "
            continue
        fi
        if [ -z "$b" ]; then
            fail "$rec: no warning names the damage of $name"
        else
            case $what in
            pt | state)
                [ "$b" -le "$off" ] && [ "$((off - b))" -lt 65536 ] ||
                    fail "$rec: the damage is said at byte $b, the flip was at $off" ;;
            esac
        fi
        # The history: the intact one's first positions.
        grep -E $'^[0-9]+\t' d.hist >d.insns
        n=$(wc -l <d.insns)
        head -n "$n" "$rec.hist" | grep -E $'^[0-9]+\t' | cmp -s - d.insns ||
            fail "$rec: the damaged history is not the intact one's start"
        [ "$n" -le "$total" ] || fail "$rec: $n instructions, more than the intact $total"
        # Values at sampled positions.
        if [ "$rrc" != 0 ]; then
            show d.info.err
            expect_re d.info.err "$name is damaged at byte $b "
            continue
        fi
        [ -z "$b" ] || expect d.info.err "$name is damaged at byte $b "
        k=$(sed -n 's/.*registers known up to position \([0-9]*\),.*/\1/p' d.info | head -1)
        pos=($(rand_int 1 "$n") $(rand_int 1 "$n") $(rand_int 1 "$n") "$n")
        [ -n "$k" ] && [ "$k" -lt "$n" ] && pos+=($((k > 0 ? k : 1)) $((k + 1)))
        [ "$n" -gt 0 ] || continue
        at "${pos[@]}" >cmds
        replay "$d" -x cmds >"$d.out" 2>&1
        echo "positions ${pos[*]}"
        grep -q '^rax  ' "$d.out" || fail "$rec: no register shown in the damaged copy"
        all+=("${pos[@]}") outs+=("$d.out")
    done
    # The intact recording at every position any copy was read at.
    [ "${#outs[@]}" -gt 0 ] || continue
    at $(printf '%s\n' "${all[@]}" | sort -nu) >cmds
    replay "$T_DIR/$rec" -x cmds >"$rec.at" 2>&1
    for o in "${outs[@]}"; do
        same_or_unknown "$rec.at" "$o" ||
            fail "$rec: $(basename "$o" .out) shows values the intact recording does not"
    done
done
finish
