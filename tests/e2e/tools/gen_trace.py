#!/usr/bin/env python3
"""gen_trace.py: write a made-up trace-event JSON file in the form
`hindsight timeline -o x.json` writes, for testing the timeline page at scale.

    gen_trace.py --spans 200000 [--threads 4] [--seed 1] -o big.json

Each thread gets a call tree grown breadth first over the whole recording
(so every part of it has calls) until the thread has its share of the spans;
calls shorter than the resolution are merged blocks, as hindsight writes
them; a few signals, gaps and a crash are sprinkled in.
"""
import argparse
import json
import random
import sys
from collections import deque

WORDS = ("parse read write walk visit hash mix lookup insert delete alloc free copy "
         "scan emit flush load store encode decode sort merge split push pop check "
         "init fini open close send recv poll wait lock unlock step run eval").split()
NOUNS = ("node tree block page buf entry key value list map table frame token line "
         "record chunk header index cache queue state ctx args file sock").split()


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spans", type=int, default=200000)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--length", type=int, default=2_000_000_000, help="the recording's length")
    ap.add_argument("--resolution", type=int, default=1000000)
    ap.add_argument("--recording", default="/tmp/big.rec")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    names = ["%s_%s" % (rnd.choice(WORDS), rnd.choice(NOUNS)) for _ in range(400)]
    names = sorted(set(names)) + ["??"]
    pid = 5000
    unit = max(1, a.length // a.resolution)
    ev = [{"ph": "M", "pid": pid, "tid": pid, "name": "process_name", "args": {"name": "big"}}]
    threads = []
    per_thread = a.spans // a.threads
    for n in range(1, a.threads + 1):
        tid = pid + n - 1
        tname = "thread %d (%d)" % (n, tid)
        ev.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_name", "args": {"name": tname}})
        ev.append({"ph": "M", "pid": pid, "tid": tid, "name": "thread_sort_index",
                   "args": {"sort_index": n}})
        t0 = 0 if n == 1 else rnd.randrange(a.length // 10)
        t1 = a.length if n == 1 else a.length - rnd.randrange(a.length // 10)
        threads.append({"tid": tid, "number": n, "positions": (t1 - t0) // a.threads, "name": tname})
        count = 0
        pos_of = lambda ts: 1 + (ts - t0) // a.threads
        queue = deque([(t0, t1, 0, "main" if n == 1 else "thread_start")])
        while queue and count < per_thread:
            ts, end, depth, name = queue.popleft()
            dur = end - ts
            args = {"depth": depth, "first": pos_of(ts), "last": pos_of(end),
                    "file": name.split("_")[0] + ".c", "line": 1 + hash(name) % 500}
            if dur < unit and depth > 0:
                calls = rnd.randint(2, 60)
                ev.append({"ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur,
                           "name": "%d calls" % calls, "cat": "merged",
                           "args": {"depth": depth, "first": args["first"], "last": args["last"],
                                    "calls": calls,
                                    "functions": ", ".join(rnd.sample(names[:-1], 3))}})
                count += 1
                continue
            if rnd.random() < 0.002 and depth > 1:
                args["signal"] = True
            ev.append({"ph": "X", "pid": pid, "tid": tid, "ts": ts, "dur": dur, "name": name,
                       "cat": "call", "args": args})
            count += 1
            # children: a few calls, each in its share of the parent, with gaps
            k = rnd.choice((0, 1, 1, 2, 2, 2, 3, 3, 4, 6)) if depth > 0 else 16
            if k == 0 or dur < 4 * k:
                continue
            slot = dur / k
            for j in range(k):
                w = slot * rnd.uniform(0.55, 0.97)
                c0 = int(ts + j * slot + rnd.uniform(0, slot - w))
                c1 = int(c0 + w)
                if c1 > c0:
                    queue.append((c0, c1, depth + 1, rnd.choice(names)))
        for cat, name, cnt in (("signal", "signal handler: on_usr1", 5), ("gap", "gap: trace lost", 2)):
            for _ in range(cnt):
                ts = rnd.randrange(t0, t1)
                ev.append({"ph": "i", "s": "t", "pid": pid, "tid": tid, "ts": ts, "name": name,
                           "cat": cat, "args": {"position": pos_of(ts)}})
        if n == 1:
            ev.append({"ph": "i", "s": "t", "pid": pid, "tid": tid, "ts": t1 - 1, "name": "SIGSEGV",
                       "cat": "crash", "args": {"position": pos_of(t1 - 1)}})
    rnd.shuffle(ev)
    doc = {"traceEvents": ev, "displayTimeUnit": "ns",
           "otherData": {"hindsight": {"recording": a.recording, "clock": "instructions",
                                       "start": 0, "end": a.length, "resolution": a.resolution,
                                       "threads": threads}}}
    with open(a.output, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
    print("%s: %d events, %d spans" % (a.output, len(ev), sum(1 for e in ev if e["ph"] == "X")),
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
