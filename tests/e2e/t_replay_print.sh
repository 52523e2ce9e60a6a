#!/usr/bin/env bash
# t_replay_print: `hindsight replay` speaks C as GDB does. tests/programs/
# cvars.c (globals of every C kind, a list on the heap, nested block locals,
# recursion, an inlined function, a signal handler, a longjmp) is compiled
# at -O0 and at -O2 and recorded in software. At each of its stop_here_N
# calls, from the last to the first (reverse-continue), the same commands
# run in `hindsight replay --batch` and in GDB over `hindsight serve
# --replay` of the same recording: print of locals, arguments, globals and
# expressions (members, indexing, pointers, casts, arithmetic, @, formats),
# ptype, whatis, info locals, info args in the caller frames (up, frame N).
# Every command's output must be GDB's, line for line (errors too: GDB runs
# the plan through tools/gdb_plan.py, which goes on after an error as
# `hindsight replay -x` does); commands are marked
# with echo, and only what follows the marks of compared commands is
# compared (the moves print the same too, but t_replay_cli checks those).
# Then GDB runs the same plan natively on the live program, stopped at the
# same calls, and every value must be the same but for addresses (native).
. "$(dirname "$0")/lib.sh"
hindsight_only "hindsight replay and serve --replay"

cd "$T_DIR" || finish

# The commands: lines "stop N" (delete, break stop_here_N, reverse-continue:
# the last call of stop_here_N before the current position), "move CMD"
# (run, not compared), anything else a compared command.
cat >plan <<'PLAN'
stop 7
move up
info locals
print jumped
print counts
print counts[3] * 2 + 1
print/x counts
print origin
print origin.x + origin.y
print &origin
print *&origin
ptype origin
whatis origin.x
print sizeof(origin)
print sizeof(struct cheap)
print g_int
print s_counter
print g_str
print *g_str
print g_str[7]
print g_point
print g_points
print g_points[1]
print g_points[1].y
print &g_points[2]
print *g_points@2
print g_word
print/x g_word
print g_color
print g_small
print (enum color)1
print g_matrix
print g_matrix[1]
print g_matrix[1][2]
print g_buf
print g_op
print g_flags
print/x g_flags
print *g_list
print g_list->next->name
print g_list->next->next->value
print *g_second
print g_cheap
print g_cheap.cheapest->name
print g_cheap.label
print g_cheap.inner
print g_typedef_point
print g_cstr
print g_ulong
print g_long
print/x g_long
print g_short
print g_uchar
print g_schar
print g_float
print g_double
print g_ldouble
print g_bool
print g_intp
print *g_intp
print g_voidp
print (struct cheap *)g_voidp
print ((struct cheap *)g_voidp)->weight
print g_cv
print g_int / 5
print g_int % 5
print -g_int
print !g_int
print ~g_int
print g_int > 40 && g_int < 50
print g_int == 42 ? 1 : 2
print (char)g_int
print (long)g_float
print g_float * 2
print g_points + 1
print &g_points[2] - &g_points[0]
print $1
print $
print $$2
print nosuchvar
print 1 +
print g_list->nosuch
print *g_int
print g_int[1]
print g_point.x.y
print (struct nosuch *)0
print 1 / 0
print *(int *)0
ptype struct nosuch
print $nonexistent
print $999
whatis g_op
whatis g_list
whatis g_cstr
ptype g_cstr
ptype g_cheap
ptype struct node
ptype node_t
ptype union word
ptype enum color
ptype g_flags
ptype g_matrix
whatis g_matrix[0]
whatis &g_matrix
ptype int
whatis (char)1
stop 6
move up
info args
info locals
print depth
print here
move up
info args
print here
stop 5
move up
info args
info locals
print sig
print seen
stop 4
move up
info locals
print scaled
print v
stop 3
move up
info args
info locals
print n
print *n
print level
move up
info args
print n->name
print *n->next
print here
frame 3
info args
stop 2
move up
info args
info locals
print *head
print head->next
print head->next->name
print n->value
print origin
print why
print deep
print doubled
print tag
print calls
print total + 1
ptype head
whatis n->name
stop 1
move up
info locals
print origin
print counts
print total
PLAN

# script FILE: the plan as debugger commands, each compared command after
# a mark "==C <command>", each move after "==M".
script()
{
    local line
    while IFS= read -r line; do
        case $line in
        'stop '*)
            printf 'echo ==M\\n\ndelete\nbreak stop_here_%s\nreverse-continue\n' "${line#stop }" ;;
        'move '*)
            printf 'echo ==M\\n\n%s\n' "${line#move }" ;;
        *)
            printf 'echo ==C %s\\n\n%s\n' "$line" "$line" ;;
        esac
    done <plan >"$1"
}

# blocks FILE: the output of compared commands, from the first mark on,
# source files without their directories (GDB names them as the line table
# does, hindsight as addr2line does).
blocks()
{
    awk '/^==[CM]/ { c = ($0 ~ /^==C/) } c && !/^\[Inferior 1 .* detached\]$/' "$1" |
        sed -E 's#( at )/[^ ]*/([^/ ]+:[0-9]+)$#\1\2#'
}

