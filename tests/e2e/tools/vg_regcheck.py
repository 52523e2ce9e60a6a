#!/usr/bin/env python3
"""vg_regcheck.py HINDSIGHT REC VERIFY TID [N] [--native] [--tail=K]: the registers
`hindsight replay` shows at N sampled positions of thread TID (plus its first
three and its last) against the Valgrind tool's own trace (--vg-verify: each
line "tid ip rax rbx rcx rdx rsi rdi rbp rsp r8..r15 eflags fs_base", the
guest state read before the instruction, apart from the stream the recording
is made of). With --native, VERIFY is the single-stepper's trace of a native
run instead (STEPPER_REGS=1 tools/stepper.c: lines without the tid): the
stack is elsewhere natively, so rsp, rbp and any value that is a stack
address on either side are left out, and so is eflags: the bits the
architecture leaves undefined (SF ZF AF PF after MUL, AF after shifts and
logic) are VEX's under Valgrind, this CPU's natively; and r11 after a
syscall, which holds the flags natively (the stepper's trap flag among
them) and what Valgrind puts there under it. Rep iterations are one position, as in
the history. With --tail=K, REC is a window of the run (`rebuild --last`)
whose K positions of the thread are the trace's last K. Prints the positions that differ and "checked K positions, D
differ"; exits 1 if any differ or none could be checked."""
import random
import re
import subprocess
import sys

native = "--native" in sys.argv
tail = [int(a[7:]) for a in sys.argv if a.startswith("--tail=")]
argv = [a for a in sys.argv if a != "--native" and not a.startswith("--tail=")]
hs, rec, ver, tid = argv[1:5]
n_samples = int(argv[5]) if len(argv) > 5 else 40
names = "rax rbx rcx rdx rsi rdi rbp rsp r8 r9 r10 r11 r12 r13 r14 r15 eflags fs_base".split()

rows, prev = [], None
with open(ver) as f:
    for line in f:
        w = line.split()
        if native:
            w = [tid] + w
        if w[0] != tid:
            continue
        if w[1] != prev:
            rows.append(w)
        prev = w[1]
if tail:
    rows = rows[-tail[0]:] if tail[0] else []
if not rows:
    sys.exit("no instruction of thread %s in %s" % (tid, ver))
rng = random.Random(7)
pos = sorted({1, 2, 3, len(rows)} | {rng.randint(1, len(rows)) for _ in range(n_samples)})

threads = subprocess.run([hs, "replay", rec, "--batch", "-ex", "info threads"],
                         capture_output=True, text=True).stdout
num = [l.lstrip("* ").split()[0] for l in threads.splitlines() if ".%s " % tid in l]
if not num:
    sys.exit("thread %s is not in the recording:\n%s" % (tid, threads))

seen = []
for k in range(0, len(pos), 25):
    args = [hs, "replay", rec, "--batch", "-ex", "thread " + num[0]]
    for p in pos[k:k + 25]:
        args += ["-ex", "goto %d" % p, "-ex", "info registers " + " ".join(names)]
    out = subprocess.run(args, capture_output=True, text=True).stdout
    cur = {}
    for line in out.splitlines():
        m = re.match(r"^(\w+)\s+(0x[0-9a-f]+|<unavailable>)", line)
        if m and m.group(1) in names:
            cur[m.group(1)] = m.group(2)
            if m.group(1) == names[-1]:
                seen.append(cur)
                cur = {}
bad = 0
for p, got in zip(pos, seen):
    want = rows[p - 1]
    def stack(v):
        return v is not None and (int(v, 16) >= 0x7f0000000000 or
                                  0x1ff0000000 <= int(v, 16) < 0x2000000000)
    diff = [(nm, got.get(nm), "0x" + want[2 + i]) for i, nm in enumerate(names)
            if got.get(nm) != "0x" + want[2 + i] and
            not (native and (nm in ("rsp", "rbp", "eflags", "r11") or stack("0x" + want[2 + i]) or
                             stack(got.get(nm)) or got.get(nm) == "<unavailable>"))]
    if diff:
        bad += 1
        if bad <= 3:
            print("position %d (%s): %s" % (p, want[1], diff))
print("checked %d positions, %d differ" % (len(seen), bad))
sys.exit(1 if bad or len(seen) != len(pos) else 0)
