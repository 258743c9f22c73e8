#!/usr/bin/python3
"""control_attack.py - a hostile client of the same user against io.puff.Control1 (issue 24 item 2).

    /usr/bin/python3 control_attack.py proxy
    /usr/bin/python3 control_attack.py consent ITEM_PATH
    /usr/bin/python3 control_attack.py agents ITEM_PATH
    /usr/bin/python3 control_attack.py restore ARCHIVE

DBUS_SESSION_BUS_ADDRESS names the bus (for `proxy`, xdg-dbus-proxy's socket with
`--filter --talk=org.freedesktop.secrets`, as Flatpak gives an app that may use the Secret
Service).

proxy:   through the proxy the Secret Service answers, but io.puff.Control1 is out of reach:
         calling it at /io/puff/Control on org.freedesktop.secrets (the connection the proxy lets
         us talk to) is an unknown object, and io.puff.Control itself is filtered.
consent: puffd runs with no prompter that reaches a person. Lifting the item's protection,
         allowing an executable and forgetting its deny rule are refused (NotConfirmed, or the
         old signature without consent refused as InvalidArgs); a wrong passcode is refused.
         ExportItems without consent hands nothing over; into a regular file (not a pipe) it
         is refused even with the right passcode.
agents:  puffd runs with the `agent` prompter. A first agent registers (it answers every
         question "deny" and notes the purposes); a second connection's RegisterAgent is refused
         after the first agent was asked to confirm, and a read of the protected item by the
         second connection is asked of the first agent, never of the second.

restore: puffd runs with no prompter that reaches a person. Restore with a valid backup of the
         same vault is refused without consent (NotConfirmed) and with a wrong passcode of the
         default collection (WrongPasscode): a same-user client cannot roll the vault back.

Prints `ok <case>` or `FAIL <case>: <reason>`, then `N passed, M failed`. Never prints a secret.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dbus  # noqa: E402
import dbus.bus  # noqa: E402
import dbus.service  # noqa: E402
from dbus.mainloop.glib import DBusGMainLoop  # noqa: E402
from gi.repository import GLib  # noqa: E402

from control_bus import CONTROL, CONTROL_NAME, CONTROL_PATH, expect_error, pipe_carrying, pipe_left_empty  # noqa: E402
from harness import HANG_GUARD, Failure, Runner, check  # noqa: E402

SECRETS = "org.freedesktop.secrets"
NOT_CONFIRMED = "io.puff.Error.NotConfirmed"
UNKNOWN = (
    "org.freedesktop.DBus.Error.UnknownObject",
    "org.freedesktop.DBus.Error.UnknownInterface",
    "org.freedesktop.DBus.Error.UnknownMethod",
)

DBusGMainLoop(set_as_default=True)


def connect():
    return dbus.bus.BusConnection(os.environ["DBUS_SESSION_BUS_ADDRESS"])


def call(bus, name, path, interface, member, *args, signature=None, timeout=HANG_GUARD):
    """Calls asynchronously and runs the main loop until the reply, so that objects this
    process serves (agents) answer meanwhile. Returns (reply, error name or None)."""
    loop = GLib.MainLoop()
    outcome = {}

    def replied(*values):
        outcome["reply"] = values
        loop.quit()

    def failed(error):
        outcome["error"] = error.get_dbus_name()
        loop.quit()

    bus.call_async(
        name, path, interface, member, signature, args, replied, failed, timeout=timeout)
    loop.run()
    return outcome.get("reply"), outcome.get("error")


def no_consent():
    return dbus.Dictionary({}, signature="sv")


def run_proxy(runner):
    bus = connect()

    def secret_service_answers():
        reply, error = call(
            bus, SECRETS, "/org/freedesktop/secrets", "org.freedesktop.DBus.Properties", "Get",
            "org.freedesktop.Secret.Service", "Collections", signature="ss")
        check(error is None, f"the proxy let no Secret Service call through: {error}")

    def control_on_secrets_connection_is_unknown():
        expect_error(call(bus, SECRETS, CONTROL_PATH, CONTROL, "Status"), UNKNOWN, "Status on org.freedesktop.secrets")

    def control_introspection_shows_nothing():
        reply, error = call(
            bus, SECRETS, "/io/puff", "org.freedesktop.DBus.Introspectable", "Introspect")
        check(error is not None or "Control" not in str(reply[0]), "/io/puff lists Control on the secrets connection")

    def control_name_is_filtered():
        reply, error = call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "Status")
        check(error is not None, "the proxy let a call to io.puff.Control through")

    def unprotect_through_secrets_name_is_unknown():
        # The attack of issue 24 item 2 as it was: switch protection off under the secrets name.
        expect_error(
            call(bus, SECRETS, CONTROL_PATH, CONTROL, "SetProtected",
                 dbus.ObjectPath("/org/freedesktop/secrets/collection/login/1"), False, signature="ob"),
            UNKNOWN, "SetProtected on org.freedesktop.secrets")

    runner.case("the Secret Service answers through the proxy", secret_service_answers)
    runner.case("io.puff.Control1 is an unknown object on the secrets connection", control_on_secrets_connection_is_unknown)
    runner.case("the secrets connection lists no /io/puff/Control", control_introspection_shows_nothing)
    runner.case("the proxy keeps io.puff.Control out of reach", control_name_is_filtered)
    runner.case("SetProtected under the secrets name reaches nothing", unprotect_through_secrets_name_is_unknown)


def run_consent(runner, item):
    bus = connect()
    item = dbus.ObjectPath(item)
    refused = (NOT_CONFIRMED,)
    # The old signatures, without consent, must not do it either.
    old = ("org.freedesktop.DBus.Error.InvalidArgs", NOT_CONFIRMED)

    def wrong_passcode_pipe():
        return dbus.Dictionary({"passcode": pipe_carrying(b"wrong pass")}, signature="sv")

    cases = [
        ("unprotect without consent is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "SetProtected", item, False, no_consent(),
                                   signature="oba{sv}"), refused, "SetProtected(false)")),
        ("unprotect in the old form is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "SetProtected", item, False,
                                   signature="ob"), old, "SetProtected(false) without consent")),
        ("allowing an executable without consent is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "SetAccess", item, "/usr/bin/env", True,
                                   no_consent(), signature="osba{sv}"), refused, "SetAccess(allow)")),
        ("allowing in the old form is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "SetAccess", item, "/usr/bin/env", True,
                                   signature="osb"), old, "SetAccess(allow) without consent")),
        ("forgetting a deny rule without consent is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "RevokeAccess", item, "/usr/bin/denied",
                                   no_consent(), signature="osa{sv}"), refused, "RevokeAccess(deny rule)")),
        ("forgetting every rule without consent is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "RevokeAccess", item, "",
                                   no_consent(), signature="osa{sv}"), refused, "RevokeAccess(every rule)")),
        ("forgetting in the old form is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "RevokeAccess", item, "/usr/bin/denied",
                                   signature="os"), old, "RevokeAccess without consent")),
        ("unprotect with a wrong passcode is refused",
         lambda: expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "SetProtected", item, False,
                                   wrong_passcode_pipe(), signature="oba{sv}"),
                              ("io.puff.Error.WrongPasscode",), "SetProtected(false) with a wrong passcode")),
    ]

    def export_without_consent():
        # Nobody can be asked: refused, and not one byte reached the pipe.
        with pipe_left_empty("ExportItems without consent wrote to the pipe") as items:
            expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "ExportItems", "login", items, no_consent(),
                              signature="sha{sv}"), refused, "ExportItems without consent")

    def export_into_a_regular_file():
        # The secrets never go to a disk, even with the right passcode: only a pipe is written.
        import tempfile
        with tempfile.TemporaryFile() as target:
            consent = dbus.Dictionary({"passcode": pipe_carrying(b"right pass")}, signature="sv")
            expect_error(call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "ExportItems", "login",
                              dbus.types.UnixFd(target.fileno()), consent, signature="sha{sv}"),
                         ("org.freedesktop.DBus.Error.InvalidArgs",), "ExportItems into a regular file")
            check(os.fstat(target.fileno()).st_size == 0, "ExportItems wrote into a regular file")

    cases += [
        ("exporting without consent is refused and hands nothing over", export_without_consent),
        ("exporting into a regular file instead of a pipe is refused", export_into_a_regular_file),
    ]
    for name, body in cases:
        runner.case(name, body)


class RecordingAgent(dbus.service.Object):
    """An agent answering every question `deny`, noting each question's purpose."""

    def __init__(self, bus):
        super().__init__(bus, "/io/puff/Agent")
        self.purposes = []

    @dbus.service.method("io.puff.Agent1", in_signature="a{sv}h", out_signature="b")
    def Ask(self, question, answer):
        self.purposes.append(str(question.get("purpose", "")))
        fd = answer.take()
        os.write(fd, b"deny")
        os.close(fd)
        return True

    @dbus.service.method("io.puff.Agent1", in_signature="", out_signature="")
    def Cancel(self):
        pass


