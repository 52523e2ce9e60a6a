#!/usr/bin/env python3
# tests/fuzz/perf_seeds.py: writes the seeds of fuzz_perf into
# tests/fuzz/seeds/fuzz_perf/ (run from anywhere; the files are committed).
#
# Small perf.data files of Intel PT, each a case the reader handles:
#   snapshot_no_exit  --snapshot with no EXIT record: the end is the latest
#                     time known (an MMAP2, a SAMPLE, an AUXTRACE reference)
#   features_cut      HEADER_CPUID, HEADER_CMDLINE, then HEADER_CACHE whose
#                     section the file's end cuts: skipped with a note
#   features_damaged  a HEADER_BUILD_ID entry of a bad size, a
#                     HEADER_CMDLINE of too many arguments: notes
#   cpuid_cut         the file ends inside HEADER_CPUID: an error
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "seeds", "fuzz_perf")

PERF_RECORD_MMAP2, PERF_RECORD_SAMPLE = 10, 9
AUXTRACE_INFO, AUXTRACE = 70, 71
SAMPLE_TID, SAMPLE_TIME = 1 << 1, 1 << 2
ATTR_SIZE = 128                      # PERF_ATTR_SIZE_VER7

# A PSB, a TSC and PSBEND: a stream libipt syncs on.
PT = bytes([0x02, 0x82] * 8) + bytes([0x19, 0x10, 0, 0, 0, 0, 0, 0, 0x02, 0x23])


def hdr(typ, size, misc=0):
    return struct.pack("<IHH", typ, misc, size)


def attr():
    a = bytearray(ATTR_SIZE)
    struct.pack_into("<IIQ", a, 0, 8, ATTR_SIZE, 0x2401)          # type, size, config
    struct.pack_into("<Q", a, 24, SAMPLE_TID | SAMPLE_TIME)       # sample_type
    struct.pack_into("<Q", a, 40, 1 << 18)                        # sample_id_all
    return bytes(a)


def sid(tid, time):
    return struct.pack("<IIQ", 42, tid, time)


def data_section(snapshot):
    priv = [0] * 17
    priv[0] = 8                      # the PMU type
    priv[4] = 1                      # cap_user_time_zero (time_mult 0: perf time is TSC)
    priv[5] = 0x400                  # the tsc bit
    priv[8] = int(snapshot)
    d = hdr(AUXTRACE_INFO, 16 + 8 * len(priv)) + struct.pack("<II", 1, 0)
    d += struct.pack("<%dQ" % len(priv), *priv)
    name = b"/tmp/prog".ljust(16, b"\0")
    body = struct.pack("<IIQQQ", 42, 42, 0x400000, 0x1000, 0) + bytes(24)
    body += struct.pack("<II", 5, 2) + name + sid(42, 1000)         # PROT_READ|EXEC, PRIVATE
    d += hdr(PERF_RECORD_MMAP2, 8 + len(body), 2) + body
    for off, ref in ((0, 0), (0x100, 9000)):
        d += hdr(AUXTRACE, 48) + struct.pack("<QQQIIII", len(PT), off, ref, 0, 42, 0xffffffff, 0)
        d += PT
    d += hdr(PERF_RECORD_SAMPLE, 24, 2) + struct.pack("<IIQ", 42, 42, 7000)
    return d


def perf_file(features, cut=0, snapshot=True):
    """features: [(bit, bytes)] in bit order; cut: bytes off the end."""
    a = attr() + struct.pack("<QQ", 0, 0)
    d = data_section(snapshot)
    attrs_at, data_at = 104, 104 + len(a)
    table_at = data_at + len(d)
    bits = 0
    for bit, _ in features:
        bits |= 1 << bit
    at = table_at + 16 * len(features)
    table, body = b"", b""
    for _, content in features:
        table += struct.pack("<QQ", at, len(content))
        body += content
        at += len(content)
    h = b"PERFILE2" + struct.pack("<QQ", 104, len(a))
    h += struct.pack("<QQQQQQ", attrs_at, len(a), data_at, len(d), 0, 0)
    h += bits.to_bytes(32, "little")
    f = h + a + d + table + body
    return f[:len(f) - cut] if cut else f


def string(s):
    raw = s.encode() + b"\0"
    raw = raw.ljust((len(raw) + 7) // 8 * 8, b"\0")
    return struct.pack("<I", len(raw)) + raw


def cmdline(args, count=None):
    return struct.pack("<I", len(args) if count is None else count) + b"".join(map(string, args))


def build_id_entry(size):
    e = hdr(67, size, 2 | 1 << 15) + struct.pack("<i", -1) + bytes(range(20)) + bytes([0, 0, 0, 0])
    e += b"/tmp/prog".ljust(64, b"\0")
    return e


def main():
    os.makedirs(HERE, exist_ok=True)
    cpuid = (9, string("GenuineIntel,6,94,3"))
    seeds = {
        "snapshot_no_exit": perf_file([cpuid]),
        "features_cut": perf_file([cpuid, (11, cmdline(["perf", "record"])),
                                   (20, bytes(range(64)))], cut=1),
        "features_damaged": perf_file([(2, build_id_entry(0xffff)), cpuid,
                                       (11, cmdline(["perf"], count=0x7fff))]),
        "cpuid_cut": perf_file([cpuid], cut=8),
    }
    for name, data in seeds.items():
        with open(os.path.join(HERE, name), "wb") as out:
            out.write(data)


if __name__ == "__main__":
    main()
