#!/usr/bin/env python3
"""rsp_client.py: a minimal raw RSP client for the bad-input tests.

Usage: rsp_client.py PORT STEP...
Each STEP is one of
  send:PAYLOAD      send $PAYLOAD#cc with a correct checksum, print the ack and reply
                    (and the console output packets before it)
  badsum:PAYLOAD    send $PAYLOAD#00 (wrong checksum), print the ack byte
  big:N             send a packet with an N-byte payload of 'q' (correct checksum)
  oversize          like big, with N = twice the PacketSize from a previous
                    qSupported reply (prints "packetsize N")
  raw:TEXT          send TEXT as is (no framing), print whatever arrives
Output lines: "ack +", "ack -", "reply <payload>", "closed", "timeout".
Every read has a 5 s timeout (RSP_CLIENT_TIMEOUT seconds if set: a step
that runs a recorded program to its end under ASan takes longer); the
client never blocks longer than that on one read.
"""
import os
import socket
import sys

TIMEOUT = float(os.environ.get("RSP_CLIENT_TIMEOUT", "5"))


def checksum(data: bytes) -> bytes:
    return b"%02x" % (sum(data) % 256)


class Conn:
    def __init__(self, port):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
        self.buf = b""
        self.packetsize = 0x4000

    def byte(self):
        if not self.buf:
            chunk = self.s.recv(65536)
            if not chunk:
                raise EOFError
            self.buf = chunk
        b, self.buf = self.buf[:1], self.buf[1:]
        return b

    def ack(self):
        b = self.byte()
        print("ack", b.decode("latin-1"))
        return b

    def packet(self):
        """Read one $...#cc packet (skipping stray acks); ack it with '+'."""
        while self.byte() != b"$":
            pass
        data = b""
        while True:
            b = self.byte()
            if b == b"#":
                break
            data += b
        self.byte()
        self.byte()
        self.s.sendall(b"+")
        # Expand run-length encoding for printing.
        out = b""
        i = 0
        while i < len(data):
            if data[i:i + 1] == b"*" and out:
                out += out[-1:] * (data[i + 1] - 29)
                i += 2
            else:
                out += data[i:i + 1]
                i += 1
        print("reply", out.decode("latin-1")[:200])
        return out

    def send(self, payload: bytes, good=True):
        cs = checksum(payload) if good else b"00"
        self.s.sendall(b"$" + payload + b"#" + cs)


def main():
    port = int(sys.argv[1])
    try:
        c = Conn(port)
        c.s.sendall(b"+")
        for step in sys.argv[2:]:
            kind, _, arg = step.partition(":")
            if kind == "send":
                c.send(arg.encode())
                c.ack()
                reply = c.packet()
                # Console output (O + hex) comes before a resume's stop reply.
                while reply[:1] == b"O" and len(reply) > 1 and all(
                        ch in b"0123456789abcdef" for ch in reply[1:]):
                    reply = c.packet()
                for item in reply.split(b";"):
                    if item.startswith(b"PacketSize="):
                        c.packetsize = int(item[11:], 16)
            elif kind == "badsum":
                c.send(arg.encode(), good=False)
                c.ack()
            elif kind == "big":
                c.send(b"q" * int(arg))
                c.ack()
                c.packet()
            elif kind == "oversize":
                n = 2 * c.packetsize
                print("packetsize", c.packetsize)
                c.send(b"qZ" + b"0" * n)
                c.ack()
                c.packet()
            elif kind == "raw":
                c.s.sendall(arg.encode())
            else:
                print("bad step", step)
                return 2
    except socket.timeout:
        print("timeout")
        return 1
    except (EOFError, ConnectionError):
        print("closed")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