def run_agents(runner, item):
    first_bus, second_bus = connect(), connect()
    first, second = RecordingAgent(first_bus), RecordingAgent(second_bus)
    path = dbus.ObjectPath("/io/puff/Agent")

    def first_registers():
        reply, error = call(first_bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "RegisterAgent", path, signature="o")
        check(error is None, f"the first agent was refused: {error}")

    def second_is_refused():
        expect_error(call(second_bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "RegisterAgent", path, signature="o"),
                     (NOT_CONFIRMED,), "a second RegisterAgent")
        check(first.purposes == ["confirm-change"], f"the first agent was asked {first.purposes}")

    def second_cannot_confirm_its_own_read():
        reply, error = call(
            second_bus, SECRETS, "/org/freedesktop/secrets", "org.freedesktop.Secret.Service", "OpenSession",
            "plain", dbus.String("", variant_level=1), signature="sv")
        check(error is None, f"OpenSession: {error}")
        session = reply[1]
        reply, error = call(
            second_bus, SECRETS, item, "org.freedesktop.Secret.Item", "GetSecret", session, signature="o")
        check(error is not None, "the protected item's secret was released")
        check(second.purposes == [], f"the second connection's agent was asked {second.purposes}")
        check(first.purposes[-1:] == ["confirm-read"], f"the first agent was asked {first.purposes}")

    runner.case("the first agent registers", first_registers)
    runner.case("a second agent is refused once the first says no", second_is_refused)
    runner.case("the second connection cannot confirm its own read", second_cannot_confirm_its_own_read)


