#!/usr/bin/python3
"""portal_secret.py - what a sandboxed app does to get its portal secret: calls
org.freedesktop.portal.Secret.RetrieveSecret with the write end of a pipe, waits for the
Request's Response and reads the pipe (ported from /work/notes/issue28/portal_client.py).

    sandbox.py ... -- /usr/bin/python3 portal_secret.py --expect-response N [--expect-bytes N] [--token T]

Standard input: one line, the per-test salt in hex (Sandbox.saltInput). Prints the harness's
ok/FAIL lines, then `digest HEX`: BLAKE2b-128 keyed with the salt over the bytes received, and
`bytes N`. Key bytes themselves are never printed. A missing Response is a FAIL after HANG_GUARD.
"""

import argparse
import hashlib
import os
import sys

import dbus
import dbus.bus
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

from harness import HANG_GUARD, Runner, check

PORTAL = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"

parser = argparse.ArgumentParser()
parser.add_argument("--expect-response", type=int, required=True)
parser.add_argument("--expect-bytes", type=int)
parser.add_argument("--token", default="puff1")
options = parser.parse_args()
salt = bytes.fromhex(sys.stdin.readline().strip())
DBusGMainLoop(set_as_default=True)
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
runner = Runner()
state = {"data": b""}


def retrieve():
    loop = GLib.MainLoop()
    expected = f"{PATH}/request/{bus.get_unique_name()[1:].replace('.', '_')}/{options.token}"

    def on_response(code, results, path=None):
        if path == expected:
            state["response"] = int(code)
            loop.quit()

    # Subscribed before the call, on the handle the portal will use, as libsecret does.
    bus.add_signal_receiver(
        on_response, "Response", "org.freedesktop.portal.Request", PORTAL, None, path_keyword="path")
    read_end, write_end = os.pipe()
    handle = bus.call_blocking(
        PORTAL, PATH, "org.freedesktop.portal.Secret", "RetrieveSecret", "ha{sv}",
        (dbus.types.UnixFd(write_end), {"handle_token": options.token}), timeout=HANG_GUARD)
    os.close(write_end)
    check(str(handle) == expected, "the portal returned another handle than the one announced")
    GLib.timeout_add(int(HANG_GUARD * 1000), loop.quit)  # a hang guard: F6, the portal never times out
    loop.run()
    check("response" in state, f"no Response within {HANG_GUARD:g} s")
    os.set_blocking(read_end, False)
    try:
        while chunk := os.read(read_end, 4096):
            state["data"] += chunk
    except BlockingIOError:
        pass  # the backend still holds the write end; what arrived so far is counted
    os.close(read_end)


def response_is_expected():
    check(state.get("response") == options.expect_response, f"response {state.get('response')}")


def byte_count_is_expected():
    check(len(state["data"]) == options.expect_bytes, f"{len(state['data'])} bytes")


runner.case("RetrieveSecret answers through the Request protocol", retrieve, timeout=2 * HANG_GUARD)
runner.case(f"the response is {options.expect_response}", response_is_expected)
if options.expect_bytes is not None:
    runner.case(f"the pipe carries {options.expect_bytes} bytes", byte_count_is_expected)
print(f"bytes {len(state['data'])}", flush=True)
print(f"digest {hashlib.blake2b(state['data'], key=salt, digest_size=16).hexdigest()}", flush=True)
runner.finish()
