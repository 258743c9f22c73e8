#!/usr/bin/python3
"""portal_close.py - an app asks the portal for its secret and, while puffd asks the person,
gives up: org.freedesktop.portal.Request.Close (the portal sends the backend
org.freedesktop.impl.portal.Request.Close, F6).

    sandbox.py --app ID ... -- /usr/bin/python3 portal_close.py

Calls RetrieveSecret, prints `asked`, waits until the file $HOME/close-now exists (the test makes
it once the question is held), calls Request.Close on its handle and checks that the pipe got
nothing. Prints ok/FAIL lines and `N passed, M failed`; never key bytes.
"""

import os
import time

import dbus
import dbus.bus

from harness import HANG_GUARD, Runner, check

PORTAL = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
runner = Runner(case_timeout=3 * HANG_GUARD)
state = {}


def ask_then_close():
    read_end, write_end = os.pipe()
    handle = bus.call_blocking(
        PORTAL, PATH, "org.freedesktop.portal.Secret", "RetrieveSecret", "ha{sv}",
        (dbus.types.UnixFd(write_end), {"handle_token": "closing"}), timeout=HANG_GUARD)
    os.close(write_end)
    print("asked", flush=True)
    signal_file = os.path.join(os.environ["HOME"], "close-now")
    deadline = time.monotonic() + 2 * HANG_GUARD
    while not os.path.exists(signal_file):
        check(time.monotonic() < deadline, "the test never said to close")
        time.sleep(0.05)
    bus.call_blocking(PORTAL, handle, "org.freedesktop.portal.Request", "Close", "", (), timeout=HANG_GUARD)
    os.set_blocking(read_end, False)
    try:
        data = os.read(read_end, 4096)
    except BlockingIOError:
        data = b""
    os.close(read_end)
    check(not data, f"{len(data)} bytes reached the pipe")


runner.case("Request.Close ends the request and the pipe stays empty", ask_then_close)
runner.finish()
