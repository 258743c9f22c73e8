#!/usr/bin/python3
"""slot_attack.py - a hostile client of the same user against io.puff.Control1's slot methods
(issue 26, docs/unlock-slots.md).

    /usr/bin/python3 slot_attack.py COLLECTION

DBUS_SESSION_BUS_ADDRESS names the bus. The collection's passcode is "right pass"; the client
does not know it. Adding a slot (a passcode of its own, a recovery code sent to itself) or
removing one without a proof that opens the collection is refused (WrongPasscode, or InvalidArgs
for no proof at all); a recovery code is never written into a regular file, even with the right
proof (InvalidArgs); the slot list is the same before and after.

Prints `ok <case>` or `FAIL <case>: <reason>`, then `N passed, M failed`. Never prints a secret.
"""

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbus  # noqa: E402
import dbus.bus  # noqa: E402

from control_bus import CONTROL, CONTROL_NAME, CONTROL_PATH, expect_error, pipe_carrying, pipe_left_empty  # noqa: E402
from harness import HANG_GUARD, Runner, check  # noqa: E402

WRONG = "io.puff.Error.WrongPasscode"
INVALID = "org.freedesktop.DBus.Error.InvalidArgs"


def call(member, *args, signature):
    bus = dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])
    proxy = bus.get_object(CONTROL_NAME, CONTROL_PATH, introspect=False)
    try:
        reply = proxy.get_dbus_method(member, CONTROL)(*args, signature=signature, timeout=HANG_GUARD)
        return reply, None
    except dbus.exceptions.DBusException as error:
        return None, error.get_dbus_name()
    finally:
        bus.close()


def slots(collection):
    reply, error = call("ListSlots", collection, signature="s")
    check(error is None, f"ListSlots answered {error}")
    return sorted((int(s["id"]), str(s["type"])) for s in reply)


def main():
    collection = sys.argv[1]
    runner = Runner()
    no_options = dbus.Dictionary({}, signature="sv")
    before = {}

    def list_before():
        before["slots"] = slots(collection)
        check(len(before["slots"]) >= 1, "the collection lists no slot")

    def add_passcode_with_wrong_proof():
        expect_error(call("AddSlot", collection, "passcode", no_options, pipe_carrying(b"guessed pass"),
                          pipe_carrying(b"attacker pass"), signature="ssa{sv}hh"), (WRONG,), "AddSlot(passcode)")

    def add_recovery_with_wrong_proof():
        with pipe_left_empty("a refused AddSlot wrote into the code pipe") as secret:
            expect_error(call("AddSlot", collection, "recovery", no_options, pipe_carrying(b"guessed pass"), secret,
                              signature="ssa{sv}hh"), (WRONG,), "AddSlot(recovery)")

    def add_with_empty_proof():
        expect_error(call("AddSlot", collection, "passcode", no_options, pipe_carrying(b""),
                          pipe_carrying(b"attacker pass"), signature="ssa{sv}hh"), (INVALID,), "AddSlot, empty proof")

    def recovery_code_never_into_a_file():
        with tempfile.TemporaryFile() as target:
            secret = dbus.types.UnixFd(target.fileno())
            expect_error(call("AddSlot", collection, "recovery", no_options, pipe_carrying(b"right pass"), secret,
                              signature="ssa{sv}hh"), (INVALID,), "AddSlot(recovery) into a regular file")
            target.seek(0)
            check(target.read() == b"", "the recovery code was written into a regular file")

    def remove_with_wrong_proof():
        expect_error(call("RemoveSlot", collection, dbus.UInt16(1), no_options, pipe_carrying(b"guessed pass"),
                          signature="sqa{sv}h"), (WRONG,), "RemoveSlot")

    def list_unchanged():
        check(slots(collection) == before["slots"], "the slots changed")

    runner.case("ListSlots lists the slots", list_before)
    runner.case("AddSlot(passcode) with a wrong proof is refused", add_passcode_with_wrong_proof)
    runner.case("AddSlot(recovery) with a wrong proof is refused and writes nothing", add_recovery_with_wrong_proof)
    runner.case("AddSlot with an empty proof is refused", add_with_empty_proof)
    runner.case("a recovery code is never written into a regular file", recovery_code_never_into_a_file)
    runner.case("RemoveSlot with a wrong proof is refused", remove_with_wrong_proof)
    runner.case("the slots are unchanged", list_unchanged)
    runner.finish()


if __name__ == "__main__":
    main()
