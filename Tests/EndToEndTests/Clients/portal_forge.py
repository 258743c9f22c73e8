#!/usr/bin/python3
"""portal_forge.py - a hostile app granted --talk=org.freedesktop.secrets calls the portal
backend itself, on org.freedesktop.secrets, for another app's id (docs/design/sandboxed-apps.md
F9: gnome-keyring 42 hands it that app's key). Ported from /work/notes/issue28/proxied_client.py.

    sandbox.py --app org.example.Hostile --rule=--talk=org.freedesktop.secrets ... -- \\
        /usr/bin/python3 portal_forge.py VICTIM_APP_ID --expect-error NAME

Standard input: one line, the per-test salt in hex. Prints the harness's ok/FAIL lines, then
`bytes N` and `digest HEX` (BLAKE2b-128 keyed with the salt) over what reached the pipe, so the
test can compare it with the victim's own digest; key bytes are never printed.
"""

import argparse
import hashlib
import os
import sys

import dbus
import dbus.bus

from harness import HANG_GUARD, Runner, check

parser = argparse.ArgumentParser()
parser.add_argument("victim")
parser.add_argument("--expect-error", required=True)
options = parser.parse_args()
salt = bytes.fromhex(sys.stdin.readline().strip())
bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
runner = Runner()
state = {"data": b""}


def forge():
    read_end, write_end = os.pipe()
    try:
        reply = bus.call_blocking(
            "org.freedesktop.secrets", "/org/freedesktop/portal/desktop", "org.freedesktop.impl.portal.Secret",
            "RetrieveSecret", "osha{sv}",
            ("/org/freedesktop/portal/desktop/request/1_999/forged", options.victim, dbus.types.UnixFd(write_end),
             {}), timeout=HANG_GUARD)
        state["outcome"] = f"response {int(reply[0])}"
    except dbus.DBusException as error:
        state["outcome"] = f"error {error.get_dbus_name()}"
    os.close(write_end)
    os.set_blocking(read_end, False)
    try:
        while chunk := os.read(read_end, 4096):
            state["data"] += chunk
    except BlockingIOError:
        pass
    os.close(read_end)
    check(state["outcome"] == f"error {options.expect_error}", state["outcome"])


def pipe_is_empty():
    check(not state["data"], f"{len(state['data'])} bytes reached the pipe")


runner.case(f"the backend called directly for {options.victim} answers {options.expect_error}", forge)
runner.case("nothing reaches the forged call's pipe", pipe_is_empty)
print(f"bytes {len(state['data'])}", flush=True)
print(f"digest {hashlib.blake2b(state['data'], key=salt, digest_size=16).hexdigest()}", flush=True)
runner.finish()
