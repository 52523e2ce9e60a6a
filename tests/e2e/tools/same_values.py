#!/usr/bin/env python3
"""same_values.py GDB HINDSIGHT: the two transcripts of the same commands
(t_replay_print's blocks) must be equal line for line; each difference is
printed under the command it belongs to. Exit status 1 if any."""
import sys


def main():
    gdb = open(sys.argv[1]).read().splitlines()
    hs = open(sys.argv[2]).read().splitlines()
    if len(gdb) != len(hs):
        print(f'{len(gdb)} lines from GDB, {len(hs)} from hindsight')
    bad = 0
    mark = ''
    for g, h in zip(gdb, hs):
        if g.startswith('==C'):
            mark = g
        if g != h:
            print(f'{mark}\n  GDB:       {g}\n  hindsight: {h}')
            bad += 1
    return 1 if bad or len(gdb) != len(hs) else 0


if __name__ == '__main__':
    sys.exit(main())
