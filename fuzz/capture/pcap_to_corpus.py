#!/usr/bin/python3
"""Split a `dbus-monitor --pcap` capture into one file per D-Bus message.

    pcap_to_corpus.py CAPTURE.pcap OUTDIR [--max-size BYTES] [--per-shape N] [--prefix real]

Each packet of a DLT_DBUS (231) capture is one complete wire-format message.
Files are named PREFIX-<type>-<member or error name>-<sha1/10>. Skipped: a
message whose bytes are already in OUTDIR (under any name), one larger than
--max-size (default 16384) or truncated by the capture, and one whose shape
(message type, member or error name, body signature, size to a power of two)
already has --per-shape (default 2) messages from this capture: most traffic
repeats a few shapes with other serials and names, which teaches the fuzzer
nothing new.
"""

import argparse
import hashlib
import os
import re
import struct
import sys

TYPES = {1: "call", 2: "return", 3: "error", 4: "signal"}


def packets(path):
    with open(path, "rb") as f:
        data = f.read()
    magic = data[:4]
    if magic in (b"\xd4\xc3\xb2\xa1", b"\x4d\x3c\xb2\xa1"):
        endian = "<"
    elif magic in (b"\xa1\xb2\xc3\xd4", b"\xa1\xb2\x3c\x4d"):
        endian = ">"
    else:
        sys.exit(f"{path}: not a pcap file")
    linktype = struct.unpack(endian + "I", data[20:24])[0]
    if linktype != 231:
        sys.exit(f"{path}: link type {linktype}, not DLT_DBUS (231)")
    offset = 24
    while offset + 16 <= len(data):
        _, _, incl, orig = struct.unpack(endian + "IIII", data[offset:offset + 16])
        offset += 16
        packet = data[offset:offset + incl]
        offset += incl
        if len(packet) == incl == orig:
            yield packet


def header_field(message, code):
    """The string value of header field `code` (3 member, 4 error name), or None."""
    if len(message) < 16 or message[0:1] not in (b"l", b"B"):
        return None
    e = "<" if message[0:1] == b"l" else ">"
    fields_len = struct.unpack(e + "I", message[12:16])[0]
    pos, end = 16, min(16 + fields_len, len(message))
    while pos + 4 <= end:
        pos = (pos + 7) & ~7
        if pos + 4 > end:
            break
        field, siglen = message[pos], message[pos + 1]
        sig = message[pos + 2:pos + 2 + siglen]
        pos += 3 + siglen
        if sig in (b"s", b"o"):
            pos = (pos + 3) & ~3
            n = struct.unpack(e + "I", message[pos:pos + 4])[0]
            value = message[pos + 4:pos + 4 + n]
            pos += 5 + n
        elif sig == b"g":
            n = message[pos]
            value = message[pos + 1:pos + 1 + n]
            pos += 2 + n
        elif sig == b"u":
            pos = (pos + 3) & ~3
            value = None
            pos += 4
        else:
            return None
        if field == code and value is not None:
            return value.decode("utf-8", "replace")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("capture")
    ap.add_argument("outdir")
    ap.add_argument("--max-size", type=int, default=16384)
    ap.add_argument("--per-shape", type=int, default=2)
    ap.add_argument("--prefix", default="real")
    args = ap.parse_args()
    os.makedirs(args.outdir, exist_ok=True)
    seen = set()
    for name in os.listdir(args.outdir):
        with open(os.path.join(args.outdir, name), "rb") as f:
            seen.add(hashlib.sha1(f.read()).hexdigest())
    kept = dup = big = same = 0
    shapes = {}
    for message in packets(args.capture):
        digest = hashlib.sha1(message).hexdigest()
        if len(message) > args.max_size:
            big += 1
            continue
        if digest in seen:
            dup += 1
            continue
        seen.add(digest)
        kind = TYPES.get(message[1], "type%d" % message[1])
        label = header_field(message, 4 if message[1] == 3 else 3) or ""
        shape = (kind, label, header_field(message, 8), len(message).bit_length())
        shapes[shape] = shapes.get(shape, 0) + 1
        if shapes[shape] > args.per_shape:
            same += 1
            continue
        label = re.sub(r"[^A-Za-z0-9]+", "_", label.rsplit(".", 1)[-1])[:40] or "none"
        with open(os.path.join(args.outdir, f"{args.prefix}-{kind}-{label}-{digest[:10]}"), "wb") as f:
            f.write(message)
        kept += 1
    print(f"{kept} new messages; skipped {dup} duplicates, {same} more of a shape already kept, "
          f"{big} over {args.max_size} bytes")


if __name__ == "__main__":
    main()