def run_restore(runner, archive):
    bus = connect()

    def restore(options):
        fd = os.open(archive, os.O_RDONLY)
        try:
            return call(bus, CONTROL_NAME, CONTROL_PATH, CONTROL, "Restore", dbus.types.UnixFd(fd),
                        dbus.Dictionary(options, signature="sv"), signature="ha{sv}")
        finally:
            os.close(fd)

    def wrong_passcode():
        return restore({"name": "hostile", "passcode": pipe_carrying(b"wrong pass")})

    runner.case("Restore without consent is refused",
                lambda: expect_error(restore({"name": "hostile"}), (NOT_CONFIRMED,), "Restore without consent"))
    runner.case("Restore with a wrong passcode is refused",
                lambda: expect_error(wrong_passcode(), ("io.puff.Error.WrongPasscode",), "Restore, wrong passcode"))


def main():
    runner = Runner()
    mode = sys.argv[1]
    if mode == "proxy":
        run_proxy(runner)
    elif mode == "consent":
        run_consent(runner, sys.argv[2])
    elif mode == "agents":
        run_agents(runner, sys.argv[2])
    elif mode == "restore":
        run_restore(runner, sys.argv[2])
    else:
        raise Failure(f"unknown mode {mode}")
    runner.finish()


if __name__ == "__main__":
    main()
