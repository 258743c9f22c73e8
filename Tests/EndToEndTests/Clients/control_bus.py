"""control_bus.py - what the drivers that call io.puff.Control1 through dbus-python share
(control_attack.py, slot_attack.py): its names, the pipes a call takes a passcode or hands a
secret through, and the check that a call was refused with an expected D-Bus error.

Calls return (reply, D-Bus error name or None), as each driver's own `call` does.
"""

import os
from contextlib import contextmanager

import dbus

from harness import check

# PUFF_CONTROL_NAME=org.freedesktop.secrets aims the attacks at a puffd that still served the
# control interface under the Secret Service's name (how they were checked to fail there).
CONTROL_NAME = os.environ.get("PUFF_CONTROL_NAME", "io.puff.Control")
CONTROL_PATH = "/io/puff/Control"
CONTROL = "io.puff.Control1"


def pipe_carrying(data):
    """A pipe's read end carrying `data`, as a D-Bus fd (our copy closed)."""
    read, write = os.pipe()
    os.write(write, data)
    os.close(write)
    fd = dbus.types.UnixFd(read)
    os.close(read)
    return fd


@contextmanager
def pipe_left_empty(what):
    """Yields a pipe's write end as a D-Bus fd (our copy closed) for a call that must hand
    nothing over; afterwards fails with `what` if anything was written into it."""
    read, write = os.pipe()
    fd = dbus.types.UnixFd(write)
    os.close(write)
    try:
        yield fd
        os.set_blocking(read, False)
        try:
            got = os.read(read, 64)
        except BlockingIOError:
            got = b""
        check(got == b"", what)
    finally:
        os.close(read)


def expect_error(result, names, what):
    """Checks that the call whose `result` is given failed with one of the error `names`."""
    reply, error = result
    check(error is not None, f"{what} succeeded")
    check(error in names, f"{what} answered {error}, not one of {', '.join(names)}")