# compare NAME PROG [RECORDER]: records PROG (single steps, or RECORDER),
# runs the plan in both, compares (tools/same_values.py).
compare()
{
    local name=$1 prog=$2 recorder=${3:-sw}
    "$HINDSIGHT" record --record="$recorder" -o "rec_$name" -- "$prog" >"record_$name.out" 2>&1
    expect "record_$name.out" "cvars: "
    script plan.gdb
    server_start --replay "rec_$name" || return
    gdb_run "gdb_$name.out" -ex "set \$plan_file = \"$T_DIR/plan.gdb\"" \
        -x "$REPO_ROOT/tests/e2e/tools/gdb_plan.py"
    "$HINDSIGHT" replay --batch "rec_$name" -x plan.gdb >"hs_$name.out" 2>&1
    blocks "gdb_$name.out" >"gdb_$name.blocks"
    blocks "hs_$name.out" >"hs_$name.blocks"
    [ "$(grep -c '^==C' "gdb_$name.blocks")" -ge 100 ] || fail "$name: GDB ran fewer commands than planned"
    if ! "$REPO_ROOT/tests/e2e/tools/same_values.py" "gdb_$name.blocks" "hs_$name.blocks" \
        >"diff_$name"; then
        fail "$name: hindsight replay's output differs from GDB's"
    fi
    cat "diff_$name"
}

# addressless FILE: FILE's blocks with what differs between two runs of the
# program taken out: addresses (GDB runs it without ASLR, the recorder
# with), history numbers, and the commands that read the value history
# (GDB natively starts a session per stop).
addressless()
{
    awk '/^==C print \$/ { skip = 1; next } /^==/ { skip = 0 } !skip' "$1" |
        sed -E 's/0x[0-9a-f]{6,}/0xADDR/g; s/^\$[0-9]+ = //'
}

# native NAME PROG: the plan again, run by GDB natively on the live
# program, a session per stop (stop N: the last call of stop_here_N, found
# by counting the calls in a first run); every value must be what the
# recording shows at that stop, addresses aside.
native()
{
    local name=$1 prog=$2 n calls
    : >"native_$name.blocks"
    for n in $(sed -n 's/^stop //p' plan); do
        timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx -iex 'set debuginfod enabled off' \
            -ex 'handle SIGUSR1 nostop noprint pass' \
            -ex "break stop_here_$n" -ex 'ignore 1 1000000' -ex run -ex 'info breakpoints' \
            "$prog" </dev/null >"calls_$name.$n" 2>&1
        calls=$(sed -n 's/.*breakpoint already hit \([0-9]*\) time.*/\1/p' "calls_$name.$n")
        [ -n "$calls" ] || { fail "$name: GDB natively never reached stop_here_$n"; continue; }
        awk -v n="$n" '/^stop / { on = ($2 == n); next } on' plan >"plan_$name.$n"
        {
            printf 'echo ==M\\n\n'
            while IFS= read -r line; do
                case $line in
                'move '*) printf 'echo ==M\\n\n%s\n' "${line#move }" ;;
                *) printf 'echo ==C %s\\n\n%s\n' "$line" "$line" ;;
                esac
            done <"plan_$name.$n"
        } >"plan_$name.$n.gdb"
        timeout -k 5 "$DBG_TIMEOUT" gdb -batch -nx -iex 'set debuginfod enabled off' \
            -ex 'set width 0' -ex 'set pagination off' -ex 'handle SIGUSR1 nostop noprint pass' \
            -ex "break stop_here_$n" -ex "ignore 1 $((calls - 1))" -ex run \
            -ex "set \$plan_file = \"$T_DIR/plan_$name.$n.gdb\"" \
            -x "$REPO_ROOT/tests/e2e/tools/gdb_plan.py" "$prog" </dev/null >"native_$name.$n" 2>&1
        blocks "native_$name.$n" >>"native_$name.blocks"
    done
    addressless "native_$name.blocks" >"native_$name.cmp"
    addressless "hs_$name.blocks" >"hs_$name.cmp"
    [ "$(grep -c '^==C' "native_$name.cmp")" -ge 50 ] || fail "$name: GDB natively ran too few commands"
    if ! "$REPO_ROOT/tests/e2e/tools/same_values.py" "native_$name.cmp" "hs_$name.cmp" \
        >"ndiff_$name"; then
        fail "$name: hindsight replay's values differ from GDB's on the live program"
    fi
    cat "ndiff_$name"
}

compare O0 "$(build_prog cvars)" || finish
native O0 "$(build_prog cvars)"

# What GDB tries on a live process and the recording refuses: said so.
"$HINDSIGHT" replay --batch rec_O0 -ex 'print g_int = 3' -ex 'print g_int++' \
    -ex 'print add(1, 2)' -ex 'print g_int' >refused.out 2>&1
expect refused.out "A recording cannot be changed"
expect refused.out "without a process"
expect_re refused.out '^\$1 = 42$'

compare O2 "$(compile_cached "$E2E_WORK/bin/cvars_O2" cvars -O2)" || finish
native O2 "$(compile_cached "$E2E_WORK/bin/cvars_O2" cvars -O2)"
# The Valgrind recorder's recording of the same program (another address
# space: Valgrind loads it elsewhere), where it runs here.
if "$HINDSIGHT" doctor 2>/dev/null | grep -q '^ok  valgrind'; then
    compare O0vg "$(build_prog cvars)" valgrind || finish
else
    echo "no Valgrind recorder here: its recording is not compared"
fi
finish
