#!/usr/bin/python3
"""socket_activate.py - starts a program as systemd's socket activation does (sd_listen_fds(3)).

    /usr/bin/python3 socket_activate.py SOCKET [--for-another-process] -- PROGRAM [ARGUMENT...]

Listens on the Unix stream socket SOCKET (its folder made 0700, the socket 0600), puts it on
descriptor 3 and runs PROGRAM in this same process with LISTEN_FDS=1, LISTEN_FDNAMES=login and
LISTEN_PID set to its pid, as systemd does for puff-login.socket's service. With
--for-another-process, LISTEN_PID names this process's parent instead: descriptors a parent meant
for itself and left in the environment, which the program must not take.
"""

import os
import socket
import sys


def main():
    separator = sys.argv.index("--")
    path, options, program = sys.argv[1], sys.argv[2:separator], sys.argv[separator + 1:]
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    previous = os.umask(0o177)
    listener.bind(path)
    os.umask(previous)
    listener.listen(8)
    if listener.fileno() != 3:
        os.dup2(listener.fileno(), 3)
    # dup2 onto itself leaves close-on-exec set (Python's sockets have it): clear it either way.
    os.set_inheritable(3, True)
    environment = dict(os.environ)
    environment["LISTEN_FDS"] = "1"
    environment["LISTEN_FDNAMES"] = "login"
    environment["LISTEN_PID"] = str(os.getppid() if "--for-another-process" in options else os.getpid())
    os.execve(program[0], program, environment)


if __name__ == "__main__":
    main()
