#!/usr/bin/python3
"""login_socket.py - speaks puffd's login socket as the PAM module does (docs/pam.md).

    /usr/bin/python3 login_socket.py SOCKET login           (password on standard input)
    /usr/bin/python3 login_socket.py SOCKET change          (old, then new, one per line)
    /usr/bin/python3 login_socket.py SOCKET raw HEX         (these bytes, then wait for a reply)

Prints the reply byte (0 unlocked, 1 created, 2 wrong password, 3 refused, 4 failed), or `closed`
when puffd closed the connection without one.
"""

import os
import socket
import struct
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import HANG_GUARD  # noqa: E402


def field(data):
    return struct.pack("<I", len(data)) + data


def main():
    path, action = sys.argv[1], sys.argv[2]
    lines = sys.stdin.buffer.read().split(b"\n")
    if action == "login":
        request = b"PUF1L" + field(lines[0]) + field(b"")
    elif action == "change":
        request = b"PUF1C" + field(lines[0]) + field(lines[1])
    else:
        request = bytes.fromhex(sys.argv[3])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(HANG_GUARD)
    s.connect(path)
    try:
        s.sendall(request)
        reply = s.recv(1)
    except ConnectionResetError:  # closed with our bytes still unread
        reply = b""
    print(reply[0] if reply else "closed")


if __name__ == "__main__":
    main()
