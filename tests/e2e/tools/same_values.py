#!/usr/bin/env python3
"""same_values.py GDB HINDSIGHT [--refusals]: the two transcripts of the same
commands (t_replay_print's blocks) must be equal line for line. With
--refusals, a line where hindsight says <optimized out> and GDB shows a value
it recovered from the caller's call site (DWARF entry values, which hindsight
does not evaluate) is a refusal, not a difference: it is listed, and GDB's
`x=x@entry=V` in a frame line is compared as `x=V`. Exit status 1 on any other
difference, each printed."""
import re
import sys


def entry_free(line):
    return re.sub(r'\b(\w+)=\1@entry=', r'\1=', line)


def refusal(gdb, hs):
    """hs is gdb with one value replaced by <optimized out>."""
    m = re.match(r'^(\$\d+|[\w.]+) = (.*)$', gdb)
    if m and hs == f'{m.group(1)} = <optimized out>':
        return True
    return False


def main():
    gdb = open(sys.argv[1]).read().splitlines()
    hs = open(sys.argv[2]).read().splitlines()
    allow = '--refusals' in sys.argv
    if len(gdb) != len(hs):
        print(f'{len(gdb)} lines from GDB, {len(hs)} from hindsight')
        return 1
    bad = 0
    mark = ''
    for g, h in zip(gdb, hs):
        if g.startswith('==C'):
            mark = g
        if g == h:
            continue
        if allow and entry_free(g) == h:
            continue
        if allow and refusal(g, h):
            print(f'refused ({mark[4:]}): GDB: {g}')
            continue
        print(f'{mark}\n  GDB:       {g}\n  hindsight: {h}')
        bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
